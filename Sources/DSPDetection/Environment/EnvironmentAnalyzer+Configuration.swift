import DSPCore

extension EnvironmentAnalyzer {
    /// Lower bounds of the ``NoiseCategory`` bands, in dB on the ``Configuration/fullScaleDB``
    /// scale (noise dBFS + 90 by default). Must increase strictly.
    public struct NoiseThresholds: Equatable, Sendable {
        /// Lower bound of ``NoiseCategory/quiet``, dB. Default 35 (−55 dBFS).
        public var quiet: Double
        /// Lower bound of ``NoiseCategory/moderate``, dB. Default 45 (−45 dBFS).
        public var moderate: Double
        /// Lower bound of ``NoiseCategory/loud``, dB. Default 55 (−35 dBFS).
        public var loud: Double
        /// Lower bound of ``NoiseCategory/veryLoud``, dB. Default 65 (−25 dBFS).
        public var veryLoud: Double

        /// Creates thresholds; the defaults are 35, 45, 55 and 65 dB.
        public init(quiet: Double = 35, moderate: Double = 45, loud: Double = 55, veryLoud: Double = 65) {
            self.quiet = quiet
            self.moderate = moderate
            self.loud = loud
            self.veryLoud = veryLoud
        }

        /// The band `levelDB` falls in; −∞ and NaN are ``NoiseCategory/veryQuiet``.
        @inlinable
        public func category(forLevelDB levelDB: Double) -> NoiseCategory {
            if !(levelDB >= quiet) { return .veryQuiet }
            if levelDB < moderate { return .quiet }
            if levelDB < loud { return .moderate }
            if levelDB < veryLoud { return .loud }
            return .veryLoud
        }
    }

    /// When to recommend the accurate recognizer, and how reluctantly to change.
    ///
    /// A measurement *prefers* ``RecognizerRecommendation/accurate`` when any enabled condition
    /// holds — noise at or above ``accurateNoiseDB``; music or several speakers detected (their
    /// fraction at or above ``Configuration/detectionFraction``); or, when at least
    /// ``minimumSpeechFraction`` of the window is speech, clarity below ``minimumClarity`` — and
    /// ``RecognizerRecommendation/fast`` otherwise. Every threshold is moved by its margin
    /// *away from* the current recommendation (to leave `fast`, the noise must reach
    /// `accurateNoiseDB + noiseMarginDB`; to come back, it must fall below
    /// `accurateNoiseDB − noiseMarginDB`; likewise for the fractions and the clarity), and the
    /// recommendation changes only at the first measurement at least ``holdSeconds`` after the
    /// first of an unbroken run of measurements preferring the change. A level that hovers at a
    /// threshold therefore never makes it flip.
    public struct RecommendationPolicy: Equatable, Sendable {
        /// Noise level (dB, ``Configuration/fullScaleDB`` scale) at or above which accurate is
        /// preferred. Range 0…200; default 55 (the `loud` band).
        public var accurateNoiseDB: Double
        /// Hysteresis margin around ``accurateNoiseDB``, dB. Range 0…40; default 3.
        public var noiseMarginDB: Double
        /// Whether detected music calls for accurate. Default true.
        public var accurateOnMusic: Bool
        /// Whether several speakers call for accurate. Default true.
        public var accurateOnMultipleSpeakers: Bool
        /// Hysteresis margin around ``Configuration/detectionFraction`` for music and several
        /// speakers. Range 0…0.5; default 0.1.
        public var fractionMargin: Double
        /// Speech clarity below which accurate is preferred. Range 0…1; default 0.5 (12 dB SNR
        /// with the default clarity map); 0 disables the condition.
        public var minimumClarity: Double
        /// Hysteresis margin around ``minimumClarity``. Range 0…0.5; default 0.1.
        public var clarityMargin: Double
        /// Clarity counts only when at least this fraction of the window is speech. Range
        /// 0…1; default 0.2.
        public var minimumSpeechFraction: Double
        /// How long a new preference must hold before the recommendation changes, seconds.
        /// Range 0…600; default 2.
        public var holdSeconds: Double
        /// The recommendation at the stream start. Default ``RecognizerRecommendation/fast``.
        public var initialRecommendation: RecognizerRecommendation

        /// Creates a policy; see each property for its default.
        public init(
            accurateNoiseDB: Double = 55, noiseMarginDB: Double = 3, accurateOnMusic: Bool = true,
            accurateOnMultipleSpeakers: Bool = true, fractionMargin: Double = 0.1, minimumClarity: Double = 0.5,
            clarityMargin: Double = 0.1, minimumSpeechFraction: Double = 0.2, holdSeconds: Double = 2,
            initialRecommendation: RecognizerRecommendation = .fast
        ) {
            self.accurateNoiseDB = accurateNoiseDB
            self.noiseMarginDB = noiseMarginDB
            self.accurateOnMusic = accurateOnMusic
            self.accurateOnMultipleSpeakers = accurateOnMultipleSpeakers
            self.fractionMargin = fractionMargin
            self.minimumClarity = minimumClarity
            self.clarityMargin = clarityMargin
            self.minimumSpeechFraction = minimumSpeechFraction
            self.holdSeconds = holdSeconds
            self.initialRecommendation = initialRecommendation
        }
    }

    /// Analyzer settings. Every field is validated by ``EnvironmentAnalyzer/init(configuration:)``.
    public struct Configuration: Equatable, Sendable {
        /// Rate of the frame positions, Hz. Range 1…1 000 000; default 16 000.
        public var sampleRate: Int
        /// Nominal samples per frame (sizes the window's ring). Range 1…65 536; default 1024.
        public var frameLength: Int
        /// Measurements per second. Range 0.01…100; default 2. Measurements fall at the end of
        /// the first frame reaching each multiple of `round(sampleRate / updateRateHz)` samples.
        public var updateRateHz: Double
        /// Audio each measurement looks back over, seconds. Range 0.01…60; default 1.
        public var windowSeconds: Double
        /// dB assigned to 0 dBFS on the noise-level scale (categories and key). Range 0…200;
        /// default 90: an uncalibrated SPL-like scale (a −45 dBFS noise floor reads 45 dB).
        public var fullScaleDB: Double
        /// The category bands.
        public var noiseThresholds: NoiseThresholds
        /// Fraction of the window that must be flagged music (several speakers) for it to be
        /// detected. Range 0.01…1; default 0.5.
        public var detectionFraction: Double
        /// Non-speech audio the window needs for the direct noise estimate, seconds. Range
        /// 0…60; default 0.1.
        public var minimumNoiseSeconds: Double
        /// SNR at which clarity is 0.5, dB. Range −40…60; default 12.
        public var clarityMidpointDB: Double
        /// Scale of the clarity map, dB (larger = gentler). Range 0.1…40; default 4.
        public var clarityScaleDB: Double
        /// The recognizer policy.
        public var policy: RecommendationPolicy

        /// Creates a configuration; see each property for its default.
        public init(
            sampleRate: Int = 16_000, frameLength: Int = 1024, updateRateHz: Double = 2, windowSeconds: Double = 1,
            fullScaleDB: Double = 90, noiseThresholds: NoiseThresholds = NoiseThresholds(),
            detectionFraction: Double = 0.5, minimumNoiseSeconds: Double = 0.1, clarityMidpointDB: Double = 12,
            clarityScaleDB: Double = 4, policy: RecommendationPolicy = RecommendationPolicy()
        ) {
            self.sampleRate = sampleRate
            self.frameLength = frameLength
            self.updateRateHz = updateRateHz
            self.windowSeconds = windowSeconds
            self.fullScaleDB = fullScaleDB
            self.noiseThresholds = noiseThresholds
            self.detectionFraction = detectionFraction
            self.minimumNoiseSeconds = minimumNoiseSeconds
            self.clarityMidpointDB = clarityMidpointDB
            self.clarityScaleDB = clarityScaleDB
            self.policy = policy
        }

        /// Throws the first setting out of range.
        func validate() throws(ConfigurationError) {
            try ConfigurationError.check("sampleRate", sampleRate, in: 1...1_000_000)
            try ConfigurationError.check("frameLength", frameLength, in: 1...65_536)
            try ConfigurationError.check("updateRateHz", updateRateHz, in: 0.01...100)
            try ConfigurationError.check("windowSeconds", windowSeconds, in: 0.01...60)
            try ConfigurationError.check("fullScaleDB", fullScaleDB, in: 0...200)
            let t = noiseThresholds
            for (name, value) in [("quiet", t.quiet), ("moderate", t.moderate), ("loud", t.loud), ("veryLoud", t.veryLoud)] {
                try ConfigurationError.check("noiseThresholds.\(name)", value, in: 0...200)
            }
            guard t.quiet < t.moderate, t.moderate < t.loud, t.loud < t.veryLoud else {
                throw ConfigurationError(
                    parameter: "noiseThresholds", value: "\(t.quiet), \(t.moderate), \(t.loud), \(t.veryLoud)",
                    expected: "strictly increasing quiet < moderate < loud < veryLoud")
            }
            try ConfigurationError.check("detectionFraction", detectionFraction, in: 0.01...1)
            try ConfigurationError.check("minimumNoiseSeconds", minimumNoiseSeconds, in: 0...60)
            try ConfigurationError.check("clarityMidpointDB", clarityMidpointDB, in: -40...60)
            try ConfigurationError.check("clarityScaleDB", clarityScaleDB, in: 0.1...40)
            let p = policy
            try ConfigurationError.check("policy.accurateNoiseDB", p.accurateNoiseDB, in: 0...200)
            try ConfigurationError.check("policy.noiseMarginDB", p.noiseMarginDB, in: 0...40)
            try ConfigurationError.check("policy.fractionMargin", p.fractionMargin, in: 0...0.5)
            try ConfigurationError.check("policy.minimumClarity", p.minimumClarity, in: 0...1)
            try ConfigurationError.check("policy.clarityMargin", p.clarityMargin, in: 0...0.5)
            try ConfigurationError.check("policy.minimumSpeechFraction", p.minimumSpeechFraction, in: 0...1)
            try ConfigurationError.check("policy.holdSeconds", p.holdSeconds, in: 0...600)
        }
    }
}
