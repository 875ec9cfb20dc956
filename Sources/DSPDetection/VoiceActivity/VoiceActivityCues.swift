import DSPSpectral

/// The voice-activity model's feature vector and its default weights.
///
/// Lanes: 0 `snrDB/10`, 1 `speechBandSNRDB/10`, 2 harmonicity, 3 `modulationDB/10`,
/// 4 flatness, 5 voiced ratio, 6 low-energy ratio, 7 the music probability of the previous
/// frame. Speech is loud against its own noise floor (level-relative, so −45 and −6 dBFS read
/// the same), voiced, modulated at the syllable rate and not flat; music lowers it.
public enum VoiceActivityCues {
    /// Builds the vector from a frame's features and cues.
    @inlinable
    public static func vector(_ f: SpectralFeatures, _ c: DetectionCues, music: Float) -> SIMD8<Float> {
        SIMD8(c.snrDB / 10, c.speechBandSNRDB / 10, f.harmonicity, c.modulationDB / 10,
              f.flatness, c.voicedRatio, c.lowEnergyRatio, music)
    }

    /// The default model.
    public static let defaultModel = LogisticModel(
        bias: -4.5, weights: SIMD8(1.2, 1.0, 2.0, 0.8, -2.0, 1.0, 0.0, -1.5))
}
