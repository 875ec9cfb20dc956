/// The audio-bandwidth class of a recording, from its effective bandwidth.
///
/// The classes follow the speech-coding bands (ITU-T P.800-series terminology and the 3GPP EVS
/// bandwidths): narrowband is audio that went through an 8 kHz-sampled channel (telephone,
/// 300–3400 Hz, at most 4 kHz), wideband through 16 kHz (50–7000 Hz, at most 8 kHz),
/// super-wideband through 32 kHz (at most 16 kHz; also MP3/AAC low-passes at 11–16 kHz),
/// fullband everything above. Each limit is its band's Nyquist frequency plus 10 % — the
/// accuracy ``BandwidthEstimator`` is built for — so that an estimate within that accuracy of
/// 4, 8 or 16 kHz is classed with its band whatever the channel's skirt. Issue 19's scene truth
/// classes its *nominal* cut-offs with a 5 % margin (4.2, 8.4, 16.8 kHz); the two rules agree on
/// every cut-off that material uses (4, 7, 8, 11, 11.025, 15, 16 and 22.05 kHz) and differ only
/// for a nominal cut-off 5–10 % above a band's edge.
public enum BandwidthClass: String, CaseIterable, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// Effective bandwidth ≤ 4400 Hz (``narrowbandLimitHz``): telephone audio.
    case narrowband
    /// 4400 Hz < bandwidth ≤ 8800 Hz (``widebandLimitHz``): 16 kHz (HD-voice) audio, codec
    /// low-passes at 5–8 kHz.
    case wideband
    /// 8800 Hz < bandwidth ≤ 17 600 Hz (``superWidebandLimitHz``): 22.05/32 kHz audio, codec
    /// low-passes at 11–16 kHz.
    case superWideband
    /// Bandwidth above 17 600 Hz: 44.1/48 kHz audio with its high band intact (codec low-passes
    /// at 19–20 kHz included).
    case fullband

    /// Upper limit of ``narrowband``, Hz: 4 kHz + 10 %.
    public static let narrowbandLimitHz = 4400.0
    /// Upper limit of ``wideband``, Hz: 8 kHz + 10 %.
    public static let widebandLimitHz = 8800.0
    /// Upper limit of ``superWideband``, Hz: 16 kHz + 10 %.
    public static let superWidebandLimitHz = 17_600.0

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
/// ``bandwidthHz`` is the frequency at which the stream's long-term average spectrum falls
/// 10 dB below the spectrum ½–¼ octave under it for good (content more than 50 dB below the
/// 100 Hz–4 kHz level not counting): see ``BandwidthEstimator`` for the method and the accuracy
/// measured.
public struct BandwidthEstimate: Equatable, Sendable {
    /// How the estimate came about.
    public enum Status: String, Equatable, Sendable, CustomStringConvertible {
        /// An edge was found below the top band: ``BandwidthEstimate/bandwidthHz`` is its
        /// frequency.
        case rollOff = "roll_off"
        /// The spectrum extends to the Nyquist frequency (its top band is inside the bandwidth):
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
    /// With ``Status/rollOff``: how far, in dB, the highest band level from a quarter octave
    /// above the edge up lies below the edge's reference (the mean level ½–¼ octave under the
    /// first band past the edge): the depth of the fall, 40–100 dB for resampled or
    /// codec-limited audio, less where content comes back above the edge under the signal floor
    /// (an Opus decoder's images and noise-shaped dither: 25–40 dB). Nil otherwise, and when
    /// the edge lies within a quarter octave of the Nyquist frequency.
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
