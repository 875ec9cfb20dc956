// The dispatched kernels of DSPDetection's cue tracker (Detection.c): exact comparisons,
// counts and sums in a fixed order, so every level gives the same results.
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

/// The harmonic sieve's score sums (DSPDetection's `HarmonicSieve`): candidates in groups of 16
/// lanes, each lane one candidate.
///
/// For group `g < groups` and lane `l < 16`, with `e(i) = (g·stride + i)·16 + l` and
/// `n = counts[16·g + l] ≤ stride` (the lane's terms): `sums[16·g + l] = on − off`, where `on`
/// starts at +0 and adds `nearMax[harmonics[e(i)]]`, and `off` starts at +0 and adds
/// `peaks[halves[e(i)]]`, for `i = 0, 1, …, n − 1` in that order.
///
/// `bases` and `narrow` (both NULL, or both given) describe windows: for row `r = g·stride + i`,
/// the indices of the lanes with a term there (count above `i`) lie in
/// `bases[2r] ..< bases[2r] + 64` (harmonics) and `bases[2r + 1] ..< bases[2r + 1] + 64`
/// (halves), all 64 of which must be readable in the table; bit 0 of `narrow[r]` is set where
/// the harmonics' indices lie within 32 of their base, bit 1 where the halves' do. At level
/// avx512 with windows, a row's 16 look-ups are one two-register permute (a narrow row) or two
/// and a blend instead of 16 loads, and the lanes without a term there are left out of the add.
/// Every level and either path gives the same bits (adds in a fixed order, no contraction).
void cdsp_sieve_sums(const float *nearMax, const float *peaks, const int32_t *harmonics, const int32_t *halves,
                     const uint8_t *counts, size_t groups, size_t stride, const int32_t *bases,
                     const uint8_t *narrow, float *sums);

/// The pure-tone test's peaks over one frame's power spectrum `p[lo ..< hi]` (`lo < hi`).
///
/// `sums[0]`: the band's power, `p[lo] + … + p[hi − 1]` (four chains of eight lanes over blocks
/// of 32 bins, the 8-bin blocks after them into the first chain, the chains added
/// `(c0 + c1) + (c2 + c3)`, the lanes left to right, then the last bins one by one). `peaks[0]`: the first index of the band's largest bin; `sums[1]`: the sum of the bins
/// within `halfWidth` of it (clipped to the band). `peaks[1]`: the first index of the largest bin
/// outside that window, `peaks[0]` when the window covers the band; `sums[2]`: the sum of the
/// bins within `halfWidth` of it that are in the band and outside the first window (0 when
/// there is none). Comparisons and adds in a fixed
/// order: every level gives the same bits. A NaN compares false (the caller skips non-finite
/// frames).
void cdsp_tone_peaks(const float *p, size_t lo, size_t hi, size_t halfWidth, float sums[3], size_t peaks[2]);

#ifdef __cplusplus
}
#endif
