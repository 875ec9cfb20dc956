// Dispatched C kernels for DSPSpectral.SpectralAnalyzer on the detection path
// (DetectionFrames.c), under the contract of CDSPSpectral.h: the Swift code's floating-point
// operations in the Swift code's order, contraction off, so every clone gives the same bits.
#pragma once
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// `cdsp_spectral_dot` for up to four frames at once: for `i < frames` (1…4), with
/// `f_i = first + i·stride`, `window_dots[i] = cdsp_spectral_dot(f_i, window, n)` and
/// `hop_energies[i] = cdsp_spectral_dot(f_i + hop_start, f_i + hop_start, hop_count)`, bit for
/// bit (each its own eight lanes over blocks of eight, the lanes summed in order, then the
/// tail). The frames' sums run side by side, so their sequential adds overlap instead of
/// waiting for one another.
void cdsp_detection_frame_dots(
    const float *first, size_t stride, size_t frames, const float *window, size_t n, size_t hop_start,
    size_t hop_count, float *window_dots, float *hop_energies);

/// Copies `count` floats from `source` to `destination` (the ranges must not overlap), eight
/// at a time with unaligned vector loads and stores. SpectralAnalyzer's ring takes each input
/// sample through it once: glibc's `memcpy` uses `rep movsb` for these kilobyte-sized copies,
/// which perf showed at about twice this loop's cost on the AMD machine (ring and input are at
/// arbitrary float offsets).
void cdsp_detection_copy(float *destination, const float *source, size_t count);

// MARK: - Four frames' post-FFT work (DetectionSpectra.c)
//
// Each kernel is four copies of a CDSPSpectral.h kernel run side by side: frame `f`'s outputs
// are bit for bit the one-frame kernel's on frame `f`'s inputs. The four frames' buffers must
// not overlap (except read-only inputs).

/// `cdsp_spectral_power(spectra[f], bins, scale, powers[f], sums + 2f)` for `f < 4`.
void cdsp_detection_power4(float *const spectra[4], size_t bins, float scale, float *const powers[4], float sums[8]);

/// `cdsp_detection_power4` with `|Y_f[k]|²` written to `magnitudes[f][k]` (`k < bins`)
/// instead of back into the spectra, which are left unchanged: the same `powers` and `sums`.
void cdsp_detection_power4_magnitudes(
    float *const spectra[4], size_t bins, float scale, float *const powers[4], float *const magnitudes[4], float sums[8]);

/// `cdsp_spectral_half_twiddle` for four frames whose `f[j]` (`j = 0 … m`) are the contiguous
/// `magnitudes[f][j]` (from `cdsp_detection_power4_magnitudes`) rather than the real parts of an
/// interleaved spectrum: `ys[f]` and `f1s[f]` bit for bit as that kernel gives them.
void cdsp_detection_half_twiddle4(
    const float *const magnitudes[4], size_t m, const float *sine, const float *cosine, float *const ys[4], float f1s[4]);

/// `cdsp_spectral_band_sums(powers[f], edges, count, outs[f])` for `f < 4`: each band's sum
/// from 0 in ascending bins, one value at a time.
void cdsp_detection_band_sums4(const float *const powers[4], const ptrdiff_t *edges, size_t count, float *const outs[4]);

/// The spectral roll-off bin of four frames: `out[f]` is the first `k < bins` at which the
/// running sum `c = c + powers[f][k]` (from 0, ascending `k`) is `≥ targets[f]`, or `bins − 1`
/// when there is none (a NaN target or sum never compares true).
void cdsp_detection_rolloff4(const float *const powers[4], size_t bins, const float targets[4], ptrdiff_t out[4]);

/// `cdsp_spectral_half_lags(spectra[f], f1[f], count, acs[f])` for `f < 4`: the four frames'
/// prefix sums (the odd lags) side by side.
void cdsp_detection_half_lags4(const float *const spectra[4], const float f1[4], size_t count, float *const acs[4]);

#ifdef __cplusplus
}
#endif
