#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import DSPCore
import DSPIO
import Foundation

/// Converts audio files into a recognizer's input: by default 16 kHz mono 16-bit PCM WAV
/// (`dspscore convert`).
///
/// The chain is the one every SpeechDSP analysis runs on a file: ``/DSPIO/AudioFileReader`` →
/// `StreamConditioner` (`Downmixer`, then `Resampler` with its leading delay trimmed) →
/// `Int16Converter` → ``/DSPIO/AudioFileWriter``; with ``Configuration/Channels-swift.enum/keep`` a
/// multichannel `Resampler` replaces the conditioner. The output holds exactly
/// `round(N × outputRate / inputRate)` frames for N input frames, output sample `n` is input
/// time `n / outputRate`, and it does not depend on ``Configuration/blockFrames``. A NaN or
/// ±Inf input sample counts as 0 (``Result/nonFiniteSamples``); values beyond full scale after
/// resampling are clamped (``Result/clippedSamples``).
///
/// **Never a crash, never the input overwritten.** ``convert(_:to:overwrite:)`` returns a
/// ``Result`` with an error kind for a file it cannot read (the kinds of
/// ``FileScore/Failure``: `not_found`, `corrupt`, `truncated`, …; `unsupported` for a rate or
/// channel count the chain refuses) or cannot write (`output_exists` without `overwrite`;
/// `same_file` when the output is the input, whatever `overwrite` says; `io_failure`). The
/// output is written to `OUTPUT.partial` and renamed into place when complete, so a failed or
/// interrupted conversion never leaves a short file under the output's name.
///
/// Buffers grow to the largest block met and are then reused: one converter per thread.
public final class FileConverter {
    /// Conversion settings.
    public struct Configuration: Equatable, Sendable {
        /// The output container; the encoding is 16-bit PCM (PCM S16LE in WAV).
        public enum Container: String, CaseIterable, Sendable {
            /// RIFF WAVE, 16-bit PCM little-endian.
            case wav
            /// FLAC, 16 bits.
            case flac

            /// The libsndfile format written.
            public var format: AudioFileFormat { self == .wav ? .wavPCM16 : .flacPCM16 }
            /// The output file extension, without the dot.
            public var fileExtension: String { rawValue }
        }

        /// What becomes of the input's channels.
        public enum Channels: Equatable, Sendable {
            /// Mono: the equal-weight mean of the channels (`Downmixer.Mode.average`).
            case downmix
            /// Mono: one channel, zero-based (`Downmixer.Mode.channel`); a file with fewer
            /// channels fails with `unsupported`.
            case channel(Int)
            /// Every channel, each resampled (multichannel `Resampler`).
            case keep
        }

        /// Output sample rate, Hz. Range 1000…768 000; default 16 000.
        public var outputRate: Int
        /// Output container. Default ``Container/wav``.
        public var container: Container
        /// Channel handling. Default ``Channels/downmix``.
        public var channels: Channels
        /// Dither before rounding to 16 bits (`Int16Converter`); default none. A dithered
        /// conversion restarts the generator at each file, so outputs are reproducible.
        public var dither: Int16Converter.Dither
        /// Resampler preset. Default `Resampler.Quality.default` (the analyses' own).
        public var quality: Resampler.Quality
        /// Input frames read per block. Range 256…1 048 576; default 65 536. The output does not
        /// depend on it.
        public var blockFrames: Int

        /// Creates a configuration; see each property for its range and default.
        public init(
            outputRate: Int = 16_000, container: Container = .wav, channels: Channels = .downmix,
            dither: Int16Converter.Dither = .none, quality: Resampler.Quality = .default, blockFrames: Int = 65_536
        ) {
            self.outputRate = outputRate
            self.container = container
            self.channels = channels
            self.dither = dither
            self.quality = quality
            self.blockFrames = blockFrames
        }

        /// Throws the first setting out of range: `outputRate`, `blockFrames`, `channels.channel`
        /// (≥ 0).
        public func validate() throws(ConfigurationError) {
            try ConfigurationError.check("outputRate", outputRate, in: 1000...768_000)
            try ConfigurationError.check("blockFrames", blockFrames, in: 256...1 << 20)
            if case .channel(let index) = channels {
                try ConfigurationError.check("channels.channel", index, in: 0...63)
            }
        }
    }

    /// What became of one file.
    public struct Result: Equatable, Sendable {
        /// The input path, as given.
        public var inputPath: String
        /// The output path, as given.
        public var outputPath: String
        /// Whether the output was written.
        public var status: FileScore.Status = .error
        /// Why not, for `status == .error`.
        public var error: FileScore.Failure?
        /// The input's rate, Hz (nil when it could not be opened).
        public var inputSampleRate: Int?
        /// The input's channels (nil when it could not be opened).
        public var inputChannels: Int?
        /// The input's frames (nil when it could not be opened).
        public var inputFrames: Int?
        /// The output's rate, Hz.
        public var outputSampleRate: Int
        /// The output's channels (nil when nothing was written).
        public var outputChannels: Int?
        /// Frames written.
        public var outputFrames = 0
        /// Output samples clamped to the 16-bit range (after resampling a full-scale input can
        /// exceed it between its samples).
        public var clippedSamples = 0
        /// NaN or ±Inf input samples, converted as 0.
        public var nonFiniteSamples = 0

        /// The input's duration, seconds (0 when unknown).
        public var durationSeconds: Double {
            guard let rate = inputSampleRate, let frames = inputFrames, rate > 0 else { return 0 }
            return Double(frames) / Double(rate)
        }
    }

    /// The settings, as validated.
    public let configuration: Configuration
    private var input: UnsafeMutableBufferPointer<Float>
    private var floats: UnsafeMutableBufferPointer<Float>
    private var shorts: UnsafeMutableBufferPointer<Int16>

    /// Creates a converter; throws if a setting is out of range.
    public init(configuration: Configuration = Configuration()) throws(ConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        // Allocated once the settings are accepted: an initializer that throws runs no deinit.
        input = .allocate(capacity: 0)
        floats = .allocate(capacity: 0)
        shorts = .allocate(capacity: 0)
    }

    deinit {
        input.deallocate()
        floats.deallocate()
        shorts.deallocate()
    }

    /// Converts the file at `inputPath` into `outputPath`, creating the output's directory.
    /// Never throws: the ``Result`` says what happened.
    ///
    /// - Parameters:
    ///   - inputPath: The audio file to read (any format ``/DSPIO/AudioFileReader`` opens).
    ///   - outputPath: The file to write; its directory is created when missing.
    ///   - overwrite: Replace an existing `outputPath`; without it an existing output
    ///     is an `output_exists` error. An output that is the input (the same file, through any
    ///     path or link) is refused either way.
    public func convert(_ inputPath: String, to outputPath: String, overwrite: Bool = false) -> Result {
        var result = Result(inputPath: inputPath, outputPath: outputPath, outputSampleRate: configuration.outputRate)
        func fail(_ kind: String, _ message: String) -> Result {
            result.status = .error
            result.error = FileScore.Failure(kind: kind, message: "\(inputPath): \(message)")
            return result
        }
        if let failure = FileScorer.nonRegularFileFailure(path: inputPath) {
            result.error = failure
            return result
        }
        if Self.sameFile(inputPath, outputPath) {
            return fail("same_file", "the output \(outputPath) is the input file: refusing to write over it")
        }
        if !overwrite, Self.exists(outputPath) {
            return fail("output_exists", "the output \(outputPath) exists (overwrite to replace it)")
        }
        let partial = outputPath + ".partial"
        do throws(AudioFileError) {
            let reader = try AudioFileReader(path: inputPath)
            defer { reader.close() }
            result.inputSampleRate = reader.sampleRate
            result.inputChannels = reader.channelCount
            result.inputFrames = reader.frameCount
            if reader.frameCount == 0 { return fail("empty", "the file holds no audio (0 frames)") }
            let chain: Chain
            do throws(ConfigurationError) {
                chain = try Chain(configuration: configuration, inputRate: reader.sampleRate, channelCount: reader.channelCount)
            } catch {
                return fail("unsupported", error.fileDescription(channelCount: reader.channelCount))
            }
            if let problem = Self.makeDirectory(forFile: outputPath) { return fail("io_failure", problem) }
            let writer = try AudioFileWriter(
                path: partial, format: configuration.container.format, sampleRate: configuration.outputRate,
                channelCount: chain.outputChannels)
            var completed = false
            defer {
                if !completed {
                    try? writer.close()
                    _ = PathBytes.withCString(partial) { unlink($0) }
                }
            }
            let converter = Int16Converter(dither: configuration.dither)
            let channels = reader.channelCount
            reserve(&input, configuration.blockFrames * channels)
            while true {
                let frames = try reader.readFrames(into: input)
                if frames == 0 { break }
                let block = UnsafeMutableBufferPointer(rebasing: input[..<(frames * channels)])
                result.nonFiniteSamples += Self.zeroNonFinite(block)
                let produced = chain.process(UnsafeBufferPointer(block), into: &floats)
                try write(produced, converter: converter, to: writer)
            }
            let tail = chain.flush(into: &floats)
            try write(tail, converter: converter, to: writer)
            try writer.close()
            guard PathBytes.withCString(partial, { from in PathBytes.withCString(outputPath) { to in rename(from, to) } }) == 0 else {
                return fail("io_failure", "cannot rename \(partial) to \(outputPath): \(String(cString: strerror(errno)))")
            }
            completed = true
            result.status = .ok
            result.outputChannels = chain.outputChannels
            result.outputFrames = writer.framesWritten
            result.clippedSamples = converter.totalReport.clippedCount
            return result
        } catch {
            // Errors of the output name its path; errors of the input are the input's.
            if error.path == partial {
                return fail(FileScorer.kindName(error.kind), "writing \(outputPath): \(error.message)")
            }
            result.status = .error
            result.error = FileScore.Failure(kind: FileScorer.kindName(error.kind), message: error.description)
            return result
        }
    }

    /// Converts `count` samples of `floats` to 16 bits and writes them.
    private func write(_ count: Int, converter: Int16Converter, to writer: AudioFileWriter) throws(AudioFileError) {
        guard count > 0 else { return }
        reserve(&shorts, count)
        converter.convert(UnsafeBufferPointer(rebasing: floats[..<count]), into: shorts)
        try writer.write(UnsafeBufferPointer(rebasing: shorts[..<count]))
    }

    /// Grows `buffer` to at least `count` elements (contents not kept).
    private func reserve<T>(_ buffer: inout UnsafeMutableBufferPointer<T>, _ count: Int) {
        guard buffer.count < count else { return }
        buffer.deallocate()
        buffer = .allocate(capacity: count)
    }

    /// Converts the files of `plan` on `jobs` threads (one converter each), calling
    /// `emit(index, result)` on the calling thread in plan order; `emit` returns false to stop
    /// early. A file whose output another one writes (``PlannedFile/conflictsWith``) is not
    /// converted: its result is an `output_conflict` error.
    public static func convert(
        _ plan: [PlannedFile], jobs: Int, configuration: Configuration, overwrite: Bool,
        emit: (Int, Result) -> Bool
    ) throws(ConfigurationError) {
        let runnable = plan.indices.filter { plan[$0].conflictsWith == nil }
        let pairs = runnable.map { [plan[$0].input, plan[$0].output] }
        var next = 0
        var stopped = false
        // Conflicts are reported where they fall in the plan, between the converted files.
        func emitConflicts(upTo end: Int) {
            while next < end, !stopped {
                let file = plan[next]
                if let earlier = file.conflictsWith {
                    var result = Result(inputPath: file.input, outputPath: file.output, outputSampleRate: configuration.outputRate)
                    result.error = FileScore.Failure(
                        kind: "output_conflict", message: "\(file.input): \(earlier) is converted to the same output \(file.output)")
                    stopped = !emit(next, result)
                }
                next += 1
            }
        }
        try OrderedParallelWork.run(
            count: pairs.count, jobs: jobs,
            makeWorker: { () throws(ConfigurationError) in try FileConverter(configuration: configuration) },
            work: { converter, index in converter.convert(pairs[index][0], to: pairs[index][1], overwrite: overwrite) },
            emit: { index, result in
                emitConflicts(upTo: runnable[index])
                guard !stopped else { return false }
                next = runnable[index] + 1
                stopped = !emit(runnable[index], result)
                return !stopped
            })
        emitConflicts(upTo: plan.count)
    }

    // MARK: Output paths

    /// One planned conversion: the input, its output, and why it cannot be done (two inputs
    /// that would write one output), if so.
    public struct PlannedFile: Equatable, Sendable {
        /// The input path.
        public var input: String
        /// The output path: the input's path below its root, under the output directory, with
        /// the container's extension.
        public var output: String
        /// The input that already writes `output` (an earlier one in the list), if any.
        public var conflictsWith: String?

        /// A conversion of `input` into `output`.
        public init(input: String, output: String, conflictsWith: String? = nil) {
            self.input = input
            self.output = output
            self.conflictsWith = conflictsWith
        }
    }

    /// Mirrors the inputs' tree under `outputDirectory`: `DIR/a/b.flac` found in `DIR` becomes
    /// `OUT/a/b.wav`, a file named directly `OUT/NAME.wav`. A later input mapped to an output
    /// an earlier one writes (`x.flac` and `x.ogg` side by side) is marked ``PlannedFile/conflictsWith``.
    public static func plan(
        _ found: [AudioFileDiscovery.Found], outputDirectory: String, container: Configuration.Container
    ) -> [PlannedFile] {
        var claimed: [PathKey: String] = [:]
        return found.map { file in
            let stem = (file.relativePath as NSString).deletingPathExtension
            let output = (outputDirectory as NSString).appendingPathComponent(stem + "." + container.fileExtension)
            let key = PathKey(output)
            if let earlier = claimed[key] { return PlannedFile(input: file.path, output: output, conflictsWith: earlier) }
            claimed[key] = file.path
            return PlannedFile(input: file.path, output: output, conflictsWith: nil)
        }
    }

    // MARK: Helpers

    /// NaN and ±Inf → 0 in place; returns how many.
    static func zeroNonFinite(_ block: UnsafeMutableBufferPointer<Float>) -> Int {
        var count = 0
        for i in block.indices where !block[i].isFinite {
            block[i] = 0
            count += 1
        }
        return count
    }

    /// Whether both paths exist and name one file (same device and inode, links followed).
    static func sameFile(_ a: String, _ b: String) -> Bool {
        var first = stat()
        var second = stat()
        guard PathBytes.stat(a, &first) == 0, PathBytes.stat(b, &second) == 0 else { return false }
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }

    /// Whether `path` exists (a dangling symbolic link counts: writing would replace it).
    static func exists(_ path: String) -> Bool {
        var status = stat()
        return PathBytes.withCString(path) { lstat($0, &status) } == 0
    }

    /// `mkdir -p` of the file's directory; a message on failure.
    static func makeDirectory(forFile path: String) -> String? {
        let directory = (path as NSString).deletingLastPathComponent
        guard !directory.isEmpty else { return nil }
        var status = stat()
        if PathBytes.stat(directory, &status) == 0 {
            return status.st_mode & S_IFMT == S_IFDIR ? nil : "cannot create \(directory): a file is in the way"
        }
        if let problem = makeDirectory(forFile: directory) { return problem }
        if PathBytes.withCString(directory, { mkdir($0, 0o777) }) != 0, errno != EEXIST {
            return "cannot create \(directory): \(String(cString: strerror(errno)))"
        }
        return nil
    }
}

extension FileConverter {
    /// The units between the reader and the 16-bit converter for one file.
    final class Chain {
        private let conditioner: StreamConditioner?
        private let resampler: Resampler?
        /// Channels out: 1, or the input's with ``Configuration/Channels-swift.enum/keep``.
        let outputChannels: Int

        init(configuration: Configuration, inputRate: Int, channelCount: Int) throws(ConfigurationError) {
            switch configuration.channels {
            case .keep:
                conditioner = nil
                outputChannels = channelCount
                try ConfigurationError.check("inputRate", inputRate, in: 1000...768_000)
                resampler = inputRate == configuration.outputRate
                    ? nil
                    : try Resampler(
                        inputRate: inputRate, outputRate: configuration.outputRate, channelCount: channelCount,
                        quality: configuration.quality, trimsLeadingDelay: true)
            case .downmix, .channel:
                var mode = Downmixer.Mode.average
                if case .channel(let index) = configuration.channels {
                    try ConfigurationError.check("mode.channel", index, in: 0...Swift.max(0, channelCount - 1))
                    mode = .channel(index)
                }
                resampler = nil
                outputChannels = 1
                conditioner = try StreamConditioner(configuration: .init(
                    inputRate: inputRate, channelCount: channelCount, outputRate: configuration.outputRate, downmix: mode,
                    quality: configuration.quality))
            }
        }

        /// Processes all of `input` (finite samples) into `output`, grown as needed; returns the
        /// samples written.
        func process(_ input: UnsafeBufferPointer<Float>, into output: inout UnsafeMutableBufferPointer<Float>) -> Int {
            if let conditioner {
                Self.reserve(&output, conditioner.maxOutputCount(forInputCount: input.count))
                let result = conditioner.process(input, into: output, knownFinite: true)
                assert(result.consumed == input.count, "the output holds maxOutputCount samples")
                return result.produced
            }
            if let resampler {
                Self.reserve(&output, resampler.maxOutputCount(forInputCount: input.count))
                let result = resampler.process(input, into: output)
                assert(result.consumed == input.count, "the output holds maxOutputCount samples")
                return result.produced
            }
            Self.reserve(&output, input.count)
            _ = UnsafeMutableBufferPointer(rebasing: output[..<input.count]).initialize(from: input)
            return input.count
        }

        /// The end of the stream: the resampler's tail (exact length); returns the samples written.
        func flush(into output: inout UnsafeMutableBufferPointer<Float>) -> Int {
            if let conditioner {
                Self.reserve(&output, conditioner.maxFlushOutputCount)
                return conditioner.flush(into: output)
            }
            if let resampler {
                Self.reserve(&output, resampler.maxFlushOutputCount)
                return resampler.flush(into: output)
            }
            return 0
        }

        private static func reserve(_ buffer: inout UnsafeMutableBufferPointer<Float>, _ count: Int) {
            guard buffer.count < count else { return }
            buffer.deallocate()
            buffer = .allocate(capacity: count)
        }
    }
}
