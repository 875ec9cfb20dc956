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
        /// The acoustic environment (``FileScore/Environment``, from
        /// ``/DSPDetection/EnvironmentAnalyzer`` fed by the detectors; needs speech detection,
        /// which it turns on).
        public static let environment = Analyses(rawValue: 32)
        /// BS.1770 true peak (``FileScore/Loudness/truePeakDBTP``: 4× oversampled below 96 kHz),
        /// reported in the loudness record, so it turns on ``loudness``. Without it that field is
        /// left out of the record. Separate because it costs as much as the K-weighting and many
        /// corpus runs (like the usual Python loudness pipelines) do not need it.
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
        /// Whether the background-noise estimate reads a looped background by its period
        /// (``/DSPDetection/NoiseLevelEstimator/Configuration-swift.struct/loopedBackgrounds``;
        /// records scored without it say so in ``FileScore/Provenance/options``). Default true.
        public var loopedBackgrounds: Bool = true
        /// Whether voice activity blends the fitted network into the speech model
        /// (``/DSPDetection/DefaultModels/speechBlend``, used when music or speakers are analysed
        /// too; records scored without it say so in ``FileScore/Provenance/options``). Default true.
        public var speechBlend: Bool = true
        /// Whether steady pure tones, and sounds whose spectrum holds still, are kept out of voice activity
        /// (``/DSPDetection/AcousticDetector/Configuration-swift.struct/gatesPureTones``; records
        /// scored without it say so in ``FileScore/Provenance/options``). Default true.
        public var pureToneGate: Bool = true
        /// Whether speech segments' edges are read from the hops' own power
        /// (``/DSPDetection/AcousticDetector/Configuration-swift.struct/speechBoundaries``; records
        /// scored without it say so in ``FileScore/Provenance/options``). Default true.
        public var speechBoundaries: Bool = true
        /// The voice-activity segmenter (thresholds, minimum run, hangover, padding, end
        /// threshold: ``/DSPDetection/AcousticDetector/Configuration-swift.struct/speechSegments``).
        /// Default ``/DSPDetection/DefaultModels/speechSegments``; records scored with another say
        /// so in ``FileScore/Provenance/options`` (`speech_segments:…`).
        public var speechSegments: ActivitySegmenter.Configuration = DefaultModels.speechSegments

        /// Creates a configuration.
        public init(
            frameLength: Int = 1024, clipThreshold: Float = 1.0, blockFrames: Int = 65_536,
            analyses: Analyses = .all, recordsSegments: Bool = false, loopedBackgrounds: Bool = true,
            speechBlend: Bool = true, pureToneGate: Bool = true,
            speechSegments: ActivitySegmenter.Configuration = DefaultModels.speechSegments,
            speechBoundaries: Bool = true
        ) {
            self.frameLength = frameLength
            self.clipThreshold = clipThreshold
            self.blockFrames = blockFrames
            self.analyses = analyses
            self.recordsSegments = recordsSegments
            self.loopedBackgrounds = loopedBackgrounds
            self.speechBlend = speechBlend
            self.pureToneGate = pureToneGate
            self.speechSegments = speechSegments
            self.speechBoundaries = speechBoundaries
        }

        /// The provenance records scored with these settings carry (its
        /// ``FileScore/Provenance/configurationHash`` identifies the configuration).
        public var provenance: FileScore.Provenance {
            FileScore.Provenance(
                frameLength: frameLength, clipThreshold: clipThreshold,
                analyses: Analyses.names.filter { analyses.contains($0.1) }.map(\.0).joined(separator: ","),
                options: options)
        }

        /// ``FileScore/Provenance/options``: the settings that change results, comma-separated.
        private var options: String? {
            var names: [String] = []
            if !loopedBackgrounds && analyses.detects { names.append("no_looped_backgrounds") }
            if !speechBlend && analyses.detects && (analyses.contains(.music) || analyses.contains(.speakers)) {
                names.append("no_speech_blend")
            }
            if !pureToneGate && analyses.contains(.speech) { names.append("no_pure_tone_gate") }
            if !speechBoundaries && analyses.contains(.speech) { names.append("no_speech_boundaries") }
            if speechSegments != DefaultModels.speechSegments && analyses.contains(.speech) {
                names.append(Self.speechSegmentsOption(speechSegments))
            }
            return names.isEmpty ? nil : names.joined(separator: ",")
        }

        /// The option naming a voice-activity segmenter other than the default, every setting
        /// given: `speech_segments:on=0.5:off=0.35:min_seconds=0.032:hangover_seconds=0.4:padding_seconds=0.048:end=0.6`
        /// (`end=none` without an end threshold).
        static func speechSegmentsOption(_ s: ActivitySegmenter.Configuration) -> String {
            "speech_segments:on=\(s.onThreshold):off=\(s.offThreshold):min_seconds=\(s.minimumActiveSeconds)"
                + ":hangover_seconds=\(s.hangoverSeconds):padding_seconds=\(s.paddingSeconds)"
                + ":end=\(s.endThreshold.map { "\($0)" } ?? "none")"
        }

        /// Checks the settings ``FileScorer/init(configuration:)`` checks, in its order, with
        /// the same errors — ``frameLength``, ``blockFrames``, ``clipThreshold``,
        /// ``speechSegments`` — without building a scorer (whose detector plans FFTs). The
        /// analyzers' other settings are fixed defaults, which their initializers check again.
        public func validate() throws(ConfigurationError) {
            try ConfigurationError.check("frameLength", frameLength, in: 1...65_536)
            try ConfigurationError.check("blockFrames", blockFrames, in: 256...1 << 20)
            _ = try LevelMeter(clipThreshold: clipThreshold)
            try speechSegments.validate(parameter: "speechSegments")
        }
    }

    /// The settings.
    public let configuration: Configuration
    private var buffer: UnsafeMutableBufferPointer<Float>
    private var bufferChannels = 1
    /// Detection path: the block conditioned to mono 16 kHz, and the chain's events.
    private var conditioned: UnsafeMutableBufferPointer<Float>
    private var events: UnsafeMutableBufferPointer<AnalysisEvent>
    /// The analysis chain (detector, frame grouping, environment), when a detection runs.
    private let chain: AnalysisChain?
    /// One conditioner per input rate and channel count met so far (filter design is not free).
    private var conditioners: [Int: StreamConditioner] = [:]
    /// Bandwidth path (with the environment): one estimator per input rate and one downmixer
    /// per channel count met so far, and the block mixed to mono at the input rate.
    private var bandwidthEstimators: [Int: BandwidthEstimator] = [:]
    private var downmixers: [Int: Downmixer] = [:]
    private var inputMono: UnsafeMutableBufferPointer<Float>
    /// The channels a manifest line picks, copied out of each block (``ScoringInput/Segment/fileChannels``).
    private var selected: UnsafeMutableBufferPointer<Float>
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
        conditioned = .allocate(capacity: 0)
        events = .allocate(capacity: 0)
        inputMono = .allocate(capacity: 0)
        selected = .allocate(capacity: 0)
        if configuration.analyses.detects {
            var detection = AcousticDetector.Configuration()
            detection.detectsMusic = configuration.analyses.contains(.music)
            detection.detectsMultipleSpeakers = configuration.analyses.contains(.speakers)
            detection.loopedBackgrounds = configuration.loopedBackgrounds
            detection.gatesPureTones = configuration.pureToneGate
            detection.speechBlend = configuration.speechBlend ? DefaultModels.speechBlend : nil
            detection.speechSegments = configuration.speechSegments
            if !configuration.speechBoundaries { detection.speechBoundaries = nil }
            chain = try AnalysisChain(configuration: .init(
                detector: detection, environment: configuration.analyses.contains(.environment) ? .init() : nil))
        } else {
            chain = nil
        }
    }

    deinit {
        buffer.deallocate()
        conditioned.deallocate()
        events.deallocate()
        inputMono.deallocate()
        selected.deallocate()
    }

    private var provenance: FileScore.Provenance { configuration.provenance }

    /// Scores the file at `path`.
    public func score(path: String) -> FileScore {
        score(path: path) { _ in }
    }

    /// Scores the file at `path`, handing `observe` every event of the analysis chain as it
    /// comes (segment boundaries and environment measurements, positions in samples at 16 kHz)
    /// — the events a `SpeechFrontEnd` reports for the same audio.
    public func score(path: String, observe: (AnalysisEvent) -> Void) -> FileScore {
        score(ScoringInput(path: path), observe: observe)
    }

    /// Scores one input: a file, or the segment and channels a manifest line names
    /// (``ScoringInput/segment``), recorded under ``ScoringInput/audioFilepath`` with the line
    /// carried in the record's `manifest`.
    public func score(_ input: ScoringInput) -> FileScore {
        score(input) { _ in }
    }

    /// Scores one input, handing `observe` every event of the analysis chain (positions in
    /// samples at 16 kHz from the segment's start).
    ///
    /// A segment is read sample-exactly: the reader seeks to `round(offset × rate)` and reads
    /// `round(duration × rate)` frames (see ``FileScore/Segment``), so the record is the one a
    /// file holding just those frames would get.
    public func score(_ input: ScoringInput, observe: (AnalysisEvent) -> Void) -> FileScore {
        let path = input.path
        var record = FileScore(
            audioFilepath: input.audioFilepath, duration: 0, status: .error, provenance: provenance)
        record.manifest = input.manifest
        if let failure = input.failure {
            record.error = failure
            return record
        }
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
            if let failure = emptyFailure(path: path, frames: reader.frameCount) {
                record.error = failure
                return record
            }
            let span: Span
            switch Self.span(of: input, reader: reader) {
            case .success(let found): span = found
            case .failure(let failure):
                record.error = failure.failure
                record.segment = failure.segment
                return record
            }
            record.segment = span.segment
            let fileChannels = reader.channelCount
            let channelCount = span.channels?.count ?? fileChannels
            record.channels = channelCount
            let analyzer: LevelAnalyzer
            do throws(ConfigurationError) {
                analyzer = try LevelAnalyzer(configuration: .init(
                    sampleRate: reader.sampleRate, channelCount: channelCount,
                    frameLength: configuration.frameLength, clipThreshold: configuration.clipThreshold,
                    fullScale: Self.fullScale(of: reader.format.encoding)))
            } catch {
                record.error = .init(kind: "unsupported", message: "\(path): \(error.fileDescription(channelCount: channelCount))")
                return record
            }
            let (layout, layoutName) = Self.loudnessLayout(channelCount: channelCount)
            let loudness = configuration.analyses.contains(.loudness)
                ? loudnessMeter(.init(
                    sampleRate: reader.sampleRate, channelLayout: layout,
                    measuresTruePeak: configuration.analyses.contains(.truePeak))) : nil
            let measuresLevels = configuration.analyses.contains(.levels)
            var notMeasured = FileScore.NotMeasured()
            if configuration.analyses.contains(.loudness) && loudness == nil {
                notMeasured.loudness = FileScore.NotMeasured.Reason.unsupportedSampleRate.rawValue
            }
            ensureCapacity(channels: fileChannels, selected: channelCount)
            chain?.reset()
            var detection = DetectionRun(records: configuration.recordsSegments)
            if let chain {
                // A rate the resampler does not take (outside 1 kHz…768 kHz or an unreasonable
                // ratio): the file is still scored, without `detection`.
                detection.conditioner = try? conditioner(rate: reader.sampleRate, channels: channelCount, to: chain.sampleRate)
                if detection.conditioner == nil { notMeasured.detection = FileScore.NotMeasured.Reason.unsupportedSampleRate.rawValue }
            }
            // The effective audio bandwidth needs the file's own rate: measured before conditioning.
            let bandwidth = configuration.analyses.contains(.environment)
                ? try? bandwidthPath(rate: reader.sampleRate, channels: channelCount) : nil
            var frames = 0
            if span.start > 0 { try reader.seek(toFrame: span.start) }
            // A whole file is read to its end, whatever its header declares; a segment to its end frame.
            var remaining = input.segment == nil ? Int.max : span.end - span.start
            while remaining > 0 {
                let wanted = Swift.min(configuration.blockFrames, remaining)
                let got = try reader.readFrames(into: UnsafeMutableBufferPointer(rebasing: buffer[..<(wanted * fileChannels)]))
                if got == 0 { break }
                remaining -= got
                let read = UnsafeBufferPointer(rebasing: buffer[..<(got * fileChannels)])
                let block = span.channels.map { select($0, from: read, fileChannels: fileChannels) } ?? read
                frames += got
                // Always measured: the levels also tell whether the file holds any finite sample.
                analyzer.process(block) { _ in }
                loudness?.process(block)
                if let bandwidth { measureBandwidth(block, bandwidth) }
                if let chain, let conditioner = detection.conditioner {
                    detect(block, conditioner, chain, &detection, observe)
                }
            }
            let summary = analyzer.finalize()
            record.frames = frames
            record.duration = Double(frames) / Double(reader.sampleRate)
            let noFiniteSample = summary.overall.sampleCount == 0
            if measuresLevels {
                if noFiniteSample {
                    notMeasured.levels = FileScore.NotMeasured.Reason.noFiniteSamples.rawValue
                } else {
                    record.levels = FileScore.Levels(summary)
                }
            }
            if let loudness {
                let result = loudness.finalize()
                if noFiniteSample {
                    notMeasured.loudness = FileScore.NotMeasured.Reason.noFiniteSamples.rawValue
                } else if frames < minimumLoudnessFrames(sampleRate: reader.sampleRate) {
                    notMeasured.loudness = FileScore.NotMeasured.Reason.tooShort.rawValue
                } else {
                    record.loudness = FileScore.Loudness(result, channelLayout: layoutName)
                }
            }
            if let chain, let conditioner = detection.conditioner {
                let summary = finishDetection(conditioner, chain, &detection, observe)
                let reason: FileScore.NotMeasured.Reason? =
                    noFiniteSample ? .noFiniteSamples : frames < minimumFrames(sampleRate: reader.sampleRate) ? .tooShort : nil
                if let reason {
                    notMeasured.detection = reason.rawValue
                } else {
                    record.detection = FileScore.Detection(
                        summary.detection, music: configuration.analyses.contains(.music),
                        multipleSpeakers: configuration.analyses.contains(.speakers))
                    if let environment = summary.environment {
                        record.environment = detection.measurements.record(
                            environment, reverberation: summary.reverberation, bandwidth: bandwidth?.estimator.finalize(),
                            prosody: summary.prosody)
                    }
                    if configuration.recordsSegments {
                        detection.segments.duration = record.duration
                        record.segments = detection.segments
                    }
                }
            }
            if configuration.analyses.contains(.environment) && record.environment == nil {
                notMeasured.environment = notMeasured.detection ?? FileScore.NotMeasured.Reason.tooShort.rawValue
            }
            record.notMeasured = notMeasured.isEmpty ? nil : notMeasured
            if record.levels == nil && record.loudness == nil && record.detection == nil && record.environment == nil {
                // Nothing asked for could be measured: the file is unsupported, with the reasons.
                let reasons = [("levels", notMeasured.levels), ("loudness", notMeasured.loudness), ("detection", notMeasured.detection)]
                    .compactMap { name, reason in reason.map { "\(name): \($0)" } }.joined(separator: ", ")
                record.error = .init(
                    kind: "unsupported",
                    message: "\(path): no analysis asked for can be done at \(reader.sampleRate) Hz, \(frames) frames (\(reasons))")
                record.levels = nil
                return record
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
        var conditioner: StreamConditioner?
        var records: Bool
        var segments = DetectionSegments()
        /// Start of each activity's open segment (sample position at the analysis rate).
        var open: [Int64?] = [nil, nil, nil]
        var measurements = EnvironmentMeasurements()

        /// Takes one event of the chain: segments (when recorded) and measurements.
        mutating func take(_ event: AnalysisEvent, rate: Int) {
            switch event {
            case .environment(let m):
                measurements.add(m)
                if records { segments.environment.append(.init(m)) }
            case .started(let activity, let at): open[activity.rawValue] = at
            case .ended(let activity, let at):
                if records, let start = open[activity.rawValue], at > start {
                    let segment = DetectionSegments.Segment(start: Double(start) / Double(rate), end: Double(at) / Double(rate))
                    switch activity {
                    case .speech: segments.speech.append(segment)
                    case .music: segments.music.append(segment)
                    case .multipleSpeakers: segments.multiSpeaker.append(segment)
                    }
                }
                open[activity.rawValue] = nil
            }
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

    /// A conditioner from `rate` Hz and `channels` channels to `target` Hz, in its initial
    /// state: a cached one, reset, or a new one.
    private func conditioner(rate: Int, channels: Int, to target: Int) throws(ConfigurationError) -> StreamConditioner {
        let key = rate * 128 + channels
        if let cached = conditioners[key] {
            cached.reset()
            return cached
        }
        let made = try StreamConditioner(configuration: .init(inputRate: rate, channelCount: channels, outputRate: target))
        conditioners[key] = made
        return made
    }

    /// The bandwidth estimator for `rate` and the downmixer for `channels` (nil for mono), reset.
    private func bandwidthPath(rate: Int, channels: Int) throws(ConfigurationError) -> (estimator: BandwidthEstimator, downmixer: Downmixer?) {
        let estimator: BandwidthEstimator
        if let cached = bandwidthEstimators[rate] {
            cached.reset()
            estimator = cached
        } else {
            estimator = try BandwidthEstimator(configuration: .init(sampleRate: rate))
            bandwidthEstimators[rate] = estimator
        }
        guard channels > 1 else { return (estimator, nil) }
        if let cached = downmixers[channels] {
            cached.reset()
            return (estimator, cached)
        }
        let made = try Downmixer(channelCount: channels)
        downmixers[channels] = made
        return (estimator, made)
    }

    /// Mixes one block to mono at the input rate (as the conditioner does) and adds it to the
    /// bandwidth estimate.
    private func measureBandwidth(_ block: UnsafeBufferPointer<Float>, _ path: (estimator: BandwidthEstimator, downmixer: Downmixer?)) {
        let none = UnsafeMutableBufferPointer<BandwidthEstimate>(start: nil, count: 0)
        guard let downmixer = path.downmixer else {
            _ = path.estimator.process(block, into: none)
            return
        }
        let frames = downmixer.maxOutputCount(forInputCount: block.count)
        if frames > inputMono.count {
            inputMono.deallocate()
            inputMono = .allocate(capacity: frames)
        }
        let produced = downmixer.process(block, into: inputMono).produced
        _ = path.estimator.process(UnsafeBufferPointer(rebasing: inputMono[..<produced]), into: none)
    }

    /// Conditions one block (interleaved, any rate) to mono 16 kHz and runs the chain over it.
    private func detect(
        _ block: UnsafeBufferPointer<Float>, _ conditioner: StreamConditioner, _ chain: AnalysisChain,
        _ run: inout DetectionRun, _ observe: (AnalysisEvent) -> Void
    ) {
        reserve(samples: conditioner.maxOutputCount(forInputCount: block.count), conditioner, chain)
        let produced = conditioner.process(block, into: conditioned).produced
        analyze(UnsafeBufferPointer(rebasing: conditioned[..<produced]), chain, &run, observe)
    }

    /// Runs the chain over conditioned samples, handing on its events.
    private func analyze(
        _ samples: UnsafeBufferPointer<Float>, _ chain: AnalysisChain, _ run: inout DetectionRun,
        _ observe: (AnalysisEvent) -> Void
    ) {
        let count = chain.process(samples, into: events).produced
        for event in events[..<count] {
            run.take(event, rate: chain.sampleRate)
            observe(event)
        }
    }

    /// Ends the file's stream: the conditioner's tail through the chain, then the chain's flush.
    private func finishDetection(
        _ conditioner: StreamConditioner, _ chain: AnalysisChain, _ run: inout DetectionRun,
        _ observe: (AnalysisEvent) -> Void
    ) -> AnalysisChain.Summary {
        reserve(samples: conditioner.maxFlushOutputCount, conditioner, chain)
        let produced = conditioner.flush(into: conditioned)
        analyze(UnsafeBufferPointer(rebasing: conditioned[..<produced]), chain, &run, observe)
        let count = chain.flush(into: events)
        for event in events[..<count] {
            run.take(event, rate: chain.sampleRate)
            observe(event)
        }
        return chain.finalize()
    }

    /// Grows the conditioned-sample and event buffers to hold `samples` samples and their
    /// events (per file, never per block once grown).
    private func reserve(samples: Int, _ conditioner: StreamConditioner, _ chain: AnalysisChain) {
        if samples > conditioned.count {
            conditioned.deallocate()
            conditioned = .allocate(capacity: samples)
        }
        let needed = Swift.max(chain.maxOutputCount(forInputCount: samples), chain.maxFlushOutputCount)
        if needed > events.count {
            events.deallocate()
            events = .allocate(capacity: needed)
        }
    }

    /// Sizes the read buffer for `channels` file channels and the selection buffer for
    /// `selected` channels picked from them (per file, never per block).
    private func ensureCapacity(channels: Int, selected count: Int) {
        if count < channels && configuration.blockFrames * count > selected.count {
            selected.deallocate()
            selected = .allocate(capacity: configuration.blockFrames * count)
        }
        guard channels != bufferChannels else { return }
        buffer.deallocate()
        buffer = .allocate(capacity: configuration.blockFrames * channels)
        bufferChannels = channels
    }

    /// The `channels` of an interleaved block of `fileChannels` channels, interleaved in that order.
    private func select(_ channels: [Int], from block: UnsafeBufferPointer<Float>, fileChannels: Int) -> UnsafeBufferPointer<Float> {
        let frames = block.count / fileChannels
        let count = channels.count
        for frame in 0..<frames {
            for (slot, channel) in channels.enumerated() {
                selected[frame * count + slot] = block[frame * fileChannels + channel]
            }
        }
        return UnsafeBufferPointer(rebasing: selected[..<(frames * count)])
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
