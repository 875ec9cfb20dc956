/// What a ``ProsodyEstimator`` measured over a stream: the voice's pitch (median and spread of
/// F0 over voiced speech) and the speaking rate (syllable nuclei per second of speech).
///
/// See ``ProsodyEstimator`` for the methods, the definitions of voiced speech and of speech time,
/// and the accuracy measured.
public struct ProsodyEstimate: Equatable, Sendable {
    /// Median fundamental frequency over the voiced hops, Hz (50…500, interpolated within the
    /// 1/48-octave histogram bins, octave errors folded); nil with less than
    /// ``ProsodyEstimator/Configuration/minimumVoicedSeconds`` of voiced speech.
    public var f0MedianHz: Double?
    /// Standard deviation of the fundamental frequency over the voiced hops, Hz (from the same
    /// histogram, bin centres); nil as ``f0MedianHz``.
    public var f0SpreadHz: Double?
    /// Syllable nuclei per second of speech: ``syllableCount`` / ``speechSeconds``; nil with less
    /// than ``ProsodyEstimator/Configuration/minimumSpeechSeconds`` of speech.
    public var speakingRate: Double?
    /// Voiced speech seen, seconds: the hops that counted towards the F0 statistics.
    public var voicedSeconds: Double
    /// Speech time, seconds, as ``ProsodyEstimator`` defines it: the detector's active speech
    /// hops (not its hangover) within 40 dB of the loudest, pauses of 0.1 s or more left out.
    public var speechSeconds: Double
    /// Syllable nuclei counted in speech.
    public var syllableCount: Int
    /// Voiced hops whose pitch was folded by an octave towards the running median.
    public var octaveCorrectionCount: Int
    /// Analysis hops seen (non-finite ones included).
    public var hopCount: Int
    /// Input time seen, seconds.
    public var inputSeconds: Double

    /// An estimate with nothing measured (every value nil, every count 0).
    public static let empty = ProsodyEstimate(
        f0MedianHz: nil, f0SpreadHz: nil, speakingRate: nil, voicedSeconds: 0, speechSeconds: 0, syllableCount: 0,
        octaveCorrectionCount: 0, hopCount: 0, inputSeconds: 0)
}
