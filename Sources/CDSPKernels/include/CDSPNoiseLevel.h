// DSPDetection's background-noise estimator: its per-hop band sums and its level histograms'
// counting and readings (NoiseLevel.c). Scalar code, compiled once (no level would speed it up), contraction
// off: each result is the same IEEE single-precision operations, in the same order, as the
// Swift it replaced, so the estimator's output is bit for bit what it was.
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The fixed parameters of a band's histogram reading (``NoiseLevelEstimator``'s constants).
typedef struct {
    /// The level of bin 0's lower edge, dB; bins are 1 dB wide.
    float floor_db;
    /// Bins per histogram row.
    int32_t bins;
    /// Rounds of the occupancy iteration, of which the first `steady_rounds` use `margin_db`.
    int32_t rounds;
    int32_t steady_rounds;
    /// A hop this far above the noise median is foreground, dB.
    float margin_db;
    /// The least noise-only share at which a band's fluctuation is measured.
    float fluctuation_share;
    /// The largest lower spread used, dB.
    float maximum_fluctuation_db;
    /// How far the lower spread must exceed the chi-square spread to count as fluctuation, dB.
    float fluctuation_threshold_db;
    /// The widest margin for a fluctuating background, dB.
    float maximum_margin_db;
} cdsp_noise_median_params;

/// A band's reading: the noise-only median (dB), the noise-only share of the window (0 when
/// the row is empty), whether the background fluctuates, and the excess squared spread over
/// the chi-square spread (dB², ≥ 0; 0 unless `fluctuating` and the 15.9 % quantile lies above
/// `floor_db + 1`, and `has_excess` is then 1).
typedef struct {
    float level;
    float share;
    float excess;
    int32_t fluctuating;
    int32_t has_excess;
} cdsp_noise_reading;

/// The level below which `target` of `histogram`'s weight lies, dB, interpolated within the
/// 1 dB bin; `floor_db + bins` when the row holds less than `target`. Builds `cumulative`
/// (`bins + 1` floats, scratch) over the occupied bins `low ... high` (every bin outside them
/// holds no weight; requires `0 ≤ low ≤ high < bins`): the running total of the bins in order,
/// as a whole scan would give there.
float cdsp_noise_quantile(const float *histogram, int32_t low, int32_t high, float target, float *cumulative,
                          const cdsp_noise_median_params *params);

/// The noise-only median of one histogram row and its fluctuation (``NoiseLevelEstimator``'s
/// `histogramMedian`): ``cdsp_noise_quantile``'s cumulative row, then the occupancy rounds.
/// `total` is the row's weight, `chi_square_spread` the squared spread (dB²) steady Gaussian
/// noise shows in this band; with `steady_only` only the steady rounds run. An empty row
/// (`low > high`) reads `floor_db` with share 0. `cumulative`: `bins + 1` floats of scratch.
cdsp_noise_reading cdsp_noise_median(const float *histogram, int32_t low, int32_t high, float total,
                                     float chi_square_spread, int32_t steady_only, float *cumulative,
                                     const cdsp_noise_median_params *params);

/// Each band's power: `sums[b]` is the sum of `power[k]` for `starts[b] ≤ k < min(starts[b + 1],
/// count)`, added in order of `k` (0 for an empty band). Returns 1 when every sum is finite, 0
/// when one is not (a NaN or ±Inf bin, or a sum that overflows).
int32_t cdsp_noise_band_sums(const float *power, intptr_t count, const intptr_t *starts, size_t bands, float *sums);

/// Counts `hops` rows of band levels (dB, each within `floor_db … floor_db + bins`) into the
/// band histograms: row `h` of the ring `levels` (`ring_hops` rows of `bands` levels, starting
/// at row `first` and wrapping) adds `weight · growth^k` (the k-th row's weight, made by
/// repeated multiplication) to bin `min(bins − 1, ⌊level − floor_db⌋)` of band `b`'s histogram
/// (`histograms + b·bins`). Widens each band's occupied span (`occupied[2b]` low,
/// `occupied[2b + 1]` high) to take in those bins.
void cdsp_noise_count(float *histograms, int32_t *occupied, const float *levels, size_t bands, size_t ring_hops,
                      size_t first, size_t hops, float weight, float growth, const cdsp_noise_median_params *params);

/// The sum of `a[i] · b[i]` over `n` bytes: the correlations of ``LoopedBackground``'s hop levels
/// (exact integer arithmetic; `n` up to 66 000 cannot overflow).
uint32_t cdsp_loop_dot(const uint8_t *a, const uint8_t *b, int32_t n);

/// The sums of ``LoopedBackground``'s correlation under a foreground, over the `n` pairs
/// `(a[i], b[i])` whose mask bytes `mask_a[i]` and `mask_b[i]` are both 1 (each mask byte 0 or 1):
/// `sums[0]` the pairs counted, `sums[1]` and `sums[2]` the sums of their `a` and `b`,
/// `sums[3]` and `sums[4]` the sums of their squares, `sums[5]` the sum of their products
/// (exact integer arithmetic; `n` up to 66 000 cannot overflow).
void cdsp_loop_masked_sums(const uint8_t *a, const uint8_t *b, const uint8_t *mask_a, const uint8_t *mask_b,
                           int32_t n, uint32_t *sums);

#ifdef __cplusplus
}
#endif
