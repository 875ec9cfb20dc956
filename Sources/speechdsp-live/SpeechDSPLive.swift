// speechdsp-live: reads an audio file as if it were a live stream and prints what the front end
// reports as it happens. The code a service author copies: one SpeechFrontEnd per stream,
// buffers sized once, process per incoming chunk, events handled after each call, flush at the end.
import ArgumentParser
import CLISupport
import DSPAnalysis
import DSPDetection
import DSPCore
import DSPIO
import DSPPipeline
import Foundation

@main
struct SpeechDSPLive: ParsableCommand {
    /// Runs the command with ``ToolMain`` (a failure on a non-terminal stderr is one JSON line).
    static func main() {
        ToolMain.run(Self.self, label: "speechdsp-live", arguments: Array(CommandLine.arguments.dropFirst()))
    }

    static let configuration = CommandConfiguration(
        commandName: "speechdsp-live",
        abstract: "Stream an audio file through SpeechDSP's front end and print its events as they happen.",
        discussion: """
            Reads FILE (any format libsndfile reads: WAV, FLAC, ...) in chunks as a client would send \
            them — fixed-size, or random-sized with --random-chunks — paced at real time with \
            --realtime or as fast as possible, through one SpeechFrontEnd: 16 kHz PCM S16LE out \
            (--pcm-out), speech start/end, environment updates and clipping printed on stdout with \
            their stream time. See docs/front-end.md.
            """,
        version: ToolVersion.text(tool: "speechdsp-live"))

    @Argument(help: "The audio file to stream.")
    var file: String

    @Flag(help: "Pace the pushes with a clock at real time (as a live client would), instead of as fast as possible.")
    var realtime = false

    @Option(help: "Frames (per channel) per push. Default 1024.")
    var chunk: Int = 1024

    @Flag(help: "Push random-sized chunks of 1…2×--chunk frames (a client that sends what it has).")
    var randomChunks = false

    @Flag(help: "Also print a level line for every 64 ms analysis frame.")
    var levels = false

    @Option(help: "Write the 16 kHz mono PCM S16LE stream to this file (raw, no header).")
    var pcmOut: String?

    @Flag(inversion: .prefixedNo, help: """
        Blend the fitted detection network into voice activity (the default; SpeechFrontEnd.Configuration.detector's \
        speechBlend). --no-speech-blend uses the speech model alone: a stream's first half second and the material's one \
        real conversation heard better, music and noise worse (docs/front-end.md, Detection settings).
        """)
    var speechBlend = true

    @Flag(inversion: .prefixedNo, help: """
        Keep steady pure tones and sounds whose spectrum holds still out of voice activity (the default; \
        the detector's gatesPureTones).
        """)
    var pureToneGate = true

    @Flag(inversion: .prefixedNo, help: """
        Read speech segments' edges from the hops' own power (the default; the detector's speechBoundaries): \
        an end moves back to the last hop that still sounds, a start back over the hops before it that already do.
        """)
    var speechBoundaries = true

    func validate() throws {
        guard (1...1_000_000).contains(chunk) else { throw ValidationError("--chunk must be in 1...1000000") }
    }

    func run() throws {
        let reader = try AudioFileReader(path: file)
        defer { reader.close() }
        let channels = reader.channelCount
        let rate = reader.sampleRate

        // 1. One front end per stream, configured once; buffers sized once for the largest push.
        let frontEnd: SpeechFrontEnd
        do {
            var configuration = SpeechFrontEnd.Configuration(inputRate: rate, channelCount: channels)
            if !speechBlend { configuration.detector.speechBlend = nil }
            configuration.detector.gatesPureTones = pureToneGate
            if !speechBoundaries { configuration.detector.speechBoundaries = nil }
            frontEnd = try SpeechFrontEnd(configuration: configuration)
        } catch {
            throw ToolFailure(error.commandLineDescription([
                "inputRate": "sample rate of \(file)", "channelCount": "channel count of \(file)",
            ]))
        }
        let maxFrames = randomChunks ? 2 * chunk : chunk
        let input = UnsafeMutableBufferPointer<Float>.allocate(capacity: maxFrames * channels)
        let output = UnsafeMutableBufferPointer<Int16>.allocate(
            capacity: Swift.max(frontEnd.outputCapacity(forInputCount: maxFrames * channels), frontEnd.maxFlushOutputCount))
        let events = FrontEndEventBuffer(
            capacity: Swift.max(frontEnd.maxEventCount(forInputCount: maxFrames * channels), frontEnd.maxFlushEventCount))
        defer {
            input.deallocate()
            output.deallocate()
        }
        let pcm = try pcmOut.map { path -> FileHandle in
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            guard let handle = FileHandle(forWritingAtPath: path) else { throw ValidationError("cannot write \(path)") }
            return handle
        }
        defer { try? pcm?.close() }

        print("\(file): \(rate) Hz, \(channels) ch, \(String(format: "%.2f", reader.durationSeconds)) s; stages: \(describe(frontEnd.stages)); audio latency \(String(format: "%.2f", frontEnd.latencySeconds * 1000)) ms")
        if !frontEnd.stages.contains(.detection) {
            print("(detection is off: no speech or environment events)")
        }

        var random = SystemRandomNumberGenerator()
        let clock = ContinuousClock()
        let started = clock.now
        var framesIn: Int64 = 0
        var samplesOut = 0
        while true {
            let frames = randomChunks ? Int.random(in: 1...maxFrames, using: &random) : chunk
            let got = try reader.readFrames(into: UnsafeMutableBufferPointer(rebasing: input[..<(frames * channels)]))
            if got == 0 { break }
            if realtime {
                // A live client sends a chunk once it has been captured: wait for the chunk's end.
                let due = started + .nanoseconds(Int64(Double(framesIn + Int64(got)) / Double(rate) * 1e9))
                let wait = due - clock.now
                if wait > .zero { Thread.sleep(forTimeInterval: Double(wait.components.attoseconds) * 1e-18 + Double(wait.components.seconds)) }
            }
            // 2. Process the chunk: audio into `output`, events into `events`.
            let result = frontEnd.process(UnsafeBufferPointer(rebasing: input[..<(got * channels)]), into: output, events: events)
            precondition(result.consumed == got * channels, "output buffer sized with outputCapacity(forInputCount:) takes every push")
            try send(UnsafeBufferPointer(rebasing: output[..<result.produced]), to: pcm)
            samplesOut += result.produced
            framesIn += Int64(got)
            // 3. Handle the events of this call.
            report(events)
        }
        // 4. End of stream: the tail of the audio, the last events, the summary.
        let flushed = frontEnd.flush(into: output, events: events)
        try send(UnsafeBufferPointer(rebasing: output[..<flushed.produced]), to: pcm)
        samplesOut += flushed.produced
        report(events)
        let elapsed = clock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        summarize(flushed.summary, samplesOut: samplesOut, wallSeconds: seconds, dropped: events.totalDroppedCount)
    }

    private func send(_ samples: UnsafeBufferPointer<Int16>, to handle: FileHandle?) throws {
        guard let handle, !samples.isEmpty else { return }
        var bytes = [UInt8](repeating: 0, count: samples.count * 2)
        for (i, s) in samples.enumerated() {
            let v = UInt16(bitPattern: s)
            bytes[2 * i] = UInt8(v & 0xFF)
            bytes[2 * i + 1] = UInt8(v >> 8)
        }
        try handle.write(contentsOf: bytes)
    }

    private func report(_ events: FrontEndEventBuffer) {
        for event in events {
            let stamp = "[\(pad(String(format: "%.3f", event.time.seconds), 9)) s]"
            switch event {
            case .started(let activity, _):
                print("\(stamp) \(activity) start")
            case .ended(let activity, _):
                print("\(stamp) \(activity) end")
            case .environment(let m, _):
                print("\(stamp) environment: noise \(db(m.noiseDBFS)) dBFS (\(db(m.noiseLevelDB)) dB, \(m.noiseCategory), from \(m.noiseSource)); music \(m.musicDetected ? "yes" : "no"), several speakers \(m.multipleSpeakersDetected ? "yes" : "no"); clarity \(String(format: "%.2f", m.speechClarity)), complexity \(String(format: "%.2f", m.frequencyComplexity)); key \(m.categoryKey) → \(m.recommendation)")
            case .clipping(let c):
                print("\(stamp) clipping: \(c.clippedSampleCount) clipped, \(c.nonFiniteSampleCount) non-finite samples in \(c.frameCount) frames")
            case .levels(let l):
                if levels {
                    print("\(stamp) level \(db(l.rmsDBFS)) dBFS RMS, peak \(db(l.peakDBFS)) dBFS, momentary \(db(l.momentaryLUFS)) LUFS")
                }
            }
        }
        if events.droppedCount > 0 { print("(\(events.droppedCount) events dropped: event buffer full)") }
    }

    private func summarize(_ s: FrontEndSummary, samplesOut: Int, wallSeconds: Double, dropped: Int) {
        print("end: \(String(format: "%.3f", s.durationSeconds)) s in, \(samplesOut) samples at 16 kHz out; \(s.clippedSampleCount) clipped, \(s.nonFiniteSampleCount) non-finite input samples; \(dropped) events dropped")
        if let loudness = s.loudness {
            // The loudness of what the recognizer gets (channels averaged, 16 kHz), not of the
            // file's own channels, which dspscore measures: docs/loudness.md, "Which loudness is which".
            print("loudness of the 16 kHz mono output: integrated \(db(loudness.integratedLUFS)) LUFS, max momentary \(db(loudness.maxMomentaryLUFS)) LUFS")
        }
        if let e = s.environment {
            let categories = NoiseCategory.allCases.map { "\($0) \(String(format: "%.1f", e.secondsInCategory[$0])) s" }.joined(separator: ", ")
            print("environment: \(categories); fast \(String(format: "%.1f", e.secondsFast)) s, accurate \(String(format: "%.1f", e.secondsAccurate)) s, \(e.recommendationChangeCount) changes")
        }
        if !realtime, wallSeconds > 0 {
            print("speed: \(String(format: "%.0f", s.durationSeconds / wallSeconds))× real time (wall clock, file reading included)")
        }
    }

    private func describe(_ stages: SpeechFrontEnd.Stages) -> String {
        let names: [(SpeechFrontEnd.Stages, String)] = [
            (.output, "output"), (.levels, "levels"), (.loudness, "loudness"), (.clipping, "clipping"),
            (.detection, "detection"), (.environment, "environment"),
        ]
        return names.filter { stages.contains($0.0) }.map(\.1).joined(separator: ", ")
    }

    private func db(_ value: Double) -> String {
        value.isNaN ? "n/a" : value == -.infinity ? "-inf" : String(format: "%.1f", value)
    }

    private func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: Swift.max(0, width - text.count)) + text
    }
}
