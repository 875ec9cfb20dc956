// Dispatched C kernels for DSPSpectral.SpectralAnalyzer's per-frame loops (Spectral.c).
//
// Bit-for-bit contract: every kernel performs exactly the floating-point operations of the
// Swift loops it replaced, in the same order — eight lanes (Swift `SIMD8<Float>`) accumulated
// over blocks of eight, the lanes then summed sequentially from lane 0 (as `SIMD8.sum()`
// does), the tail added one value at a time — and with floating-point contraction off (no
// fused multiply-add on any clone). So the AVX-512F, AVX2+FMA and SSE2 clones, and the Swift
// code before them, give identical results on every CPU, and features downstream do not move.
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// `Σ_{i<count} a[i]·b[i]`: eight lane accumulators over blocks of eight, the lanes summed in
/// order, then the tail one product at a time.
float cdsp_spectral_dot(const float *a, const float *b, size_t count);

/// `out[i] = (x[i] − mean) · window[i]` for `i < count` (a subtraction, then a multiplication).
void cdsp_spectral_window(const float *x, const float *window, float mean, size_t count, float *out);

/// The scaled power spectrum of an interleaved complex spectrum `spectrum` (re, im per bin,
/// `bins` bins): `power[k] = (re² + im²) · scale`. The spectrum is overwritten with `|Y[k]|²`
/// in the real parts and 0 in the imaginary parts (a real, even spectrum, ready for an inverse
/// transform). `sums[0] = Σ power[k]`, `sums[1] = Σ k · power[k]` over all bins (eight lanes
/// over blocks of eight, `k` as a float lane index, then the tail).
void cdsp_spectral_power(float *spectrum, size_t bins, float scale, float *power, float sums[2]);

/// Writes the real, even sequence whose DFT is the circular autocorrelation: `even[k] =
/// spectrum[2k]` (the `|Y[k]|²` that `cdsp_spectral_power` left there) for `k = 0 … n/2`, and
/// `even[n − k] = even[k]` for `k = 1 … n/2 − 1` (`n` even, `spectrum` holding `n/2 + 1` bins).
void cdsp_spectral_mirror(const float *spectrum, size_t n, float *even);

/// `out[i] = interleaved[2i]` for `i < count`: the real parts of a complex array.
void cdsp_spectral_real_parts(const float *interleaved, size_t count, float *out);

/// The half-size autocorrelation's pre-twiddle (Numerical Recipes `cosft1`; Makhoul 1980).
/// With `f[j] = spectrum[2j]` (the `|Y[j]|²` that `cdsp_spectral_power` left in the real
/// parts), `j = 0 … m`, `m` even and ≥ 2: writes the `m` reals
/// `y[j] = ½(f[j] + f[m−j]) − sin(πj/m)·(f[j] − f[m−j])` (`y[0] = ½(f[0] + f[m])`,
/// `y[m/2] = f[m/2]`), and `*f1 = ½(f[0] − f[m]) + Σ_{j=1}^{m/2−1} cos(πj/m)·(f[j] − f[m−j])`.
/// `sine[j] = sin(πj/m)` and `cosine[j] = cos(πj/m)` for `j < m/2`. The real DFT `Y` of `y`
/// (`m` points) then gives the DCT-I `F[τ] = ½(f[0] + (−1)^τ f[m]) + Σ_{j=1}^{m−1} f[j]·cos(πjτ/m)`
/// as `F[2k] = Re Y[k]` and `F[2k+1] = F[2k−1] − Im Y[k]` (`F[1] = *f1`): see
/// `cdsp_spectral_half_lags`. Sums run in eight lanes, then the tail; no contraction.
void cdsp_spectral_half_twiddle(
    const float *spectrum, size_t m, const float *sine, const float *cosine, float *y, float *f1);

/// The circular autocorrelation `ac[τ] = 2·F[τ] = Σ_{k=0}^{2m−1} |Y[k]|²·cos(2πkτ/(2m))` for
/// `τ < count` (`count ≤ m + 1`) from the `m`-point real DFT `spectrum` (interleaved, `m/2 + 1`
/// bins) of `cdsp_spectral_half_twiddle`'s output and its `f1`: `ac[2k] = 2·Re Y[k]`,
/// `ac[2k+1] = 2·(f1 − Σ_{i=1}^{k} Im Y[i])` (the prefix sum in blocks of eight: a log-step scan
/// inside the block plus the running total, then one value at a time).
void cdsp_spectral_half_lags(const float *spectrum, float f1, size_t count, float *ac);

/// Band sums: `out[b] = Σ_{k = edges[b]}^{edges[b+1] − 1} power[k]` for `b < count`, each added
/// from 0 in ascending `k`, one value at a time (four bands' chains interleaved for speed; each
/// band's own order is unchanged). `edges` holds `count + 1` nondecreasing bin indices.
void cdsp_spectral_band_sums(const float *power, const ptrdiff_t *edges, size_t count, float *out);

/// Sign changes along `x[0 ..< count]`: the number of `i` whose sign bit differs from that of
/// `x[i − 1]` (`x[−1]`'s sign bit is `previous_sign`, 0 or 1). −0 counts as negative.
uint32_t cdsp_spectral_sign_changes(const float *x, size_t count, uint32_t previous_sign);

/// For `p = power[k] + 1e-12` and `l = log2(p)` (SpectralAnalyzer's FastLog polynomial) over
/// `k` in `lo ..< hi`: `sums[0] = Σ p`, `sums[1] = Σ l`, `sums[2] = Σ p · l`.
void cdsp_spectral_log_sums(const float *power, size_t lo, size_t hi, float sums[3]);

/// The autocorrelation pitch pick: over `lag = min_lag … max_lag` (with `min_lag ≥ 1` and
/// `ac[max_lag + 1]` readable), `rho = ac[lag] · inverse_r0 / window_ac[lag]` and
/// `score = rho − octave_cost[lag]`; returns the first lag whose score is the largest score
/// above 0 among local maxima of `ac` (`ac[lag] ≥ ac[lag ± 1]`), with its rho in `*best_rho`,
/// or 0 (and `*best_rho = 0`) when there is none.
size_t cdsp_spectral_pitch_pick(
    const float *ac, const float *window_ac, const float *octave_cost, size_t min_lag, size_t max_lag,
    float inverse_r0, float *best_rho);

// MARK: - Several frames at once (SpectralFrames.c, SpectralBatch.c)
//
// SpectralAnalyzer's per-frame sums and post-FFT work for up to four frames side by side, under
// the contract above: the one-frame kernels' floating-point operations in their order,
// contraction off, so every clone gives the same bits.

/// `cdsp_spectral_dot` for up to four frames at once: for `i < frames` (1…4), with
/// `f_i = first + i·stride`, `window_dots[i] = cdsp_spectral_dot(f_i, window, n)` and
/// `hop_energies[i] = cdsp_spectral_dot(f_i + hop_start, f_i + hop_start, hop_count)`, bit for
/// bit (each its own eight lanes over blocks of eight, the lanes summed in order, then the
/// tail). The frames' sums run side by side, so their sequential adds overlap instead of
/// waiting for one another.
void cdsp_spectral_frame_dots(
    const float *first, size_t stride, size_t frames, const float *window, size_t n, size_t hop_start,
    size_t hop_count, float *window_dots, float *hop_energies);

/// Copies `count` floats from `source` to `destination` (the ranges must not overlap), eight
/// at a time with unaligned vector loads and stores. SpectralAnalyzer's ring takes each input
/// sample through it once: glibc's `memcpy` uses `rep movsb` for these kilobyte-sized copies,
/// which perf showed at about twice this loop's cost on the AMD machine (ring and input are at
/// arbitrary float offsets).
void cdsp_spectral_copy(float *destination, const float *source, size_t count);

// MARK: - Four frames' post-FFT work (SpectralBatch.c)
//
// Each kernel is four copies of a one-frame kernel above run side by side: frame `f`'s outputs
// are bit for bit the one-frame kernel's on frame `f`'s inputs. The four frames' buffers must
// not overlap (except read-only inputs).

/// `cdsp_spectral_power(spectra[f], bins, scale, powers[f], sums + 2f)` for `f < 4`.
void cdsp_spectral_power4(float *const spectra[4], size_t bins, float scale, float *const powers[4], float sums[8]);

/// `cdsp_spectral_power4` with `|Y_f[k]|²` written to `magnitudes[f][k]` (`k < bins`)
/// instead of back into the spectra, which are left unchanged: the same `powers` and `sums`.
void cdsp_spectral_power4_magnitudes(
    float *const spectra[4], size_t bins, float scale, float *const powers[4], float *const magnitudes[4], float sums[8]);

/// `cdsp_spectral_half_twiddle` for four frames whose `f[j]` (`j = 0 … m`) are the contiguous
/// `magnitudes[f][j]` (from `cdsp_spectral_power4_magnitudes`) rather than the real parts of an
/// interleaved spectrum: `ys[f]` and `f1s[f]` bit for bit as that kernel gives them.
void cdsp_spectral_half_twiddle4(
    const float *const magnitudes[4], size_t m, const float *sine, const float *cosine, float *const ys[4], float f1s[4]);

/// `cdsp_spectral_band_sums(powers[f], edges, count, outs[f])` for `f < 4`: each band's sum
/// from 0 in ascending bins, one value at a time.
void cdsp_spectral_band_sums4(const float *const powers[4], const ptrdiff_t *edges, size_t count, float *const outs[4]);

/// The spectral roll-off bin of four frames: `out[f]` is the first `k < bins` at which the
/// running sum `c = c + powers[f][k]` (from 0, ascending `k`) is `≥ targets[f]`, or `bins − 1`
/// when there is none (a NaN target or sum never compares true).
void cdsp_spectral_rolloff4(const float *const powers[4], size_t bins, const float targets[4], ptrdiff_t out[4]);

/// `cdsp_spectral_half_lags(spectra[f], f1[f], count, acs[f])` for `f < 4`: the four frames'
/// prefix sums (the odd lags) side by side.
void cdsp_spectral_half_lags4(const float *const spectra[4], const float f1[4], size_t count, float *const acs[4]);

#ifdef __cplusplus
}
#endif
