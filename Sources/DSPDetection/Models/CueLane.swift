import DSPSpectral

/// The lanes of the input vector the detection models read, in order.
///
/// Lanes 0–18 are a frame's features and cues (``SpectralFeatures``, ``DetectionCues``);
/// lane 19 is the previous frame's smoothed music probability and lane 20 the current smoothed
/// speech probability. The music model reads lanes 0–18, the voice-activity model 0–19, the
/// multi-speaker model 0–20. The raw values go in; each model carries its own normalisation.
/// ``name`` is the column name in `dspbench detect --frames` CSV files, which the fitting
/// script (`scripts/eval/fit_models.py`) reads.
public enum CueLane: Int, CaseIterable, Sendable {
    case snrDB, speechBandSNRDB, harmonicity, flatness, entropy, centroidHz, rolloffHz, fluxDB
    case zeroCrossingRate, modulationDB, lowEnergyRatio, peakPersistence, pulse, voicedRatio
    case stablePitchRatio, harmonicityMean, secondPitchSalience, zeroCrossingMean, zeroCrossingDeviation
    case musicProbability, speechProbability

    /// Number of lanes.
    public static let count = 21
    /// Lanes the music model reads.
    public static let musicInputCount = 19
    /// Lanes the voice-activity model reads.
    public static let speechInputCount = 20
    /// Lanes the multi-speaker model reads.
    public static let multiSpeakerInputCount = 21

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
        case .musicProbability: "p_music_prev"
        case .speechProbability: "p_speech"
        }
    }

    /// Writes lanes 0–18 from a frame's features and cues (lanes 19 and 20 are the caller's).
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
    }
}
