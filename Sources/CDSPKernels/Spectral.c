// Dispatched kernels for SpectralAnalyzer. See include/CDSPSpectral.h for the contracts.
//
// Eight-lane GCC/clang vector code: one ymm register per vector on the AVX-512F and AVX2+FMA
// clones, two xmm registers on the SSE2 default. Contraction is off for the whole file, so no
// clone fuses a multiply and an add: every clone computes exactly the Swift code's operations
// (which never contracts), bit for bit.
#include "CDSPSpectral.h"

#pragma STDC FP_CONTRACT OFF
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

#include "Dispatch.h"   // CDSP_DISPATCH, CDSP_INLINE
#include "Vectors.h"   // v8, i8, ld8, st8, splat8, lanesum8
#include "HalfTwiddle.h"   // half_twiddle_strided, half_lags_block, half_lags_step

// Each kernel is an always-inline body plus a dispatched wrapper that only calls it: clang
// rejects 32-byte vector values passed between functions in the SSE2 clone (an ABI change),
// but not inside always-inline helpers, which every clone inlines at its own width.

typedef uint32_t u8 __attribute__((vector_size(32)));

// FastLog.log2's constants, rounded as Swift rounds a Float literal (decimal → Float80 →
// Float on x86-64; long double is that Float80 here). For these constants every route —
// direct, through Double, through Float80 — gives the same float, so other platforms agree.
#define FL_C5 ((float)0.043428908L)
#define FL_C4 ((float)0.18772264L)
#define FL_C3 ((float)0.40872174L)
#define FL_C2 ((float)0.70570416L)
#define FL_C1 ((float)1.4412674L)
#define FL_C0 ((float)0.0000319081L)
#define FLT_LEAST_NORMAL 1.17549435e-38f

/// FastLog.log2 on eight lanes: clamp below to the least normal float (NaN passes), exponent
/// plus a degree-5 polynomial in the mantissa.
CDSP_INLINE v8 fastlog2_8(v8 x) {
    v8 floor = splat8(FLT_LEAST_NORMAL);
    i8 below = x < floor;
    u8 xb, fb;
    __builtin_memcpy(&xb, &x, sizeof xb);
    __builtin_memcpy(&fb, &floor, sizeof fb);
    u8 bits = (xb & ~(u8)below) | (fb & (u8)below);
    v8 exponent = __builtin_convertvector((i8)((bits >> 23) & 0xFF) - 127, v8);
    u8 mb = (bits & 0x007FFFFF) | 0x3F800000;
    v8 m;
    __builtin_memcpy(&m, &mb, sizeof m);
    m = m - 1.0f;
    v8 p = splat8(FL_C5);
    p = p * m - FL_C4;
    p = p * m + FL_C3;
    p = p * m - FL_C2;
    p = p * m + FL_C1;
    p = p * m + FL_C0;
    return exponent + p;
}

/// FastLog.log2 on one value (`Swift.max(x, leastNormal)` keeps a NaN `x`).
CDSP_INLINE float fastlog2_1(float x) {
    float c = FLT_LEAST_NORMAL >= x ? FLT_LEAST_NORMAL : x;
    uint32_t bits;
    __builtin_memcpy(&bits, &c, sizeof bits);
    float exponent = (float)((int32_t)((bits >> 23) & 0xFF) - 127);
    uint32_t mb = (bits & 0x007FFFFF) | 0x3F800000;
    float m;
    __builtin_memcpy(&m, &mb, sizeof m);
    m = m - 1.0f;
    float p = FL_C5;
    p = p * m - FL_C4;
    p = p * m + FL_C3;
    p = p * m - FL_C2;
    p = p * m + FL_C1;
    p = p * m + FL_C0;
    return exponent + p;
}

CDSP_INLINE float dot_body(const float *a, const float *b, size_t count) {
    v8 acc = {0};
    size_t i = 0;
    for (; i + 8 <= count; i += 8) acc = acc + ld8(a + i) * ld8(b + i);
    float sum = lanesum8(acc);
    for (; i < count; i++) sum = sum + a[i] * b[i];
    return sum;
}

CDSP_DISPATCH_V3(float, cdsp_spectral_dot, (const float *a, const float *b, size_t count), (a, b, count)) {
    return dot_body(a, b, count);
}

CDSP_INLINE void window_body(const float *x, const float *window, float mean, size_t count, float *out) {
    v8 m = splat8(mean);
    size_t i = 0;
    for (; i + 8 <= count; i += 8) st8(out + i, (ld8(x + i) - m) * ld8(window + i));
    for (; i < count; i++) out[i] = (x[i] - mean) * window[i];
}

CDSP_DISPATCH_V3_VOID(
    cdsp_spectral_window,
    (const float *x, const float *window, float mean, size_t count, float *out),
    (x, window, mean, count, out)) {
    window_body(x, window, mean, count, out);
}

CDSP_INLINE void power_body(float *spectrum, size_t bins, float scale, float *power, float sums[2]) {
    v8 totals = {0}, moments = {0};
    v8 index = {0, 1, 2, 3, 4, 5, 6, 7};
    v8 s = splat8(scale);
    v8 zero = {0};
    size_t k = 0;
    for (; k + 8 <= bins; k += 8) {
        v8 lo = ld8(spectrum + 2 * k), hi = ld8(spectrum + 2 * k + 8);
        v8 r = __builtin_shufflevector(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14);
        v8 i = __builtin_shufflevector(lo, hi, 1, 3, 5, 7, 9, 11, 13, 15);
        v8 magnitude = r * r + i * i;
        st8(spectrum + 2 * k, __builtin_shufflevector(magnitude, zero, 0, 8, 1, 9, 2, 10, 3, 11));
        st8(spectrum + 2 * k + 8, __builtin_shufflevector(magnitude, zero, 4, 12, 5, 13, 6, 14, 7, 15));
        v8 p = magnitude * s;
        st8(power + k, p);
        totals = totals + p;
        moments = moments + p * index;
        index = index + 8.0f;
    }
    float total = lanesum8(totals);
    float weighted = lanesum8(moments);
    for (; k < bins; k++) {
        float r = spectrum[2 * k], i = spectrum[2 * k + 1];
        float magnitude = r * r + i * i;
        spectrum[2 * k] = magnitude;
        spectrum[2 * k + 1] = 0;
        float p = magnitude * scale;
        power[k] = p;
        total = total + p;
        weighted = weighted + p * (float)k;
    }
    sums[0] = total;
    sums[1] = weighted;
}

CDSP_DISPATCH_V3_VOID(
    cdsp_spectral_power,
    (float *spectrum, size_t bins, float scale, float *power, float sums[2]),
    (spectrum, bins, scale, power, sums)) {
    power_body(spectrum, bins, scale, power, sums);
}

CDSP_INLINE void log_sums_body(const float *power, size_t lo, size_t hi, float sums[3]) {
    const float floor = (float)1e-12L;
    v8 f = splat8(floor);
    v8 ps = {0}, ls = {0}, pls = {0};
    size_t k = lo;
    for (; k + 8 <= hi; k += 8) {
        v8 p = ld8(power + k) + f;
        v8 l = fastlog2_8(p);
        ps = ps + p;
        ls = ls + l;
        pls = pls + p * l;
    }
    float p_sum = lanesum8(ps), l_sum = lanesum8(ls), pl_sum = lanesum8(pls);
    for (; k < hi; k++) {
        float p = power[k] + floor;
        float l = fastlog2_1(p);
        p_sum = p_sum + p;
        l_sum = l_sum + l;
        pl_sum = pl_sum + p * l;
    }
    sums[0] = p_sum;
    sums[1] = l_sum;
    sums[2] = pl_sum;
}

CDSP_DISPATCH_V3_VOID(
    cdsp_spectral_log_sums,
    (const float *power, size_t lo, size_t hi, float sums[3]),
    (power, lo, hi, sums)) {
    log_sums_body(power, lo, hi, sums);
}

CDSP_INLINE size_t pitch_pick_body(
    const float *ac, const float *window_ac, const float *octave_cost, size_t min_lag, size_t max_lag,
    float inverse_r0, float *best_rho
) {
    size_t best_lag = 0;
    float best_score = 0;
    v8 inv = splat8(inverse_r0);
    size_t lag = min_lag;
    // Blocks of eight lags, without branches: every lane's rho and score exactly as the scalar
    // loop computes them, and per lane the first lag of its highest score above 0 among local
    // maxima (a strict `>`, as the scalar rule). The scalar rule picks the first lag of the
    // highest such score overall: the highest of the lanes' scores, at the smallest of their
    // lags that hold it. NaN scores and comparisons never compare true, in either form.
    if (lag + 8 <= max_lag + 1) {
        v8 lane_score = {0};
        i8 lane_lag = {0};
        i8 lags = {0, 1, 2, 3, 4, 5, 6, 7};
        lags = lags + (int32_t)lag;
        for (; lag + 8 <= max_lag + 1; lag += 8) {
            v8 a = ld8(ac + lag);
            v8 rho = a * inv / ld8(window_ac + lag);
            v8 score = rho - ld8(octave_cost + lag);
            i8 candidate = (score > lane_score) & (a >= ld8(ac + lag - 1)) & (a >= ld8(ac + lag + 1));
            u8 sb, lb;
            __builtin_memcpy(&sb, &score, sizeof sb);
            __builtin_memcpy(&lb, &lane_score, sizeof lb);
            u8 merged = (sb & (u8)candidate) | (lb & ~(u8)candidate);
            __builtin_memcpy(&lane_score, &merged, sizeof merged);
            lane_lag = (lags & candidate) | (lane_lag & ~candidate);
            lags = lags + 8;
        }
        for (int j = 0; j < 8; j++) {
            float score = lane_score[j];
            size_t at = (size_t)lane_lag[j];
            if (score > best_score || (score == best_score && score > 0 && at < best_lag)) {
                best_score = score;
                best_lag = at;
            }
        }
    }
    for (; lag <= max_lag; lag++) {
        float rho = ac[lag] * inverse_r0 / window_ac[lag];
        float score = rho - octave_cost[lag];
        if (score > best_score && ac[lag] >= ac[lag - 1] && ac[lag] >= ac[lag + 1]) {
            best_score = score;
            best_lag = lag;
        }
    }
    // The winner's rho, recomputed with the same two operations.
    *best_rho = best_lag > 0 ? ac[best_lag] * inverse_r0 / window_ac[best_lag] : 0;
    return best_lag;
}

CDSP_DISPATCH_V3(
    size_t,
    cdsp_spectral_pitch_pick,
    (const float *ac, const float *window_ac, const float *octave_cost, size_t min_lag, size_t max_lag,
     float inverse_r0, float *best_rho),
    (ac, window_ac, octave_cost, min_lag, max_lag, inverse_r0, best_rho)) {
    return pitch_pick_body(ac, window_ac, octave_cost, min_lag, max_lag, inverse_r0, best_rho);
}

CDSP_INLINE void mirror_body(const float *spectrum, size_t n, float *even) {
    size_t half = n / 2;
    size_t k = 0;
    for (; k + 8 <= half + 1; k += 8) {
        v8 lo = ld8(spectrum + 2 * k), hi = ld8(spectrum + 2 * k + 8);
        st8(even + k, __builtin_shufflevector(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14));
    }
    for (; k <= half; k++) even[k] = spectrum[2 * k];
    // even[n − k] = spectrum[2k], k = 1 … half − 1: blocks of eight read forwards from the
    // spectrum (not from `even`, whose fresh stores the shifted loads could not forward from),
    // stored reversed.
    k = 1;
    for (; k + 8 <= half; k += 8) {
        v8 lo = ld8(spectrum + 2 * k), hi = ld8(spectrum + 2 * k + 8);
        st8(even + n - k - 7, __builtin_shufflevector(lo, hi, 14, 12, 10, 8, 6, 4, 2, 0));
    }
    for (; k < half; k++) even[n - k] = spectrum[2 * k];
}

CDSP_DISPATCH_V3_VOID(cdsp_spectral_mirror, (const float *spectrum, size_t n, float *even), (spectrum, n, even)) {
    mirror_body(spectrum, n, even);
}

CDSP_INLINE void real_parts_body(const float *interleaved, size_t count, float *out) {
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        v8 lo = ld8(interleaved + 2 * i), hi = ld8(interleaved + 2 * i + 8);
        st8(out + i, __builtin_shufflevector(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14));
    }
    for (; i < count; i++) out[i] = interleaved[2 * i];
}

CDSP_DISPATCH_V3_VOID(
    cdsp_spectral_real_parts,
    (const float *interleaved, size_t count, float *out),
    (interleaved, count, out)) {
    real_parts_body(interleaved, count, out);
}

CDSP_DISPATCH_V3_VOID(
    cdsp_spectral_half_twiddle,
    (const float *spectrum, size_t m, const float *sine, const float *cosine, float *y, float *f1),
    (spectrum, m, sine, cosine, y, f1)) {
    half_twiddle_strided(spectrum, 2, m, sine, cosine, y, f1);
}

/// `ac[2k] = 2·Re Y[k]`, `ac[2k+1] = 2·(f1 − Σ_{i=1}^{k} Im Y[i])`: the odd terms a prefix sum,
/// eight bins per vector (a log-step scan within the vector, then the running carry).
CDSP_INLINE void half_lags_body(const float *spectrum, float f1, size_t count, float *ac) {
    float carry = f1;
    size_t k = 0;
    for (; 2 * (k + 8) <= count; k += 8) carry = half_lags_block(spectrum, k, carry, ac);
    for (; 2 * k < count; k++) carry = half_lags_step(spectrum, k, count, carry, ac);
}

CDSP_DISPATCH_V3_VOID(
    cdsp_spectral_half_lags,
    (const float *spectrum, float f1, size_t count, float *ac),
    (spectrum, f1, count, ac)) {
    half_lags_body(spectrum, f1, count, ac);
}

CDSP_INLINE void band_sums_body(const float *power, const ptrdiff_t *edges, size_t count, float *out) {
    size_t b = 0;
    for (; b + 4 <= count; b += 4) {
        const float *p0 = power + edges[b], *p1 = power + edges[b + 1];
        const float *p2 = power + edges[b + 2], *p3 = power + edges[b + 3];
        size_t n0 = (size_t)(edges[b + 1] - edges[b]), n1 = (size_t)(edges[b + 2] - edges[b + 1]);
        size_t n2 = (size_t)(edges[b + 3] - edges[b + 2]), n3 = (size_t)(edges[b + 4] - edges[b + 3]);
        size_t m = n0;
        if (n1 < m) m = n1;
        if (n2 < m) m = n2;
        if (n3 < m) m = n3;
        float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        size_t i = 0;
        for (; i < m; i++) {
            s0 = s0 + p0[i];
            s1 = s1 + p1[i];
            s2 = s2 + p2[i];
            s3 = s3 + p3[i];
        }
        for (size_t j = i; j < n0; j++) s0 = s0 + p0[j];
        for (size_t j = i; j < n1; j++) s1 = s1 + p1[j];
        for (size_t j = i; j < n2; j++) s2 = s2 + p2[j];
        for (size_t j = i; j < n3; j++) s3 = s3 + p3[j];
        out[b] = s0;
        out[b + 1] = s1;
        out[b + 2] = s2;
        out[b + 3] = s3;
    }
    for (; b < count; b++) {
        float s = 0;
        for (ptrdiff_t k = edges[b]; k < edges[b + 1]; k++) s = s + power[k];
        out[b] = s;
    }
}

CDSP_DISPATCH_V3_VOID(
    cdsp_spectral_band_sums,
    (const float *power, const ptrdiff_t *edges, size_t count, float *out),
    (power, edges, count, out)) {
    band_sums_body(power, edges, count, out);
}

CDSP_INLINE uint32_t sign_changes_body(const float *x, size_t count, uint32_t previous_sign) {
    uint32_t changes = 0;
    uint32_t previous = previous_sign;
    size_t i = 0;
    if (count >= 8) {
        // Lane j compares x[i + j] with x[i + j − 1], the previous block's last lane shifted in
        // (each value is loaded once, by whole blocks).
        u8 acc = {0};
        u8 before = {0, 0, 0, 0, 0, 0, 0, previous_sign << 31};
        for (; i + 8 <= count; i += 8) {
            u8 a;
            __builtin_memcpy(&a, x + i, sizeof a);
            u8 b = __builtin_shufflevector(before, a, 7, 8, 9, 10, 11, 12, 13, 14);
            acc = acc + ((a ^ b) >> 31);
            before = a;
        }
        for (int j = 0; j < 8; j++) changes += acc[j];
        previous = before[7] >> 31;
    }
    for (; i < count; i++) {
        uint32_t bits;
        __builtin_memcpy(&bits, x + i, sizeof bits);
        changes += (bits >> 31) ^ previous;
        previous = bits >> 31;
    }
    return changes;
}

CDSP_DISPATCH_V3(
    uint32_t,
    cdsp_spectral_sign_changes,
    (const float *x, size_t count, uint32_t previous_sign),
    (x, count, previous_sign)) {
    return sign_changes_body(x, count, previous_sign);
}
