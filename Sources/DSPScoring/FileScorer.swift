import DSPAnalysis
import DSPCore
import DSPIO

/// Scores audio files one at a time: opens, streams through the analyzers, summarises.
///
/// Reads in blocks of ``Configuration/blockFrames`` frames into one buffer allocated at
/// construction, so memory does not grow with file length. Never throws: a file that fails
/// gets a ``FileScore`` with `status` `error`. One scorer per thread.
public final class FileScorer {
    /// Scoring settings.
    public struct Configuration: Equatable, Sendable {
        /// Sample frames per analysis frame. Range 1…65 536; default 1024.
        public var frameLength: Int = 1024
        /// |x| at or above which a sample counts as clipped. Default 1.0.
        public var clipThreshold: Float = 1.0
        /// Frames per read. Range 256…1 048 576; default 65 536.
        public var blockFrames: Int = 65_536

        /// Creates a configuration.
        public init(frameLength: Int = 1024, clipThreshold: Float = 1.0, blockFrames: Int = 65_536) {
            self.frameLength = frameLength
            self.clipThreshold = clipThreshold
            self.blockFrames = blockFrames
        }
    }

    /// The settings.
    public let configuration: Configuration
    private var buffer: UnsafeMutableBufferPointer<Float>
    private var bufferChannels = 1

    /// Creates a scorer; throws if a setting is out of range.
    public init(configuration: Configuration = Configuration()) throws(ConfigurationError) {
        try ConfigurationError.check("frameLength", configuration.frameLength, in: 1...65_536)
        try ConfigurationError.check("blockFrames", configuration.blockFrames, in: 256...1 << 20)
        _ = try LevelMeter(clipThreshold: configuration.clipThreshold)
        self.configuration = configuration
        buffer = .allocate(capacity: configuration.blockFrames)
    }

    deinit { buffer.deallocate() }

    private var provenance: FileScore.Provenance {
        FileScore.Provenance(frameLength: configuration.frameLength, clipThreshold: configuration.clipThreshold)
    }

    /// Scores the file at `path`.
    public func score(path: String) -> FileScore {
        var record = FileScore(
            audioFilepath: path, duration: 0, status: .error, provenance: provenance)
        if let failure = Self.nonRegularFileFailure(path: path) {  // a FIFO would block the open forever
            record.error = failure
            return record
        }
        do throws(AudioFileError) {
            let reader = try AudioFileReader(path: path)
            defer { reader.close() }
            record.sampleRate = reader.sampleRate
            record.channels = reader.channelCount
            record.format = reader.format.description
            if let failure = tooShortFailure(path: path, frames: reader.frameCount, sampleRate: reader.sampleRate) {
                record.error = failure
                return record
            }
            let analyzer: LevelAnalyzer
            do {
                analyzer = try LevelAnalyzer(configuration: .init(
                    sampleRate: reader.sampleRate, channelCount: reader.channelCount,
                    frameLength: configuration.frameLength, clipThreshold: configuration.clipThreshold))
            } catch {
                record.error = .init(kind: "unsupported", message: "\(path): \(error)")
                return record
            }
            let (layout, layoutName) = Self.loudnessLayout(channelCount: reader.channelCount)
            let loudness = try? LoudnessMeter(configuration: .init(sampleRate: reader.sampleRate, channelLayout: layout))
            ensureCapacity(channels: reader.channelCount)
            while true {
                let count = try reader.read(into: buffer)
                if count == 0 { break }
                let block = UnsafeBufferPointer(rebasing: buffer[..<count])
                analyzer.process(block) { _ in }
                loudness?.process(block)
            }
            let summary = analyzer.finalize()
            record.frames = Int(summary.sampleFrameCount)
            record.duration = summary.durationSeconds
            record.levels = FileScore.Levels(summary)
            if let loudness {
                record.loudness = FileScore.Loudness(loudness.finalize(), channelLayout: layoutName)
            }
            record.status = .ok
        } catch {
            record.error = .init(kind: Self.kindName(error.kind), message: error.description)
        }
        return record
    }

    /// BS.1770 channel weights by channel count: mono, stereo, 5.0 (L R C Ls Rs), 5.1
    /// (L R C LFE Ls Rs, the WAVE/SMPTE order); other counts weigh every channel 1.0.
    static func loudnessLayout(channelCount: Int) -> (LoudnessMeter.ChannelLayout, String) {
        switch channelCount {
        case 1: (.mono, "mono")
        case 2: (.stereo, "stereo")
        case 5: (.surround5_0, "5.0")
        case 6: (.surround5_1, "5.1")
        default: (.custom(weights: Array(repeating: 1, count: channelCount)), "equal")
        }
    }

    private func ensureCapacity(channels: Int) {
        guard channels != bufferChannels else { return }
        buffer.deallocate()
        buffer = .allocate(capacity: configuration.blockFrames * channels)
        bufferChannels = channels
    }

    /// The JSON name of an error kind: lowercase snake_case.
    static func kindName(_ kind: AudioFileError.Kind) -> String {
        switch kind {
        case .notFound: "not_found"
        case .permissionDenied: "permission_denied"
        case .isDirectory: "is_directory"
        case .empty: "empty"
        case .truncated: "truncated"
        case .corrupt: "corrupt"
        case .unsupportedFormat: "unsupported_format"
        case .invalidParameters: "invalid_parameters"
        case .ioFailure: "io_failure"
        case .closed: "closed"
        }
    }
}
