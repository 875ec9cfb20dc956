import DSPDetection
import DSPCore
import Foundation

extension FileScore {
    /// The acoustic environment over the whole file: ``/DSPDetection/EnvironmentAnalyzer`` fed by
    /// the detectors on 1024-sample frames at 16 kHz, measuring twice a second, summarised.
    public struct Environment: Codable, Equatable, Sendable {
        /// Median of the measurements' background-noise level, dBFS (the noise under the speech,
        /// music or talkers: `NoiseLevelEstimator`); `null` when the median measurement found a
        /// digitally silent background (no noise at all).
        public var noiseDBFS: Double?
        /// Level of the speech with the noise power taken out, dBFS: the power mean of the frames
        /// the detector calls speech (each measurement's, weighted by its speech time) less the
        /// power of ``noiseDBFS``; at least ``noiseDBFS`` − 30 (speech no louder than the noise);
        /// `null` when no measurement held speech.
        public var speechDBFS: Double?
        /// Speech-to-noise ratio, dB: ``speechDBFS`` − ``noiseDBFS``, from −30 (speech no louder
        /// than the noise) to 100 (a digitally silent background reads 100); `null` when no
        /// measurement held speech.
        public var snrDB: Double?
        /// Blind reverberation time RT60, seconds (``/DSPDetection/ReverberationEstimator``);
        /// `null` when too few free decays were found (fewer than 20: dry, short or continuous
        /// audio).
        public var rt60Seconds: Double?
        /// Blind clarity C50, dB (``/DSPDetection/ReverberationEstimator``); `null` as ``rt60Seconds``.
        public var c50DB: Double?
        /// Effective audio bandwidth, Hz, at the file's own rate (``/DSPDetection/BandwidthEstimator``); `null`
        /// when less than half a second of the file is above −80 dBFS.
        public var bandwidthHz: Double?
        /// `narrowband`, `wideband`, `super_wideband` or `fullband`; left out when ``bandwidthHz``
        /// is `null`.
        public var bandwidthClass: String?
        /// Median fundamental frequency over the voiced speech, Hz (``/DSPDetection/ProsodyEstimator``); `null`
        /// with less than 0.5 s of voiced speech.
        public var f0MedianHz: Double?
        /// Standard deviation of the fundamental frequency over the voiced speech, Hz; `null` as
        /// ``f0MedianHz``.
        public var f0SpreadHz: Double?
        /// Speaking rate, syllable nuclei per second of speech (``/DSPDetection/ProsodyEstimator``); `null` with
        /// less than 1 s of speech.
        public var speakingRateSPS: Double?
        /// The noise category the file spent most time in: `very_quiet`, `quiet`, `moderate`,
        /// `loud` or `very_loud` (default thresholds 35/45/55/65 dB on the analyzer's scale,
        /// dBFS + 90).
        public var noiseCategory: String = ""
        /// The most frequent measurement key, e.g. `"45_false_true"` (noise level rounded down
        /// to 5 dB, music, several speakers).
        public var categoryKey: String = ""
        /// Mean speech clarity (0…1) over the measurements that held speech; `null` if none did.
        public var speechClarity: Double?
        /// Mean frequency complexity (normalised spectral entropy, 0…1) over the measurements.
        public var frequencyComplexity: Double = 0
        /// The recognizer recommended for most of the file: `fast` or `accurate`.
        public var recommendation: String = ""
        /// Measurements made.
        public var measurements: Int = 0

        static let record = RecordDescription<Self>([
            .number("noise_dbfs", \.noiseDBFS, null: "when the median measurement found a digitally silent background",
                    "Median background-noise level of the measurements (the lower middle one for an even count), dBFS: the noise under the speech, music or talkers."),
.number("speech_dbfs", \.speechDBFS, null: "when no measurement held speech",
                    "Speech level with the noise power taken out, dBFS (power mean of the speech frames less the noise; at least noise_dbfs - 30)."),
            .number("snr_db", \.snrDB, null: "when no measurement held speech", minimum: -30, maximum: 100,
                    "Speech-to-noise ratio, dB: speech_dbfs - noise_dbfs, -30 to 100 (a digitally silent background reads 100)."),
.number("rt60_s", \.rt60Seconds, null: "when fewer than 20 free decays were found", minimum: 0,
                    "Blind reverberation time RT60, seconds, from the speech's free decays."),
            .number("c50_db", \.c50DB, null: "when fewer than 20 free decays were found",
                    "Blind clarity C50, dB, from the decay rate and the direct-to-reverberant ratio."),
            .number("bandwidth_hz", \.bandwidthHz, null: "when less than 0.5 s of the file is above -80 dBFS", minimum: 0,
                    "Effective audio bandwidth, Hz, at the file's own rate."),
            .identifier("bandwidth_class", \.bandwidthClass, absent: "when less than 0.5 s of the file is above -80 dBFS",
                        values: BandwidthClass.allCases.map(\.description),
                        "narrowband (<= 4.4 kHz), wideband (<= 8.8 kHz), super_wideband (<= 17.6 kHz) or fullband: each band's Nyquist frequency (4, 8, 16 kHz) + 10 %."),
            .number("f0_median_hz", \.f0MedianHz, null: "when the file has less than 0.5 s of voiced speech", minimum: 50, maximum: 510,
                    "Median fundamental frequency (pitch) over the voiced speech, Hz."),
            .number("f0_spread_hz", \.f0SpreadHz, null: "when the file has less than 0.5 s of voiced speech", minimum: 0,
                    "Standard deviation of the fundamental frequency over the voiced speech, Hz."),
            .number("speaking_rate_sps", \.speakingRateSPS, null: "when the file has less than 1 s of speech", minimum: 0,
                    "Speaking rate: syllable nuclei per second of speech (pauses of 0.1 s or more left out)."),
            .identifier("noise_category", \.noiseCategory, values: ["very_quiet", "quiet", "moderate", "loud", "very_loud"],
                        "Category the file spent most time in (thresholds 35/45/55/65 dB on dBFS + 90)."),
            .text("category_key", \.categoryKey,
                  "Most frequent measurement key: noise level rounded down to 5 dB, music, several speakers, e.g. 45_false_true."),
            .number("speech_clarity", \.speechClarity, null: "when no measurement held speech", minimum: 0, maximum: 1,
                    "Mean clarity (logistic map of the useful-to-detrimental ratio of the SNR and C50, 0.5 at 12 dB) over measurements with speech."),
            .number("frequency_complexity", \.frequencyComplexity, minimum: 0, maximum: 1, "Mean normalised spectral entropy."),
            .identifier("recommendation", \.recommendation, values: ["fast", "accurate"],
                        "Recognizer recommended (with hysteresis) for most of the file."),
            .integer("measurements", \.measurements, minimum: 0),
        ])
    }
}

extension FileScore.Environment: RecordPart {}

/// What a file's environment measurements add up to.
struct EnvironmentMeasurements {
    var noise: [Double] = []
    var keys: [String: Int] = [:]
    var clarity = 0.0, clarityCount = 0
    /// Σ speech power × speech seconds, and Σ speech seconds, over the measurements.
    var speechEnergy = 0.0, speechSeconds = 0.0
    var complexity = 0.0, count = 0

    mutating func add(_ m: EnvironmentMeasurement) {
        count += 1
        if !m.noiseDBFS.isNaN { noise.append(m.noiseDBFS) }  // −∞: a digitally silent background
        keys[m.categoryKey, default: 0] += 1
        if m.speechFraction > 0 {
            clarity += m.speechClarity
            clarityCount += 1
            let seconds = m.speechFraction * m.windowSeconds
            if m.speechDBFS.isFinite, seconds > 0 {
                speechEnergy += Decibels.toPower(m.speechDBFS) * seconds
                speechSeconds += seconds
            }
        }
        complexity += m.frequencyComplexity
    }

    func record(
        _ summary: EnvironmentSummary, reverberation: ReverberationEstimate?, bandwidth: BandwidthEstimate?,
        prosody: ProsodyEstimate? = nil
    ) -> FileScore.Environment {
        func rounded(_ x: Double) -> Double { (x * 1e6).rounded() / 1e6 }
        let sorted = noise.sorted()
        // The lower middle value for an even count, so that −∞ never meets +finite in a mean.
        let middle = sorted.isEmpty ? -Double.infinity : sorted[(sorted.count - 1) / 2]
        let median = middle.isFinite ? middle : nil
        let category = NoiseCategory.allCases.max { summary.secondsInCategory[$0] < summary.secondsInCategory[$1] } ?? .veryQuiet
        // Ties between keys go to the lexically smallest, so records are deterministic.
        let key = keys.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }?.key ?? ""
        // Speech level and SNR over the whole file (see FileScore.Environment for the bounds).
        var speechLevel: Double? = nil
        var snr: Double? = nil
        if speechSeconds > 0 {
            let noisePower = median.map { Decibels.toPower($0) } ?? 0
            let clean = speechEnergy / speechSeconds - noisePower
            if noisePower == 0 {
                speechLevel = Decibels.fromPower(speechEnergy / speechSeconds)
                snr = 100
            } else {
                let ratio = clean > 0 ? Swift.min(100, Swift.max(-30, Decibels.fromPower(clean / noisePower))) : -30
                snr = ratio
                speechLevel = Decibels.fromPower(noisePower) + ratio
            }
        }
        return FileScore.Environment(
            noiseDBFS: median.map(rounded), speechDBFS: speechLevel.map(rounded), snrDB: snr.map(rounded),
            rt60Seconds: reverberation?.rt60Seconds.map(rounded), c50DB: reverberation?.c50DB.map(rounded),
            bandwidthHz: bandwidth?.bandwidthHz.map(rounded), bandwidthClass: bandwidth?.bandwidthClass?.description,
            f0MedianHz: prosody?.f0MedianHz.map(rounded), f0SpreadHz: prosody?.f0SpreadHz.map(rounded),
            speakingRateSPS: prosody?.speakingRate.map(rounded), noiseCategory: category.description, categoryKey: key,
            speechClarity: clarityCount > 0 ? rounded(clarity / Double(clarityCount)) : nil,
            frequencyComplexity: count > 0 ? rounded(complexity / Double(count)) : 0,
            recommendation: summary.secondsAccurate > summary.secondsFast ? "accurate" : "fast",
            measurements: count)
    }
}
