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
#include "Vectors.h"   // v8, v16, ld8, ld16, splat8, splat16

size_t cdsp_model_group_rows(void) { return cdsp_dispatch_level() >= CDSP_LEVEL_AVX512 ? 16 : 8; }

/// One group's pre-activations `p` (sixteen rows) to `pre`, the rows past `rows` dropped.
CDSP_INLINE void model_rows_store16(v16 p, size_t g, size_t rows, float *pre) {
    size_t count = rows - g * 16 < 16 ? rows - g * 16 : 16;
    for (size_t l = 0; l < count; l++) pre[g * 16 + l] = p[l];
}

// At level avx512 the layout's groups are sixteen rows (cdsp_model_group_rows), one zmm
// register each: a multiply and an add for sixteen rows where eight-row groups take two of
// each. Each lane is one row with the operations and order of the eight-row code below: the
// same bits. One vector: two groups share each input's broadcast, as below.
CDSP_INLINE void model_rows16(const float *wt, const float *bias, const float *x, size_t n, size_t rows, float *pre) {
    size_t full = n & ~(size_t)3;
    size_t groups = (rows + 15) / 16;
    size_t g = 0;
    for (; g + 2 <= groups; g += 2) {
        const float *w = wt + g * n * 16, *u = w + n * 16;
        v16 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
        v16 t0 = {0}, t1 = {0}, t2 = {0}, t3 = {0};
        size_t i = 0;
        for (; i < full; i += 4) {
            v16 x0 = splat16(x[i]), x1 = splat16(x[i + 1]), x2 = splat16(x[i + 2]), x3 = splat16(x[i + 3]);
            s0 = s0 + ld16(w + i * 16) * x0;
            t0 = t0 + ld16(u + i * 16) * x0;
            s1 = s1 + ld16(w + (i + 1) * 16) * x1;
            t1 = t1 + ld16(u + (i + 1) * 16) * x1;
            s2 = s2 + ld16(w + (i + 2) * 16) * x2;
            t2 = t2 + ld16(u + (i + 2) * 16) * x2;
            s3 = s3 + ld16(w + (i + 3) * 16) * x3;
            t3 = t3 + ld16(u + (i + 3) * 16) * x3;
        }
        for (; i < n; i++) {
            v16 xi = splat16(x[i]);
            s0 = s0 + ld16(w + i * 16) * xi;
            t0 = t0 + ld16(u + i * 16) * xi;
        }
        model_rows_store16(ld16(bias + g * 16) + ((s0 + s1) + (s2 + s3)), g, rows, pre);
        model_rows_store16(ld16(bias + (g + 1) * 16) + ((t0 + t1) + (t2 + t3)), g + 1, rows, pre);
    }
    for (; g < groups; g++) {
        const float *w = wt + g * n * 16;
        v16 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
        size_t i = 0;
        for (; i < full; i += 4) {
            s0 = s0 + ld16(w + i * 16) * splat16(x[i]);
            s1 = s1 + ld16(w + (i + 1) * 16) * splat16(x[i + 1]);
            s2 = s2 + ld16(w + (i + 2) * 16) * splat16(x[i + 2]);
            s3 = s3 + ld16(w + (i + 3) * 16) * splat16(x[i + 3]);
        }
        for (; i < n; i++) s0 = s0 + ld16(w + i * 16) * splat16(x[i]);
        model_rows_store16(ld16(bias + g * 16) + ((s0 + s1) + (s2 + s3)), g, rows, pre);
    }
}

/// One group's pre-activations `p` (eight rows) to `pre`, the rows past `rows` dropped.
CDSP_INLINE void model_rows_store(v8 p, size_t g, size_t rows, float *pre) {
    size_t count = rows - g * 8 < 8 ? rows - g * 8 : 8;
    for (size_t l = 0; l < count; l++) pre[g * 8 + l] = p[l];
}

// At levels with AVX (fma and above: sixteen ymm registers), two groups of eight rows at a time
// share each input's broadcast (three loads for sixteen rows instead of four; 17–20 % less time
// on the detector's 83–85 × 48–96 layers); the SSE2 copy, whose eight accumulators of a pair
// would fill all sixteen xmm registers, takes one group at a time. Either way each row's
// partial sums are the same operations in the same order: the same bits.
CDSP_INLINE void model_rows_body(const float *wt, const float *bias, const float *x, size_t n, size_t rows, float *pre) {
    if (cdsp_dispatch_level() >= CDSP_LEVEL_AVX512) {
        model_rows16(wt, bias, x, n, rows, pre);
        return;
    }
    size_t full = n & ~(size_t)3;
    size_t groups = (rows + 7) / 8;
    size_t g = 0;
    size_t paired = cdsp_dispatch_level() >= CDSP_LEVEL_FMA ? groups & ~(size_t)1 : 0;
    for (; g < paired; g += 2) {
        const float *w = wt + g * n * 8, *u = w + n * 8;
        v8 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
        v8 t0 = {0}, t1 = {0}, t2 = {0}, t3 = {0};
        size_t i = 0;
        for (; i < full; i += 4) {
            v8 x0 = splat8(x[i]), x1 = splat8(x[i + 1]), x2 = splat8(x[i + 2]), x3 = splat8(x[i + 3]);
            s0 = s0 + ld8(w + i * 8) * x0;
            t0 = t0 + ld8(u + i * 8) * x0;
            s1 = s1 + ld8(w + (i + 1) * 8) * x1;
            t1 = t1 + ld8(u + (i + 1) * 8) * x1;
            s2 = s2 + ld8(w + (i + 2) * 8) * x2;
            t2 = t2 + ld8(u + (i + 2) * 8) * x2;
            s3 = s3 + ld8(w + (i + 3) * 8) * x3;
            t3 = t3 + ld8(u + (i + 3) * 8) * x3;
        }
        for (; i < n; i++) {
            v8 xi = splat8(x[i]);
            s0 = s0 + ld8(w + i * 8) * xi;
            t0 = t0 + ld8(u + i * 8) * xi;
        }
        model_rows_store(ld8(bias + g * 8) + ((s0 + s1) + (s2 + s3)), g, rows, pre);
        model_rows_store(ld8(bias + (g + 1) * 8) + ((t0 + t1) + (t2 + t3)), g + 1, rows, pre);
    }
    for (; g < groups; g++) {
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
        model_rows_store(ld8(bias + g * 8) + ((s0 + s1) + (s2 + s3)), g, rows, pre);
    }
}

CDSP_DISPATCH_V3_VOID(
    cdsp_model_rows,
    (const float *wt, const float *bias, const float *x, size_t n, size_t rows, float *pre),
    (wt, bias, x, n, rows, pre)) {
    model_rows_body(wt, bias, x, n, rows, pre);
}

// Two input vectors through one group of eight rows at a time: each weight vector is loaded
// once for both (half the weight traffic: the detector's three first layers are ~80 kB, more
// than L1, and streamed from L2 once per frame otherwise). Eight accumulators and the four
// weight vectors fit the sixteen registers of every level; four vectors at once would spill.
// Each row of each vector has the one-vector code's operations in its order: the same bits.
CDSP_INLINE void model_rows_two(const float *wt, const float *bias, const float *x, const float *y, size_t n,
                                size_t rows, float *pre, float *qre) {
    size_t full = n & ~(size_t)3;
    size_t groups = (rows + 7) / 8;
    for (size_t g = 0; g < groups; g++) {
        const float *w = wt + g * n * 8;
        v8 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
        v8 t0 = {0}, t1 = {0}, t2 = {0}, t3 = {0};
        size_t i = 0;
        for (; i < full; i += 4) {
            v8 w0 = ld8(w + i * 8), w1 = ld8(w + (i + 1) * 8), w2 = ld8(w + (i + 2) * 8), w3 = ld8(w + (i + 3) * 8);
            s0 = s0 + w0 * splat8(x[i]);
            t0 = t0 + w0 * splat8(y[i]);
            s1 = s1 + w1 * splat8(x[i + 1]);
            t1 = t1 + w1 * splat8(y[i + 1]);
            s2 = s2 + w2 * splat8(x[i + 2]);
            t2 = t2 + w2 * splat8(y[i + 2]);
            s3 = s3 + w3 * splat8(x[i + 3]);
            t3 = t3 + w3 * splat8(y[i + 3]);
        }
        for (; i < n; i++) {
            v8 wi = ld8(w + i * 8);
            s0 = s0 + wi * splat8(x[i]);
            t0 = t0 + wi * splat8(y[i]);
        }
        v8 b = ld8(bias + g * 8);
        model_rows_store(b + ((s0 + s1) + (s2 + s3)), g, rows, pre);
        model_rows_store(b + ((t0 + t1) + (t2 + t3)), g, rows, qre);
    }
}

// model_rows_two with sixteen-row groups (level avx512): twelve of the thirty-two zmm registers.
CDSP_INLINE void model_rows_two16(const float *wt, const float *bias, const float *x, const float *y, size_t n,
                                  size_t rows, float *pre, float *qre) {
    size_t full = n & ~(size_t)3;
    size_t groups = (rows + 15) / 16;
    for (size_t g = 0; g < groups; g++) {
        const float *w = wt + g * n * 16;
        v16 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
        v16 t0 = {0}, t1 = {0}, t2 = {0}, t3 = {0};
        size_t i = 0;
        for (; i < full; i += 4) {
            v16 w0 = ld16(w + i * 16), w1 = ld16(w + (i + 1) * 16), w2 = ld16(w + (i + 2) * 16), w3 = ld16(w + (i + 3) * 16);
            s0 = s0 + w0 * splat16(x[i]);
            t0 = t0 + w0 * splat16(y[i]);
            s1 = s1 + w1 * splat16(x[i + 1]);
            t1 = t1 + w1 * splat16(y[i + 1]);
            s2 = s2 + w2 * splat16(x[i + 2]);
            t2 = t2 + w2 * splat16(y[i + 2]);
            s3 = s3 + w3 * splat16(x[i + 3]);
            t3 = t3 + w3 * splat16(y[i + 3]);
        }
        for (; i < n; i++) {
            v16 wi = ld16(w + i * 16);
            s0 = s0 + wi * splat16(x[i]);
            t0 = t0 + wi * splat16(y[i]);
        }
        v16 b = ld16(bias + g * 16);
        model_rows_store16(b + ((s0 + s1) + (s2 + s3)), g, rows, pre);
        model_rows_store16(b + ((t0 + t1) + (t2 + t3)), g, rows, qre);
    }
}

// Four input vectors through one group of sixteen rows at a time (level avx512): sixteen
// accumulators and four weight vectors, twenty of the thirty-two zmm registers; the weights read
// once for the four.
CDSP_INLINE void model_rows_four16(const float *wt, const float *bias, const float *const *x, size_t n, size_t rows,
                                   float *const *pre) {
    size_t full = n & ~(size_t)3;
    size_t groups = (rows + 15) / 16;
    const float *x0 = x[0], *x1 = x[1], *x2 = x[2], *x3 = x[3];
    for (size_t g = 0; g < groups; g++) {
        const float *w = wt + g * n * 16;
        v16 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, b0 = {0}, b1 = {0}, b2 = {0}, b3 = {0};
        v16 c0 = {0}, c1 = {0}, c2 = {0}, c3 = {0}, d0 = {0}, d1 = {0}, d2 = {0}, d3 = {0};
        size_t i = 0;
        for (; i < full; i += 4) {
            v16 w0 = ld16(w + i * 16), w1 = ld16(w + (i + 1) * 16), w2 = ld16(w + (i + 2) * 16), w3 = ld16(w + (i + 3) * 16);
            a0 = a0 + w0 * splat16(x0[i]);
            b0 = b0 + w0 * splat16(x1[i]);
            c0 = c0 + w0 * splat16(x2[i]);
            d0 = d0 + w0 * splat16(x3[i]);
            a1 = a1 + w1 * splat16(x0[i + 1]);
            b1 = b1 + w1 * splat16(x1[i + 1]);
            c1 = c1 + w1 * splat16(x2[i + 1]);
            d1 = d1 + w1 * splat16(x3[i + 1]);
            a2 = a2 + w2 * splat16(x0[i + 2]);
            b2 = b2 + w2 * splat16(x1[i + 2]);
            c2 = c2 + w2 * splat16(x2[i + 2]);
            d2 = d2 + w2 * splat16(x3[i + 2]);
            a3 = a3 + w3 * splat16(x0[i + 3]);
            b3 = b3 + w3 * splat16(x1[i + 3]);
            c3 = c3 + w3 * splat16(x2[i + 3]);
            d3 = d3 + w3 * splat16(x3[i + 3]);
        }
        for (; i < n; i++) {
            v16 wi = ld16(w + i * 16);
            a0 = a0 + wi * splat16(x0[i]);
            b0 = b0 + wi * splat16(x1[i]);
            c0 = c0 + wi * splat16(x2[i]);
            d0 = d0 + wi * splat16(x3[i]);
        }
        v16 b = ld16(bias + g * 16);
        model_rows_store16(b + ((a0 + a1) + (a2 + a3)), g, rows, pre[0]);
        model_rows_store16(b + ((b0 + b1) + (b2 + b3)), g, rows, pre[1]);
        model_rows_store16(b + ((c0 + c1) + (c2 + c3)), g, rows, pre[2]);
        model_rows_store16(b + ((d0 + d1) + (d2 + d3)), g, rows, pre[3]);
    }
}

CDSP_DISPATCH_V3_VOID(
    cdsp_model_rows_batch,
    (const float *wt, const float *bias, const float *const *x, size_t count, size_t n, size_t rows, float *const *pre),
    (wt, bias, x, count, n, rows, pre)) {
    size_t k = 0;
    int wide = cdsp_dispatch_level() >= CDSP_LEVEL_AVX512;
    for (; wide && k + 4 <= count; k += 4) model_rows_four16(wt, bias, x + k, n, rows, pre + k);
    for (; k + 2 <= count; k += 2) {
        if (wide) model_rows_two16(wt, bias, x[k], x[k + 1], n, rows, pre[k], pre[k + 1]);
        else model_rows_two(wt, bias, x[k], x[k + 1], n, rows, pre[k], pre[k + 1]);
    }
    if (k < count) model_rows_body(wt, bias, x[k], n, rows, pre[k]);
}
