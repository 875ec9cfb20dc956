// The dispatched kernel of DSPDetection's probability models (ProbabilityModel, Models.c): the
// small networks' first layer, under the bit-for-bit contract of CDSPSpectral.h (the Swift
// loop's operations in its order, contraction off).
#pragma once
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// First-layer pre-activations of `rows` rows over `n` inputs `x`, one group of rows per vector:
/// `pre[j] = bias[j] + ((s0 + s1) + (s2 + s3))` where `s_r` adds `w[j][i] · x[i]` from 0 for
/// `i ≡ r (mod 4)`, `i < 4⌊n/4⌋`, ascending, and the tail `i ≥ 4⌊n/4⌋` continues `s0` — the
/// Swift row loop's order, bit for bit. Weights are stored by groups of `G` rows
/// (``cdsp_model_group_rows``), transposed: `wt[(g·n + i)·G + l] = w[G·g + l][i]`, and `bias`
/// holds `G⌈rows/G⌉` values (rows past `rows` zero-padded; only `pre[0 ..< rows]` is written).
void cdsp_model_rows(const float *wt, const float *bias, const float *x, size_t n, size_t rows, float *pre);

/// The rows per group `G` of the models kernels' weight layout in this process: 16 at
/// dispatch level avx512 (a group is one 512-bit register), 8 otherwise. Fixed at start-up,
/// like the level.
size_t cdsp_model_group_rows(void);

/// ``cdsp_model_rows`` for `count` input vectors `x[k]` into `pre[k]` (`k < count`), each bit
/// for bit what ``cdsp_model_rows`` gives it alone; the weights are read once for every two
/// vectors.
void cdsp_model_rows_batch(const float *wt, const float *bias, const float *const *x, size_t count, size_t n,
                           size_t rows, float *const *pre);

#ifdef __cplusplus
}
#endif
