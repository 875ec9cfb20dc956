// dspbench detect --in FILE: run the detection stack on a file, timing detection alone, and
// optionally dump every analysis frame (features, cues, probabilities) as CSV.
import ArgumentParser
import CLISupport
import CBenchSupport
import DSPCore
import DSPDetection
import DSPIO
import Foundation
import Logging

struct DetectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract: "Run voice-activity, music and multi-speaker detection on a file; report × real time and ratios.",
        discussion: """
            The file is read, mixed to mono and resampled to 16 kHz first (not timed); the \
            detector then runs over 1024-sample pushes, timed on the thread's CPU clock. \
            --frames writes one CSV row per 16 ms analysis frame: the features, the cues and \
            the three probabilities and decisions (the data the models are fitted on). Its \
            noise_floor_cue_dbfs is the cue tracker's floor, a detection cue that speech pulls \
            up; the background level (the noise under the speech) is the summary's \
            noise_floor_dbfs and dspscore's environment.noise_dbfs.
            """)

    @Option(name: .customLong("in"), help: "Input audio file (any format libsndfile reads).")
    var inputPath: String

    @Option(help: "Write per-frame features, cues and decisions to this CSV file.")
    var frames: String?

    @Option(help: "Passes over the audio for timing (the best is reported).")
    var repeats = 3

    @Flag(help: "Write one JSON object to stdout instead of text.")
    var json = false

    @Option(help: "Detect with this detection network (DetectionNetwork's JSON, as scripts/detect/train_network.py --export writes it) instead of the per-task models.")
    var network: String?

    @Flag(inversion: .prefixedNo, help: "Blend the fitted detection network into voice activity (DefaultModels.speechBlend, the default; docs/detection.md, Results); --no-speech-blend measures the speech model alone.")
    var speechBlend = true

    @Flag(inversion: .prefixedNo, help: "Keep steady pure tones and sounds whose spectrum holds still out of voice activity (AcousticDetector.Configuration.gatesPureTones, the default; docs/detection.md, Pipeline); --no-pure-tone-gate measures the detector without it.")
    var pureToneGate = true

    @Flag(inversion: .prefixedNo, help: "Read speech segments' edges from the hops' own power (AcousticDetector.Configuration.speechBoundaries, the default; docs/detection.md, Fitting); --no-speech-boundaries measures the detector without it.")
    var speechBoundaries = true

    @OptionGroup var logging: LoggingOptions

    func run() throws {
        let logger = logging.bootstrap(label: "dspbench")
        let mono: [Float]
        do {
            mono = try Self.readMono16k(path: inputPath)
        } catch let error as ConfigurationError {
            logger.error("cannot condition \(inputPath) to 16 kHz mono: \(error.commandLineDescription(["inputRate": "sample rate of \(inputPath)", "channelCount": "channel count of \(inputPath)"]))")
            throw ExitCode(2)
        } catch {
            logger.error("cannot read \(inputPath): \(error)")
            throw ExitCode(2)
        }
        var configuration = AcousticDetector.Configuration()
        configuration.speechBlend = speechBlend ? DefaultModels.speechBlend : nil
        configuration.gatesPureTones = pureToneGate
        if !speechBoundaries { configuration.speechBoundaries = nil }
        if let network {
            do {
                configuration.network = try JSONDecoder().decode(DetectionNetwork.self, from: Data(contentsOf: URL(fileURLWithPath: network)))
            } catch {
                logger.error("cannot read the network \(network): \(error)")
                throw ExitCode(2)
            }
        }
        let detector: AcousticDetector
        do {
            detector = try AcousticDetector(configuration: configuration)
        } catch {
            logger.error("\(network ?? "the configuration") is not a valid detection network: \(error.commandLineDescription([:]))")
            throw ExitCode(2)
        }
        var best = Double.infinity
        var summary = DetectionSummary()
        for _ in 0..<max(1, repeats) {
            let cpu0 = Clock.threadCPU()
            var frameCount = 0
            mono.withUnsafeBufferPointer { all in
                var offset = 0
                while offset < all.count {
                    let end = min(all.count, offset + 1024)
                    detector.process(UnsafeBufferPointer(rebasing: all[offset..<end])) { _ in frameCount += 1 }
                    offset = end
                }
            }
            summary = detector.flush { _ in frameCount += 1 }.summary
            best = min(best, Double(Clock.threadCPU() &- cpu0) * 1e-9)
        }
        if let frames {
            // Columns: time and levels, the model lanes by name (CueLane), then outputs.
            let cueLanes = CueLane.allCases.filter(\.isCue)
            let cueNames = cueLanes.map(\.name)
            var csv = (["time", "level_dbfs", "noise_floor_cue_dbfs", "pitch_hz", "pitch1_hz", "pitch2_hz"] + cueNames
                + ["p_music_prev", "p_speech", "p_music", "p_multi", "speech", "music", "multi"]).joined(separator: ",") + "\n"
            var lanes = [Float](repeating: 0, count: CueLane.count)
            var previousMusic: Float = 0
            let record = { (d: DetectionFrame) in
                let f = d.features, c = d.cues
                lanes.withUnsafeMutableBufferPointer { CueLane.fill($0.baseAddress!, features: f, cues: c) }
                let values: [Float] = [c.levelDBFS, c.noiseFloorDBFS, f.pitchHz, c.dominantPitchHz, c.secondPitchHz]
                    + cueLanes.map { lanes[$0.rawValue] }
                    + [previousMusic, d.speechProbability, d.musicProbability, d.multiSpeakerProbability]
                previousMusic = d.musicProbability
                csv += String(format: "%.3f", f.time)
                for v in values { csv += v.isFinite ? String(format: ",%.6g", v) : "," }
                csv += ",\(d.isSpeech ? 1 : 0),\(d.isMusic ? 1 : 0),\(d.isMultiSpeaker ? 1 : 0)\n"
            }
            mono.withUnsafeBufferPointer { all in
                var offset = 0
                while offset < all.count {
                    let end = min(all.count, offset + 1024)
                    detector.process(UnsafeBufferPointer(rebasing: all[offset..<end]), record)
                    offset = end
                }
            }
            _ = detector.flush(record)
            try csv.write(toFile: frames, atomically: true, encoding: .utf8)
        }
        let seconds = Double(mono.count) / 16_000
        let result = DetectRecord(
            input: inputPath, durationSeconds: seconds, cpuSeconds: best,
            xRealtime: best > 0 ? seconds / best : nil,
            speechRatio: summary.speechRatio, musicRatio: summary.musicRatio,
            multiSpeakerRatio: summary.multiSpeakerRatio,
            speechSegments: summary.speechSegmentCount,
            noiseFloorDBFS: summary.medianNoiseFloorDBFS.isFinite ? Double(summary.medianNoiseFloorDBFS) : nil)
        if json {
            print(try JSONOutput.encode(result))
        } else {
            print(String(format: "%@: %.2f s, detection %.1f ms CPU (%.0f× real time); speech %.2f, music %.2f, multi-speaker %.2f",
                         inputPath, seconds, best * 1000, result.xRealtime ?? 0, summary.speechRatio, summary.musicRatio, summary.multiSpeakerRatio))
        }
    }

    /// The file as 16 kHz mono Float32, conditioned as the front end and the scorer condition
    /// it (``StreamConditioner``: channel mean, default-quality resampler, delay trimmed).
    static func readMono16k(path: String) throws -> [Float] {
        let audio = try InterleavedAudio(path: path)
        let conditioner = try StreamConditioner(configuration: .init(
            inputRate: audio.sampleRate, channelCount: audio.channelCount, outputRate: 16_000))
        return conditioner.processAll(Array(audio.samples.buffer))
    }
}

/// What `dspbench detect` reports (schema `dspbench.detect/1`).
struct DetectRecord: Encodable {
    var schema = "dspbench.detect/1"
    let input: String
    let durationSeconds: Double
    let cpuSeconds: Double
    let xRealtime: Double?
    let speechRatio: Double
    let musicRatio: Double
    let multiSpeakerRatio: Double
    let speechSegments: Int
    /// The summary's median background-noise reading, dBFS; `null` (written, not left out) when
    /// the median reading found a digitally silent background.
    let noiseFloorDBFS: Double?

    enum CodingKeys: String, CodingKey {
        case schema, input, durationSeconds = "duration_seconds", cpuSeconds = "cpu_seconds", xRealtime = "x_realtime"
        case speechRatio = "speech_ratio", musicRatio = "music_ratio", multiSpeakerRatio = "multi_speaker_ratio"
        case speechSegments = "speech_segments", noiseFloorDBFS = "noise_floor_dbfs"
    }

    /// Every field, `noise_floor_dbfs` as `null` when there is none (a synthesized encoder would
    /// leave it out); `x_realtime` is left out when not timed, as before.
    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(schema, forKey: .schema)
        try c.encode(input, forKey: .input)
        try c.encode(durationSeconds, forKey: .durationSeconds)
        try c.encode(cpuSeconds, forKey: .cpuSeconds)
        try c.encodeIfPresent(xRealtime, forKey: .xRealtime)
        try c.encode(speechRatio, forKey: .speechRatio)
        try c.encode(musicRatio, forKey: .musicRatio)
        try c.encode(multiSpeakerRatio, forKey: .multiSpeakerRatio)
        try c.encode(speechSegments, forKey: .speechSegments)
        try c.encode(noiseFloorDBFS, forKey: .noiseFloorDBFS)
    }
}
