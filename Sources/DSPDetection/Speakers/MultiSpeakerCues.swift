import DSPSpectral

/// The multiple-speaker model's feature vector and its default weights.
///
/// Lanes: 0 second-pitch salience, 1 zero-crossing mean, 2 `10 ×` zero-crossing deviation,
/// 3 voiced ratio, 4 mean harmonicity, 5 `snrDB/10`, 6 music probability, 7 speech
/// probability. Two simultaneous pitches are the cue that separates one talker from two; the
/// zero-crossing statistics (the classic heuristic) carry little weight, and music — which
/// has several pitches too — counts against.
public enum MultiSpeakerCues {
    /// Builds the vector from a frame's features and cues and the current speech and music
    /// probabilities.
    @inlinable
    public static func vector(_ f: SpectralFeatures, _ c: DetectionCues, speech: Float, music: Float) -> SIMD8<Float> {
        SIMD8(c.secondPitchSalience, c.zeroCrossingMean, 10 * c.zeroCrossingDeviation, c.voicedRatio,
              c.harmonicityMean, c.snrDB / 10, music, speech)
    }

    /// The default model.
    public static let defaultModel = LogisticModel(
        bias: -4.0, weights: SIMD8(8.0, 0.0, 0.5, 1.0, 0.0, 0.0, -3.0, 1.0))
}
