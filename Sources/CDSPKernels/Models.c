// The dispatched kernel of DSPDetection's probability models. See include/CDSPModels.h for the
// contract.
//
// Eight-lane GCC/clang vector code (one ymm register per vector on the AVX-512F and AVX2+FMA
// clones, two xmm registers on the SSE2 default). Contraction is off for the whole file, as in
// Spectral.c where it was first written: every clone computes exactly the Swift row loop's
// operations (a rounded multiply, then a rounded add), bit for bit.
#include "CDSPModels.h"

#pragma STDC FP_CONTRACT OFF
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

#include "Dispatch.h"   // CDSP_DISPATCH_V3, CDSP_INLINE
#include "Vectors.h"   // v8, ld8, splat8

CDSP_INLINE void model_rows_body(const float *wt, const float *bias, const float *x, size_t n, size_t rows, float *pre) {
    size_t full = n & ~(size_t)3;
    for (size_t g = 0; g * 8 < rows; g++) {
        const float *w = wt + g * n * 8;
        v8 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
        size_t i = 0;
        for (; i < full; i += 4) {
            s0 = s0 + ld8(w + i * 8) * splat8(x[i]);
            s1 = s1 + ld8(w + (i + 1) * 8) * splat8(x[i + 1]);
            s2 = s2 + ld8(w + (i + 2) * 8) * splat8(x[i + 2]);
            s3 = s3 + ld8(w + (i + 3) * 8) * splat8(x[i + 3]);
        }
        for (; i < n; i++) s0 = s0 + ld8(w + i * 8) * splat8(x[i]);
        v8 p = ld8(bias + g * 8) + ((s0 + s1) + (s2 + s3));
        size_t count = rows - g * 8 < 8 ? rows - g * 8 : 8;
        for (size_t l = 0; l < count; l++) pre[g * 8 + l] = p[l];
    }
}

CDSP_DISPATCH_V3_VOID(
    cdsp_model_rows,
    (const float *wt, const float *bias, const float *x, size_t n, size_t rows, float *pre),
    (wt, bias, x, n, rows, pre)) {
    model_rows_body(wt, bias, x, n, rows, pre);
}
