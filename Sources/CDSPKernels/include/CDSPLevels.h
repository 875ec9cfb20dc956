// Level metering and loudness front-end kernels (DSPAnalysis.LevelMeter, ChannelFrontEnd) and
// the 16-bit PCM widening of DSPIO.AudioFileReader. See Levels.c.
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
    /// per block of ≤ 4096 samples, each lane added to this Double in lane order.
    double sum_squares;
    /// Σ x over finite samples, combined the same way.
    double sum;
    /// max |x| over finite samples (+0 for none).
    float peak;
    /// Finite samples with |x| ≥ the threshold.
    int64_t clipped;
    /// NaN and ±Inf samples.
    int64_t non_finite;
} cdsp_level_sums;

/// LevelMeter.measure's sums over `x[0 ..< count]`: blocks of up to 4096 samples (a multiple
/// of 8) in eight Float lanes — a fast pass assuming finite samples (`x · 0` summed per lane
/// shows afterwards whether that held), redone with NaN/±Inf zeroed and counted when it did not —
/// each block's lanes then added into Double in lane order; the last `count mod 8` samples one
/// by one (`x·x` in Float, added as Double).
void cdsp_level_measure(const float *x, size_t count, float clip_threshold, cdsp_level_sums *out);

/// ChannelFrontEnd.load for one channel: `dst[i] = x[i]`, or 0 where x[i] is NaN or ±Inf;
/// returns the largest finite |x[i]| (+0 for none) and adds the non-finite samples to `*bad`.
float cdsp_level_load_mono(const float *x, size_t count, float *dst, int64_t *bad);

/// ChannelFrontEnd.load for two interleaved channels: deinterleaves `frames` frames into
/// `left` and `right` (NaN/±Inf → 0), writes each channel's largest finite magnitude to
/// `peaks[0]`, `peaks[1]` and adds the non-finite samples to `*bad`.
void cdsp_level_load_stereo(const float *x, size_t frames, float *left, float *right, float *peaks, int64_t *bad);

/// Widens `count` 16-bit samples to Float: `out[i] = (float)in[i] · 2⁻¹⁵` (exact, as
/// `sf_readf_float` with normalisation gives). `in` may overlap `out` if it starts at or after
/// `(const int16_t *)out + count` (the reader reads the shorts into the back half of its float
/// buffer): each group of samples is loaded before the floats over it are stored, front to
/// back, and no store reaches a sample not yet loaded.
void cdsp_widen_pcm16(const int16_t *in, float *out, size_t count);

#ifdef __cplusplus
}
#endif
