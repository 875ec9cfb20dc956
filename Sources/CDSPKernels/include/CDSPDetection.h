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

#ifdef __cplusplus
}
#endif
