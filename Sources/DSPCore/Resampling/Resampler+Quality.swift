// Quality presets: the specification each one meets and the design parameters behind it.

extension Resampler {
    /// A filter preset. Band edges are relative to the *low* Nyquist frequency
    /// `min(inputRate, outputRate) / 2` (8 kHz for 16 kHz output or input).
    ///
    /// Every preset keeps the same passband: ripple ≤ 0.1 dB from 0 to 0.875 × low Nyquist
    /// (7 kHz at 16 kHz) and a −3 dB point ≥ 0.925 × low Nyquist (7.4 kHz). They differ in the
    /// rejection of everything at or above 1.0625 × low Nyquist (8.5 kHz), which for
    /// downsampling is the alias level of a full-scale tone and for upsampling the image level:
    ///
    /// | preset | alias/image rejection (spec) | 48→16 kHz: half-band + 24→16 taps | group delay at 48→16 kHz |
    /// |---|---|---|---|
    /// | ``lowLatency`` | ≤ −80 dBFS | 39 + 131 | 1.75 ms |
    /// | ``default`` | ≤ −100 dBFS | 47 + 149 | 2.02 ms |
    /// | ``high`` | ≤ −120 dBFS | 59 + 171 | 2.37 ms |
    ///
    /// The filters are Parks–McClellan equiripple designs (see ``Resampler/DesignMethod``,
    /// ``Resampler/halfBandLength`` and `docs/resampling.md` for the method and the measured
    /// figures).
    public enum Quality: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// Alias/image rejection ≥ 80 dB: about 12 % fewer taps and 0.3 ms less delay than
        /// ``default``.
        case lowLatency
        /// Speech front-end quality: alias/image rejection ≥ 100 dB, THD+N ≤ −100 dB, delay ≤ 5 ms.
        case `default`
        /// Alias/image rejection ≥ 120 dB: about 15 % more taps than ``default``.
        case high

        /// The preset's name, as spelled in Swift.
        public var description: String {
            switch self {
            case .lowLatency: "lowLatency"
            case .default: "default"
            case .high: "high"
            }
        }

        /// Upper edge of the passband, as a fraction of the low Nyquist frequency (0.875:
        /// 7 kHz at 16 kHz), up to which the ripple stays within ``passbandRippleDB``.
        public static let passbandEdgeRatio: Double = 0.875
        /// Lowest frequency, as a fraction of the low Nyquist frequency, that the −3 dB point
        /// may not fall below (0.925: 7.4 kHz at 16 kHz).
        public static let minimumHalfPowerRatio: Double = 0.925
        /// Start of the stopband, as a fraction of the low Nyquist frequency (1.0625: 8.5 kHz
        /// at 16 kHz). Tones between the low Nyquist and this edge alias into the band above
        /// the passband edge, which the specification leaves free.
        public static let stopbandEdgeRatio: Double = 1.0625
        /// Specified peak-to-peak passband ripple, in dB.
        public static let passbandRippleDB: Double = 0.1

        /// Specified rejection of tones at or above the stopband edge, in dB below full scale.
        public var stopbandRejectionDB: Double {
            switch self {
            case .lowLatency: 80
            case .default: 100
            case .high: 120
            }
        }

        /// Passband edge of the equiripple design, as a fraction of the low Nyquist frequency:
        /// beyond the specified 0.875 so that the −3 dB point lands above 0.925.
        static let designPassbandEdgeRatio: Double = 0.89

        /// Peak passband deviation the equiripple design allows: 0.005 (±0.043 dB, 0.087 dB
        /// peak to peak), inside the 0.1 dB specification.
        static let designPassbandDeviation: Double = 0.005

        /// The stopband attenuation the equiripple design aims at, in dB: the specification
        /// plus a margin for Float32 coefficient rounding and the interpolator.
        var equirippleAttenuationDB: Double {
            switch self {
            case .lowLatency: 88
            case .default: 107
            case .high: 126
            }
        }

        /// The attenuation the Kaiser fallback design aims at, in dB: the specification plus a
        /// margin for Float32 coefficient rounding and the band-edge placement.
        var kaiserAttenuationDB: Double {
            switch self {
            case .lowLatency: 84
            case .default: 105
            case .high: 125
            }
        }

        /// The Kaiser fallback's cutoff (its −6 dB point), as a fraction of the low Nyquist
        /// frequency. Placed so the Kaiser transition band, 2 × (stop edge − cutoff) wide, ends
        /// at the stopband edge while the passband only needs 0.1 dB, not the stopband's δ:
        /// that asymmetry lets the passband edge sit inside the nominal transition band.
        var kaiserCutoffRatio: Double {
            switch self {
            case .lowLatency: 0.955
            case .default: 0.95125
            case .high: 0.9475
            }
        }
    }
}
