/// What a ``ReverberationEstimator`` measured over a stream.
///
/// See ``ReverberationEstimator`` for the method, the model behind ``c50DB`` and the accuracy
/// measured.
public struct ReverberationEstimate: Equatable, Sendable {
    /// How the estimate came about.
    public enum Status: String, Equatable, Sendable, CustomStringConvertible {
        /// Enough free decays were found: ``ReverberationEstimate/rt60Seconds`` and
        /// ``ReverberationEstimate/c50DB`` are set.
        case estimated
        /// Fewer than ``ReverberationEstimator/Configuration/minimumDecayCount`` decays (silence,
        /// continuous noise or music without pauses, a short stream): no estimate.
        case tooFewDecays = "too_few_decays"

        /// The raw value: `estimated` or `too_few_decays`.
        public var description: String { rawValue }
    }

    /// How the estimate came about.
    public var status: Status
    /// Reverberation time: the time the sound field takes to decay by 60 dB, seconds (about
    /// 0.04…9.6, interpolated within the decay histogram's 2 % bins, calibrated; measured
    /// within 25 % for 0.3–1.4 s rooms in most cases, see ``ReverberationEstimator``); nil with
    /// ``Status/tooFewDecays``.
    public var rt60Seconds: Double?
    /// Clarity C50: `10·log10(E(0–50 ms) / E(50 ms–∞))` of the room response, from the direct
    /// sound, dB (ISO 3382-1), modelled from ``rt60Seconds`` and ``directToReverberantDB``
    /// (median error 1.6 dB measured); nil with ``Status/tooFewDecays``.
    public var c50DB: Double?
    /// The direct-to-reverberant ratio the ``c50DB`` model used, dB; nil with
    /// ``Status/tooFewDecays``.
    public var directToReverberantDB: Double?
    /// Free decays found and fitted (all bands).
    public var decayCount: Int
    /// Analysis frames seen.
    public var frameCount: Int
    /// Frames that held a NaN or ±∞ sample (they end any decay and are otherwise ignored).
    public var nonFiniteFrameCount: Int
    /// Input time seen, seconds.
    public var inputSeconds: Double

    /// An estimate with nothing measured (``Status/tooFewDecays``, all counts 0).
    public static let empty = ReverberationEstimate(
        status: .tooFewDecays, rt60Seconds: nil, c50DB: nil, directToReverberantDB: nil, decayCount: 0, frameCount: 0,
        nonFiniteFrameCount: 0, inputSeconds: 0)
}
