/// The features of one analysis frame, as ``SpectralAnalyzer`` computes them.
///
/// Frame `i` covers the window of ``SpectralAnalyzer/windowLength`` samples that ends at the
/// end of hop `i`, i.e. stream samples `[(i+1)·hop − window, (i+1)·hop)` (samples before the
/// stream start are zeros). Its *hop* — the samples it speaks for — is `[i·hop, (i+1)·hop)`,
/// starting at ``time``. With the defaults at 16 kHz: a 64 ms Hann window every 16 ms.
///
/// `P[k]` below is the power spectrum of the Hann-windowed frame, scaled so that the band
/// powers sum to the frame's mean square (`Σ_k P[k] = Σ w²x² / Σ w²`), bin `k` at
/// `f_k = k·fs/N`. "Analysis band" means ``SpectralAnalyzer/Configuration/analysisBandHz``
/// (default 100…7000 Hz). References: G. Peeters, "A large set of audio features for sound
/// description", IRCAM 2004 (centroid, roll-off, flatness, flux); P. Boersma, "Accurate
/// short-term analysis of the fundamental frequency and the harmonics-to-noise ratio of a
/// sampled sound", IFA Proceedings 17, 1993 (pitch, harmonicity).
@frozen
public struct SpectralFeatures: Equatable, Sendable {
    /// Zero-based frame number in the stream.
    public var index: Int64
    /// Start of the frame's hop, in seconds from the stream start: `index · hop / fs`.
    public var time: Double
    /// Samples of real input in the frame's hop (the hop length except at end of stream).
    public var validCount: Int

    /// Mean square of the hop's samples, `Σ x² / hop` (full-scale sine: 0.5).
    public var hopPower: Float
    /// Mean square of the window, Hann-weighted: `Σ w²x² / Σ w²`. When the power sum is NaN (finite
    /// samples large enough to overflow it), `Float.nan`: one bit pattern whatever the batch size.
    public var framePower: Float
    /// Spectral centroid, Hz: `Σ f_k·P[k] / Σ P[k]` over all bins; 0 for silence.
    public var centroidHz: Float
    /// Spectral roll-off, Hz: the lowest `f_k` below which 85 % of `Σ P[k]` lies; 0 for silence.
    public var rolloffHz: Float
    /// Spectral flatness (Wiener entropy) over the analysis band, 0…1:
    /// `exp(mean ln P[k]) / mean P[k]`; 1 for white noise, near 0 for a few tones. 0 for silence.
    public var flatness: Float
    /// Normalised spectral entropy over the analysis band, 0…1:
    /// `−Σ p_k·log p_k / log K` with `p_k = P[k]/Σ P`, K bins; 1 for white noise. 0 for silence.
    public var entropy: Float
    /// Spectral flux: mean over the bands of the half-wave-rectified rise in band level since
    /// the previous frame, dB: `(1/B)·Σ_b max(0, L_b(t) − L_b(t−1))`, `L_b` = 10·log10 of band
    /// power (floored at −100 dB). Onsets give large values.
    public var fluxDB: Float
    /// Zero-crossing rate of the hop: sign changes between consecutive samples / (hop − 1),
    /// 0…1.
    public var zeroCrossingRate: Float
    /// Harmonicity: the highest normalised autocorrelation of the window over the pitch range,
    /// corrected for the window (Boersma 1993): `ρ(τ) = (r_x(τ)/r_x(0)) / (r_w(τ)/r_w(0))`,
    /// clamped to 0…1. Near 1 for a periodic frame, near 0 for noise.
    public var harmonicity: Float
    /// The lag of that maximum as a frequency, Hz (parabolic interpolation); 0 when
    /// ``harmonicity`` is 0.
    public var pitchHz: Float
    /// False when the window held a NaN or ±Inf sample; every other feature is then 0 and the
    /// detectors treat the frame as silence without updating their state.
    public var isFinite: Bool

    /// An all-zero frame.
    @inlinable
    public init() {
        index = 0; time = 0; validCount = 0
        hopPower = 0; framePower = 0; centroidHz = 0; rolloffHz = 0; flatness = 0; entropy = 0
        fluxDB = 0; zeroCrossingRate = 0; harmonicity = 0; pitchHz = 0; isFinite = true
    }
}

/// What ``SpectralAnalyzer`` hands its callback for each frame: the ``features`` and views of
/// the frame's power spectrum and band powers, valid only during the call.
public struct SpectralFrame {
    /// The scalar features.
    public var features: SpectralFeatures
    /// `P[k]` for `k = 0 … N/2`, scaled as described in ``SpectralFeatures``.
    public var powerSpectrum: UnsafeBufferPointer<Float>
    /// Power per band of ``SpectralAnalyzer/bandEdgesHz`` (sums of `P[k]`).
    public var bandPowers: UnsafeBufferPointer<Float>
    /// The windowed frame's time samples (Hann-weighted), `N` of them.
    public var windowedSamples: UnsafeBufferPointer<Float>
    /// Hz per spectrum bin, `fs / N`.
    public var binWidthHz: Float
}
