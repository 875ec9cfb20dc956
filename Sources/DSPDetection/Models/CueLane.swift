import DSPSpectral

/// The lanes of the input vector the detection models read, in order.
///
/// Lanes 0–42 are a frame's features and cues (``/DSPSpectral/SpectralFeatures``, ``DetectionCues``; lanes
/// 27–42 the eight instantaneous values of lanes 0–5, 7 and 8 four and eight frames earlier,
/// ``DetectionCues/earlierValues``); lane 43 is the previous frame's smoothed music probability
/// and lane 44 the current smoothed speech probability; lanes 45–64 are the per-band SNRs
/// (``DetectionCues/bandSNRsDB``) and lanes 65–84 the per-band spectral envelope
/// (``DetectionCues/bandShapeDB``) of the first 20 analysis bands; lane 85 is how far into the
/// stream the frame's hop starts, in seconds up to ``streamSecondsCap`` (a stream's first second
/// reads its cues from a short history: a noise floor from the first frames, summaries over a few
/// frames, no earlier values). The music model may read
/// every lane but 43 and 44, the voice-activity model every lane but 44, the multi-speaker model
/// all of them (``ProbabilityModel/inputLanes``). The raw values go in; each model carries its
/// own normalisation.
/// ``name`` is the column name in `dspbench detect --frames` CSV files, which the fitting
/// scripts (`scripts/detect/train_models.py`, `scripts/eval/fit_models.py`) read.
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
    case bandSNR0, bandSNR1, bandSNR2, bandSNR3, bandSNR4, bandSNR5, bandSNR6, bandSNR7, bandSNR8, bandSNR9
    case bandSNR10, bandSNR11, bandSNR12, bandSNR13, bandSNR14, bandSNR15, bandSNR16, bandSNR17, bandSNR18, bandSNR19
    case bandShape0, bandShape1, bandShape2, bandShape3, bandShape4, bandShape5, bandShape6, bandShape7, bandShape8
    case bandShape9, bandShape10, bandShape11, bandShape12, bandShape13, bandShape14, bandShape15, bandShape16
    case bandShape17, bandShape18, bandShape19
    case streamSeconds

    /// Number of lanes.
    public static let count = 86
    /// How far into a stream ``streamSeconds`` counts, seconds: a frame later than this reads it.
    public static let streamSecondsCap: Float = 2
    /// Analysis bands with a lane of their own (``bandSNR0``… and ``bandShape0``…): the
    /// first 20 of ``/DSPSpectral/SpectralAnalyzer/bandEdgesHz``.
    public static let bandLaneCount = 20
    /// The per-band SNR lanes (``DetectionCues/bandSNRsDB``).
    public static let bandSNRLanes = 45..<65
    /// The per-band envelope lanes (``DetectionCues/bandShapeDB``).
    public static let bandShapeLanes = 65..<85
    /// The cue lanes before the probabilities (0–42): what the first models read.
    public static let musicInputCount = 43
    /// Lanes 0–43: the cue lanes before ``speechProbability``.
    public static let speechInputCount = 44
    /// Lanes 0–44: up to and including ``speechProbability``.
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
        case .streamSeconds: "stream_seconds"
        default:
            Self.bandSNRLanes.contains(rawValue)
                ? "band_snr_db_\(rawValue - Self.bandSNRLanes.lowerBound)"
                : "band_shape_db_\(rawValue - Self.bandShapeLanes.lowerBound)"
        }
    }

    /// Whether a model reading this lane can be evaluated before the music model's output
    /// (lanes other than ``musicProbability`` and ``speechProbability``).
    public var isCue: Bool { self != .musicProbability && self != .speechProbability }

    /// Writes every lane but 43 and 44 (the caller's) from a frame's features and cues.
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
        for b in 0..<bandLaneCount {
            lanes[bandSNRLanes.lowerBound + b] = c.bandSNRsDB[b]
            lanes[bandShapeLanes.lowerBound + b] = c.bandShapeDB[b]
        }
        lanes[streamSeconds.rawValue] = Swift.min(Float(f.time), streamSecondsCap)
    }
}
