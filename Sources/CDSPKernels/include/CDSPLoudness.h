// DSPAnalysis.LoudnessMeter's dispatched kernels: BS.1770 K-weighting as a block state-space
// kernel (see LoudnessKWeighting.c for the derivation and the arithmetic) and the momentary /
// short-term window sums (LoudnessWindows.c).
#pragma once
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: - K-weighting (DSPAnalysis.LoudnessMeter)
//
// The two K-weighting sections in cascade, each in transposed direct form II, with the
// per-channel state z1, z2 (shelf) and w1, w2 (high-pass, before its gain):
//   u = b0·x + z1;  z1' = (b1·x − a1·u) + z2;  z2' = b2·x − a2·u       (x input, u shelf output)
//   v = u + w1;     w1' = (−2·u − c1·v) + w2;  w2' = u − c2·v          (v high-pass output)
// Blocks of CDSP_KW_BLOCK samples are computed as one linear map of (state, block input)
// (state space: outputs v = C·s + D·x, next state s' = A^B·s + E·x, with D the lower-triangular
// Toeplitz matrix of the impulse response), all independent multiply-adds that vectorise
// across the block, instead of a serial recursion whose latency bounds its speed.
//
// Determinism: blocks are aligned to the start of each loudness step (the caller passes the
// samples of the step consumed so far), an incomplete block is carried in the channel until
// it completes, and the step's final partial block (step length mod CDSP_KW_BLOCK samples) runs
// the serial recursion at step close. Each sample's arithmetic therefore depends only on its
// position in the step, never on how the input was chunked. The energy of a step is summed in
// CDSP_KW_BLOCK lanes (lane j: the j-th sample of every full block), reduced in a fixed tree,
// plus the serial tail. Results may differ in the last bits between CPUs (fused vs separate
// multiply-add), never between runs or chunkings on one CPU.

/// Samples per block.
#define CDSP_KW_BLOCK 8
/// Inputs of the block map: the four state values, then the block's samples.
#define CDSP_KW_SOURCES (4 + CDSP_KW_BLOCK)

/// Coefficients of one K-weighting design: the serial recursion and its block form.
typedef struct cdsp_kweighting {
    /// b0, b1, b2, a1, a2 (shelf), c1, c2 (high-pass denominator).
    double serial[7];
    /// `output[j][i]`: weight of source j (z1, z2, w1, w2, x[0] … x[B−1]) in the block's
    /// high-pass output v[i].
    double output[CDSP_KW_SOURCES][CDSP_KW_BLOCK];
    /// `next[j][i]`: weight of source j in the state after the block (z1, z2, w1, w2).
    double next[CDSP_KW_SOURCES][4];
} cdsp_kweighting;

/// One channel's running state.
typedef struct cdsp_kweighting_channel {
    /// z1, z2, w1, w2.
    double state[4];
    /// Σ v² of this step's full blocks, lane j holding each block's j-th sample.
    double lanes[CDSP_KW_BLOCK];
    /// The current incomplete block's samples (its first `filled mod B`).
    float pending[CDSP_KW_BLOCK];
} cdsp_kweighting_channel;

/// Fills `k` for the shelf (b0, b1, b2, a1, a2) and high-pass denominator (c1, c2). The block
/// map is derived by running the recursion on unit inputs in long double (80-bit on x86-64).
void cdsp_kweighting_design(
    double b0, double b1, double b2, double a1, double a2, double c1, double c2, cdsp_kweighting *k);

/// Filters the next `count` samples `x` of one channel, `filled` samples of the current step
/// having been consumed already (so that `filled + count` ≤ the step length), and adds their
/// energies to the channel's lanes. Full blocks are computed as soon as they complete; the
/// samples of an incomplete block are kept in `channel->pending`.
void cdsp_kweighting_run(
    const cdsp_kweighting *k, cdsp_kweighting_channel *channel, size_t filled, const float *x, size_t count);

/// Closes a step of `length` samples (all consumed): runs the serial recursion over the last
/// `length mod B` samples (still pending), returns the step's Σ v² (lanes reduced as
/// ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)), then the tail's squares added in order),
/// clears the lanes and sets decayed state values (|s| < 1e−30) to exact zero so that silence
/// after sound reaches −∞ and never runs into denormals.
double cdsp_kweighting_close_step(const cdsp_kweighting *k, cdsp_kweighting_channel *channel, size_t length);

// MARK: - Window sums (DSPAnalysis.LoudnessMeter; LoudnessWindows.c)
//
// Additions only, in the Swift loops' order (no contraction question), so every clone gives
// the same bits as the Swift loop it replaces.

/// Four window sums for DSPAnalysis.LoudnessMeter's momentary and short-term loudness: for
/// `k = 0 … 3`, `out[k] = (s0 + s1) + (s2 + s3)` where `s_l` adds `windows[k][j]` from 0 for
/// `j ≡ l (mod 4)`, `j < count`, ascending (`count` a multiple of 4) — LoudnessMeter's
/// `ringSum`, four windows side by side so that their sequential sums overlap.
void cdsp_loudness_window_sums4(const double *const windows[4], size_t count, double out[4]);

#ifdef __cplusplus
}
#endif
