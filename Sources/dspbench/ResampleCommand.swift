// dspbench resample --in IN --out OUT --rate R: resample a file with Resampler, timing the
// processing alone (file I/O excluded).
import ArgumentParser
import CLISupport
import CBenchSupport
import DSPCore
import DSPIO
import Foundation
import Logging

struct ResampleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resample",
        abstract: "Resample an audio file to a Float32 WAV, reporting time (I/O excluded), × real time, latency and length.",
        discussion: """
            A benchmark of the resampler: the whole file is read first, then pushed through \
            Resampler --chunk frames (per channel) at a time (the whole file at once without \
            --chunk), flushed, and written. By default the leading delay is trimmed, so the \
            output has exactly round(N × rate / input rate) frames for N input frames. To convert \
            files for a recognizer (16 kHz mono PCM S16LE WAV or FLAC, folders mirrored, many \
            files in parallel), use dspscore convert.
            """)

    @Option(name: .customLong("in"), help: "Input audio file (any format libsndfile reads).")
    var inputPath: String

    @Option(name: .customLong("out"), help: "Output WAV file (Float32), overwritten.")
    var outputPath: String

    @Option(help: "Output sample rate, in Hz.")
    var rate: Int

    @Option(help: "Quality preset: \(QualityArgument.allValueStrings.joined(separator: ", ")).")
    var quality: QualityArgument = .default

    @Option(help: "Frames (samples per channel) per push; the whole file when absent.")
    var chunk: Int?

    @Flag(inversion: .prefixedNo, help: "Trim the leading delay (exact output length).")
    var trimDelay = true

    @Flag(help: "Write one JSON object to stdout instead of text.")
    var json = false

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if let chunk, chunk < 1 { throw ValidationError("--chunk must be at least 1") }
    }

    /// The words for the resampler's parameters in its errors: the option, or the input's property.
    static func optionNames(input: String) -> [String: String] {
        [
            "outputRate": "--rate", "inputRate": "sample rate of \(input)", "channelCount": "channel count of \(input)",
            "outputRate/inputRate": "--rate / sample rate of \(input)",
        ]
    }

    func run() throws {
        let logger = logging.bootstrap(label: "dspbench")
        let audio: InterleavedAudio
        do {
            audio = try InterleavedAudio(path: inputPath)
        } catch {
            logger.error("cannot read \(inputPath): \(error)")
            throw ExitCode(2)
        }
        let channels = audio.channelCount
        let resampler: Resampler
        let latencyFrames: Int
        do {
            resampler = try Resampler(
                inputRate: audio.sampleRate, outputRate: rate, channelCount: channels,
                quality: quality.preset, trimsLeadingDelay: trimDelay)
            latencyFrames = trimDelay
                ? try Resampler(inputRate: audio.sampleRate, outputRate: rate, channelCount: 1, quality: quality.preset).outputDelay
                : resampler.outputDelay
        } catch {
            logger.error("\(error.commandLineDescription(Self.optionNames(input: inputPath)))")
            throw ExitCode(2)
        }

        // Output memory for the whole stream, allocated before timing.
        let inputFrames = audio.frameCount
        let capacityFrames = (inputFrames * rate + audio.sampleRate - 1) / audio.sampleRate
            + resampler.maxFlushOutputCount / channels + 64
        let output = Scratch<Float>(count: capacityFrames * channels, repeating: 0)
        let chunkSamples = (chunk ?? Swift.max(inputFrames, 1)) * channels
        logger.info("resampling \(inputPath): \(inputFrames) frames at \(audio.sampleRate) Hz, \(channels) ch → \(rate) Hz, \(quality.preset)")

        var written = 0
        var offset = 0
        var overflow = false
        let input = UnsafeBufferPointer(audio.samples.buffer)
        cbs_allocation_counting_begin()
        let cpu0 = Clock.threadCPU()
        let wall0 = Clock.monotonic()
        while offset < input.count {
            let piece = UnsafeBufferPointer(rebasing: input[offset..<Swift.min(offset + chunkSamples, input.count)])
            let room = UnsafeMutableBufferPointer(rebasing: output.buffer[written...])
            if resampler.maxOutputCount(forInputCount: piece.count) > room.count { overflow = true; break }
            let result = resampler.process(piece, into: room)
            written += result.produced
            offset += result.consumed
            if result.consumed == 0 { overflow = true; break }
        }
        if !overflow {
            let room = UnsafeMutableBufferPointer(rebasing: output.buffer[written...])
            if resampler.pendingFlushOutputCount <= room.count {
                written += resampler.flush(into: room)
            } else {
                overflow = true
            }
        }
        let wall1 = Clock.monotonic()
        let cpu1 = Clock.threadCPU()
        let allocations = cbs_allocation_counting_end()
        if overflow {
            logger.error("internal error: the output buffer was too small")
            throw ExitCode(1)
        }

        do {
            let writer = try AudioFileWriter(path: outputPath, format: .wavFloat32, sampleRate: rate, channelCount: channels)
            try writer.write(UnsafeBufferPointer(rebasing: output.buffer[..<written]))
            try writer.close()
        } catch {
            logger.error("cannot write \(outputPath): \(error)")
            throw ExitCode(2)
        }

        let cpuSeconds = Double(cpu1 &- cpu0) * 1e-9
        let wallSeconds = Double(wall1 &- wall0) * 1e-9
        let inputSeconds = Double(inputFrames) / Double(audio.sampleRate)
        let record = ResampleRecord(
            input: inputPath, output: outputPath, inputRate: audio.sampleRate, outputRate: rate,
            channels: channels, quality: quality.preset.description, chunkFrames: chunk,
            trimsLeadingDelay: trimDelay, inputFrames: inputFrames, outputFrames: written / channels,
            expectedOutputFrames: Int((Double(inputFrames) * Double(rate) / Double(audio.sampleRate)).rounded()),
            durationSeconds: inputSeconds, cpuSeconds: cpuSeconds, wallSeconds: wallSeconds,
            xRealtime: inputFrames > 0 ? finite(inputSeconds / cpuSeconds) : nil,
            xRealtimeWall: inputFrames > 0 ? finite(inputSeconds / wallSeconds) : nil,
            latencyFrames: latencyFrames, latencySeconds: Double(latencyFrames) / Double(rate),
            groupDelaySeconds: resampler.groupDelaySeconds, outputDelayFrames: resampler.outputDelay,
            filterLength: resampler.filterLength, tapsPerPhase: resampler.tapsPerPhase,
            allocations: AllocationCounter.isSupported ? Int(allocations.allocations) : nil,
            library: .current, buildConfiguration: buildConfiguration, date: isoDateNow, commandLine: commandLineText)
        print(json ? try JSONOutput.encode(record) : record.text)
    }
}

/// `--quality` values.
enum QualityArgument: String, ExpressibleByArgument, CaseIterable {
    case lowLatency = "low-latency"
    case `default`
    case high

    init?(argument: String) {
        switch argument.lowercased() {
        case "low-latency", "lowlatency", "low": self = .lowLatency
        case "default", "medium": self = .default
        case "high": self = .high
        default: return nil
        }
    }

    var preset: Resampler.Quality {
        switch self {
        case .lowLatency: .lowLatency
        case .default: .default
        case .high: .high
        }
    }
}

/// A whole file in memory, interleaved.
struct InterleavedAudio {
    let samples: Scratch<Float>
    let sampleRate: Int
    let channelCount: Int
    var frameCount: Int { samples.buffer.count / channelCount }

    init(path: String) throws(AudioFileError) {
        let reader = try AudioFileReader(path: path)
        let total = reader.frameCount * reader.channelCount
        let samples = Scratch<Float>(count: total, repeating: 0)
        var filled = 0
        while filled < total {
            let got = try reader.read(into: UnsafeMutableBufferPointer(rebasing: samples.buffer[filled...]))
            if got == 0 { break }
            filled += got
        }
        reader.close()
        if filled < total {
            let trimmed = Scratch<Float>(count: filled, repeating: 0)
            for i in 0..<filled { trimmed.buffer[i] = samples.buffer[i] }
            self.samples = trimmed
        } else {
            self.samples = samples
        }
        sampleRate = reader.sampleRate
        channelCount = reader.channelCount
    }
}

/// What `dspbench resample` reports (schema `dspbench.resample/1`).
struct ResampleRecord: Encodable {
    var schema = "dspbench.resample/1"
    var input: String
    var output: String
    var inputRate: Int
    var outputRate: Int
    var channels: Int
    var quality: String
    var chunkFrames: Int?
    var trimsLeadingDelay: Bool
    var inputFrames: Int
    var outputFrames: Int
    /// round(inputFrames × outputRate / inputRate): what a trimmed stream must produce.
    var expectedOutputFrames: Int
    var durationSeconds: Double
    /// Processing only (process + flush), this thread's CPU time and wall time.
    var cpuSeconds: Double
    var wallSeconds: Double
    var xRealtime: Double?
    var xRealtimeWall: Double?
    /// The stream latency, in output frames and seconds: Resampler.outputDelay untrimmed.
    var latencyFrames: Int
    var latencySeconds: Double
    var groupDelaySeconds: Double
    /// Resampler.outputDelay as configured (0 when trimmed).
    var outputDelayFrames: Int
    var filterLength: Int
    var tapsPerPhase: Int
    /// Heap allocation calls during processing (nil: not counted on this platform).
    var allocations: Int?
    var library: RunReport.LibraryInfo
    var buildConfiguration: String
    var date: String
    var commandLine: String

    enum CodingKeys: String, CodingKey {
        case schema, input, output, inputRate = "input_rate", outputRate = "output_rate", channels, quality
        case chunkFrames = "chunk_frames", trimsLeadingDelay = "trims_leading_delay", inputFrames = "input_frames"
        case outputFrames = "output_frames", expectedOutputFrames = "expected_output_frames"
        case durationSeconds = "duration_seconds", cpuSeconds = "cpu_seconds", wallSeconds = "wall_seconds"
        case xRealtime = "x_realtime", xRealtimeWall = "x_realtime_wall", latencyFrames = "latency_frames"
        case latencySeconds = "latency_seconds", groupDelaySeconds = "group_delay_seconds"
        case outputDelayFrames = "output_delay_frames", filterLength = "filter_length", tapsPerPhase = "taps_per_phase"
        case allocations, library, buildConfiguration = "build_configuration", date, commandLine = "command_line"
    }

    var text: String {
        [
            "input:       \(input) (\(inputFrames) frames, \(inputRate) Hz, \(channels) ch, \(String(format: "%.3f", durationSeconds)) s)",
            "output:      \(output) (\(outputFrames) frames, \(outputRate) Hz, Float32 WAV; expected \(expectedOutputFrames))",
            "quality:     \(quality), \(tapsPerPhase) taps per phase (filter \(filterLength))",
            "chunk:       \(chunkFrames.map { "\($0) frames" } ?? "whole file")",
            String(format: "processing:  %.6f s CPU, %.6f s wall (file I/O excluded)", cpuSeconds, wallSeconds),
            "× real time: \(RunReport.speed(xRealtime)) (CPU), \(RunReport.speed(xRealtimeWall)) (wall)",
            String(format: "latency:     %d output frames (%.3f ms)", latencyFrames, 1000 * latencySeconds)
                + (trimsLeadingDelay ? ", trimmed from the file" : ", kept in the file"),
            "allocations: \(allocations.map(String.init) ?? "not counted")",
        ].joined(separator: "\n")
    }
}
