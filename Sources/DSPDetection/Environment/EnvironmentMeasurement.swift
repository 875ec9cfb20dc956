import DSPCore

/// How loud the background is, in five bands of the noise level on the
/// ``EnvironmentAnalyzer/Configuration/fullScaleDB`` scale.
///
/// The lower bounds of the bands are ``EnvironmentAnalyzer/NoiseThresholds`` (defaults, in dB
/// with 0 dBFS = 90 dB): very quiet below 35 dB (−55 dBFS), quiet 35…45 (−55…−45 dBFS),
/// moderate 45…55 (−45…−35 dBFS), loud 55…65 (−35…−25 dBFS), very loud from 65 dB (−25 dBFS).
/// Digital silence (−∞) is very quiet.
public enum NoiseCategory: Int, CaseIterable, Comparable, Sendable, CustomStringConvertible {
    /// Below the `quiet` threshold (default 35 dB).
    case veryQuiet
    /// From the `quiet` threshold (default 35 dB) to the `moderate` one.
    case quiet
    /// From the `moderate` threshold (default 45 dB) to the `loud` one.
    case moderate
    /// From the `loud` threshold (default 55 dB) to the `veryLoud` one.
    case loud
    /// From the `veryLoud` threshold (default 65 dB) up.
    case veryLoud

    /// The snake-case name used in records: `very_quiet`, `quiet`, `moderate`, `loud`, `very_loud`.
    public var key: String {
        switch self {
        case .veryQuiet: "very_quiet"
        case .quiet: "quiet"
        case .moderate: "moderate"
        case .loud: "loud"
        case .veryLoud: "very_loud"
        }
    }

    /// Same as ``key``.
    public var description: String { key }

    /// Orders from quietest to loudest.
    public static func < (a: NoiseCategory, b: NoiseCategory) -> Bool { a.rawValue < b.rawValue }
}

/// Which recognizer the environment calls for.
public enum RecognizerRecommendation: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// The fast on-device recognizer: quiet, clean speech from one speaker.
    case fast
    /// The accurate (cloud) recognizer: loud rooms, music, several speakers or unclear speech.
    case accurate

    /// `fast` or `accurate`.
    public var description: String { self == .fast ? "fast" : "accurate" }
}

/// Where a measurement's background noise level came from, in order of preference.
public enum NoiseEstimateSource: Int, Sendable, CustomStringConvertible {
    /// The duration-weighted power mean of the window's non-speech frames (at least
    /// ``EnvironmentAnalyzer/Configuration/minimumNoiseSeconds`` of them): the noise measured
    /// directly.
    case nonSpeechFrames
    /// Too little non-speech audio in the window: the power mean of the detector's tracked
    /// noise floor (``AnalysisFrame/noiseFloorDBFS``) over the window.
    case noiseTracker
    /// Neither: the quietest frame of the window — an upper bound on the noise, used only while
    /// the window holds speech and the detector gives no noise-floor estimate.
    case quietestFrame
    /// The spectral background estimate the frames carried (``AnalysisFrame/backgroundNoiseDBFS``,
    /// from ``NoiseLevelEstimator``): the noise under the foreground, with no speech decision.
    /// What ``AnalysisChain`` gives every measurement.
    case backgroundEstimator

    /// `non_speech_frames`, `noise_tracker`, `quietest_frame` or `background_estimator`.
    public var description: String {
        switch self {
        case .nonSpeechFrames: "non_speech_frames"
        case .noiseTracker: "noise_tracker"
        case .quietestFrame: "quietest_frame"
        case .backgroundEstimator: "background_estimator"
        }
    }
}

/// A summary of the acoustic environment over the last ``EnvironmentAnalyzer/Configuration/windowSeconds``,
/// emitted by ``EnvironmentAnalyzer`` every `1 / updateRateHz` seconds (default twice a second).
///
/// Definitions (`P` is a duration-weighted mean of frame mean squares, `L = 10·log10(P)`):
/// - **Background noise** ``noiseDBFS``: the ``NoiseLevelEstimator`` reading the frames carry
///   (``AnalysisFrame/backgroundNoiseDBFS``; what ``AnalysisChain`` gives every measurement):
///   the noise under the speech, music or talkers, found from the spectrum without a speech
///   decision, −∞ for a digitally silent background. For frames without it, `L` over the
///   window's non-speech frames or the other fallbacks of ``NoiseEstimateSource``. ``noiseLevelDB`` = ``noiseDBFS`` + `fullScaleDB` (default 90),
///   an uncalibrated SPL-like scale that is positive for any audible noise.
/// - **Speech-to-noise ratio** ``speechToNoiseDB``: `10·log10((P_speech − P_noise) / P_noise)`,
///   with `P_speech` over the speech frames (speech frames hold speech plus noise, so the noise
///   power is taken out). +∞ over digital-silence noise, −∞ when the speech frames are no louder
///   than the noise, `nil` when the window holds no speech.
/// - **Reverberation** ``rt60Seconds`` and ``c50DB``: the stream's blind estimate so far
///   (``ReverberationEstimator``, over everything heard, not the window); nil until enough free
///   decays were found (or when the frames carry none).
/// - **Speech clarity** ``speechClarity`` ∈ [0, 1]: the logistic map of Bradley's
///   useful-to-detrimental ratio `U50 = −10·log10(10^(−SNR/10) + 10^(−C50/10))` (the early speech
///   over the late reverberation plus the noise; the SNR alone while C50 is unknown),
///   `1 / (1 + e^{−(U50 − m)/s})` with `m` = `clarityMidpointDB` (default 12 dB) and `s` =
///   `clarityScaleDB` (default 4 dB): 0.05 at 0 dB, 0.5 at 12 dB, 0.88 at 20 dB, 0.99 at 30 dB.
///   A 20 dB SNR in a room of C50 = 5 dB gives U50 = 4.9 dB, clarity 0.15. 0 when the window
///   holds no speech.
/// - **Frequency complexity** ``frequencyComplexity`` ∈ [0, 1]: the duration-weighted mean of
///   the frames' normalised spectral entropy `H = −Σ p_k log p_k / log K` (the detector's, over
///   `K` bins of the power spectrum), digital-silence frames excluded: about 0 for a pure tone,
///   1 for white noise, typically 0.5…0.8 for speech; 0 when every frame is silent.
/// - **Music / multiple speakers detected**: the fraction of the window's duration whose frames
///   the detector flagged is at least `detectionFraction` (default 0.5).
/// - **Category key** ``categoryKey``: `"<noise dB rounded down to 5>_<music>_<multiple speakers>"`,
///   e.g. `"45_false_true"`, with the noise on the positive ``noiseLevelDB`` scale, clamped to
///   0…200 (digital silence gives 0).
@frozen
public struct EnvironmentMeasurement: Equatable, Sendable {
    /// Stream position (samples at the analyzer's rate, from the stream start) of the end of
    /// the last frame the measurement covers: exact.
    public var endSample: Int64
    /// `endSample / sampleRate`, in seconds.
    public var timeSeconds: Double
    /// Audio the window covered, in seconds (less than the configured window near the start).
    public var windowSeconds: Double
    /// Background noise level, dBFS (−∞ for digital silence).
    public var noiseDBFS: Double
    /// ``noiseDBFS`` + `fullScaleDB`: the noise on the positive scale the categories and the
    /// key use, dB.
    public var noiseLevelDB: Double
    /// How ``noiseDBFS`` was estimated.
    public var noiseSource: NoiseEstimateSource
    /// The band ``noiseLevelDB`` falls in.
    public var noiseCategory: NoiseCategory
    /// Level of the speech frames (speech plus noise), dBFS; −∞ when there is none.
    public var speechDBFS: Double
    /// Speech-to-noise ratio, dB (see the type's definitions); `nil` when there is no speech.
    public var speechToNoiseDB: Double?
    /// Fraction of the window's duration flagged as speech, 0…1.
    public var speechFraction: Double
    /// Fraction of the window's duration flagged as music, 0…1.
    public var musicFraction: Double
    /// Fraction of the window's duration flagged as several speakers, 0…1.
    public var multiSpeakerFraction: Double
    /// `musicFraction ≥ detectionFraction`.
    public var musicDetected: Bool
    /// `multiSpeakerFraction ≥ detectionFraction`.
    public var multipleSpeakersDetected: Bool
    /// Speech clarity, 0…1 (logistic map of the useful-to-detrimental ratio of
    /// ``speechToNoiseDB`` and ``c50DB``).
    public var speechClarity: Double
    /// Mean normalised spectral entropy, 0…1.
    public var frequencyComplexity: Double
    /// ``noiseLevelDB`` clamped to 0…200 and rounded down to a multiple of 5, dB.
    public var categoryNoiseLevel: Int
    /// The recommendation after hysteresis: what to use now.
    public var recommendation: RecognizerRecommendation
    /// What this measurement alone would recommend (with the margins around the current
    /// recommendation); ``recommendation`` follows it only once it has held for the hold time.
    public var preferredRecommendation: RecognizerRecommendation
    /// Blind reverberation time RT60 of the stream so far, seconds; nil until estimated.
    public var rt60Seconds: Double?
    /// Blind clarity C50 of the stream so far, dB; nil until estimated.
    public var c50DB: Double?

    /// Creates a measurement from its parts.
    @inlinable
    public init(
        endSample: Int64, timeSeconds: Double, windowSeconds: Double, noiseDBFS: Double, noiseLevelDB: Double,
        noiseSource: NoiseEstimateSource, noiseCategory: NoiseCategory, speechDBFS: Double, speechToNoiseDB: Double?,
        speechFraction: Double, musicFraction: Double, multiSpeakerFraction: Double, musicDetected: Bool,
        multipleSpeakersDetected: Bool, speechClarity: Double, frequencyComplexity: Double, categoryNoiseLevel: Int,
        recommendation: RecognizerRecommendation, preferredRecommendation: RecognizerRecommendation,
        rt60Seconds: Double? = nil, c50DB: Double? = nil
    ) {
        self.endSample = endSample
        self.timeSeconds = timeSeconds
        self.windowSeconds = windowSeconds
        self.noiseDBFS = noiseDBFS
        self.noiseLevelDB = noiseLevelDB
        self.noiseSource = noiseSource
        self.noiseCategory = noiseCategory
        self.speechDBFS = speechDBFS
        self.speechToNoiseDB = speechToNoiseDB
        self.speechFraction = speechFraction
        self.musicFraction = musicFraction
        self.multiSpeakerFraction = multiSpeakerFraction
        self.musicDetected = musicDetected
        self.multipleSpeakersDetected = multipleSpeakersDetected
        self.speechClarity = speechClarity
        self.frequencyComplexity = frequencyComplexity
        self.categoryNoiseLevel = categoryNoiseLevel
        self.recommendation = recommendation
        self.preferredRecommendation = preferredRecommendation
        self.rt60Seconds = rt60Seconds
        self.c50DB = c50DB
    }

    /// `"<categoryNoiseLevel>_<musicDetected>_<multipleSpeakersDetected>"`, e.g.
    /// `"45_false_true"`: a key for learning preferences per environment. Built on each call
    /// (it allocates only past 15 UTF-8 bytes); not for the real-time path.
    public var categoryKey: String {
        String(categoryNoiseLevel) + (musicDetected ? "_true" : "_false") + (multipleSpeakersDetected ? "_true" : "_false")
    }
}

/// Seconds of stream spent in each ``NoiseCategory``.
@frozen
public struct NoiseCategoryDurations: Equatable, Sendable {
    /// Seconds per category, indexed by `NoiseCategory.rawValue`.
    public var veryQuiet = 0.0, quiet = 0.0, moderate = 0.0, loud = 0.0, veryLoud = 0.0

    /// Creates all-zero durations.
    public init() {}

    /// The seconds spent in `category`.
    public subscript(category: NoiseCategory) -> Double {
        get {
            switch category {
            case .veryQuiet: veryQuiet
            case .quiet: quiet
            case .moderate: moderate
            case .loud: loud
            case .veryLoud: veryLoud
            }
        }
        set {
            switch category {
            case .veryQuiet: veryQuiet = newValue
            case .quiet: quiet = newValue
            case .moderate: moderate = newValue
            case .loud: loud = newValue
            case .veryLoud: veryLoud = newValue
            }
        }
    }
}

/// The environment over a whole stream, from ``EnvironmentAnalyzer/finalize()``.
///
/// Each measurement accounts for the stream time since the previous one (the first, since the
/// stream start), so the durations add up to ``durationSeconds``.
public struct EnvironmentSummary: Equatable, Sendable {
    /// Stream time covered by measurements, seconds.
    public var durationSeconds = 0.0
    /// Measurements emitted (the final partial one included).
    public var measurementCount = 0
    /// Seconds spent in each noise category.
    public var secondsInCategory = NoiseCategoryDurations()
    /// Seconds during which the recommendation was ``RecognizerRecommendation/fast``.
    public var secondsFast = 0.0
    /// Seconds during which the recommendation was ``RecognizerRecommendation/accurate``.
    public var secondsAccurate = 0.0
    /// How many times the (hysteresis-filtered) recommendation changed.
    public var recommendationChangeCount = 0
    /// Stream time of the last change, seconds; nil when it never changed.
    public var lastRecommendationChangeSeconds: Double? = nil
    /// The recommendation at the end of the stream.
    public var finalRecommendation = RecognizerRecommendation.fast
    /// Measurements with music detected.
    public var musicMeasurementCount = 0
    /// Measurements with multiple speakers detected.
    public var multipleSpeakersMeasurementCount = 0
    /// Lowest and highest background noise measured, dBFS (+∞ / −∞ when no measurement).
    public var quietestNoiseDBFS = Double.infinity, loudestNoiseDBFS = -Double.infinity

    /// Creates an empty summary.
    public init() {}
}
