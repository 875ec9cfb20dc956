import DSPCore
import DSPSpectral

/// One frame of detection: the spectral features, the cues, the three probabilities, the
/// live decisions and any segment boundary the frame confirmed.
public struct DetectionFrame: Sendable {
    /// The frame's spectral features (its time and hop are in there).
    public var features: SpectralFeatures
    /// The cues the decisions were made from.
    public var cues: DetectionCues
    /// Probability that the hop contains speech, 0…1 (smoothed).
    public var speechProbability: Float
    /// Probability that music is playing, 0…1 (smoothed).
    public var musicProbability: Float
    /// Probability that two or more people talk at once, 0…1 (smoothed).
    public var multiSpeakerProbability: Float
    /// Whether a speech segment is open after this frame.
    public var isSpeech: Bool
    /// Whether a music segment is open after this frame.
    public var isMusic: Bool
    /// Whether a multi-speaker segment is open after this frame.
    public var isMultiSpeaker: Bool
    /// Stream position of the frame's hop (its first new sample), at the detector's rate.
    public var startSample: Int64
    /// A speech segment that opened (with its back-dated start) or closed at this frame, in
    /// sample positions (edges read from the hops' power when
    /// ``AcousticDetector/Configuration-swift.struct/speechBoundaries`` is set, as by default).
    public var speechChange: ActivitySegmenter.Transition
    /// The same for music.
    public var musicChange: ActivitySegmenter.Transition
    /// The same for multiple speakers.
    public var multiSpeakerChange: ActivitySegmenter.Transition

    /// Start of the frame's hop, seconds.
    public var time: Double { features.time }
    /// Samples of real audio in the frame's hop (the hop length, or less for a stream's last).
    public var sampleCount: Int { features.validCount }
}

/// What a stream's end reports: where still-open segments end, and the summary.
public struct DetectionEnd: Sendable {
    /// End of the stream: the samples pushed.
    public var endSample: Int64
    /// End of the speech segment still open at the end of the stream, if any (sample position).
    public var speechEndedAt: Int64?
    /// End of the music segment still open, if any (sample position).
    public var musicEndedAt: Int64?
    /// End of the multi-speaker segment still open, if any (sample position).
    public var multiSpeakerEndedAt: Int64?
    /// The stream's summary.
    public var summary: DetectionSummary
    /// The background-noise level at the end of the stream (``AcousticDetector/noiseLevel``),
    /// dBFS; −∞ for a silent background or an empty stream.
    public var backgroundNoiseDBFS: Float = -.infinity
}

/// A stream's totals.
public struct DetectionSummary: Equatable, Sendable {
    /// Stream length, samples at the detector's rate.
    public var sampleCount: Int64 = 0
    /// Total length of the speech segments, samples.
    public var speechSamples: Int64 = 0
    /// Total length of the music segments, samples.
    public var musicSamples: Int64 = 0
    /// Total length of the multi-speaker segments, samples.
    public var multiSpeakerSamples: Int64 = 0
    /// Stream length, seconds.
    public var durationSeconds: Double = 0
    /// Analysis frames.
    public var frameCount: Int = 0
    /// Total length of the speech segments, seconds (``speechSamples`` / rate).
    public var speechSeconds: Double = 0
    /// Total length of the music segments, seconds.
    public var musicSeconds: Double = 0
    /// Total length of the multi-speaker segments, seconds.
    public var multiSpeakerSeconds: Double = 0
    /// Number of speech segments.
    public var speechSegmentCount: Int = 0
    /// Number of music segments.
    public var musicSegmentCount: Int = 0
    /// Number of multi-speaker segments.
    public var multiSpeakerSegmentCount: Int = 0
    /// Median of the stream's readings of the background-noise level (``AcousticDetector/noiseLevel``:
    /// the noise under speech, music and talkers), dBFS, to 0.5 dB; −∞ when the median reading
    /// found a digitally silent background. Read every 0.5 s (``AcousticDetector/noiseReadingSeconds``:
    /// where an ``AnalysisChain``'s environment measures at its defaults, the same readings) and
    /// at the end of the stream (``DetectionEnd/backgroundNoiseDBFS``) where hops came after the
    /// last reading: with the environment on, the median of its measurements' noise to 0.5 dB.
    public var medianNoiseFloorDBFS: Float = -.infinity

    /// `speechSeconds / durationSeconds`, 0 for an empty stream.
    public var speechRatio: Double { durationSeconds > 0 ? min(1, speechSeconds / durationSeconds) : 0 }
    /// `musicSeconds / durationSeconds`.
    public var musicRatio: Double { durationSeconds > 0 ? min(1, musicSeconds / durationSeconds) : 0 }
    /// `multiSpeakerSeconds / durationSeconds`.
    public var multiSpeakerRatio: Double { durationSeconds > 0 ? min(1, multiSpeakerSeconds / durationSeconds) : 0 }

    /// An empty summary.
    public init() {}
}

/// Voice activity, music and multiple-speaker detection in one streaming pass.
///
/// Samples (mono, at ``Configuration-swift.struct/analysis``'s sample rate, 16 kHz by
/// default) are pushed in buffers of any size. A ``/DSPSpectral/SpectralAnalyzer`` cuts them into
/// 64 ms Hann frames every 16 ms; a cue tracker puts each frame in context (noise floor, SNR,
/// syllable-rate modulation, low-energy ratio, spectral-peak persistence, rhythm, voicing,
/// pitch stability, second-pitch salience, zero-crossing statistics — ``DetectionCues``);
/// three ``ProbabilityModel``s (small networks) turn cues into probabilities, a
/// ``DetectionNetwork``'s voice-activity output optionally blended into the speech model's
/// (``Configuration-swift.struct/speechBlend``), smoothed over time; and three
/// ``ActivitySegmenter``s turn probabilities into segments, speech segments' edges then read from
/// the hops' own power (``Configuration-swift.struct/speechBoundaries``). See `docs/detection.md` for the
/// algorithms and their evaluation.
///
/// It is a ``/DSPCore/StreamingProcessor`` from samples to one ``DetectionFrame`` per hop
/// (``process(_:into:)``, ``flush(into:)``, then ``finalize()`` for where open segments ended and
/// the summary); ``process(_:_:)`` and ``flush(_:)`` hand the frames to a closure instead. All
/// state is allocated in `init` (a call's working buffers come from the calling thread's scratch
/// workspace, allocated on that thread's first call); processing neither allocates nor locks,
/// and results do not depend on how the input was chunked. One instance serves one stream from one thread at a
/// time.
public final class AcousticDetector: StreamAnalyzer, @unchecked Sendable {
    // @unchecked: the cue tracker, models, segmenters and counts below are reached only holding
    // `ownership` (see StreamOwnership); `analyzer` and `noiseLevel`, public, guard themselves.
    /// Everything the detector can be told. Defaults suit 16 kHz speech.
    public struct Configuration: Equatable, Sendable {
        /// The spectral analysis (sample rate, window, hop, frames per batch). Default: 16 kHz,
        /// 1024 / 256, batches of four. The batch size
        /// (``/DSPSpectral/SpectralAnalyzer/Configuration-swift.struct/framesPerBatch``) changes
        /// only when frames are emitted, never a frame's values.
        public var analysis: SpectralAnalyzer.Configuration
        /// Frames quieter than this (frame level, dBFS) are silence for every detector.
        /// −120…0; default −70.
        public var silenceFloorDBFS: Float
        /// Voice activity: the model over ``CueLane`` lanes (any but
        /// ``CueLane/speechProbability``), used when music or multiple speakers are detected too.
        public var speechModel: ProbabilityModel
        /// Voice activity alone (``detectsMusic`` and ``detectsMultipleSpeakers`` off): a model
        /// over the lanes that need neither the rhythm, peak-persistence and harmonic-sieve cues
        /// nor the music probability, which are then not computed.
        public var standaloneSpeechModel: ProbabilityModel
        /// Voice activity: smoothing of the probability per frame, 0…0.99 (`p ← a·p + (1−a)·p_new`).
        public var speechSmoothing: Float
        /// Voice activity: segment decisions. Default ``DefaultModels/speechSegments`` (chosen
        /// with the voice-activity model on the detection material's val split).
        public var speechSegments: ActivitySegmenter.Configuration
        /// Music: the model over ``CueLane`` lanes (any but ``CueLane/musicProbability`` and
        /// ``CueLane/speechProbability``).
        public var musicModel: ProbabilityModel
        /// Music: probability smoothing per frame, 0…0.99.
        public var musicSmoothing: Float
        /// Music: segment decisions.
        public var musicSegments: ActivitySegmenter.Configuration
        /// Multiple speakers: the model over any ``CueLane`` lanes.
        public var multiSpeakerModel: ProbabilityModel
        /// Multiple speakers: probability smoothing per frame, 0…0.99.
        public var multiSpeakerSmoothing: Float
        /// Multiple speakers: segment decisions.
        public var multiSpeakerSegments: ActivitySegmenter.Configuration
        /// Whether to detect music; its probabilities are 0 when off. Default on.
        public var detectsMusic: Bool
        /// Whether to detect multiple speakers; their probabilities are 0 when off. Default on.
        /// With both off, the rhythm, peak-persistence and harmonic-sieve cues are skipped (about
        /// 40 % of the work) and voice activity uses ``standaloneSpeechModel``.
        public var detectsMultipleSpeakers: Bool
        /// When set, one network gives all three probabilities (``DetectionNetwork``) in place
        /// of ``musicModel``, ``speechModel``, ``standaloneSpeechModel`` and
        /// ``multiSpeakerModel``, which are then not evaluated; every cue is computed (the
        /// network may read any), whatever ``detectsMusic`` and ``detectsMultipleSpeakers`` say
        /// (they still decide what is reported). `nil`: the four models.
        public var network: DetectionNetwork?
        /// Voice activity from the speech model and a network together (``SpeechBlend``), used
        /// when the full cues run (``detectsMusic`` or ``detectsMultipleSpeakers`` on) and no
        /// ``network`` is set; voice activity alone (both off) uses ``standaloneSpeechModel`` by
        /// itself. Default ``DefaultModels/speechBlend``, the fitted blend (since 2026-12-07:
        /// `docs/detection.md`, Fitting and Results); `nil`: the speech model alone.
        public var speechBlend: SpeechBlend?
        /// Seconds over which the blend's network weighs in at a stream's start: its share rises
        /// linearly with the frame's position, from 0 at the stream's first sample to
        /// ``SpeechBlend/weight`` at this time (the network's convolutions and GRU start from zero
        /// and have heard nothing yet); 0: the full share from the first frame. 0…60; default 0.
        /// At 0.5 a stream that opens on speech has 45.5 % of its first 0.1–0.5 s heard instead
        /// of 33.9 %, for a little more speech called on music and noise in their first second
        /// (`docs/detection.md`, Fitting, "The blend's network weighed in").
        public var speechBlendWarmUpSeconds: Double
        /// Whether the background-noise estimate reads a looped background by its period
        /// (``NoiseLevelEstimator/Configuration-swift.struct/loopedBackgrounds``). Default on.
        public var loopedBackgrounds: Bool
        /// Whether a steady pure tone — test tones, beeps, sweeps, dial, ring-back and busy tones,
        /// DTMF digits that outlast the run: one partial, or two that are not harmonics of one
        /// note, holding 99 % of the power of the analysis band at a level steady within 1 dB from
        /// hop to hop, for eight hops in a row — is kept out of voice activity, told by the
        /// spectrum rather than by the models, which never heard such tones (`PureToneGate`, internal);
        /// and so is a sound whose spectrum holds still — a square or sawtooth wave, a buzzer, a
        /// steady hum: every band of the analyzer's within 30 dB of the loudest within 1 dB of the
        /// first hop's, for eight hops in a row (voices move their pitch, formants and level from hop
        /// to hop). From the eighth such hop on, the hop's voice-activity probability is taken as 0 before
        /// smoothing (the blend's network's too), and a speech segment that the models decided on
        /// the tone itself (opened on or after the run's first hop) closes at the hop's start; a
        /// segment open before the run ends by its hangover. The music probability is not gated;
        /// the multi-speaker model reads the gated voice activity, as it reads it always. Default on.
        public var gatesPureTones: Bool
        /// Where speech segments begin and end, read from the hops' own power
        /// (``SpeechBoundaryRefinement``): an end moves back to the last hop that still sounds,
        /// a start back over the hops just before it that already do, each by at most 0.1 s.
        /// Only speech segments move. Default ``SpeechBoundaryRefinement/init(floorMarginDB:peakRangeDB:endSearchSeconds:startSearchSeconds:)``'s
        /// settings; `nil`: the segmenter's edges as they are.
        public var speechBoundaries: SpeechBoundaryRefinement?

        /// The documented defaults.
        public init() {
            analysis = SpectralAnalyzer.Configuration()
            silenceFloorDBFS = -70
            speechModel = DefaultModels.speech
            standaloneSpeechModel = DefaultModels.standaloneSpeech
            speechSmoothing = 0.5
            speechSegments = DefaultModels.speechSegments
            musicModel = DefaultModels.music
            musicSmoothing = 0.9
            musicSegments = .init(onThreshold: 0.6, offThreshold: 0.4, minimumActiveSeconds: 0.5, hangoverSeconds: 0.5, paddingSeconds: 0)
            multiSpeakerModel = DefaultModels.multiSpeaker
            multiSpeakerSmoothing = 0.8
            multiSpeakerSegments = .init(onThreshold: 0.5, offThreshold: 0.35, minimumActiveSeconds: 0.25, hangoverSeconds: 0.25, paddingSeconds: 0)
            detectsMusic = true
            detectsMultipleSpeakers = true
            network = nil
            speechBlend = DefaultModels.speechBlend
            speechBlendWarmUpSeconds = 0
            loopedBackgrounds = true
            gatesPureTones = true
            speechBoundaries = SpeechBoundaryRefinement()
        }
    }

    /// The configuration, as validated.
    public let configuration: Configuration
    /// The spectral front end.
    public let analyzer: SpectralAnalyzer
    /// Sample rate, Hz.
    public var sampleRate: Double { configuration.analysis.sampleRate }

    private let cues: CueTracker
    private let speechNetwork: CompiledModel
    private let musicNetwork: CompiledModel
    private let multiSpeakerNetwork: CompiledModel
    /// The network of ``Configuration/network``, when set.
    private let network: CompiledNetwork?
    /// The network of ``Configuration/speechBlend`` and its weight, when it runs.
    private let blendNetwork: CompiledNetwork?
    private let blendWeight: Float
    /// ``Configuration-swift.struct/speechBlendWarmUpSeconds`` in samples at the analysis rate.
    private let blendWarmUpSamples: Float
    private let blendStride: Int
    /// Audible frames until the blend's network steps again (0: this one), and its last
    /// voice-activity output, which the frames in between read.
    private var blendPhase = 0
    private var heldNetworkSpeech: Float = 0
    /// The pure-tone and still-spectrum tests and their runs (``Configuration/gatesPureTones``).
    private var toneGate: PureToneGate
    /// Where the hop that opened the current speech segment starts (the decision, not the
    /// back-dated start), sample position.
    private var speechDecided: Int64 = 0
    /// Where the open speech segment starts as reported (refined by ``boundaries``).
    private var speechStart: Int64 = 0
    /// The hops' power for ``Configuration-swift.struct/speechBoundaries``, when set.
    private let boundaries: SpeechBoundaryTracker?
    /// Whether the music and multi-speaker cues (and the music model) run.
    private let fullCues: Bool
    private var speech: ActivitySegmenter
    private var music: ActivitySegmenter
    private var multiSpeaker: ActivitySegmenter
    /// The speech model's smoothed probability (what the multi-speaker model and the
    /// background estimate read) and the blend network's.
    private var speechProbability: Float = 0
    private var networkSpeechProbability: Float = 0
    private var musicProbability: Float = 0
    private var multiSpeakerProbability: Float = 0
    private var samples: Int64 = 0
    private var summary = DetectionSummary()
    /// The background-noise readings for the summary's median: 0.5 dB bins from −140 to
    /// +10 dBFS (clamped), and the readings of a digitally silent background.
    private let noiseHistogram: UnsafeMutableBufferPointer<UInt32>
    private var silentNoiseReadings = 0
    /// The end of the hop being handed to `body`, and of the hop of the last reading (−1: none).
    private var hopEnd: Int64 = 0
    private var noiseReadingEnd: Int64 = -1
    /// The next multiple of ``noiseReadingSeconds`` the schedule waits for, samples.
    private var nextNoiseReading: Int64
    /// ``noiseReadingSeconds`` and ``noiseReadingFrameSeconds`` in samples.
    private let noiseReadingInterval: Int64
    private let noiseReadingFrame: Int64
    /// The background-noise level under the foreground, updated on every hop from its power
    /// spectrum and the smoothed music and speech probabilities (``NoiseLevelEstimator``'s
    /// ``NoiseLevelEstimator/update(_:musicProbability:speechProbability:)``, default settings at this
    /// analysis's bins and hop);
    /// ``AnalysisChain`` reads it where the environment measures.
    public let noiseLevel: NoiseLevelEstimator
    /// A flushed stream's end, until ``finalize()`` or the next stream's first push.
    private var finished: DetectionEnd?
    private let ownership = StreamOwnership()
    /// The process's workspace key (``/DSPCore/ScratchWorkspace``).
    private let workspace = ScratchWorkspace()

    /// Allocates the calling thread's scratch workspace for this detector's calls now, if it
    /// does not hold enough yet, so that the first call on this thread allocates nothing (a
    /// thread's workspace is otherwise allocated by its first call: ``/DSPCore/MemoryFootprint/workspaceBytes``).
    /// Call it once on each worker thread at start-up where even that first allocation matters.
    /// Never needed for correctness; safe on any thread.
    public func reserveWorkspace() {
        workspace.enter(reserving: workspaceBytes).leave()
    }
    /// Bytes a call takes from the calling thread's workspace: the spectral analyzer's per-call
    /// buffers and, above them while a frame is lent, the cues' and the models' (reserved at
    /// the start of every call, so none of them moves to a new chunk mid-call).
    let workspaceBytes: Int
    /// Bytes a batch's detection takes above the analyzer's: ``batchBytes``, the cue tracker's
    /// and the models'.
    private let detectBytes: Int

    /// Takes the ownership flag; two overlapping calls stop the program.
    @inline(__always)
    private func enter() {
        if !ownership.acquire() { preconditionFailure("AcousticDetector: overlapping calls from two threads (one stream, one caller at a time)") }
    }

    /// Validates the configuration and allocates everything.
    ///
    /// - Throws: ``/DSPCore/ConfigurationError`` naming the first bad parameter.
    public init(configuration: Configuration = Configuration()) throws(ConfigurationError) {
        let c = configuration
        try ConfigurationError.check("silenceFloorDBFS", Double(c.silenceFloorDBFS), in: -120...0)
        try ConfigurationError.check("speechBlendWarmUpSeconds", c.speechBlendWarmUpSeconds, in: 0...60)
        for (name, smoothing) in [("speechSmoothing", c.speechSmoothing), ("musicSmoothing", c.musicSmoothing), ("multiSpeakerSmoothing", c.multiSpeakerSmoothing)] {
            try ConfigurationError.check(name, Double(smoothing), in: 0...0.99)
        }
        for (name, s) in [("speechSegments", c.speechSegments), ("musicSegments", c.musicSegments), ("multiSpeakerSegments", c.multiSpeakerSegments)] {
            try s.validate(parameter: name)
        }
        try c.speechBoundaries?.validate()
        // A model may not read a probability computed after it in the frame.
        let cuesOnly: [CueLane] = [.musicProbability, .speechProbability]
        for (name, model, unreadable) in [
            ("speechModel", c.speechModel, [CueLane.speechProbability]), ("musicModel", c.musicModel, cuesOnly),
            ("standaloneSpeechModel", c.standaloneSpeechModel, cuesOnly),
            ("multiSpeakerModel", c.multiSpeakerModel, []),
        ] {
            guard model.isValid, !unreadable.contains(where: model.reads) else {
                throw ConfigurationError(
                    parameter: name,
                    value: "\(model.inputCount) inputs, \(model.hiddenCount) hidden\(model.recurrence == nil ? "" : " (GRU)"), "
                        + "evaluation stride \(model.evaluationStride)",
                    expected: "consistent shapes, finite values, an evaluation stride in 1...\(ProbabilityModel.maximumEvaluationStride), "
                        + "no lane of \(unreadable.map(\.name))")
            }
        }
        if let network = c.network, !network.isValid {
            throw ConfigurationError(
                parameter: "network", value: "\(network.inputCount) inputs, \(network.convolutions.count) convolutions, \(network.hiddenCount) GRU units",
                expected: "consistent shapes, finite values, positive scales, no probability lane")
        }
        if let blend = c.speechBlend, !blend.isValid {
            throw ConfigurationError(
                parameter: "speechBlend",
                value: "weight \(blend.weight), stride \(blend.evaluationStride), \(blend.network.inputCount) inputs, "
                    + "\(blend.network.convolutions.count) convolutions",
                expected: "a weight in 0...1, a stride in 1...\(SpeechBlend.maximumEvaluationStride) and a valid network "
                    + "(consistent shapes, finite values, positive scales, no probability lane)")
        }
        self.configuration = c
        analyzer = try SpectralAnalyzer(configuration: c.analysis)
        // The music and multi-speaker models read each other's cues: either needs them all (and
        // a network may read any).
        fullCues = c.detectsMusic || c.detectsMultipleSpeakers || c.network != nil
        cues = CueTracker(analyzer: analyzer, music: fullCues, multipleSpeakers: fullCues)
        toneGate = PureToneGate(bins: analyzer.analysisBins, binWidthHz: c.analysis.sampleRate / Double(c.analysis.windowLength),
                                bands: analyzer.bandBinRanges)
        let rate = c.analysis.sampleRate
        speech = ActivitySegmenter(configuration: c.speechSegments, sampleRate: rate)
        boundaries = c.speechBoundaries.map {
            SpeechBoundaryTracker(
                refinement: $0, sampleRate: rate, hopLength: c.analysis.hopLength,
                decisionDelaySeconds: Swift.max(c.speechSegments.hangoverSeconds,
                                                c.speechSegments.minimumActiveSeconds + c.speechSegments.paddingSeconds))
        }
        music = ActivitySegmenter(configuration: c.musicSegments, sampleRate: rate)
        multiSpeaker = ActivitySegmenter(configuration: c.multiSpeakerSegments, sampleRate: rate)
        noiseHistogram = .allocate(capacity: 300)
        noiseHistogram.initialize(repeating: 0)
        noiseReadingInterval = Swift.max(1, Int64((Self.noiseReadingSeconds * rate).rounded()))
        noiseReadingFrame = Swift.max(1, Int64((Self.noiseReadingFrameSeconds * rate).rounded()))
        nextNoiseReading = noiseReadingInterval
        noiseLevel = try NoiseLevelEstimator(configuration: .init(
            binCount: c.analysis.windowLength / 2 + 1, hopSeconds: Double(c.analysis.hopLength) / c.analysis.sampleRate,
            bandCount: Swift.min(32, Swift.max(1, c.analysis.windowLength / 2 - 1)), loopedBackgrounds: c.loopedBackgrounds))
        let speechNetwork = CompiledModel(fullCues ? c.speechModel : c.standaloneSpeechModel)
        let musicNetwork = CompiledModel(c.musicModel)
        let multiSpeakerNetwork = CompiledModel(c.multiSpeakerModel)
        self.speechNetwork = speechNetwork
        self.musicNetwork = musicNetwork
        self.multiSpeakerNetwork = multiSpeakerNetwork
        let network = c.network.map(CompiledNetwork.init)
        self.network = network
        let blend = network == nil && fullCues ? c.speechBlend : nil
        blendNetwork = blend.map { CompiledNetwork($0.network) }
        blendWeight = blend?.weight ?? 0
        blendWarmUpSamples = Float(c.speechBlendWarmUpSeconds * c.analysis.sampleRate)
        blendStride = blend?.evaluationStride ?? 1
        detectBytes = Self.batchBytes + cues.memoryFootprint.workspaceBytes
            + speechNetwork.workspaceBytes + musicNetwork.workspaceBytes + multiSpeakerNetwork.workspaceBytes
            + Swift.max(network?.workspaceBytes ?? 0, blendNetwork?.workspaceBytes ?? 0)
        workspaceBytes = analyzer.memoryFootprint.workspaceBytes + detectBytes
    }

    deinit {
        noiseHistogram.deallocate()
    }

    /// Latency of the per-frame results, samples: the spectral analyzer's (frames go a batch at
    /// a time, so up to `framesPerBatch` hops: four by default). Segment starts are back-dated;
    /// segment ends are known a hangover after they happen.
    public var outputDelay: Int { analyzer.outputDelay }

    /// The frames the next ``process(_:into:)`` with `inputCount` samples writes (exact): the
    /// hops it completes, in whole batches (the spectral analyzer's `framesPerBatch`).
    public func maxOutputCount(forInputCount inputCount: Int) -> Int {
        analyzer.maxOutputCount(forInputCount: inputCount)
    }

    /// A frame capacity enough for any call with up to `inputCount` samples in any state:
    /// `⌊inputCount / hop⌋ + framesPerBatch`.
    public func outputCapacity(forInputCount inputCount: Int) -> Int {
        analyzer.outputCapacity(forInputCount: inputCount)
    }

    /// Pushes mono samples, writing the frames they complete into `output`; takes only the
    /// samples whose frames fit. Never allocates.
    public func process(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<DetectionFrame>
    ) -> ProcessResult {
        enter(); defer { ownership.release() }
        let take = analyzer.acceptedCount(input.count, room: output.count)
        var produced = 0
        push(UnsafeBufferPointer(rebasing: input[..<take])) { frame, _ in
            (output.baseAddress! + produced).initialize(to: frame)
            produced += 1
        }
        return ProcessResult(consumed: take, produced: produced)
    }

    /// At most `framesPerBatch` frames (four by default): up to `framesPerBatch − 1` complete
    /// ones waiting for their batch and a final partial hop.
    public var maxFlushOutputCount: Int { analyzer.maxFlushOutputCount }

    /// Ends the stream: writes the frame of a final partial hop, keeps where open segments end
    /// and the summary for ``finalize()``, and readies the detector for a new stream.
    /// - Precondition: `output` has room for ``maxFlushOutputCount`` frames.
    public func flush(into output: UnsafeMutableBufferPointer<DetectionFrame>) -> Int {
        enter(); defer { ownership.release() }
        var produced = 0
        let end = drain { frame, _ in
            precondition(produced < output.count, "AcousticDetector.flush: output smaller than maxFlushOutputCount")
            (output.baseAddress! + produced).initialize(to: frame)
            produced += 1
        }
        finished = end
        return produced
    }

    /// The ended stream's end (open segments' ends, summary): the one ``flush(into:)`` kept,
    /// or — without a flush — the current stream's, flushed first (its last frame discarded).
    public func finalize() -> DetectionEnd {
        enter(); defer { ownership.release() }
        if let finished {
            self.finished = nil
            return finished
        }
        return drain { _, _ in }
    }

    /// Pushes mono samples and calls `body` for each frame they complete, in order.
    /// Never allocates. A frame whose 64 ms window holds a NaN or ±Inf sample is reported with
    /// ``/DSPSpectral/SpectralFeatures/isFinite`` false and taken for silence: the models give it
    /// probability 0, so the reported (smoothed) probabilities fall as on a silent frame; it leaves
    /// the cues' state (noise floor, histories) and the background estimate untouched; segments in
    /// progress continue by their hangover.
    public func process(_ input: UnsafeBufferPointer<Float>, _ body: (DetectionFrame) -> Void) {
        process(input, lendingSpectra: { frame, _ in body(frame) })
    }

    /// Pushes mono samples and calls `body` for each frame they complete, in order, with the
    /// ``/DSPSpectral/SpectralFrame`` it was detected from (its power spectrum and band powers are views
    /// valid only during the call): for analyses above the detector that read the same spectra
    /// instead of computing their own. Otherwise as ``process(_:_:)``. Never allocates.
    public func process(_ input: UnsafeBufferPointer<Float>, lendingSpectra body: (DetectionFrame, SpectralFrame) -> Void) {
        enter(); defer { ownership.release() }
        push(input, body)
    }

    /// ``process(_:lendingSpectra:)`` for a caller holding the flag.
    private func push(_ input: UnsafeBufferPointer<Float>, _ body: (DetectionFrame, SpectralFrame) -> Void) {
        let scope = workspace.enter(reserving: workspaceBytes)
        defer { scope.leave() }
        if !input.isEmpty { finished = nil }
        samples += Int64(input.count)
        analyzer.processBatches(input) { frames in detect(frames, body) }
    }

    /// Ends the stream: emits the frames still held (complete ones waiting for their batch, and
    /// a final partial hop), closes open segments at the end of the stream, returns
    /// where they end and the summary, and resets.
    public func flush(_ body: (DetectionFrame) -> Void) -> DetectionEnd {
        flush(lendingSpectra: { frame, _ in body(frame) })
    }

    /// ``flush(_:)``, lending each frame's ``/DSPSpectral/SpectralFrame`` as ``process(_:lendingSpectra:)``
    /// does.
    public func flush(lendingSpectra body: (DetectionFrame, SpectralFrame) -> Void) -> DetectionEnd {
        enter(); defer { ownership.release() }
        return drain(body)
    }

    /// ``flush(lendingSpectra:)`` for a caller holding the flag.
    private func drain(_ body: (DetectionFrame, SpectralFrame) -> Void) -> DetectionEnd {
        let scope = workspace.enter(reserving: workspaceBytes)
        defer { scope.leave() }
        analyzer.flushBatches { frames in detect(frames, body) }
        let end = samples
        // The end's reading counts in the median where hops came after the last one.
        let background = noiseReadingEnd != hopEnd ? takeNoiseReading() : noiseLevel.levelDBFS
        var result = DetectionEnd(endSample: end, summary: summary, backgroundNoiseDBFS: background)
        var s = result.summary
        s.sampleCount = end
        s.medianNoiseFloorDBFS = medianNoiseFloor()
        if case .ended(let t) = speech.finish(at: end) {
            let refined = boundaries?.refineEnd(t, start: speechStart) ?? t
            s.speechSamples += refined - speechStart
            result.speechEndedAt = refined
        }
        result.musicEndedAt = Self.close(&music, at: end, samples: &s.musicSamples)
        result.multiSpeakerEndedAt = Self.close(&multiSpeaker, at: end, samples: &s.multiSpeakerSamples)
        s.durationSeconds = Double(end) / sampleRate
        s.speechSeconds = Double(s.speechSamples) / sampleRate
        s.musicSeconds = Double(s.musicSamples) / sampleRate
        s.multiSpeakerSeconds = Double(s.multiSpeakerSamples) / sampleRate
        result.summary = s
        resetStream()
        return result
    }

    /// Forgets the stream.
    public func reset() {
        enter(); defer { ownership.release() }
        resetStream()
    }

    private func resetStream() {
        finished = nil
        analyzer.reset()
        cues.reset()
        speech.reset(); music.reset(); multiSpeaker.reset()
        speechProbability = 0; musicProbability = 0; multiSpeakerProbability = 0; networkSpeechProbability = 0
        blendPhase = 0; heldNetworkSpeech = 0
        toneGate.reset()
        speechDecided = 0
        speechStart = 0
        boundaries?.reset()
        samples = 0
        summary = DetectionSummary()
        noiseHistogram.update(repeating: 0)
        silentNoiseReadings = 0
        hopEnd = 0
        noiseReadingEnd = -1
        nextNoiseReading = noiseReadingInterval
        noiseLevel.reset()
        speechNetwork.reset(); musicNetwork.reset(); multiSpeakerNetwork.reset()
        network?.reset()
        blendNetwork?.reset()
    }

    private static func close(_ segmenter: inout ActivitySegmenter, at end: Int64, samples: inout Int64) -> Int64? {
        let start = segmenter.activeStart
        guard case .ended(let t) = segmenter.finish(at: end) else { return nil }
        samples += t - start
        return t
    }

    /// The schedule of the readings of ``noiseLevel`` for the summary's
    /// ``DetectionSummary/medianNoiseFloorDBFS``: at the end of the first ``noiseReadingFrameSeconds``
    /// frame (64 ms, four hops) that reaches each multiple of this, seconds. These are the times
    /// an ``AnalysisChain``'s environment measures at its defaults (2 Hz, 1024-sample frames at
    /// 16 kHz): where it does, the detector takes its reading and adds none of its own, so the
    /// summary is the same with the environment on or off.
    public static let noiseReadingSeconds = 0.5
    /// The frame whose ends the readings fall on, seconds (``noiseReadingSeconds``).
    public static let noiseReadingFrameSeconds = 0.064

    /// Reads ``noiseLevel`` (a few thousand operations) and counts the reading in the summary's
    /// median. For the detector's own schedule and for ``AnalysisChain``, from within a
    /// `body` callback of this detector (the caller holds the stream's flag).
    func takeNoiseReading() -> Float {
        let level = noiseLevel.levelDBFS
        noiseReadingEnd = hopEnd
        if level.isFinite {
            let bin = Int(((level + 140) * 2).rounded(.down))
            noiseHistogram[Swift.min(noiseHistogram.count - 1, Swift.max(0, bin))] += 1
        } else {
            silentNoiseReadings += 1
        }
        return level
    }

    /// The median reading, the lower middle one of an even count (a bin's centre; −∞ for a
    /// silent background or no reading).
    private func medianNoiseFloor() -> Float {
        let total = noiseHistogram.reduce(silentNoiseReadings) { $0 + Int($1) }
        guard total > 0 else { return -.infinity }
        let rank = (total + 1) / 2   // 1-based
        var seen = silentNoiseReadings
        guard seen < rank else { return -.infinity }
        for (i, n) in noiseHistogram.enumerated() {
            seen += Int(n)
            if seen >= rank { return -140 + 0.5 * Float(i) + 0.25 }
        }
        return -.infinity
    }

    /// Bytes ``detect(_:_:)`` itself takes from the workspace for a batch: each frame's cue
    /// lanes, cues, probabilities (the models', the smoothed ones, the blend, a network's three)
    /// and place in the batch, and the models' lane table.
    static var batchBytes: Int {
        let b = CompiledModel.batchLimit
        return ScratchWorkspace.bytes(Float.self, b * CueLane.count) + ScratchWorkspace.bytes(DetectionCues.self, b)
            + ScratchWorkspace.bytes(Float.self, 9 * b) + 2 * ScratchWorkspace.bytes(UnsafeMutablePointer<Float>.self, b)
            + ScratchWorkspace.bytes(Int.self, b) + ScratchWorkspace.bytes(Int64.self, b)
    }

    /// Detects a spectral batch's frames (one, or the four of a four-frame batch) and calls
    /// `body` for each in order, with exactly the results one frame at a time would give.
    ///
    /// The cues of every frame first (the cue tracker reads only the frames), then each model
    /// over the batch's non-silent frames at once (its weights read once for two frames:
    /// ``CompiledModel/probabilities(_:count:into:)``) — music, then voice activity (whose lane
    /// 43 is the music probability smoothed up to the frame before, known once the music
    /// probabilities are), then multiple speakers (lane 44, the frame's smoothed voice
    /// activity) —, then, frame by frame, the background estimate, the segmenters, the summary
    /// and `body`: everything that reads or writes state another frame's `body` may see runs
    /// in frame order, between the calls, as before.
    private func detect(_ frames: UnsafeBufferPointer<SpectralFrame>, _ body: (DetectionFrame, SpectralFrame) -> Void) {
        let count = frames.count
        let scope = workspace.enter(reserving: detectBytes)
        defer { scope.leave() }
        let laneBlock = scope.take(Float.self, count: count * CueLane.count)
        let frameCues = scope.take(DetectionCues.self, count: count)
        let probabilities = scope.take(Float.self, count: 9 * count)
        let pMusic = probabilities, pSpeech = probabilities + count, pMulti = probabilities + 2 * count
        let smoothedMusic = probabilities + 3 * count, out = probabilities + 4 * count   // a model's outputs
        let blended = probabilities + 5 * count   // the voice-activity probability reported
        let outputs = probabilities + 6 * count   // a network's three per sounding frame
        let lanes = scope.take(UnsafeMutablePointer<Float>.self, count: count)
        let sounding = scope.take(Int.self, count: count)   // the batch's non-silent frames
        let toneSince = scope.take(Int64.self, count: count)   // where a gated frame's tone run starts; -1: not gated
        let gatesTones = configuration.gatesPureTones

        var soundingCount = 0
        var gate = toneGate   // a local copy for the batch: one access to the stored state, not one a hop
        for k in 0..<count {
            let c = cues.update(frames[k])
            frameCues[k] = c
            let x = laneBlock + k * CueLane.count
            CueLane.fill(x, features: frames[k].features, cues: c)
            let audible = c.levelDBFS >= configuration.silenceFloorDBFS
            toneSince[k] = gatesTones
                && gate.update(frames[k].powerSpectrum, bandPowers: frames[k].bandPowers, features: frames[k].features, levelDBFS: c.levelDBFS,
                               hopStart: frames[k].features.index * Int64(analyzer.hopLength), sounding: audible && frames[k].features.isFinite)
                ? gate.gatedSince : -1
            if audible {
                lanes[soundingCount] = x
                sounding[soundingCount] = k
                soundingCount += 1
            }
            pMusic[k] = 0; pSpeech[k] = 0; pMulti[k] = 0
        }
        if gatesTones { toneGate = gate }
        // The network: all three probabilities at once, frame after frame (its state runs
        // through them in order).
        if let network {
            network.steps(lanes, count: soundingCount, into: outputs)
            for j in 0..<soundingCount {
                let k = sounding[j], o = outputs + 3 * j
                pMusic[k] = o[DetectionNetwork.Output.music.rawValue]
                pSpeech[k] = o[DetectionNetwork.Output.speech.rawValue]
                pMulti[k] = configuration.detectsMultipleSpeakers ? o[DetectionNetwork.Output.multiSpeaker.rawValue] : 0
            }
        }
        // The blend's network: its voice-activity output per frame into `blended` (0 on
        // silence; between its steps, the last step's), smoothed and blended below. The frames
        // it steps on go through it together.
        if let blendNetwork {
            for k in 0..<count { blended[k] = 0 }
            let stepped = scope.take(UnsafeMutablePointer<Float>.self, count: count)
            var steps = 0, phase = blendPhase
            for j in 0..<soundingCount {
                if phase == 0 {
                    stepped[steps] = lanes[j]
                    steps += 1
                }
                phase = phase + 1 == blendStride ? 0 : phase + 1
            }
            blendNetwork.steps(stepped, count: steps, into: outputs)
            var step = 0
            for j in 0..<soundingCount {
                if blendPhase == 0 {
                    heldNetworkSpeech = outputs[3 * step + DetectionNetwork.Output.speech.rawValue]
                    step += 1
                }
                blendPhase = blendPhase + 1 == blendStride ? 0 : blendPhase + 1
                blended[sounding[j]] = heldNetworkSpeech
            }
        }
        // Music: reads neither probability lane. Computed whenever the full cues are (the
        // multi-speaker model reads it), reported only when music detection is on.
        if network == nil, fullCues, soundingCount > 0 {
            musicNetwork.probabilities(lanes, count: soundingCount, into: out)
            for j in 0..<soundingCount { pMusic[sounding[j]] = out[j] }
        }
        for k in 0..<count {
            laneBlock[k * CueLane.count + CueLane.musicProbability.rawValue] = musicProbability   // the previous frame's
            musicProbability = Self.smooth(musicProbability, pMusic[k], configuration.musicSmoothing)
            smoothedMusic[k] = musicProbability
        }
        if network == nil, soundingCount > 0 {
            speechNetwork.probabilities(lanes, count: soundingCount, into: out)
            for j in 0..<soundingCount { pSpeech[sounding[j]] = out[j] }
        }
        if gatesTones {
            for k in 0..<count where toneSince[k] >= 0 {
                pSpeech[k] = 0
                if blendNetwork != nil { blended[k] = 0 }
            }
        }
        var smoothedSpeech = speechProbability
        for k in 0..<count {
            smoothedSpeech = Self.smooth(smoothedSpeech, pSpeech[k], configuration.speechSmoothing)
            pSpeech[k] = smoothedSpeech
            laneBlock[k * CueLane.count + CueLane.speechProbability.rawValue] = smoothedSpeech
        }
        if blendNetwork != nil {
            for k in 0..<count {
                networkSpeechProbability = Self.smooth(networkSpeechProbability, blended[k], configuration.speechSmoothing)
                // The network's share rises over the warm-up from the stream's start.
                let position = Float(frames[k].features.index * Int64(analyzer.hopLength))
                let weight = position < blendWarmUpSamples ? blendWeight * (position / blendWarmUpSamples) : blendWeight
                blended[k] = (1 - weight) * pSpeech[k] + weight * networkSpeechProbability
            }
        } else {
            for k in 0..<count { blended[k] = pSpeech[k] }
        }
        if network == nil, configuration.detectsMultipleSpeakers, soundingCount > 0 {
            multiSpeakerNetwork.probabilities(lanes, count: soundingCount, into: out)
            for j in 0..<soundingCount { pMulti[sounding[j]] = out[j] }
        }

        for k in 0..<count {
            let frame = frames[k], c = frameCues[k], f = frame.features
            let start = f.index * Int64(analyzer.hopLength)
            let validCount = f.validCount
            let reportedMusic = configuration.detectsMusic ? smoothedMusic[k] : 0
            speechProbability = pSpeech[k]
            let reportedSpeech = blended[k]
            // The background estimate reads music hops' spectra between their partials, and the
            // hops with neither speech nor music in full.
            if f.isFinite { noiseLevel.update(frame.powerSpectrum, musicProbability: reportedMusic, speechProbability: speechProbability) }
            multiSpeakerProbability = Self.smooth(multiSpeakerProbability, pMulti[k], configuration.multiSpeakerSmoothing)

            let openedAt = speechStart, musicStart = music.activeStart, multiStart = multiSpeaker.activeStart
            boundaries?.record(index: f.index, end: start + Int64(validCount), hopPower: f.hopPower, floorDBFS: c.noiseFloorDBFS)
            // A steady tone closes the speech the models decided on it; speech open before it
            // keeps its hangover.
            var speechChange = toneSince[k] >= 0 && speech.isActive && speechDecided >= toneSince[k]
                ? speech.close(at: start) : speech.update(probability: reportedSpeech, start: start, count: validCount)
            switch speechChange {
            case .started(let at):
                speechDecided = start
                speechStart = boundaries?.refineStart(at) ?? at
                speechChange = .started(at: speechStart)
            case .ended(let at):
                if let boundaries { speechChange = .ended(at: boundaries.refineEnd(at, start: openedAt)) }
            case .none:
                break
            }
            if speech.isActive { boundaries?.extendPeak() }
            let musicChange = music.update(probability: reportedMusic, start: start, count: validCount)
            let multiChange = multiSpeaker.update(probability: multiSpeakerProbability, start: start, count: validCount)
            var totals = summary
            Self.account(speechChange, previousStart: openedAt, samples: &totals.speechSamples, count: &totals.speechSegmentCount)
            Self.account(musicChange, previousStart: musicStart, samples: &totals.musicSamples, count: &totals.musicSegmentCount)
            Self.account(multiChange, previousStart: multiStart, samples: &totals.multiSpeakerSamples, count: &totals.multiSpeakerSegmentCount)
            totals.frameCount += 1
            summary = totals
            hopEnd = start + Int64(analyzer.hopLength)

            body(DetectionFrame(
                features: f, cues: c,
                speechProbability: reportedSpeech, musicProbability: reportedMusic,
                multiSpeakerProbability: multiSpeakerProbability,
                isSpeech: speech.isActive, isMusic: music.isActive, isMultiSpeaker: multiSpeaker.isActive,
                startSample: start, speechChange: speechChange, musicChange: musicChange, multiSpeakerChange: multiChange),
                frame)
            // The summary's reading on its schedule, where `body` (an environment measuring)
            // did not take it at this hop.
            if hopEnd >= nextNoiseReading, hopEnd % noiseReadingFrame == 0 {
                if noiseReadingEnd != hopEnd { _ = takeNoiseReading() }
                nextNoiseReading = (hopEnd / noiseReadingInterval + 1) * noiseReadingInterval
            }
        }
    }

    @inline(__always)
    private static func smooth(_ previous: Float, _ new: Float, _ a: Float) -> Float {
        a * previous + (1 - a) * new
    }

    private static func account(_ change: ActivitySegmenter.Transition, previousStart: Int64, samples: inout Int64, count: inout Int) {
        switch change {
        case .started: count += 1
        case .ended(let end): samples += end - previousStart
        case .none: break
        }
    }
}

extension AcousticDetector: MemoryAccounting {
    /// The spectral analyzer, the cue tracker, the three models (their weights shared, a
    /// recurrent model's state owned) and the noise histogram (the analyzer's, the cues', the
    /// batch's cue lanes and the models' per-call buffers are workspace bytes, per thread).
    public var memoryFootprint: MemoryFootprint {
        analyzer.memoryFootprint + cues.memoryFootprint + speechNetwork.memoryFootprint + musicNetwork.memoryFootprint
            + multiSpeakerNetwork.memoryFootprint + (network?.memoryFootprint ?? MemoryFootprint())
            + (blendNetwork?.memoryFootprint ?? MemoryFootprint())
            + noiseLevel.memoryFootprint + .owned(MemoryFootprint.bytes(noiseHistogram))
            + .owned(boundaries?.ownedBytes ?? 0)
            + MemoryFootprint(workspaceBytes: Self.batchBytes)
    }
}
