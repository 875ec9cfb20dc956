// BS.1770 Annex 2 true peak at 4× oversampling (DSPAnalysis.TruePeakKernel.peak4), in C with
// run-time CPU dispatch. See include/CDSPMetering.h for the contract.
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
#include "CDSPMetering.h"

#if defined(__clang__)
#pragma clang fp contract(off)
#else
#pragma STDC FP_CONTRACT OFF
#endif

#include "Dispatch.h"   // CDSP_DISPATCH_V3, CDSP_INLINE
#include "Vectors.h"    // v8, i8, ld8, select8

/// |v| (clears the sign bit).
CDSP_INLINE v8 tp_abs(v8 v) {
    return (v8)((i8)v & 0x7fffffff);
}

/// Outputs i … i + 7 (`base` = x + i): their peaks, lanes past `remaining` zeroed, into `*m`.
/// (A helper without target attributes: vectors never cross a dispatched function's boundary.)
CDSP_INLINE void tp_block(
    const float *base, const float *coef, size_t half, ptrdiff_t last, size_t remaining, v8 *m
) {
    const i8 lanes = {0, 1, 2, 3, 4, 5, 6, 7};
    v8 a = {0}, b = {0}, y2 = {0};
#if defined(__clang__)
#pragma clang loop unroll(full)
#endif
    for (size_t t = 0; t < half; t++) {
        const v8 newer = ld8(base - (ptrdiff_t)t);
        const v8 older = ld8(base + (ptrdiff_t)t - last);
        const v8 s = newer + older, d = newer - older;
        a = ld8(coef + 24 * t) * s + a;
        b = ld8(coef + 24 * t + 8) * d + b;
        y2 = ld8(coef + 24 * t + 16) * s + y2;
    }
    const v8 outer = tp_abs(a) + tp_abs(b);  // max(|y1|, |y3|)
    const v8 inner = tp_abs(y2);
    v8 peak = select8(inner > outer, inner, outer);
    if (remaining < 8) peak = select8(lanes >= (int)remaining, (v8){0}, peak);
    *m = select8(peak > *m, peak, *m);
}

CDSP_DISPATCH_V3(float, cdsp_truepeak4, (const float *x, size_t count, const float *coef), (x, count, coef)) {
    v8 m = {0};
    for (size_t i = 0; i < count; i += 8) tp_block(x + i, coef, CDSP_TP_TAPS / 2, CDSP_TP_TAPS - 1, count - i, &m);
    float r = 0;
    for (int j = 0; j < 8; j++) r = m[j] > r ? m[j] : r;
    return r;
}
