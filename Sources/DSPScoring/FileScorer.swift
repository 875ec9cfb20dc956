import DSPAnalysis
import DSPCore
import DSPDetection
import DSPIO

/// Scores audio files one at a time: opens, streams through the analyzers, summarises.
///
/// Reads in blocks of ``Configuration/blockFrames`` frames into one buffer allocated at
/// construction, so memory does not grow with file length. Never throws: a file that fails
/// gets a ``FileScore`` with `status` `error`. One scorer per thread.
public final class FileScorer {
    /// Which analyses a scorer runs. Levels are cheap; detection (speech, music, speakers)
    /// mixes each file to mono and resamples it to 16 kHz first.
    public struct Analyses: OptionSet, Hashable, Sendable {
        public let rawValue: Int
        /// Creates a set from its raw bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Levels, clipping, DC (``FileScore/Levels``).
        public static let levels = Analyses(rawValue: 1)
        /// BS.1770 loudness (``FileScore/Loudness``).
        public static let loudness = Analyses(rawValue: 2)
        /// Voice activity (``FileScore/Detection``).
        public static let speech = Analyses(rawValue: 4)
        /// Music detection.
        public static let music = Analyses(rawValue: 8)
        /// Multiple-speaker detection.
        public static let speakers = Analyses(rawValue: 16)
        /// The acoustic environment (``FileScore/Environment``, from ``EnvironmentAnalyzer`` fed
        /// by the detectors; needs speech detection, which it turns on).
        public static let environment = Analyses(rawValue: 32)
        /// BS.1770 true peak (``FileScore/Loudness/truePeakDBTP``: 4× oversampled below 96 kHz),
        /// reported in the loudness record, so it turns on ``loudness``. Without it that field is
        /// `null`. Separate because it costs as much as the K-weighting and many corpus runs
        /// (like the usual Python loudness pipelines) do not need it.
        public static let truePeak = Analyses(rawValue: 64)
        /// Everything.
        public static let all: Analyses = [.levels, .loudness, .truePeak, .speech, .music, .speakers, .environment]

        /// The names accepted by ``init(names:)``, in order.
        public static let names: [(String, Analyses)] = [
            ("levels", .levels), ("loudness", .loudness), ("true_peak", .truePeak), ("speech", .speech), ("music", .music),
            ("speakers", .speakers), ("environment", .environment),
        ]

        /// Parses a comma-separated list of names (`levels,loudness,true_peak,speech,music,
        /// speakers,environment`, or `all`); `nil` if a name is unknown. `environment` turns on
        /// `speech`, `true_peak` turns on `loudness`.
        public init?(names list: String) {
            var set: Analyses = []
            for raw in list.split(separator: ",") {
                let name = raw.trimmingCharacters(in: .whitespaces).lowercased()
                if name == "all" { set.formUnion(.all); continue }
                guard let match = Self.names.first(where: { $0.0 == name }) else { return nil }
                set.insert(match.1)
                if match.1 == .environment { set.insert(.speech) }
                if match.1 == .truePeak { set.insert(.loudness) }
            }
            self = set
        }

        /// The detections among these.
        var detects: Bool { !isDisjoint(with: [.speech, .music, .speakers]) }
    }

    /// Scoring settings.
    public struct Configuration: Equatable, Sendable {
        /// Sample frames per analysis frame. Range 1…65 536; default 1024.
        public var frameLength: Int = 1024
        /// |x| at or above which a sample counts as clipped. Default 1.0.
        public var clipThreshold: Float = 1.0
        /// Frames per read. Range 256…1 048 576; default 65 536.
        public var blockFrames: Int = 65_536
        /// The analyses to run; default ``Analyses/all``.
        public var analyses: Analyses = .all
        /// Whether records carry the detection segments (``FileScore/segments``, for
        /// timelines and RTTM; memory grows with the number of segments). Default false.
        public var recordsSegments: Bool = false

        /// Creates a configuration.
        public init(
            frameLength: Int = 1024, clipThreshold: Float = 1.0, blockFrames: Int = 65_536,
            analyses: Analyses = .all, recordsSegments: Bool = false
        ) {
            self.frameLength = frameLength
            self.clipThreshold = clipThreshold
            self.blockFrames = blockFrames
            self.analyses = analyses
            self.recordsSegments = recordsSegments
        }

        /// Checks the settings ``FileScorer/init(configuration:)`` checks, in its order, with
        /// the same errors — ``frameLength``, ``blockFrames``, ``clipThreshold`` — without
        /// building a scorer (whose detector plans FFTs). The analyzers' own settings are fixed
        /// defaults, which their initializers check again.
        public func validate() throws(ConfigurationError) {
            try ConfigurationError.check("frameLength", frameLength, in: 1...65_536)
            try ConfigurationError.check("blockFrames", blockFrames, in: 256...1 << 20)
            _ = try LevelMeter(clipThreshold: clipThreshold)
        }
    }

    /// The settings.
    public let configuration: Configuration
    private var buffer: UnsafeMutableBufferPointer<Float>
    private var bufferChannels = 1
    /// Detection path: the block mixed to mono, then at 16 kHz.
    private let mono: UnsafeMutableBufferPointer<Float>
    private var resampled: UnsafeMutableBufferPointer<Float>
    private let detector: AcousticDetector?
    private let environment: EnvironmentAnalyzer?
    /// One resampler per input rate met so far (filter design is not free).
    private var resamplers: [Int: Resampler] = [:]
    /// Loudness meters built so far, one per configuration met, at most
    /// ``maxCachedLoudnessMeters`` (the most recently built), reset before each file: a new
    /// meter costs a filter design and zeroing its 320 kB of gating histograms, a per-file cost
    /// comparable to scoring a short file's loudness.
    private var loudnessMeters: [LoudnessMeter] = []
    private static let maxCachedLoudnessMeters = 8

    /// Creates a scorer; throws if a setting is out of range.
    public init(configuration: Configuration = Configuration()) throws(ConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        buffer = .allocate(capacity: configuration.blockFrames)
        mono = .allocate(capacity: configuration.blockFrames)
        resampled = .allocate(capacity: configuration.blockFrames)
        if configuration.analyses.detects {
            var detection = AcousticDetector.Configuration()
            detection.detectsMusic = configuration.analyses.contains(.music)
            detection.detectsMultipleSpeakers = configuration.analyses.contains(.speakers)
            detector = try AcousticDetector(configuration: detection)
        } else {
            detector = nil
        }
        environment = configuration.analyses.contains(.environment)
            ? try EnvironmentAnalyzer(configuration: .init(sampleRate: 16_000)) : nil
    }

    deinit {
        buffer.deallocate()
        mono.deallocate()
        resampled.deallocate()
    }

    private var provenance: FileScore.Provenance {
        FileScore.Provenance(
            frameLength: configuration.frameLength, clipThreshold: configuration.clipThreshold,
            analyses: Analyses.names.filter { configuration.analyses.contains($0.1) }.map(\.0).joined(separator: ","))
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
            let loudness = configuration.analyses.contains(.loudness)
                ? loudnessMeter(.init(
                    sampleRate: reader.sampleRate, channelLayout: layout,
                    measuresTruePeak: configuration.analyses.contains(.truePeak))) : nil
            let measuresLevels = configuration.analyses.contains(.levels)
            ensureCapacity(channels: reader.channelCount)
            environment?.reset()
            var detection = DetectionRun(detector: detector, resampler: nil, records: configuration.recordsSegments, environment: environment)
            if let detector {
                do {
                    detection.resampler = try resampler(from: reader.sampleRate, to: Int(detector.sampleRate))
                } catch {
                    // A rate the resampler does not take (outside 1 kHz…768 kHz or an
                    // unreasonable ratio): the file is still scored, without `detection`.
                    detection.detector = nil
                }
            }
            // Integer encodings cannot hold NaN or ±Inf: the detection path skips its check.
            let integerSamples = reader.format.encoding.hasIntegerSamples
            var frames = 0
            while true {
                let count = try reader.read(into: buffer)
                if count == 0 { break }
                let block = UnsafeBufferPointer(rebasing: buffer[..<count])
                frames += count / reader.channelCount
                if measuresLevels { analyzer.process(block) { _ in } }
                loudness?.process(block)
                if detection.detector != nil {
                    detect(block, channels: reader.channelCount, finite: integerSamples, into: &detection)
                }
            }
            let summary = analyzer.finalize()
            record.frames = frames
            record.duration = Double(frames) / Double(reader.sampleRate)
            if measuresLevels { record.levels = FileScore.Levels(summary) }
            if let loudness {
                record.loudness = FileScore.Loudness(loudness.finalize(), channelLayout: layoutName)
            }
            if detection.detector != nil {
                let end = finishDetection(&detection)
                record.detection = FileScore.Detection(
                    end.summary, music: configuration.analyses.contains(.music),
                    multipleSpeakers: configuration.analyses.contains(.speakers))
                if environment != nil { record.environment = detection.environmentSummary() }
                if configuration.recordsSegments {
                    detection.segments.duration = record.duration
                    record.segments = detection.segments
                }
            }
            record.status = .ok
        } catch {
            record.error = .init(kind: Self.kindName(error.kind), message: error.description)
        }
        return record.withholdingNonFiniteResults()
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

    /// State of one file's detection pass.
    struct DetectionRun {
        var detector: AcousticDetector?
        var resampler: Resampler?
        var records: Bool
        var segments = DetectionSegments()
        var openSpeech: Double?
        var openMusic: Double?
        var openMulti: Double?
        var environment: EnvironmentAnalyzer?
        /// The detector frames of the current 1024-sample environment frame.
        var group = EnvironmentGroup()
        var groupIndex: Int64 = 0
        var measurements = EnvironmentMeasurements()

        /// Feeds the open group to the environment analyzer.
        mutating func closeGroup() {
            guard let environment, group.count > 0 else { return }
            let features = group.features(startSample: groupIndex * 1024)
            if let m = environment.add(features) { measurements.add(m) }
            groupIndex += 1
            group = EnvironmentGroup()
        }

        func environmentSummary() -> FileScore.Environment? {
            guard let environment else { return nil }
            return measurements.record(environment.summary)
        }
    }

    /// A meter for `configuration` in its initial state: a cached one, reset, or a new one
    /// (`nil` if the configuration is refused, e.g. a rate below 8 kHz).
    private func loudnessMeter(_ configuration: LoudnessMeter.Configuration) -> LoudnessMeter? {
        if let cached = loudnessMeters.first(where: { $0.configuration == configuration }) {
            cached.reset()
            return cached
        }
        guard let made = try? LoudnessMeter(configuration: configuration) else { return nil }
        if loudnessMeters.count == Self.maxCachedLoudnessMeters { loudnessMeters.removeFirst() }
        loudnessMeters.append(made)
        return made
    }

    private func resampler(from rate: Int, to target: Int) throws(ConfigurationError) -> Resampler? {
        guard rate != target else { return nil }
        if let cached = resamplers[rate] {
            cached.reset()
            return cached
        }
        let made = try Resampler(inputRate: rate, outputRate: target, channelCount: 1, trimsLeadingDelay: true)
        resamplers[rate] = made
        return made
    }

    /// Mixes a block to mono (mean of the channels; NaN and ±Inf become 0), resamples it and
    /// runs the detector, collecting segments. A mono block with only finite samples (the usual
    /// case) is used in place, without the copy: the same values. `finite` says the block is
    /// known to hold only finite samples (an integer encoding), so that is not checked.
    private func detect(_ block: UnsafeBufferPointer<Float>, channels: Int, finite: Bool, into run: inout DetectionRun) {
        let frames = block.count / channels
        let input: UnsafeBufferPointer<Float>
        if channels == 1 && (finite || Self.allFinite(block.baseAddress!, count: frames)) {
            input = block
        } else {
            Self.mixFinite(block.baseAddress!, channels: channels, frames: frames, into: mono.baseAddress!)
            input = UnsafeBufferPointer(rebasing: mono[..<frames])
        }
        if let resampler = run.resampler {
            let needed = resampler.maxOutputCount(forInputCount: frames)
            if needed > resampled.count {
                resampled.deallocate()
                resampled = .allocate(capacity: needed)
            }
            let result = resampler.process(input, into: resampled)
            runDetector(UnsafeBufferPointer(rebasing: resampled[..<result.produced]), &run)
        } else {
            runDetector(input, &run)
        }
    }

    /// Whether `x[0 ..< count]` holds no NaN or ±Inf: `Σ (x − x)` is 0 for finite values and NaN
    /// as soon as one is not (a read-only pass: four independent eight-lane sums, so the adds'
    /// latency does not bound it, then eight lanes, then the tail).
    static func allFinite(_ x: UnsafePointer<Float>, count: Int) -> Bool {
        var acc = SIMD8<Float>(), acc1 = SIMD8<Float>(), acc2 = SIMD8<Float>(), acc3 = SIMD8<Float>()
        var i = 0
        @inline(__always) func load(_ j: Int) -> SIMD8<Float> {
            UnsafeRawPointer(x + j).loadUnaligned(as: SIMD8<Float>.self)
        }
        while i + 32 <= count {
            let v0 = load(i), v1 = load(i + 8), v2 = load(i + 16), v3 = load(i + 24)
            acc += v0 - v0
            acc1 += v1 - v1
            acc2 += v2 - v2
            acc3 += v3 - v3
            i += 32
        }
        acc += (acc1 + acc2) + acc3
        while i + 8 <= count {
            let v = load(i)
            acc += v - v
            i += 8
        }
        var tail: Float = 0
        while i < count {
            tail += x[i] - x[i]
            i += 1
        }
        return acc == SIMD8<Float>() && tail == 0
    }

    /// `out[i]` = the mean of frame i's channels, NaN and ±Inf taken as 0. Eight frames per
    /// step for mono and stereo (the common cases; the scalar loop was 8 % of a scoring run).
    static func mixFinite(_ block: UnsafePointer<Float>, channels: Int, frames: Int, into out: UnsafeMutablePointer<Float>) {
        @inline(__always) func finite(_ v: SIMD8<Float>) -> SIMD8<Float> {
            // v − v is 0 for finite v, NaN for ±Inf and NaN.
            v.replacing(with: 0, where: .!((v - v) .== SIMD8<Float>()))
        }
        var i = 0
        switch channels {
        case 1:
            while i + 8 <= frames {
                let v = UnsafeRawPointer(block + i).loadUnaligned(as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(out + i).storeBytes(of: finite(v), as: SIMD8<Float>.self)
                i += 8
            }
        case 2:
            while i + 8 <= frames {
                let a = UnsafeRawPointer(block + 2 * i).loadUnaligned(as: SIMD16<Float>.self)
                let l = finite(a.evenHalf), r = finite(a.oddHalf)
                UnsafeMutableRawPointer(out + i).storeBytes(of: (l + r) * 0.5, as: SIMD8<Float>.self)
                i += 8
            }
        default:
            break
        }
        let scale = 1 / Float(channels)
        while i < frames {
            var sum: Float = 0
            for c in 0..<channels {
                let x = block[i * channels + c]
                sum += x.isFinite ? x : 0
            }
            out[i] = sum * scale
            i += 1
        }
    }

    private func runDetector(_ samples: UnsafeBufferPointer<Float>, _ run: inout DetectionRun) {
        guard let detector = run.detector else { return }
        detector.process(samples) { frame in Self.collect(frame, &run) }
    }

    private static func collect(_ frame: DetectionFrame, _ run: inout DetectionRun) {
        if run.environment != nil {
            run.group.add(frame)
            if run.group.count == 4 { run.closeGroup() }
        }
        guard run.records else { return }
        track(frame.speechChange, open: &run.openSpeech, into: &run.segments.speech)
        track(frame.musicChange, open: &run.openMusic, into: &run.segments.music)
        track(frame.multiSpeakerChange, open: &run.openMulti, into: &run.segments.multiSpeaker)
    }

    private static func track(_ change: ActivitySegmenter.Transition, open: inout Double?, into list: inout [DetectionSegments.Segment]) {
        switch change {
        case .started(let t): open = t
        case .ended(let t):
            if let start = open, t > start { list.append(.init(start: start, end: t)) }
            open = nil
        case .none: break
        }
    }

    private func finishDetection(_ run: inout DetectionRun) -> DetectionEnd {
        if let resampler = run.resampler {
            let needed = resampler.maxFlushOutputCount
            if needed > resampled.count {
                resampled.deallocate()
                resampled = .allocate(capacity: needed)
            }
            let produced = resampler.flush(into: resampled)
            runDetector(UnsafeBufferPointer(rebasing: resampled[..<produced]), &run)
        }
        let end = run.detector!.flush { frame in Self.collect(frame, &run) }
        run.closeGroup()
        if let environment = run.environment, let last = environment.flush() { run.measurements.add(last) }
        if run.records {
            for (open, ended, keyPath) in [
                (run.openSpeech, end.speechEndedAt, \DetectionSegments.speech),
                (run.openMusic, end.musicEndedAt, \DetectionSegments.music),
                (run.openMulti, end.multiSpeakerEndedAt, \DetectionSegments.multiSpeaker),
            ] {
                if let start = open, let stop = ended, stop > start { run.segments[keyPath: keyPath].append(.init(start: start, end: stop)) }
            }
        }
        return end
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
