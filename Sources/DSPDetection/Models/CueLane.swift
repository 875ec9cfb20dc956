import DSPSpectral

/// The lanes of the input vector the detection models read, in order.
///
/// Lanes 0–26 are a frame's features and cues (``SpectralFeatures``, ``DetectionCues``);
/// lane 27 is the previous frame's smoothed music probability and lane 28 the current smoothed
/// speech probability. The music model reads lanes 0–26, the voice-activity model 0–27, the
/// multi-speaker model 0–28. The raw values go in; each model carries its own normalisation.
/// ``name`` is the column name in `dspbench detect --frames` CSV files, which the fitting
/// script (`scripts/eval/fit_models.py`) reads.
public enum CueLane: Int, CaseIterable, Sendable {
    case snrDB, speechBandSNRDB, harmonicity, flatness, entropy, centroidHz, rolloffHz, fluxDB
    case zeroCrossingRate, modulationDB, lowEnergyRatio, peakPersistence, pulse, voicedRatio
    case stablePitchRatio, harmonicityMean, secondPitchSalience, zeroCrossingMean, zeroCrossingDeviation
    case voicingAlternationRate, centroidDeviation
    case speechBandSNRMaxDB, speechBandActiveFraction, modulationMaxDB, fluxPeakiness, harmonicityDeviation
    case speechBandSNRDeviationDB
    case musicProbability, speechProbability

    /// Number of lanes.
    public static let count = 29
    /// Lanes the music model reads.
    public static let musicInputCount = 27
    /// Lanes the voice-activity model reads.
    public static let speechInputCount = 28
    /// Lanes the multi-speaker model reads.
    public static let multiSpeakerInputCount = 29

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
        case .musicProbability: "p_music_prev"
        case .speechProbability: "p_speech"
        }
    }

    /// Writes lanes 0–26 from a frame's features and cues (lanes 27 and 28 are the caller's).
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
    }
}
