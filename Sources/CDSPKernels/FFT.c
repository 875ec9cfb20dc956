// The built-in real FFT's transforms (include/CDSPFFT.h; planned by FFTPlan.c).
//
// Real input x (N points) is read as M = N/2 complex points z[m] = x[2m] + i·x[2m+1], split into
// real and imaginary arrays, transformed (Z = DFT_M z), and unpacked:
//     X[k] = ½(E − i·W_N^k·O),  E = Z[k] + conj Z[M−k],  O = Z[k] − conj Z[M−k]
// for k = 1 … M−1 (X[M−k] from the same E, O as ½·conj(E + i·W_N^k·O)), X[0] = Re Z[0] + Im Z[0],
// X[N/2] = Re Z[0] − Im Z[0]. The inverse packs Z'[k] = E + i·conj(W_N^k)·D with E = X[k] +
// conj X[M−k], D = X[k] − conj X[M−k] (so Z' = 2·Z), runs the same forward transform on
// (Im Z', Re Z') — the inverse DFT with real and imaginary parts exchanged on the way in and out —
// and interleaves: y = N·x. The pairs (k, M − k) go eight at a time, one load of each reversed.
//
// The complex transform (complex_forward) is the Stockham stages of FFTStages.h, on scalars or on
// eight-float vectors plus the last pass (lane_pass), or Bluestein's convolution around them.
//
// Contraction is off for the whole file, so no clone fuses a multiply and an add: the AVX-512F,
// AVX2+FMA and SSE2 clones compute the same operations and give the same bits on every CPU.
#include "CDSPFFT.h"

#pragma STDC FP_CONTRACT OFF
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

#include "Dispatch.h"   // CDSP_DISPATCH, CDSP_INLINE
#include "Vectors.h"    // v8, ld8, st8

// MARK: - Stages, scalar and vector

#define FFT_T float
#define FFT_LD(p, e) ((p)[e])
#define FFT_ST(p, e, v) ((p)[e] = (v))
#define FFT_FN(name) scalar_##name
#include "FFTStages.h"
#undef FFT_T
#undef FFT_LD
#undef FFT_ST
#undef FFT_FN

#define FFT_T v8
#define FFT_LD(p, e) ld8((p) + 8 * (e))
#define FFT_ST(p, e, v) st8((p) + 8 * (e), (v))
#define FFT_FN(name) vector_##name
#include "FFTStages.h"
#undef FFT_T
#undef FFT_LD
#undef FFT_ST
#undef FFT_FN

// MARK: - The vector route's last pass

/// Transposes the 8 × 8 matrix whose rows are `r[0] … r[7]`, in place.
CDSP_INLINE void transpose8(v8 r[8]) {
    v8 t0 = __builtin_shufflevector(r[0], r[1], 0, 8, 1, 9, 4, 12, 5, 13);
    v8 t1 = __builtin_shufflevector(r[0], r[1], 2, 10, 3, 11, 6, 14, 7, 15);
    v8 t2 = __builtin_shufflevector(r[2], r[3], 0, 8, 1, 9, 4, 12, 5, 13);
    v8 t3 = __builtin_shufflevector(r[2], r[3], 2, 10, 3, 11, 6, 14, 7, 15);
    v8 t4 = __builtin_shufflevector(r[4], r[5], 0, 8, 1, 9, 4, 12, 5, 13);
    v8 t5 = __builtin_shufflevector(r[4], r[5], 2, 10, 3, 11, 6, 14, 7, 15);
    v8 t6 = __builtin_shufflevector(r[6], r[7], 0, 8, 1, 9, 4, 12, 5, 13);
    v8 t7 = __builtin_shufflevector(r[6], r[7], 2, 10, 3, 11, 6, 14, 7, 15);
    v8 u0 = __builtin_shufflevector(t0, t2, 0, 1, 8, 9, 4, 5, 12, 13);
    v8 u1 = __builtin_shufflevector(t0, t2, 2, 3, 10, 11, 6, 7, 14, 15);
    v8 u2 = __builtin_shufflevector(t1, t3, 0, 1, 8, 9, 4, 5, 12, 13);
    v8 u3 = __builtin_shufflevector(t1, t3, 2, 3, 10, 11, 6, 7, 14, 15);
    v8 u4 = __builtin_shufflevector(t4, t6, 0, 1, 8, 9, 4, 5, 12, 13);
    v8 u5 = __builtin_shufflevector(t4, t6, 2, 3, 10, 11, 6, 7, 14, 15);
    v8 u6 = __builtin_shufflevector(t5, t7, 0, 1, 8, 9, 4, 5, 12, 13);
    v8 u7 = __builtin_shufflevector(t5, t7, 2, 3, 10, 11, 6, 7, 14, 15);
    r[0] = __builtin_shufflevector(u0, u4, 0, 1, 2, 3, 8, 9, 10, 11);
    r[1] = __builtin_shufflevector(u1, u5, 0, 1, 2, 3, 8, 9, 10, 11);
    r[2] = __builtin_shufflevector(u2, u6, 0, 1, 2, 3, 8, 9, 10, 11);
    r[3] = __builtin_shufflevector(u3, u7, 0, 1, 2, 3, 8, 9, 10, 11);
    r[4] = __builtin_shufflevector(u0, u4, 4, 5, 6, 7, 12, 13, 14, 15);
    r[5] = __builtin_shufflevector(u1, u5, 4, 5, 6, 7, 12, 13, 14, 15);
    r[6] = __builtin_shufflevector(u2, u6, 4, 5, 6, 7, 12, 13, 14, 15);
    r[7] = __builtin_shufflevector(u3, u7, 4, 5, 6, 7, 12, 13, 14, 15);
}

/// The 4-point DFT of `(a[0], a[1], a[2], a[3])` (real parts `r`, imaginary `i`), in place.
CDSP_INLINE void dft4(v8 *r0, v8 *i0, v8 *r1, v8 *i1, v8 *r2, v8 *i2, v8 *r3, v8 *i3) {
    v8 t0r = *r0 + *r2, t0i = *i0 + *i2, t1r = *r0 - *r2, t1i = *i0 - *i2;
    v8 t2r = *r1 + *r3, t2i = *i1 + *i3, t3r = *r1 - *r3, t3i = *i1 - *i3;
    *r0 = t0r + t2r;
    *i0 = t0i + t2i;
    *r1 = t1r + t3i;
    *i1 = t1i - t3r;
    *r2 = t0r - t2r;
    *i2 = t0i - t2i;
    *r3 = t1r - t3i;
    *i3 = t1i + t3r;
}

/// The 8-point DFT across `(r[n], i[n])`, n < 8, lane by lane: a radix-2 step, then two 4-point
/// DFTs (even outputs from the sums, odd outputs from the W_8-twiddled differences).
CDSP_INLINE void dft8(v8 r[8], v8 i[8], v8 yr[8], v8 yi[8]) {
    const float h = 0.707106781186547524400844362104849039f;   // √½
    v8 br[4], bi[4], cr[4], ci[4];
    for (int n = 0; n < 4; n++) {
        br[n] = r[n] + r[n + 4];
        bi[n] = i[n] + i[n + 4];
        cr[n] = r[n] - r[n + 4];
        ci[n] = i[n] - i[n + 4];
    }
    v8 d1r = cr[1], d1i = ci[1], d3r = cr[3], d3i = ci[3];
    cr[1] = (d1r + d1i) * h;
    ci[1] = (d1i - d1r) * h;
    v8 d2r = cr[2];
    cr[2] = ci[2];
    ci[2] = -d2r;
    cr[3] = (d3i - d3r) * h;
    ci[3] = (-d3r - d3i) * h;
    dft4(&br[0], &bi[0], &br[1], &bi[1], &br[2], &bi[2], &br[3], &bi[3]);
    dft4(&cr[0], &ci[0], &cr[1], &ci[1], &cr[2], &ci[2], &cr[3], &ci[3]);
    for (int m = 0; m < 4; m++) {
        yr[2 * m] = br[m];
        yi[2 * m] = bi[m];
        yr[2 * m + 1] = cr[m];
        yi[2 * m + 1] = ci[m];
    }
}

/// The vector route's last pass. After the stages, row k1 (of P ≥ 8) holds the P-point
/// transforms of the eight lanes n2: B[k1][n2]. For eight rows from k1 = b on: transpose (lanes
/// now over k1), twiddle by W^{n2·k1} and take the 8-point DFT over n2, which is Z[k1 + P·k2] for
/// the eight k1 — eight contiguous values per k2. When 8 does not divide P the last eight rows
/// overlap the block before them, which writes the same values again.
CDSP_INLINE void lane_pass(
    const float *restrict sr, const float *restrict si, float *restrict dr, float *restrict di, size_t rows,
    const float *restrict tw
) {
    for (size_t b = 0; b < rows; b += 8) {
        if (b + 8 > rows) b = rows - 8;
        v8 xr[8], xi[8], yr[8], yi[8];
        for (int l = 0; l < 8; l++) {
            xr[l] = ld8(sr + 8 * (b + l));
            xi[l] = ld8(si + 8 * (b + l));
        }
        transpose8(xr);
        transpose8(xi);
        for (int n = 1; n < 8; n++) {
            v8 wr = ld8(tw + n * rows + b), wi = ld8(tw + (8 + n) * rows + b);
            v8 r = xr[n] * wr - xi[n] * wi;
            xi[n] = xr[n] * wi + xi[n] * wr;
            xr[n] = r;
        }
        dft8(xr, xi, yr, yi);
        for (int k2 = 0; k2 < 8; k2++) {
            st8(dr + b + rows * k2, yr[k2]);
            st8(di + b + rows * k2, yi[k2]);
        }
    }
}

// MARK: - The complex transform

/// The forward complex DFT of `c->points` points in buffer 0 (`re[0]`, `im[0]`, natural order)
/// by the Stockham stages (and the vector route's last pass); `*zr`, `*zi` point to the result
/// (natural order), in buffer 0 or 1.
CDSP_INLINE void stockham(
    const cdsp_fft_complex *c, const float *table, float *const re[2], float *const im[2], float **zr, float **zi
) {
    int at;
    if (c->lanes == 1) {
        at = scalar_stages(c, table, re, im);
    } else {
        int from = vector_stages(c, table, re, im);
        lane_pass(re[from], im[from], re[1 - from], im[1 - from], c->rows, table + c->lane_twiddles);
        at = 1 - from;
    }
    *zr = re[at];
    *zi = im[at];
}

/// `(xr, xi)[t] ×= (wr, wi)[t]` for `t < count`.
CDSP_INLINE void multiply(float *restrict xr, float *restrict xi, const float *wr, const float *wi, size_t count) {
    for (size_t t = 0; t < count; t++) {
        float r = xr[t] * wr[t] - xi[t] * wi[t];
        xi[t] = xr[t] * wi[t] + xi[t] * wr[t];
        xr[t] = r;
    }
}

/// The forward M-point complex DFT of buffer 0 (its first M points); `*zr`, `*zi` point to the
/// result. Directly by the Stockham stages, or by Bluestein's algorithm:
///     Z[k] = w_k · Σ_t (z_t·w_t)·conj w_{k−t},   w_j = e^{−iπj²/M}
/// — the chirp-multiplied input circularly convolved with the conjugate chirp over L points
/// (L ≥ 2M − 1: zero-padded, so the circular convolution is the linear one), by an L-point
/// transform, a product with the chirp's precomputed spectrum (divided by L), and the inverse
/// L-point transform (the forward one with real and imaginary parts exchanged).
CDSP_INLINE void complex_forward(
    const cdsp_fft_plan *plan, const float *table, float *const re[2], float *const im[2], float **zr, float **zi
) {
    if (!plan->bluestein) {
        stockham(&plan->transform, table, re, im, zr, zi);
        return;
    }
    size_t m = plan->half, l = plan->bluestein;
    const float *wr = table + plan->chirp, *wi = wr + m;
    multiply(re[0], im[0], wr, wi, m);
    for (size_t t = m; t < l; t++) re[0][t] = im[0][t] = 0;
    float *fr, *fi;
    stockham(&plan->transform, table, re, im, &fr, &fi);
    multiply(fr, fi, table + plan->chirp_spectrum, table + plan->chirp_spectrum + l, l);
    // The inverse: (fi, fr) as buffer 0 of the exchanged pair, the other buffer as buffer 1.
    float *other_r = fr == re[0] ? re[1] : re[0], *other_i = fi == im[0] ? im[1] : im[0];
    float *const swapped_re[2] = {fi, other_i}, *const swapped_im[2] = {fr, other_r};
    float *gr, *gi;
    stockham(&plan->transform, table, swapped_re, swapped_im, &gr, &gi);
    // The convolution's real parts are in gi, its imaginary parts in gr.
    multiply(gi, gr, wr, wi, m);
    *zr = gi;
    *zi = gr;
}

// MARK: - Real forward

/// `X[k]` and `X[M − k]` from `Z[k] = (ar, ai)`, `Z[M − k] = (br, bi)` and `W_N^k = (wr, wi)`.
CDSP_INLINE void unpack1(
    float ar, float ai, float br, float bi, float wr, float wi, float *xk, float *xmk
) {
    float er = ar + br, ei = ai - bi, or_ = ar - br, oi = ai + bi;
    float wor = wr * or_ - wi * oi, woi = wr * oi + wi * or_;
    xk[0] = 0.5f * (er + woi);
    xk[1] = 0.5f * (ei - wor);
    xmk[0] = 0.5f * (er - woi);
    xmk[1] = -0.5f * (ei + wor);
}

CDSP_INLINE void forward_body(
    const cdsp_fft_plan *plan, const float *table, const float *input, float *spectrum, float *scratch
) {
    size_t m = plan->half;
    size_t capacity = plan->scratch_count / 4;
    float *const re[2] = {scratch, scratch + 2 * capacity}, *const im[2] = {scratch + capacity, scratch + 3 * capacity};
    size_t t = 0;
    for (; t + 8 <= m; t += 8) {
        v8 lo = ld8(input + 2 * t), hi = ld8(input + 2 * t + 8);
        st8(re[0] + t, __builtin_shufflevector(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14));
        st8(im[0] + t, __builtin_shufflevector(lo, hi, 1, 3, 5, 7, 9, 11, 13, 15));
    }
    for (; t < m; t++) {
        re[0][t] = input[2 * t];
        im[0][t] = input[2 * t + 1];
    }
    float *zr, *zi;
    complex_forward(plan, table, re, im, &zr, &zi);

    const float *wr = table + plan->real_twiddles, *wi = wr + m / 2 + 1;
    spectrum[0] = zr[0] + zi[0];
    spectrum[1] = 0;
    spectrum[2 * m] = zr[0] - zi[0];
    spectrum[2 * m + 1] = 0;
    // Pairs k, M − k for 0 < k < M − k: eight at a time from k = 8 while all eight pairs are
    // below M/2, the rest one at a time.
    size_t k = 8;
    for (; 2 * (k + 7) < m; k += 8) {
        v8 ar = ld8(zr + k), ai = ld8(zi + k);
        v8 brr = ld8(zr + m - k - 7), bir = ld8(zi + m - k - 7);
        v8 br = __builtin_shufflevector(brr, brr, 7, 6, 5, 4, 3, 2, 1, 0);
        v8 bi = __builtin_shufflevector(bir, bir, 7, 6, 5, 4, 3, 2, 1, 0);
        v8 twr = ld8(wr + k), twi = ld8(wi + k);
        v8 er = ar + br, ei = ai - bi, or_ = ar - br, oi = ai + bi;
        v8 wor = twr * or_ - twi * oi, woi = twr * oi + twi * or_;
        v8 xkr = 0.5f * (er + woi), xki = 0.5f * (ei - wor);
        v8 xmr = 0.5f * (er - woi), xmi = -0.5f * (ei + wor);
        st8(spectrum + 2 * k, __builtin_shufflevector(xkr, xki, 0, 8, 1, 9, 2, 10, 3, 11));
        st8(spectrum + 2 * k + 8, __builtin_shufflevector(xkr, xki, 4, 12, 5, 13, 6, 14, 7, 15));
        // X[M − k − l] for l = 0 … 7, stored from M − k − 7 up: lanes reversed.
        st8(spectrum + 2 * (m - k - 7), __builtin_shufflevector(xmr, xmi, 7, 15, 6, 14, 5, 13, 4, 12));
        st8(spectrum + 2 * (m - k - 7) + 8, __builtin_shufflevector(xmr, xmi, 3, 11, 2, 10, 1, 9, 0, 8));
    }
    for (size_t j = 1; j < 8 && 2 * j < m; j++)
        unpack1(zr[j], zi[j], zr[m - j], zi[m - j], wr[j], wi[j], spectrum + 2 * j, spectrum + 2 * (m - j));
    for (; 2 * k < m; k++)
        unpack1(zr[k], zi[k], zr[m - k], zi[m - k], wr[k], wi[k], spectrum + 2 * k, spectrum + 2 * (m - k));
    if (m % 2 == 0 && m >= 2) {
        // X[M/2] = conj Z[M/2] (W_N^{N/4} = −i).
        spectrum[m] = zr[m / 2];
        spectrum[m + 1] = -zi[m / 2];
    }
}

CDSP_DISPATCH_VOID(
    cdsp_fft_forward,
    (const cdsp_fft_plan *plan, const float *table, const float *input, float *spectrum, float *scratch),
    (plan, table, input, spectrum, scratch)) {
    forward_body(plan, table, input, spectrum, scratch);
}

// MARK: - Real inverse

/// `Z'[k]` and `Z'[M − k]` from `X[k] = (ar, ai)`, `X[M − k] = (br, bi)` and `W_N^k = (wr, wi)`,
/// stored exchanged: real parts to `*zki`, `*zmki`, imaginary parts to `*zkr`, `*zmkr`.
CDSP_INLINE void pack1(
    float ar, float ai, float br, float bi, float wr, float wi, float *zkr, float *zki, float *zmkr,
    float *zmki
) {
    float er = ar + br, ei = ai - bi, dr = ar - br, di = ai + bi;
    // c = conj(W)·D; O = i·c.
    float cr = wr * dr + wi * di, ci = wr * di - wi * dr;
    *zki = er - ci;
    *zkr = ei + cr;
    *zmki = er + ci;
    *zmkr = cr - ei;
}

CDSP_INLINE void inverse_body(
    const cdsp_fft_plan *plan, const float *table, const float *spectrum, float *output, float *scratch
) {
    size_t m = plan->half;
    size_t capacity = plan->scratch_count / 4;
    float *const re[2] = {scratch, scratch + 2 * capacity}, *const im[2] = {scratch + capacity, scratch + 3 * capacity};
    // Z' with real and imaginary parts exchanged: re[0] holds Im Z', im[0] holds Re Z'.
    float *sr = re[0], *si = im[0];
    const float *wr = table + plan->real_twiddles, *wi = wr + m / 2 + 1;
    float x0 = spectrum[0], xm = spectrum[2 * m];
    si[0] = x0 + xm;
    sr[0] = x0 - xm;
    // Pairs k, M − k as in the forward: eight at a time from k = 8, the rest one at a time.
    size_t k = 8;
    for (; 2 * (k + 7) < m; k += 8) {
        v8 lo = ld8(spectrum + 2 * k), hi = ld8(spectrum + 2 * k + 8);
        v8 ar = __builtin_shufflevector(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14);
        v8 ai = __builtin_shufflevector(lo, hi, 1, 3, 5, 7, 9, 11, 13, 15);
        // X[M − k − l], l = 0 … 7, from the 16 floats at M − k − 7, reversed.
        v8 blo = ld8(spectrum + 2 * (m - k - 7)), bhi = ld8(spectrum + 2 * (m - k - 7) + 8);
        v8 br = __builtin_shufflevector(blo, bhi, 14, 12, 10, 8, 6, 4, 2, 0);
        v8 bi = __builtin_shufflevector(blo, bhi, 15, 13, 11, 9, 7, 5, 3, 1);
        v8 twr = ld8(wr + k), twi = ld8(wi + k);
        v8 er = ar + br, ei = ai - bi, dr = ar - br, di = ai + bi;
        v8 cr = twr * dr + twi * di, ci = twr * di - twi * dr;
        st8(si + k, er - ci);
        st8(sr + k, ei + cr);
        v8 zmi = er + ci, zmr = cr - ei;
        st8(si + m - k - 7, __builtin_shufflevector(zmi, zmi, 7, 6, 5, 4, 3, 2, 1, 0));
        st8(sr + m - k - 7, __builtin_shufflevector(zmr, zmr, 7, 6, 5, 4, 3, 2, 1, 0));
    }
    for (size_t j = 1; j < 8 && 2 * j < m; j++)
        pack1(spectrum[2 * j], spectrum[2 * j + 1], spectrum[2 * (m - j)], spectrum[2 * (m - j) + 1], wr[j], wi[j],
              sr + j, si + j, sr + m - j, si + m - j);
    for (; 2 * k < m; k++)
        pack1(spectrum[2 * k], spectrum[2 * k + 1], spectrum[2 * (m - k)], spectrum[2 * (m - k) + 1], wr[k], wi[k],
              sr + k, si + k, sr + m - k, si + m - k);
    if (m % 2 == 0 && m >= 2) {
        // Z'[M/2] = 2·conj X[M/2].
        si[m / 2] = 2 * spectrum[m];
        sr[m / 2] = -2 * spectrum[m + 1];
    }

    float *fr, *fi;
    complex_forward(plan, table, re, im, &fr, &fi);
    // y = the transform with real and imaginary parts exchanged: x[2t] = Im, x[2t + 1] = Re.
    size_t t = 0;
    for (; t + 8 <= m; t += 8) {
        v8 a = ld8(fi + t), b = ld8(fr + t);
        st8(output + 2 * t, __builtin_shufflevector(a, b, 0, 8, 1, 9, 2, 10, 3, 11));
        st8(output + 2 * t + 8, __builtin_shufflevector(a, b, 4, 12, 5, 13, 6, 14, 7, 15));
    }
    for (; t < m; t++) {
        output[2 * t] = fi[t];
        output[2 * t + 1] = fr[t];
    }
}

CDSP_DISPATCH_VOID(
    cdsp_fft_inverse,
    (const cdsp_fft_plan *plan, const float *table, const float *spectrum, float *output, float *scratch),
    (plan, table, spectrum, output, scratch)) {
    inverse_body(plan, table, spectrum, output, scratch);
}
