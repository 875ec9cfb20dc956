// Dispatched kernels for level metering and the loudness front end's channel loading. See
// include/CDSPMetering.h for the contracts.
//
// Eight-lane GCC/clang vector code (one ymm register per vector on the AVX-512F and AVX2+FMA
// clones, two xmm registers on the SSE2 default) doing the Swift code's SIMD8 operations in its
// order. Contraction is off for the whole file, so `x·x + acc` stays a rounded multiply then a
// rounded add on every clone: results are bit-identical to the Swift code they replaced.
#include "CDSPMetering.h"

#pragma STDC FP_CONTRACT OFF
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

#include "Dispatch.h"  // CDSP_DISPATCH, CDSP_INLINE
#include "Vectors.h"   // v8, v16, i8, ld8, st8, splat8, select8

/// `SIMD8<Int32>.wrappedSum()` (lane counts here stay far below overflow).
CDSP_INLINE int64_t lanesum_i8(i8 v) {
    int32_t s = 0;
    for (int j = 0; j < 8; j++) s += v[j];
    return s;
}

/// The largest lane of non-negative, non-NaN values (order-free).
CDSP_INLINE float lanemax8(v8 v) {
    float m = v[0];
    for (int j = 1; j < 8; j++) m = v[j] >= m ? v[j] : m;
    return m;
}

/// The wide pass over one block whose Float lane sums overflowed (samples beyond ~1.8e19, which
/// only float files hold): Σ x² and Σ x of its finite samples in Double, in sample order.
CDSP_INLINE void wide_sums(const float *x, size_t start, size_t end, double *sum_squares, double *sum) {
    double squares = 0, sums = 0;
    for (size_t i = start; i < end; i++) {
        double v = (double)x[i];
        if (!__builtin_isfinite(v)) continue;
        squares += v * v;
        sums += v;
    }
    *sum_squares += squares;
    *sum += sums;
}

/// `symmetric` (a constant at each call, so each case compiles to its own loop): the clip levels
/// are ±clip_high and one comparison of |x| counts both (float files: the loop before the rails
/// existed, at its speed); otherwise x ≥ clip_high or x ≤ clip_low.
CDSP_INLINE void level_measure(const float *x, size_t count, float clip_high, float clip_low, const int symmetric,
                               cdsp_level_sums *out) {
    double sum_squares = 0, sum = 0;
    float peak = 0;
    int64_t clipped = 0, non_finite = 0;
    const v8 high = splat8(clip_high);
    const v8 low = splat8(clip_low);
    const v8 zero = splat8(0.0f);
    const v8 infinity = splat8(__builtin_inff());
    size_t index = 0;
    while (count - index >= 8) {
        size_t block_start = index;
        size_t whole = (count - index) & ~(size_t)7;
        size_t block_end = index + (whole < 4096 ? whole : 4096);
        v8 squares = zero, sums = zero, peaks = zero, poison = zero;
        i8 clips = {0}, bad = {0};
        for (; index < block_end; index += 8) {
            v8 v = ld8(x + index);
            v8 magnitude = select8(v < zero, -v, v);
            // A true comparison lane is −1.
            if (symmetric) {
                clips -= magnitude >= high;
            } else {
                clips -= v >= high;
                clips -= v <= low;
            }
            squares += v * v;
            sums += v;
            poison += v * zero;  // 0 for finite v, NaN for NaN or ±Inf
            peaks = select8(magnitude > peaks, magnitude, peaks);
        }
        i8 nan_lanes = poison != poison;
        int any_nan = 0;
        for (int j = 0; j < 8; j++) any_nan |= nan_lanes[j];
        if (any_nan) {
            // The careful pass over the same block: non-finite samples counted and zeroed.
            index = block_start;
            squares = zero;
            sums = zero;
            peaks = zero;
            clips = (i8){0};
            for (; index < block_end; index += 8) {
                v8 v = ld8(x + index);
                v8 magnitude = select8(v < zero, -v, v);
                i8 finite = magnitude < infinity;  // false for NaN and ±Inf
                v = select8(finite, v, zero);
                magnitude = select8(finite, magnitude, zero);
                bad += 1 + finite;  // +1 where not finite
                // A zeroed sample is neither (high > 0 > low).
                clips -= symmetric ? (magnitude >= high) : ((v >= high) | (v <= low));
                squares += v * v;
                sums += v;
                peaks = select8(magnitude > peaks, magnitude, peaks);
            }
        }
        // Finite lane sums (the case of every real recording) are combined lane by lane; a
        // lane that overflowed Float (+∞, or NaN from +∞ − ∞) sends the block to the wide pass.
        i8 overflow_lanes = ((squares + sums) * zero) != ((squares + sums) * zero);
        int overflow = 0;
        for (int j = 0; j < 8; j++) overflow |= overflow_lanes[j];
        if (overflow) {
            wide_sums(x, block_start, block_end, &sum_squares, &sum);
        } else {
            for (int lane = 0; lane < 8; lane++) {
                sum_squares += (double)squares[lane];
                sum += (double)sums[lane];
            }
        }
        for (int lane = 0; lane < 8; lane++) peak = peaks[lane] >= peak ? peaks[lane] : peak;  // Swift.max(peak, lane)
        clipped += lanesum_i8(clips);
        non_finite += lanesum_i8(bad);
    }
    while (index < count) {
        float v = x[index];
        index += 1;
        if (!__builtin_isfinite(v)) {
            non_finite += 1;
            continue;
        }
        float magnitude = __builtin_fabsf(v);
        float square = v * v;
        // x·x overflows Float beyond ~1.8e19: then the square in Double.
        sum_squares += square < __builtin_inff() ? (double)square : (double)v * (double)v;
        sum += (double)v;
        peak = magnitude >= peak ? magnitude : peak;
        if (symmetric ? magnitude >= clip_high : (v >= clip_high || v <= clip_low)) clipped += 1;
    }
    out->sum_squares = sum_squares;
    out->sum = sum;
    out->peak = peak;
    out->clipped = clipped;
    out->non_finite = non_finite;
}

CDSP_DISPATCH_V3_VOID(
    cdsp_level_measure,
    (const float *x, size_t count, float clip_high, float clip_low, cdsp_level_sums *out),
    (x, count, clip_high, clip_low, out)) {
    if (clip_low == -clip_high) {
        level_measure(x, count, clip_high, clip_low, 1, out);
    } else {
        level_measure(x, count, clip_high, clip_low, 0, out);
    }
}

CDSP_INLINE float load_mono(const float *x, size_t count, float *dst, int64_t *bad) {
    const v8 zero = splat8(0.0f);
    const v8 infinity = splat8(__builtin_inff());
    v8 peaks = zero;
    i8 bad_lanes = {0};
    size_t i = 0;
    for (; count - i >= 8 && i < count; i += 8) {
        v8 v = ld8(x + i);
        v8 a = select8(v < zero, -v, v);
        i8 finite = a < infinity;
        a = select8(finite, a, zero);
        st8(dst + i, select8(finite, v, zero));
        peaks = select8(a > peaks, a, peaks);
        bad_lanes += 1 + finite;
    }
    float p = lanemax8(peaks);
    int64_t b = lanesum_i8(bad_lanes);
    for (; i < count; i++) {
        float v = x[i];
        float a = __builtin_fabsf(v);
        if (a < __builtin_inff()) {
            dst[i] = v;
            p = a >= p ? a : p;
        } else {
            dst[i] = 0;
            b += 1;
        }
    }
    *bad += b;
    return p;
}

CDSP_DISPATCH_V3(
    float,
    cdsp_level_load_mono,
    (const float *x, size_t count, float *dst, int64_t *bad),
    (x, count, dst, bad)) {
    return load_mono(x, count, dst, bad);
}

CDSP_INLINE void load_stereo(const float *x, size_t frames, float *left, float *right, float *peaks, int64_t *bad) {
    const v8 zero = splat8(0.0f);
    const v8 infinity = splat8(__builtin_inff());
    v8 pl = zero, pr = zero;
    i8 bad_lanes = {0};
    size_t i = 0;
    for (; frames - i >= 8 && i < frames; i += 8) {
        v16 both;
        __builtin_memcpy(&both, x + 2 * i, sizeof both);
        v8 l = __builtin_shufflevector(both, both, 0, 2, 4, 6, 8, 10, 12, 14);
        v8 r = __builtin_shufflevector(both, both, 1, 3, 5, 7, 9, 11, 13, 15);
        v8 al = select8(l < zero, -l, l), ar = select8(r < zero, -r, r);
        i8 ok_l = al < infinity, ok_r = ar < infinity;
        st8(left + i, select8(ok_l, l, zero));
        st8(right + i, select8(ok_r, r, zero));
        al = select8(ok_l, al, zero);
        ar = select8(ok_r, ar, zero);
        pl = select8(al > pl, al, pl);
        pr = select8(ar > pr, ar, pr);
        bad_lanes += (1 + ok_l) + (1 + ok_r);
    }
    // Every candidate is +0 or a positive finite magnitude, so the maximum does not depend on
    // the order of comparison: the same as the Swift loop's running max, bit for bit.
    float peak_l = lanemax8(pl), peak_r = lanemax8(pr);
    int64_t b = lanesum_i8(bad_lanes);
    for (; i < frames; i++) {
        float l = x[2 * i], r = x[2 * i + 1];
        float al = __builtin_fabsf(l), ar = __builtin_fabsf(r);
        int ok_l = al < __builtin_inff(), ok_r = ar < __builtin_inff();
        left[i] = ok_l ? l : 0;
        right[i] = ok_r ? r : 0;
        float cl = ok_l ? al : 0, cr = ok_r ? ar : 0;
        peak_l = cl >= peak_l ? cl : peak_l;
        peak_r = cr >= peak_r ? cr : peak_r;
        b += (ok_l ? 0 : 1) + (ok_r ? 0 : 1);
    }
    peaks[0] = peak_l;
    peaks[1] = peak_r;
    *bad += b;
}

CDSP_DISPATCH_V3_VOID(
    cdsp_level_load_stereo,
    (const float *x, size_t frames, float *left, float *right, float *peaks, int64_t *bad),
    (x, frames, left, right, peaks, bad)) {
    load_stereo(x, frames, left, right, peaks, bad);
}
