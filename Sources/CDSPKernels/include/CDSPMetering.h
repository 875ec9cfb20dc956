// Level and peak metering kernels: levels and the loudness front end's channel loading
// (DSPAnalysis.LevelMeter, ChannelFrontEnd; MeteringLevels.c) and the 4× true peak
// (DSPAnalysis.TruePeakKernel; MeteringTruePeak.c).
//
// Determinism: every kernel performs exactly the operations of the Swift code it replaced, in
// the same order (no contraction of a multiply and an add, lane sums in the same lanes, the
// same Float → Double combination), so its results are bit-identical on every clone and every
// CPU; the tests keep the Swift code as the reference.
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The sums of `cdsp_level_measure`.
typedef struct {
    /// Σ x² over finite samples: Float lane sums (8 lanes, x·x rounded to Float, then added)
    /// per block of ≤ 4096 samples, each lane added to this Double in lane order. A block whose
    /// Float lane sums overflow (samples beyond about 1.8e19) is summed in Double instead, sample
    /// by sample, so every finite input gives a finite, true sum.
    double sum_squares;
    /// Σ x over finite samples, combined the same way.
    double sum;
    /// max |x| over finite samples (+0 for none).
    float peak;
    /// Finite samples at or beyond a clip level: x ≥ clip_high or x ≤ clip_low.
    int64_t clipped;
    /// NaN and ±Inf samples.
    int64_t non_finite;
} cdsp_level_sums;

/// LevelMeter.measure's sums over `x[0 ..< count]`: blocks of up to 4096 samples (a multiple
/// of 8) in eight Float lanes — a fast pass assuming finite samples (`x · 0` summed per lane
/// shows afterwards whether that held), redone with NaN/±Inf zeroed and counted when it did not —
/// each block's lanes then added into Double in lane order; the last `count mod 8` samples one
/// by one (`x·x` in Float, added as Double; in Double when it overflows Float). Clipping is
/// counted at two levels, `x ≥ clip_high` or `x ≤ clip_low` (clip_high > 0 > clip_low), so an
/// integer format's asymmetric full-scale codes (+32767/32768 and −1 for 16 bits) are both rails.
void cdsp_level_measure(const float *x, size_t count, float clip_high, float clip_low, cdsp_level_sums *out);

/// ChannelFrontEnd.load for one channel: `dst[i] = x[i]`, or 0 where x[i] is NaN or ±Inf;
/// returns the largest finite |x[i]| (+0 for none) and adds the non-finite samples to `*bad`.
float cdsp_level_load_mono(const float *x, size_t count, float *dst, int64_t *bad);

/// ChannelFrontEnd.load for two interleaved channels: deinterleaves `frames` frames into
/// `left` and `right` (NaN/±Inf → 0), writes each channel's largest finite magnitude to
/// `peaks[0]`, `peaks[1]` and adds the non-finite samples to `*bad`.
void cdsp_level_load_stereo(const float *x, size_t frames, float *left, float *right, float *peaks, int64_t *bad);

// MARK: - True peak, 4× (DSPAnalysis.TruePeakKernel; MeteringTruePeak.c)

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
