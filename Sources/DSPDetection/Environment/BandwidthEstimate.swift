/// The audio-bandwidth class of a recording, from its effective bandwidth.
///
/// The classes follow the speech-coding bands (ITU-T P.800-series terminology and the 3GPP EVS
/// bandwidths): narrowband is telephone audio sampled at 8 kHz (300–3400 Hz), wideband 16 kHz
/// audio (50–7000 Hz), super-wideband 32 kHz audio (up to 14–16 kHz: also most MP3/AAC
/// low-passes at 128 kbit/s and below), fullband everything above. The boundaries sit a little
/// above each band's Nyquist frequency so that a band-limited file whose roll-off ends at
/// exactly 4, 8 or 16 kHz is classed with its band.
public enum BandwidthClass: String, CaseIterable, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// Effective bandwidth ≤ 4500 Hz (``narrowbandLimitHz``): telephone audio.
    case narrowband
    /// 4500 Hz < bandwidth ≤ 8500 Hz (``widebandLimitHz``): 16 kHz (HD-voice) audio.
    case wideband
    /// 8500 Hz < bandwidth ≤ 16 500 Hz (``superWidebandLimitHz``): 22.05/32 kHz audio, codec
    /// low-passes at 11–16 kHz.
    case superWideband
    /// Bandwidth above 16 500 Hz: 44.1/48 kHz audio with its high band intact (codec low-passes
    /// at 19–20 kHz included).
    case fullband

    /// Upper limit of ``narrowband``, Hz.
    public static let narrowbandLimitHz = 4500.0
    /// Upper limit of ``wideband``, Hz.
    public static let widebandLimitHz = 8500.0
    /// Upper limit of ``superWideband``, Hz.
    public static let superWidebandLimitHz = 16_500.0

    /// The class of an effective bandwidth in Hz (each limit belongs to the lower class).
    public init(bandwidthHz: Double) {
        if bandwidthHz <= Self.narrowbandLimitHz {
            self = .narrowband
        } else if bandwidthHz <= Self.widebandLimitHz {
            self = .wideband
        } else if bandwidthHz <= Self.superWidebandLimitHz {
            self = .superWideband
        } else {
            self = .fullband
        }
    }

    /// A stable key for records: `narrowband`, `wideband`, `super_wideband` or `fullband`.
    public var description: String {
        switch self {
        case .narrowband: "narrowband"
        case .wideband: "wideband"
        case .superWideband: "super_wideband"
        case .fullband: "fullband"
        }
    }
}

/// What a ``BandwidthEstimator`` measured over a stream.
///
/// ``bandwidthHz`` is the frequency above which the stream's long-term average spectrum falls
/// to its floor: see ``BandwidthEstimator`` for the method and the accuracy measured.
public struct BandwidthEstimate: Equatable, Sendable {
    /// How the estimate came about.
    public enum Status: String, Equatable, Sendable, CustomStringConvertible {
        /// A roll-off was found: ``BandwidthEstimate/bandwidthHz`` is its frequency.
        case rollOff = "roll_off"
        /// The spectrum extends to the Nyquist frequency (no roll-off below it):
        /// ``BandwidthEstimate/bandwidthHz`` is `sampleRate / 2`.
        case nyquist
        /// Fewer than ``BandwidthEstimator/Configuration/minimumAnalyzedSeconds`` of frames
        /// with signal (silence, an empty or a very short stream): no bandwidth.
        case tooLittleSignal = "too_little_signal"

        /// The raw value: `roll_off`, `nyquist` or `too_little_signal`.
        public var description: String { rawValue }
    }

    /// How the estimate came about; ``Status/tooLittleSignal`` when there is none.
    public var status: Status
    /// The effective bandwidth, Hz (0 … `sampleRate / 2`); nil with ``Status/tooLittleSignal``.
    public var bandwidthHz: Double?
    /// The class of ``bandwidthHz``; nil with ``Status/tooLittleSignal``.
    public var bandwidthClass: BandwidthClass?
    /// With ``Status/rollOff``: how far, in dB, the highest level above the edge lies below the
    /// mean level of the sixth of an octave under it (≥ the configured
    /// ``BandwidthEstimator/Configuration/dropDB``; 40–150 dB for resampled or codec-limited
    /// audio). Nil otherwise.
    public var edgeDropDB: Double?
    /// Input time the analysed frames stand for: analysed frames × hop / sample rate, seconds.
    public var analyzedSeconds: Double
    /// Input time seen, seconds.
    public var inputSeconds: Double
    /// Frames transformed and averaged.
    public var analyzedFrameCount: Int
    /// Frames skipped as (near) digital silence.
    public var silentFrameCount: Int
    /// Frames skipped because they held a non-finite sample (or their energy overflowed).
    public var nonFiniteFrameCount: Int

    /// An estimate with nothing measured (``Status/tooLittleSignal``, all counts 0).
    public static let empty = BandwidthEstimate(
        status: .tooLittleSignal, bandwidthHz: nil, bandwidthClass: nil, edgeDropDB: nil, analyzedSeconds: 0,
        inputSeconds: 0, analyzedFrameCount: 0, silentFrameCount: 0, nonFiniteFrameCount: 0)
}
