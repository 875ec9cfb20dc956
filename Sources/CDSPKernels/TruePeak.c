// BS.1770 Annex 2 true peak at 4× oversampling (DSPAnalysis.TruePeakKernel.peak4), in C with
// run-time CPU dispatch. See include/CDSPKWeighting.h for the contract.
//
// The Swift loop it replaces computes 8 outputs per iteration in SIMD8<Float>, which the
// default x86-64 Swift build lowers to pairs of SSE instructions: 36 multiplies, 36 adds and
// 24 adds/subtracts per 8 outputs become ~190 instructions. Here the same arithmetic, lane for
// lane and in the same order, runs as 8-float vectors (one ymm register with AVX2): ~100
// instructions per 8 outputs. Contraction to fused multiply-adds is switched off so that every
// product is rounded before it is added, exactly as in the Swift loop: results are bit-identical
// to it on every CPU (fusing measured up to 1e−6 dB different, at the edge of the dspscore
// regression golden's 1e−6 dB tolerance, for ~1 % of a levels,loudness run).
//
// Dispatch: `CDSP_DISPATCH_V3` (Dispatch.h).
#include "CDSPKWeighting.h"

#if defined(__clang__)
#pragma clang fp contract(off)
#else
#pragma STDC FP_CONTRACT OFF
#endif

#include "Dispatch.h"   // CDSP_DISPATCH_V3, CDSP_INLINE

typedef float v8f __attribute__((vector_size(32)));
typedef int v8i __attribute__((vector_size(32)));

CDSP_INLINE v8f tp_ld8(const float *p) {
    v8f v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

/// Lane-wise `mask ? a : b` (mask lanes all ones or all zeros).
CDSP_INLINE v8f tp_select(v8i mask, v8f a, v8f b) {
    return (v8f)(((v8i)a & mask) | ((v8i)b & ~mask));
}

/// |v| (clears the sign bit).
CDSP_INLINE v8f tp_abs(v8f v) {
    return (v8f)((v8i)v & 0x7fffffff);
}

/// Outputs i … i + 7 (`base` = x + i): their peaks, lanes past `remaining` zeroed, into `*m`.
/// (A helper without target attributes: vectors never cross a dispatched function's boundary.)
CDSP_INLINE void tp_block(
    const float *base, const float *coef, size_t half, ptrdiff_t last, size_t remaining, v8f *m
) {
    const v8i lanes = {0, 1, 2, 3, 4, 5, 6, 7};
    v8f a = {0}, b = {0}, y2 = {0};
#if defined(__clang__)
#pragma clang loop unroll(full)
#endif
    for (size_t t = 0; t < half; t++) {
        const v8f newer = tp_ld8(base - (ptrdiff_t)t);
        const v8f older = tp_ld8(base + (ptrdiff_t)t - last);
        const v8f s = newer + older, d = newer - older;
        a = tp_ld8(coef + 24 * t) * s + a;
        b = tp_ld8(coef + 24 * t + 8) * d + b;
        y2 = tp_ld8(coef + 24 * t + 16) * s + y2;
    }
    const v8f outer = tp_abs(a) + tp_abs(b);  // max(|y1|, |y3|)
    const v8f inner = tp_abs(y2);
    v8f peak = tp_select(inner > outer, inner, outer);
    if (remaining < 8) peak = tp_select(lanes >= (int)remaining, (v8f){0}, peak);
    *m = tp_select(peak > *m, peak, *m);
}

CDSP_DISPATCH_V3
float cdsp_truepeak4(const float *x, size_t count, const float *coef) {
    v8f m = {0};
    for (size_t i = 0; i < count; i += 8) tp_block(x + i, coef, CDSP_TP_TAPS / 2, CDSP_TP_TAPS - 1, count - i, &m);
    float r = 0;
    for (int j = 0; j < 8; j++) r = m[j] > r ? m[j] : r;
    return r;
}
