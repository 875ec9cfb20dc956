// BS.1770 K-weighting (DSPAnalysis.LoudnessMeter) as a block state-space kernel with run-time
// CPU dispatch. See KWeighting.c for the derivation and the arithmetic.
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

// MARK: - True peak, 4× (DSPAnalysis.TruePeakKernel; TruePeak.c)
//
// Declared here, beside the K-weighting it runs next to in LoudnessMeter, so that
// CDSPKernels.h needs one include line for both.

/// Taps per phase of the true-peak interpolator (TruePeakMeter.tapsPerPhase).
#define CDSP_TP_TAPS 24

/// The largest `max(|y₁|, |y₂|, |y₃|)` over outputs `0 ..< count` of the folded 4× polyphase
/// interpolator of CDSP_TP_TAPS taps per phase: for output i, with `s_t = x[i−t] + x[i−T+1+t]`,
/// `d_t = x[i−t] − x[i−T+1+t]` (t < T/2), `a = Σ P[t]·s_t`, `b = Σ Q[t]·d_t`, `y₂ = Σ c₂[t]·s_t`, the peak is
/// `max(|a| + |b|, |y₂|)` (since max(|a + b|, |a − b|) = |a| + |b|). `coef` holds, per tap t,
/// three 8-float vectors P[t], Q[t], c₂[t] (each value repeated in all 8 lanes). Outputs are
/// computed 8 at a time, each lane's sums in tap order, every product rounded before it is added
/// (no fused multiply-add): bit-identical on every CPU, and to the Swift SIMD8 loop it replaced.
/// `x[−T+1 ..< 0]` must hold the history and `x[count ..< count + 8]` be readable.
float cdsp_truepeak4(const float *x, size_t count, const float *coef);

#ifdef __cplusplus
}
#endif
