import DSPSpectral

/// The lanes of the input vector the detection models read, in order.
///
/// Lanes 0–42 are a frame's features and cues (``/DSPSpectral/SpectralFeatures``,
/// ``DetectionCues``; lanes 27–42 the eight instantaneous values of lanes 0–5, 7 and 8 four and
/// eight frames earlier, ``DetectionCues/earlierValues``); lane 43 is the previous frame's smoothed
/// music probability and lane 44 the current smoothed speech probability. The music model reads
/// lanes 0–42, the voice-activity model 0–43, the multi-speaker model 0–44. The raw values go in;
/// each model carries its own normalisation. ``name`` is the column name in
/// `dspbench detect --frames` CSV files, which the fitting script
/// (`scripts/eval/fit_models.py`) reads.
public enum CueLane: Int, CaseIterable, Sendable {
    case snrDB, speechBandSNRDB, harmonicity, flatness, entropy, centroidHz, rolloffHz, fluxDB
    case zeroCrossingRate, modulationDB, lowEnergyRatio, peakPersistence, pulse, voicedRatio
    case stablePitchRatio, harmonicityMean, secondPitchSalience, zeroCrossingMean, zeroCrossingDeviation
    case voicingAlternationRate, centroidDeviation
    case speechBandSNRMaxDB, speechBandActiveFraction, modulationMaxDB, fluxPeakiness, harmonicityDeviation
    case speechBandSNRDeviationDB
    case snrDB4, speechBandSNRDB4, harmonicity4, flatness4, entropy4, centroidHz4, fluxDB4, zeroCrossingRate4
    case snrDB8, speechBandSNRDB8, harmonicity8, flatness8, entropy8, centroidHz8, fluxDB8, zeroCrossingRate8
    case musicProbability, speechProbability

    /// Number of lanes.
    public static let count = 45
    /// Lanes the music model reads.
    public static let musicInputCount = 43
    /// Lanes the voice-activity model reads.
    public static let speechInputCount = 44
    /// Lanes the multi-speaker model reads.
    public static let multiSpeakerInputCount = 45
    /// First of the sixteen lanes of ``DetectionCues/earlierValues`` (4 frames back, then 8).
    public static let firstEarlierLane = 27

    /// The lane's column name in frame CSV files.
    public var name: String {
        switch self {
        case .snrDB: "snr_db"
        case .speechBandSNRDB: "speech_snr_db"
        case .harmonicity: "harmonicity"
        case .flatness: "flatness"
        case .entropy: "entropy"
        case .centroidHz: "centroid_hz"
        case .rolloffHz: "rolloff_hz"
        case .fluxDB: "flux_db"
        case .zeroCrossingRate: "zcr"
        case .modulationDB: "modulation_db"
        case .lowEnergyRatio: "low_energy"
        case .peakPersistence: "persistence"
        case .pulse: "pulse"
        case .voicedRatio: "voiced"
        case .stablePitchRatio: "stable_pitch"
        case .harmonicityMean: "harmonicity_mean"
        case .secondPitchSalience: "second_salience"
        case .zeroCrossingMean: "zcr_mean"
        case .zeroCrossingDeviation: "zcr_std"
        case .voicingAlternationRate: "voicing_alternations"
        case .centroidDeviation: "centroid_deviation"
        case .speechBandSNRMaxDB: "speech_snr_max_db"
        case .speechBandActiveFraction: "speech_bands_active"
        case .modulationMaxDB: "modulation_max_db"
        case .fluxPeakiness: "flux_peakiness"
        case .harmonicityDeviation: "harmonicity_std"
        case .speechBandSNRDeviationDB: "speech_snr_std_db"
        case .snrDB4: "snr_db_lag4"
        case .speechBandSNRDB4: "speech_snr_db_lag4"
        case .harmonicity4: "harmonicity_lag4"
        case .flatness4: "flatness_lag4"
        case .entropy4: "entropy_lag4"
        case .centroidHz4: "centroid_hz_lag4"
        case .fluxDB4: "flux_db_lag4"
        case .zeroCrossingRate4: "zcr_lag4"
        case .snrDB8: "snr_db_lag8"
        case .speechBandSNRDB8: "speech_snr_db_lag8"
        case .harmonicity8: "harmonicity_lag8"
        case .flatness8: "flatness_lag8"
        case .entropy8: "entropy_lag8"
        case .centroidHz8: "centroid_hz_lag8"
        case .fluxDB8: "flux_db_lag8"
        case .zeroCrossingRate8: "zcr_lag8"
        case .musicProbability: "p_music_prev"
        case .speechProbability: "p_speech"
        }
    }

    /// Writes lanes 0–42 from a frame's features and cues (lanes 43 and 44 are the caller's).
    @inlinable
    public static func fill(_ lanes: UnsafeMutablePointer<Float>, features f: SpectralFeatures, cues c: DetectionCues) {
        lanes[0] = c.snrDB
        lanes[1] = c.speechBandSNRDB
        lanes[2] = f.harmonicity
        lanes[3] = f.flatness
        lanes[4] = f.entropy
        lanes[5] = f.centroidHz
        lanes[6] = f.rolloffHz
        lanes[7] = f.fluxDB
        lanes[8] = f.zeroCrossingRate
        lanes[9] = c.modulationDB
        lanes[10] = c.lowEnergyRatio
        lanes[11] = c.peakPersistence
        lanes[12] = c.pulse
        lanes[13] = c.voicedRatio
        lanes[14] = c.stablePitchRatio
        lanes[15] = c.harmonicityMean
        lanes[16] = c.secondPitchSalience
        lanes[17] = c.zeroCrossingMean
        lanes[18] = c.zeroCrossingDeviation
        lanes[19] = c.voicingAlternationRate
        lanes[20] = c.centroidDeviation
        lanes[21] = c.speechBandSNRMaxDB
        lanes[22] = c.speechBandActiveFraction
        lanes[23] = c.modulationMaxDB
        lanes[24] = c.fluxPeakiness
        lanes[25] = c.harmonicityDeviation
        lanes[26] = c.speechBandSNRDeviationDB
        for i in 0..<16 { lanes[firstEarlierLane + i] = c.earlierValues[i] }
    }
}
