// SpectralAnalyzer's pitch: the lag range and the window's own autocorrelation (fixed at
// construction), one frame's autocorrelation from its power spectrum, and the pick of the
// best lag (Boersma's octave cost, parabolic refinement) that both paths share.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
internal import CDSPKernels

extension SpectralAnalyzer {
    /// The pitch search's fixed tables: the lags for `pitchRangeHz` (at least 2, at most
    /// `N/2 − 1`), the window's normalised autocorrelation `r_w(τ)/r_w(0)` and Boersma's octave
    /// cost `0.01 · log2(τ / τ_min)`, both for τ up to the longest lag + 1. The buffers are
    /// allocated here; the analyzer's ``Tables`` own them.
    static func pitchTables(
        window: UnsafeMutableBufferPointer<Float>, configuration c: Configuration
    ) -> (
        lagRange: ClosedRange<Int>, windowAutocorrelation: UnsafeMutableBufferPointer<Float>,
        octaveCost: UnsafeMutableBufferPointer<Float>
    ) {
        let n = c.windowLength
        let minLag = max(2, Int((c.sampleRate / c.pitchRangeHz.upperBound).rounded(.down)))
        let maxLag = min(n / 2 - 1, Int((c.sampleRate / c.pitchRangeHz.lowerBound).rounded(.up)))
        let windowAutocorrelation = UnsafeMutableBufferPointer<Float>.allocate(capacity: maxLag + 2)
        let octaveCost = UnsafeMutableBufferPointer<Float>.allocate(capacity: maxLag + 2)
        for lag in 0...(maxLag + 1) {
            octaveCost[lag] = lag >= minLag ? Float(0.01 * log2(Double(lag) / Double(minLag))) : 0
        }
        var r0 = 0.0
        for i in 0..<n { r0 += Double(window[i]) * Double(window[i]) }
        for lag in 0...(maxLag + 1) {
            var r = 0.0
            for i in 0..<(n - lag) { r += Double(window[i]) * Double(window[i + lag]) }
            windowAutocorrelation[lag] = Float(r / r0)
        }
        return (minLag...maxLag, windowAutocorrelation, octaveCost)
    }

    /// The one-frame path's autocorrelation, lags 0 … max lag + 1, into slot 0's
    /// `autocorrelation`, from `|Y|²` in its spectrum buffer (``analyze(_:validCount:sums:_:_:)``
    /// has left it there).
    @inline(__always)
    func autocorrelate(_ scratch: Scratch) {
        let spectrum = scratch.spectrum, autocorrelation = scratch.autocorrelation
        let lagInput = scratch.lagInputSlots[0]!, lagSpectrum = scratch.lagSpectrumSlots[0]!
        // Autocorrelation = inverse DFT of |Y|² (circular; the window's tails make the wrap
        // negligible over the pitch lags), normalised and corrected for the window. |Y|² is
        // real and even, so its inverse DFT is a DCT-I of its N/2 + 1 values:
        // r(τ) = P₀ + (−1)^τ P_{N/2} + 2 Σ_{k=1}^{N/2−1} P_k cos(2πkτ/N). When 4 | N, that
        // is an N/2-point real FFT of a pre-twiddled sequence plus a prefix sum over the lags
        // needed (Numerical Recipes `cosft1`; Makhoul 1980); otherwise the forward DFT of the
        // mirrored N-point sequence. Either is cheaper than FFTW's c2r.
        let lagCount = lagRange.upperBound + 2
        if halfSine.count > 0 {
            var f1: Float = 0
            cdsp_spectral_half_twiddle(
                spectrum, windowLength / 2, halfSine.baseAddress!, halfCosine.baseAddress!, lagInput, &f1)
            autocorrelationFFT.forward(input: lagInput, spectrum: lagSpectrum, scratch: scratch.fftScratch)
            cdsp_spectral_half_lags(lagSpectrum, f1, lagCount, autocorrelation.baseAddress!)
        } else {
            cdsp_spectral_mirror(spectrum, windowLength, lagInput)
            autocorrelationFFT.forward(input: lagInput, spectrum: lagSpectrum, scratch: scratch.fftScratch)
            cdsp_spectral_real_parts(lagSpectrum, lagCount, autocorrelation.baseAddress!)
        }
    }

    /// Harmonicity and pitch from a frame's autocorrelation (lags 0 … max lag + 1) into
    /// `features`, unchanged when `r(0)` is not positive or no lag qualifies.
    @inline(__always)
    func pickPitch(_ autocorrelation: UnsafeMutablePointer<Float>, into features: inout SpectralFeatures) {
        let r0 = autocorrelation[0]
        if r0 > 0 {
            // Boersma's octave cost (0.01 per octave) favours the shortest period: the local
            // maximum with the highest rho − cost above 0 (the shortest lag on ties).
            var bestRho: Float = 0
            let bestLag = cdsp_spectral_pitch_pick(
                autocorrelation, windowAutocorrelation.baseAddress!, octaveCost.baseAddress!,
                lagRange.lowerBound, lagRange.upperBound, 1 / r0, &bestRho)
            if bestLag > 0 {
                features.harmonicity = min(1, bestRho)
                let left = autocorrelation[bestLag - 1], centre = autocorrelation[bestLag], right = autocorrelation[bestLag + 1]
                let denominator = left - 2 * centre + right
                let offset = denominator < 0 ? 0.5 * (left - right) / denominator : 0
                features.pitchHz = Float(sampleRate) / (Float(bestLag) + max(-0.5, min(0.5, offset)))
            }
        }
    }
}
