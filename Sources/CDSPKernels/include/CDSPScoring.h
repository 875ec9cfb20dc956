// Dispatched C kernels for the scoring path's analyzers (ScoringLoudness.c). Each performs the
// Swift code's floating-point operations in the Swift code's order (adds only, so no
// contraction question), so every clone gives the same bits as the Swift loop it replaces.
#pragma once
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Four window sums for DSPAnalysis.LoudnessMeter's momentary and short-term loudness: for
/// `k = 0 … 3`, `out[k] = (s0 + s1) + (s2 + s3)` where `s_l` adds `windows[k][j]` from 0 for
/// `j ≡ l (mod 4)`, `j < count`, ascending (`count` a multiple of 4) — LoudnessMeter's
/// `ringSum`, four windows side by side so that their sequential sums overlap.
void cdsp_loudness_window_sums4(const double *const windows[4], size_t count, double out[4]);

#ifdef __cplusplus
}
#endif
