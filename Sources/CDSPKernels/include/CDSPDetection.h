// The dispatched kernels of DSPDetection's cue tracker (Detection.c): exact comparisons and
// counts, so every level gives the same results.
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One frame's spectral-peak mask and its persistence counts (the cue tracker's peak test).
///
/// Zeroes `mask` (`words` 64-bit words), then sets bit `k` (word `k / 64`, bit `k % 64`) for
/// each bin `lo ≤ k < hi` with `p[k] > 4·m`, `p[k] ≥ p[k − 1]`, `p[k] ≥ p[k + 1]` and
/// `p[k] > 1e-11`, where `m = p[k + 2] ≥ p[k − 2] ? p[k + 2] : p[k − 2]` (Swift's
/// `max(p[k − 2], p[k + 2])`): every comparison false for a NaN. Reads `p[lo − 2 ..< hi + 2]`;
/// requires `lo ≥ 2` and `hi ≤ 64·words`.
///
/// `counts[0]`: the bits set. `counts[1]`: those with a bit of `previous` (another frame's mask,
/// `words` words) at the same bin or one bin either side; 0 when `previous` is NULL.
void cdsp_peak_mask(const float *p, size_t lo, size_t hi, uint64_t *mask, size_t words, const uint64_t *previous,
                    size_t counts[2]);

#ifdef __cplusplus
}
#endif
