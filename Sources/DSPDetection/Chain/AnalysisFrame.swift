/// One analysis frame (1024 samples at 16 kHz by default) as the chain sees it: its level and
/// the detector's outputs over its hops. ``FrameGrouper`` makes them; ``EnvironmentAnalyzer``
/// consumes them.
@frozen
public struct AnalysisFrame: Equatable, Sendable {
    /// Stream position of the frame's first sample, at the analysis rate.
    public var startSample: Int64
    /// Samples of real audio in the frame (the final frame of a stream may be short).
    public var sampleCount: Int
    /// RMS level of the frame, `10·log10(mean x²)` dBFS over its real samples (−∞ for digital
    /// silence).
    public var levelDBFS: Double
    /// Probability that the frame holds speech, 0…1 (mean over its hops).
    public var speechProbability: Double
    /// The detector's speech decision at the frame's end (after its own smoothing).
    public var isSpeech: Bool
    /// The detector's tracked noise floor at the frame's end, dBFS; NaN when it has none.
    public var noiseFloorDBFS: Double
    /// Probability of music, 0…1 (mean over the hops).
    public var musicProbability: Double
    /// The detector's music decision at the frame's end.
    public var isMusic: Bool
    /// Probability of more than one speaker, 0…1 (mean over the hops).
    public var multiSpeakerProbability: Double
    /// The detector's multiple-speaker decision at the frame's end.
    public var isMultiSpeaker: Bool
    /// Normalised spectral entropy, 0…1 (mean over the hops).
    public var spectralEntropy: Double
    /// The background-noise level under the foreground at the frame's end, dBFS
    /// (``NoiseLevelEstimator``; −∞ for a digitally silent background); NaN when not estimated
    /// for this frame. ``AnalysisChain`` estimates it on the frames where
    /// ``EnvironmentAnalyzer`` measures (``EnvironmentAnalyzer/measures(after:)``) and on a
    /// stream's last frame.
    public var backgroundNoiseDBFS: Double
    /// The stream's reverberation so far (``ReverberationEstimator/estimate``, up to the same
    /// sample wherever the stream was cut into calls); nil when not estimated for this frame.
    /// ``AnalysisChain`` attaches it where it attaches ``backgroundNoiseDBFS``.
    public var reverberation: ReverberationEstimate?

    /// Creates a frame.
    @inlinable
    public init(
        startSample: Int64, sampleCount: Int, levelDBFS: Double, speechProbability: Double = 0,
        isSpeech: Bool = false, noiseFloorDBFS: Double = .nan, musicProbability: Double = 0, isMusic: Bool = false,
        multiSpeakerProbability: Double = 0, isMultiSpeaker: Bool = false, spectralEntropy: Double = 0,
        backgroundNoiseDBFS: Double = .nan, reverberation: ReverberationEstimate? = nil
    ) {
        self.startSample = startSample
        self.sampleCount = sampleCount
        self.levelDBFS = levelDBFS
        self.speechProbability = speechProbability
        self.isSpeech = isSpeech
        self.noiseFloorDBFS = noiseFloorDBFS
        self.musicProbability = musicProbability
        self.isMusic = isMusic
        self.multiSpeakerProbability = multiSpeakerProbability
        self.isMultiSpeaker = isMultiSpeaker
        self.spectralEntropy = spectralEntropy
        self.backgroundNoiseDBFS = backgroundNoiseDBFS
        self.reverberation = reverberation
    }

    /// Stream position just after the frame's last real sample.
    @inlinable
    public var endSample: Int64 { startSample + Int64(sampleCount) }
}
