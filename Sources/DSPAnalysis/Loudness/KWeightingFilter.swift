import DSPCore
import RealModule

/// One second-order IIR section, normalised so that `a0 = 1`:
/// `H(z) = (b0 + b1·z⁻¹ + b2·z⁻²) / (1 + a1·z⁻¹ + a2·z⁻²)`.
@frozen
public struct BiquadCoefficients: Equatable, Sendable {
    /// Feed-forward coefficients.
    public var b0: Double, b1: Double, b2: Double
    /// Feedback coefficients (`a0 = 1`).
    public var a1: Double, a2: Double

    /// Creates a section from its five coefficients.
    @inlinable
    public init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
        self.b0 = b0
        self.b1 = b1
        self.b2 = b2
        self.a1 = a1
        self.a2 = a2
    }

    /// `|H(e^{jω})|` at `frequency` Hz for a section running at `sampleRate` Hz.
    public func magnitude(atFrequency frequency: Double, sampleRate: Double) -> Double {
        let w = 2 * Double.pi * frequency / sampleRate
        let c1 = Double.cos(w), s1 = Double.sin(w), c2 = Double.cos(2 * w), s2 = Double.sin(2 * w)
        let nr = b0 + b1 * c1 + b2 * c2, ni = -(b1 * s1 + b2 * s2)
        let dr = 1 + a1 * c1 + a2 * c2, di = -(a1 * s1 + a2 * s2)
        return ((nr * nr + ni * ni) / (dr * dr + di * di)).squareRoot()
    }
}

/// The K-weighting filter of ITU-R BS.1770-5 Annex 1, designed for any sample rate.
///
/// Two sections in cascade, both derived from their analog prototypes with the
/// parametrisation of libebur128 and pyloudnorm:
/// - **Stage 1, high shelf** (head acoustics): `H₁(s) = (V_h s² + V_b (ω₀/Q) s + ω₀²) /
///   (s² + (ω₀/Q) s + ω₀²)` with `f₀` = 1681.974 Hz, `G` = 3.999844 dB (`V_h = 10^{G/20}`,
///   `V_b = V_h^{0.4996668}`), `Q` = 0.7071752.
/// - **Stage 2, RLB high-pass**: `H₂(s) = g · s² / (s² + (ω₀/Q) s + ω₀²)` with `f₀` =
///   38.13547 Hz, `Q` = 0.5003270, and `g = 1 + K₄₈/Q + K₄₈²` (`K₄₈ = tan(π f₀ / 48 000)`),
///   ≈ +0.0433 dB: the pass-band gain that the normative numerator `[1, −2, 1]` carries at
///   48 kHz, which the −0.691 dB constant of the loudness formula calibrates against.
///
/// The bilinear transform with `K = tan(π f₀ / f_s)` reproduces the BS.1770 table at 48 kHz
/// (to 1e−14). That 48 kHz filter is the normative response; it departs from the analog
/// prototype by up to 0.008 dB (bilinear warping of the shelf). At other rates the two
/// ``Design``s differ:
/// - ``Design/matched`` (default) keeps the 48 kHz response at every rate. The high-pass is the
///   bilinear transform with its numerator scaled to keep `g`. The shelf is the bilinear
///   transform from 40 kHz up (at 44.1 kHz within 0.0015 dB of the 48 kHz response); below
///   40 kHz, where bilinear warping moves it (0.066 dB at 16 kHz), it is designed by magnitude
///   matching instead: poles by impulse invariance, `z = e^{s T}`, and the numerator chosen so
///   that `|H|` equals the prototype exactly at DC, at `f₀` and at Nyquist (M. Vicanek,
///   *Matched Second Order Digital Filters*, 2016). At 16 kHz the cascade is within 0.004 dB
///   of the prototype and 0.006 dB of the 48 kHz response up to 7 kHz (0.04 dB at an 8 kHz rate).
/// - ``Design/bilinear``: the bilinear transform of both sections at the input rate with the
///   un-normalised high-pass numerator `[1, −2, 1]` — exactly what libebur128 and pyloudnorm
///   compute. Identical to ``Design/matched`` at 48 kHz; at 44.1 kHz 0.004 dB above it
///   (the high-pass gain); at 16 kHz it reads 0.09–0.15 dB above the 48 kHz response.
///
/// References: ITU-R BS.1770-5 (2023) Annex 1 and its coefficient tables; libebur128
/// `ebur128_init_filter` and pyloudnorm `IIRfilter` (same prototype parameters); M. Vicanek,
/// *Matched Second Order Digital Filters* (2016).
public struct KWeightingFilter: Equatable, Sendable {
    /// How the two sections are derived at the input rate.
    public enum Design: Equatable, Sendable {
        /// Reproduces the 48 kHz response at every rate (default); see ``KWeightingFilter``.
        case matched
        /// Bilinear transform at the input rate, as libebur128 and pyloudnorm do.
        case bilinear
    }

    /// Shelf centre frequency in Hz.
    public static let shelfFrequency = 1681.974450955533
    /// Shelf gain in dB.
    public static let shelfGainDB = 3.999843853973347
    /// Shelf quality factor.
    public static let shelfQ = 0.7071752369554196
    /// Exponent of `V_h` giving the shelf's mid-band gain `V_b`.
    public static let shelfBandExponent = 0.4996667741545416
    /// High-pass corner frequency in Hz.
    public static let highPassFrequency = 38.13547087602444
    /// High-pass quality factor.
    public static let highPassQ = 0.5003270373238773

    /// Below this rate (Hz) ``Design/matched`` designs the shelf by magnitude matching; from
    /// it up, by the bilinear transform (whichever is closer to the 48 kHz response).
    public static let matchedShelfBelow = 40_000.0

    /// Sample rate in Hz.
    public let sampleRate: Double
    /// How the sections were derived.
    public let design: Design
    /// Stage 1, the high shelf.
    public let shelf: BiquadCoefficients
    /// Stage 2, the RLB high-pass, including its pass-band gain.
    public let highPass: BiquadCoefficients

    /// Designs the filter for `sampleRate` Hz; throws unless 8 000…768 000.
    public init(sampleRate: Double, design: Design = .matched) throws(ConfigurationError) {
        try ConfigurationError.check("sampleRate", sampleRate, in: 8_000...768_000)
        self.sampleRate = sampleRate
        self.design = design
        switch design {
        case .bilinear:
            shelf = Self.bilinearShelf(sampleRate: sampleRate)
            highPass = Self.bilinearHighPass(sampleRate: sampleRate, gain: Self.highPassDenominatorSum(sampleRate))
        case .matched:
            shelf = sampleRate >= Self.matchedShelfBelow
                ? Self.bilinearShelf(sampleRate: sampleRate) : Self.matchedShelf(sampleRate: sampleRate)
            highPass = Self.bilinearHighPass(sampleRate: sampleRate, gain: Self.highPassDenominatorSum(48_000))
        }
    }

    /// The cascade's magnitude response in dB at `frequency` Hz.
    public func magnitudeDB(atFrequency frequency: Double) -> Double {
        let m = shelf.magnitude(atFrequency: frequency, sampleRate: sampleRate)
            * highPass.magnitude(atFrequency: frequency, sampleRate: sampleRate)
        return 20 * Double.log10(m)
    }

    /// The normative response in dB at `frequency` Hz (below 24 kHz): the BS.1770 48 kHz
    /// filter's, which ``Design/matched`` reproduces at every rate.
    public static func referenceMagnitudeDB(atFrequency frequency: Double) -> Double {
        let shelf = bilinearShelf(sampleRate: 48_000)
        let highPass = bilinearHighPass(sampleRate: 48_000, gain: highPassDenominatorSum(48_000))
        return 20 * Double.log10(
            shelf.magnitude(atFrequency: frequency, sampleRate: 48_000) * highPass.magnitude(atFrequency: frequency, sampleRate: 48_000))
    }

    /// The analog prototype's magnitude response in dB at `frequency` Hz (both stages and the
    /// high-pass gain `g`), from which both designs are derived.
    public static func prototypeMagnitudeDB(atFrequency frequency: Double) -> Double {
        let shelfSquared = prototypeShelfMagnitudeSquared(atFrequency: frequency)
        let w = 2 * Double.pi * frequency, w0 = 2 * Double.pi * highPassFrequency
        let re = w0 * w0 - w * w, im = w0 / highPassQ * w
        let g = highPassDenominatorSum(48_000)
        let highPassSquared = g * g * w * w * w * w / (re * re + im * im)
        return 10 * Double.log10(shelfSquared * highPassSquared)
    }

    // MARK: - Design

    static func prototypeShelfMagnitudeSquared(atFrequency frequency: Double) -> Double {
        let vh = Double.pow(10, shelfGainDB / 20)
        let vb = Double.pow(vh, shelfBandExponent)
        let w = 2 * Double.pi * frequency, w0 = 2 * Double.pi * shelfFrequency
        let nr = w0 * w0 - vh * w * w, ni = vb * w0 / shelfQ * w
        let dr = w0 * w0 - w * w, di = w0 / shelfQ * w
        return (nr * nr + ni * ni) / (dr * dr + di * di)
    }

    /// `1 + K/Q + K²` of the high-pass at `sampleRate`: the factor by which the normative
    /// `[1, −2, 1]` numerator exceeds the unity-gain bilinear high-pass.
    static func highPassDenominatorSum(_ sampleRate: Double) -> Double {
        let k = Double.tan(Double.pi * highPassFrequency / sampleRate)
        return 1 + k / highPassQ + k * k
    }

    static func bilinearShelf(sampleRate: Double) -> BiquadCoefficients {
        let k = Double.tan(Double.pi * shelfFrequency / sampleRate)
        let vh = Double.pow(10, shelfGainDB / 20)
        let vb = Double.pow(vh, shelfBandExponent)
        let a0 = 1 + k / shelfQ + k * k
        return BiquadCoefficients(
            b0: (vh + vb * k / shelfQ + k * k) / a0,
            b1: 2 * (k * k - vh) / a0,
            b2: (vh - vb * k / shelfQ + k * k) / a0,
            a1: 2 * (k * k - 1) / a0,
            a2: (1 - k / shelfQ + k * k) / a0)
    }

    /// Bilinear high-pass with numerator `gain/a0 · [1, −2, 1]`; `gain = a0` gives the
    /// normative `[1, −2, 1]`.
    static func bilinearHighPass(sampleRate: Double, gain: Double) -> BiquadCoefficients {
        let k = Double.tan(Double.pi * highPassFrequency / sampleRate)
        let a0 = 1 + k / highPassQ + k * k
        let b = gain / a0
        return BiquadCoefficients(
            b0: b, b1: -2 * b, b2: b,
            a1: 2 * (k * k - 1) / a0,
            a2: (1 - k / highPassQ + k * k) / a0)
    }

    /// Vicanek's magnitude-matched shelf: impulse-invariant poles, numerator matching
    /// `|H₁|²` at DC, `f₀` and Nyquist.
    static func matchedShelf(sampleRate fs: Double) -> BiquadCoefficients {
        let w0 = 2 * Double.pi * shelfFrequency / fs
        let zeta = 1 / (2 * shelfQ)  // < 1: complex poles
        let r = Double.exp(-zeta * w0)
        let a1 = -2 * r * Double.cos((1 - zeta * zeta).squareRoot() * w0)
        let a2 = r * r
        let capA0 = (1 + a1 + a2) * (1 + a1 + a2)
        let capA1 = (1 - a1 + a2) * (1 - a1 + a2)
        let capA2 = -4 * a2
        // |P(e^{jω})|² = P0·φ0 + P1·φ1 + P2·φ2 with φ1 = sin²(ω/2), φ0 = 1 − φ1, φ2 = 4·φ0·φ1.
        let s = Double.sin(w0 / 2)
        let phi1 = s * s, phi0 = 1 - phi1, phi2 = 4 * phi0 * phi1
        let capB0 = capA0  // |H₁(0)| = 1
        let capB1 = prototypeShelfMagnitudeSquared(atFrequency: fs / 2) * capA1
        let denominatorAtF0 = capA0 * phi0 + capA1 * phi1 + capA2 * phi2
        let capB2 = (prototypeShelfMagnitudeSquared(atFrequency: shelfFrequency) * denominatorAtF0
            - capB0 * phi0 - capB1 * phi1) / phi2
        let root0 = capB0.squareRoot(), root1 = capB1.squareRoot()
        let w = (root0 + root1) / 2
        let b0 = (w + (w * w + capB2).squareRoot()) / 2
        return BiquadCoefficients(b0: b0, b1: (root0 - root1) / 2, b2: -capB2 / (4 * b0), a1: a1, a2: a2)
    }
}
