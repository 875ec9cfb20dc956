import DSPAnalysis
import DSPCore
import DSPDetection
import DSPSpectral

extension SpeechFrontEnd {
    /// The stages a front end runs. Downmixing and resampling run whenever a stage needs the
    /// 16 kHz stream (every stage but ``clipping``).
    public struct Stages: OptionSet, Equatable, Hashable, Sendable {
        public let rawValue: Int
        /// Creates a set from its raw bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// 16 kHz PCM Int16 written to the caller's output buffer.
        public static let output = Stages(rawValue: 1 << 0)
        /// Per-frame levels (``FrontEndEvent/levels(_:)`` events).
        public static let levels = Stages(rawValue: 1 << 1)
        /// BS.1770 loudness of the 16 kHz stream (momentary and short-term in the level events,
        /// integrated via ``SpeechFrontEnd/integratedLoudnessLUFS``).
        public static let loudness = Stages(rawValue: 1 << 2)
        /// Clipped and non-finite input samples (``FrontEndEvent/clipping(_:)`` events).
        public static let clipping = Stages(rawValue: 1 << 3)
        /// Voice activity, music and multi-speaker detection (``FrontEndEvent/started(_:at:)`` and
        /// ``FrontEndEvent/ended(_:at:)`` events).
        public static let detection = Stages(rawValue: 1 << 4)
        /// The environment analyzer (``FrontEndEvent/environment(_:at:)`` events). Needs
        /// ``detection``.
        public static let environment = Stages(rawValue: 1 << 5)

        /// Every stage.
        public static let all: Stages = [.output, .levels, .loudness, .clipping, .detection, .environment]
        /// The default: ``all``.
        public static var `default`: Stages { all }
    }

    /// A front end's settings. Validated by ``SpeechFrontEnd/init(configuration:)``.
    public struct Configuration: Equatable, Sendable {
        /// Input sample rate, Hz (integer). Range 8 000…384 000; typically 44 100 or 48 000.
        public var inputRate: Int
        /// Interleaved input channels. Range 1…64; default 1.
        public var channelCount: Int
        /// How channels become mono. Default ``/DSPCore/Downmixer/Mode/average``.
        public var downmix: Downmixer.Mode
        /// The stages to run. Default ``Stages/default``.
        public var stages: Stages
        /// The resampler's filter preset. Default ``/DSPCore/Resampler/Quality/default`` (≥ 100 dB
        /// alias rejection).
        public var resamplerQuality: Resampler.Quality
        /// Dither before Int16 rounding. Default none.
        public var dither: Int16Converter.Dither
        /// Input |x| at or above which a sample counts as clipped. Range (0, ∞); default
        /// 32767/32768 ≈ 0.99997 (−0.0003 dBFS): the largest positive Int16 value, so audio that
        /// went through Int16 and clipped at +32767 counts, as does anything at or beyond full
        /// scale (which the Int16 output clamps).
        public var clipThreshold: Float
        /// Length of the windows in which clipping is counted and reported, milliseconds of
        /// input. Range 1…10 000; default 100 (at most ten clipping events a second).
        public var clipWindowMilliseconds: Int
        /// Whether the levels stage emits a ``FrontEndEvent/levels(_:)`` event per frame. Default
        /// true.
        public var emitsLevelEvents: Bool
        /// The environment analyzer's settings; its `sampleRate` and `frameLength` are set to
        /// 16 000 and 1024 by the front end.
        public var environment: EnvironmentAnalyzer.Configuration
        /// The detection stage's settings: the voice-activity segmenter (thresholds, minimum run,
        /// hangover and padding:
        /// ``/DSPDetection/AcousticDetector/Configuration-swift.struct/speechSegments``), the
        /// network blended into voice activity
        /// (``/DSPDetection/AcousticDetector/Configuration-swift.struct/speechBlend``; `nil` for
        /// the speech model alone: a stream's first half second heard sooner, music and noise
        /// called speech more often), the pure-tone gate, which detections run
        /// (``/DSPDetection/AcousticDetector/Configuration-swift.struct/detectsMusic``,
        /// ``/DSPDetection/AcousticDetector/Configuration-swift.struct/detectsMultipleSpeakers``:
        /// with both off, voice activity alone costs about 40 % less and calls more music speech),
        /// the models. docs/front-end.md, "Detection settings", measures the switches. Default:
        /// the detector's documented defaults. It runs on the front end's 16 kHz stream, so its
        /// `analysis.sampleRate` must be 16 000. ``detectionHopsPerBatch`` and
        /// ``loopedBackgrounds`` are two of its settings, named here too.
        public var detector: AcousticDetector.Configuration
        /// How many 16 ms detection hops the spectral analyzer analyses together (its
        /// ``/DSPSpectral/SpectralAnalyzer/Configuration-swift.struct/framesPerBatch``). Range
        /// 1…4; default 4. Output and events are the same, bit for bit, whatever the value; what
        /// changes is which push does the analysis and when the detection events come. Four costs
        /// least CPU per hop (the four-hop path), but a push of 1024 frames at 48 kHz (1.33 hops)
        /// analyses four hops once in three pushes and none in the others; one analyses a hop or
        /// two in every push — an even push time — and emits segment events up to 16 ms after
        /// their hop instead of up to 64 ms. Two or three lie between (batches of 1, 2 and 4 hops
        /// end with the 1024-sample analysis frames; three does not, and costs an extra cut of the
        /// input per measurement). Measured with 1000 streams interleaved on one core (docs/front-end.md,
        /// "Push time and batch size"): one brings the 99.9th percentile of the push time from
        /// 11–14× the median to 3–4.5× and costs 8–15 % of the streams a core runs; two, 2.5–3×
        /// for 2–8 %. Pushes of 2048 frames or more (43 ms at 48 kHz) run a batch of four in two
        /// pushes of three or more: at the default the 99.9th percentile is then 2.4–3.2× the
        /// median, with 3–8 % more streams per core than 1024-frame pushes (13–21 % at 4096 frames;
        /// same page, "Push size"). The detector's `analysis.framesPerBatch` (``detector``).
        public var detectionHopsPerBatch: Int {
            get { detector.analysis.framesPerBatch }
            set { detector.analysis.framesPerBatch = newValue }
        }
        /// Whether the environment's background-noise estimate reads a looped background by its
        /// period (``/DSPDetection/NoiseLevelEstimator/Configuration-swift.struct/loopedBackgrounds``).
        /// Default true: it adds 814 bytes per stream and about 0.9 % of the front end's
        /// instructions (docs/scene-measures.md, *Looped backgrounds*, *Loops under speech*).
        /// The detector's `loopedBackgrounds` (``detector``).
        public var loopedBackgrounds: Bool {
            get { detector.loopedBackgrounds }
            set { detector.loopedBackgrounds = newValue }
        }

        /// Creates a configuration; see each property for its default. `detectionHopsPerBatch`
        /// and `loopedBackgrounds`, when given, replace those settings of `detector`; `nil` keeps
        /// the detector's (by default 4 and true).
        public init(
            inputRate: Int, channelCount: Int = 1, downmix: Downmixer.Mode = .average, stages: Stages = .default,
            resamplerQuality: Resampler.Quality = .default, dither: Int16Converter.Dither = .none,
            clipThreshold: Float = 32767.0 / 32768.0, clipWindowMilliseconds: Int = 100, emitsLevelEvents: Bool = true,
            environment: EnvironmentAnalyzer.Configuration = .init(),
            detector: AcousticDetector.Configuration = .init(),
            detectionHopsPerBatch: Int? = nil,
            loopedBackgrounds: Bool? = nil
        ) {
            self.inputRate = inputRate
            self.channelCount = channelCount
            self.downmix = downmix
            self.stages = stages
            self.resamplerQuality = resamplerQuality
            self.dither = dither
            self.clipThreshold = clipThreshold
            self.clipWindowMilliseconds = clipWindowMilliseconds
            self.emitsLevelEvents = emitsLevelEvents
            self.environment = environment
            self.detector = detector
            if let detectionHopsPerBatch { self.detectionHopsPerBatch = detectionHopsPerBatch }
            if let loopedBackgrounds { self.loopedBackgrounds = loopedBackgrounds }
        }

        /// Throws the first setting out of range (the units validate their own settings too).
        func validate() throws(ConfigurationError) {
            try ConfigurationError.check("inputRate", inputRate, in: 8_000...384_000)
            try ConfigurationError.check("channelCount", channelCount, in: 1...64)
            try ConfigurationError.check("clipWindowMilliseconds", clipWindowMilliseconds, in: 1...10_000)
            try ConfigurationError.check("detectionHopsPerBatch", detectionHopsPerBatch, in: 1...4)
            guard detector.analysis.sampleRate == Double(SpeechFrontEnd.outputRate) else {
                throw ConfigurationError(
                    parameter: "detector.analysis.sampleRate", value: "\(detector.analysis.sampleRate)",
                    expected: "\(SpeechFrontEnd.outputRate) (the detector runs on the front end's 16 kHz stream)")
            }
            guard Stages.all.isSuperset(of: stages) else {
                throw ConfigurationError(parameter: "stages", value: stages.rawValue, expected: "a subset of Stages.all")
            }
            if stages.contains(.environment), !stages.contains(.detection) {
                throw ConfigurationError(
                    parameter: "stages", value: "environment without detection",
                    expected: "environment together with detection (it is fed by the detectors)")
            }
        }
    }
}
