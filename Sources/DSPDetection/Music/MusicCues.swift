import DSPSpectral

/// The music model's feature vector and its default weights.
///
/// Lanes: 0 peak persistence, 1 pulse, 2 low-energy ratio, 3 `modulationDB/10`, 4 stable-pitch
/// ratio, 5 mean harmonicity, 6 `snrDB/10`, 7 voiced ratio. Music holds its spectral peaks and
/// pitches, often has a pulse, and has few low-energy frames (Scheirer & Slaney 1997); speech
/// has pauses and syllable-rate modulation.
public enum MusicCues {
    /// Builds the vector from a frame's features and cues.
    @inlinable
    public static func vector(_ f: SpectralFeatures, _ c: DetectionCues) -> SIMD8<Float> {
        SIMD8(c.peakPersistence, c.pulse, c.lowEnergyRatio, c.modulationDB / 10,
              c.stablePitchRatio, c.harmonicityMean, c.snrDB / 10, c.voicedRatio)
    }

    /// The default model.
    public static let defaultModel = LogisticModel(
        bias: -3.0, weights: SIMD8(3.0, 2.0, -3.0, -0.5, 2.0, 1.0, 0.5, 0.0))
}
