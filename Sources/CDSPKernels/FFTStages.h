// The built-in FFT's Stockham stages, written once for any element type (private to
// CDSPKernels; included by FFT.c once per element type, after Dispatch.h and Vectors.h, in a file
// compiled with contraction off). Before each inclusion define:
//   FFT_T           the element type: float (scalar route) or v8 (vector route: eight independent
//                   transforms, one per lane)
//   FFT_LD(p, e)    element e of the split array p (one of real or imaginary parts)
//   FFT_ST(p, e, v) store element e
//   FFT_FN(name)    the name of this instance's function `name`
// The twiddles are scalars: on the vector route every lane runs the same transform size.
//
// Stage (radix R, span S = product of the radices before it, P elements): for every j < P/R,
// with k = j mod S and g = j − k, the R elements j + r·P/R (r < R) are multiplied by the
// twiddles W_{S·R}^{k·r}, transformed by an R-point DFT and stored at g·R + k + r·S
// (Stockham's self-sorting DIT; Govindaraju et al., "High performance discrete Fourier
// transforms on graphics processors", SC 2008). Reads and writes run over k, contiguous.

/// `(ar + i·ai)·(wr + i·wi)`, real part.
#define FFT_MUL_RE(ar, ai, wr, wi) ((ar) * (wr) - (ai) * (wi))
/// `(ar + i·ai)·(wr + i·wi)`, imaginary part.
#define FFT_MUL_IM(ar, ai, wr, wi) ((ar) * (wi) + (ai) * (wr))

/// Multiplies `(*re, *im)` by the twiddle `(w[0], w[1])`.
CDSP_INLINE void FFT_FN(twiddle)(FFT_T *re, FFT_T *im, const float *w) {
    FFT_T r = FFT_MUL_RE(*re, *im, w[0], w[1]);
    *im = FFT_MUL_IM(*re, *im, w[0], w[1]);
    *re = r;
}

CDSP_INLINE void FFT_FN(radix2)(
    const float *restrict sr, const float *restrict si, float *restrict dr, float *restrict di,
    size_t rows, size_t span, const float *restrict tw, const int twiddled
) {
    size_t q = rows / 2;
    for (size_t g = 0; g < q; g += span)
        for (size_t k = 0; k < span; k++) {
            size_t j = g + k, o = 2 * g + k;
            FFT_T ar = FFT_LD(sr, j), ai = FFT_LD(si, j);
            FFT_T br = FFT_LD(sr, j + q), bi = FFT_LD(si, j + q);
            if (twiddled) FFT_FN(twiddle)(&br, &bi, tw + 2 * k);
            FFT_ST(dr, o, ar + br);
            FFT_ST(di, o, ai + bi);
            FFT_ST(dr, o + span, ar - br);
            FFT_ST(di, o + span, ai - bi);
        }
}

CDSP_INLINE void FFT_FN(radix3)(
    const float *restrict sr, const float *restrict si, float *restrict dr, float *restrict di,
    size_t rows, size_t span, const float *restrict tw, const int twiddled
) {
    const float s = 0.866025403784438646763723170752936183f;   // sin(2π/3)
    size_t q = rows / 3;
    for (size_t g = 0; g < q; g += span)
        for (size_t k = 0; k < span; k++) {
            size_t j = g + k, o = 3 * g + k;
            FFT_T a0r = FFT_LD(sr, j), a0i = FFT_LD(si, j);
            FFT_T a1r = FFT_LD(sr, j + q), a1i = FFT_LD(si, j + q);
            FFT_T a2r = FFT_LD(sr, j + 2 * q), a2i = FFT_LD(si, j + 2 * q);
            if (twiddled) {
                FFT_FN(twiddle)(&a1r, &a1i, tw + 4 * k);
                FFT_FN(twiddle)(&a2r, &a2i, tw + 4 * k + 2);
            }
            FFT_T t1r = a1r + a2r, t1i = a1i + a2i, t2r = a1r - a2r, t2i = a1i - a2i;
            FFT_T mr = a0r - 0.5f * t1r, mi = a0i - 0.5f * t1i;
            FFT_ST(dr, o, a0r + t1r);
            FFT_ST(di, o, a0i + t1i);
            FFT_ST(dr, o + span, mr + s * t2i);
            FFT_ST(di, o + span, mi - s * t2r);
            FFT_ST(dr, o + 2 * span, mr - s * t2i);
            FFT_ST(di, o + 2 * span, mi + s * t2r);
        }
}

CDSP_INLINE void FFT_FN(radix4)(
    const float *restrict sr, const float *restrict si, float *restrict dr, float *restrict di,
    size_t rows, size_t span, const float *restrict tw, const int twiddled
) {
    size_t q = rows / 4;
    for (size_t g = 0; g < q; g += span)
        for (size_t k = 0; k < span; k++) {
            size_t j = g + k, o = 4 * g + k;
            FFT_T a0r = FFT_LD(sr, j), a0i = FFT_LD(si, j);
            FFT_T a1r = FFT_LD(sr, j + q), a1i = FFT_LD(si, j + q);
            FFT_T a2r = FFT_LD(sr, j + 2 * q), a2i = FFT_LD(si, j + 2 * q);
            FFT_T a3r = FFT_LD(sr, j + 3 * q), a3i = FFT_LD(si, j + 3 * q);
            if (twiddled) {
                FFT_FN(twiddle)(&a1r, &a1i, tw + 6 * k);
                FFT_FN(twiddle)(&a2r, &a2i, tw + 6 * k + 2);
                FFT_FN(twiddle)(&a3r, &a3i, tw + 6 * k + 4);
            }
            FFT_T t0r = a0r + a2r, t0i = a0i + a2i, t1r = a0r - a2r, t1i = a0i - a2i;
            FFT_T t2r = a1r + a3r, t2i = a1i + a3i, t3r = a1r - a3r, t3i = a1i - a3i;
            FFT_ST(dr, o, t0r + t2r);
            FFT_ST(di, o, t0i + t2i);
            FFT_ST(dr, o + span, t1r + t3i);
            FFT_ST(di, o + span, t1i - t3r);
            FFT_ST(dr, o + 2 * span, t0r - t2r);
            FFT_ST(di, o + 2 * span, t0i - t2i);
            FFT_ST(dr, o + 3 * span, t1r - t3i);
            FFT_ST(di, o + 3 * span, t1i + t3r);
        }
}

CDSP_INLINE void FFT_FN(radix5)(
    const float *restrict sr, const float *restrict si, float *restrict dr, float *restrict di,
    size_t rows, size_t span, const float *restrict tw, const int twiddled
) {
    const float c1 = 0.309016994374947424102293417182819059f;    // cos(2π/5)
    const float c2 = -0.809016994374947424102293417182819059f;   // cos(4π/5)
    const float s1 = 0.951056516295153572116439333379382143f;    // sin(2π/5)
    const float s2 = 0.587785252292473129168705954639072769f;    // sin(4π/5)
    size_t q = rows / 5;
    for (size_t g = 0; g < q; g += span)
        for (size_t k = 0; k < span; k++) {
            size_t j = g + k, o = 5 * g + k;
            FFT_T a0r = FFT_LD(sr, j), a0i = FFT_LD(si, j);
            FFT_T a1r = FFT_LD(sr, j + q), a1i = FFT_LD(si, j + q);
            FFT_T a2r = FFT_LD(sr, j + 2 * q), a2i = FFT_LD(si, j + 2 * q);
            FFT_T a3r = FFT_LD(sr, j + 3 * q), a3i = FFT_LD(si, j + 3 * q);
            FFT_T a4r = FFT_LD(sr, j + 4 * q), a4i = FFT_LD(si, j + 4 * q);
            if (twiddled) {
                FFT_FN(twiddle)(&a1r, &a1i, tw + 8 * k);
                FFT_FN(twiddle)(&a2r, &a2i, tw + 8 * k + 2);
                FFT_FN(twiddle)(&a3r, &a3i, tw + 8 * k + 4);
                FFT_FN(twiddle)(&a4r, &a4i, tw + 8 * k + 6);
            }
            FFT_T t1r = a1r + a4r, t1i = a1i + a4i, t2r = a2r + a3r, t2i = a2i + a3i;
            FFT_T t3r = a1r - a4r, t3i = a1i - a4i, t4r = a2r - a3r, t4i = a2i - a3i;
            FFT_T m1r = a0r + c1 * t1r + c2 * t2r, m1i = a0i + c1 * t1i + c2 * t2i;
            FFT_T m2r = a0r + c2 * t1r + c1 * t2r, m2i = a0i + c2 * t1i + c1 * t2i;
            FFT_T n1r = s1 * t3r + s2 * t4r, n1i = s1 * t3i + s2 * t4i;
            FFT_T n2r = s2 * t3r - s1 * t4r, n2i = s2 * t3i - s1 * t4i;
            FFT_ST(dr, o, a0r + t1r + t2r);
            FFT_ST(di, o, a0i + t1i + t2i);
            FFT_ST(dr, o + span, m1r + n1i);
            FFT_ST(di, o + span, m1i - n1r);
            FFT_ST(dr, o + 2 * span, m2r + n2i);
            FFT_ST(di, o + 2 * span, m2i - n2r);
            FFT_ST(dr, o + 3 * span, m2r - n2i);
            FFT_ST(di, o + 3 * span, m2i + n2r);
            FFT_ST(dr, o + 4 * span, m1r - n1i);
            FFT_ST(di, o + 4 * span, m1i + n1r);
        }
}

/// An odd prime radix R > 5 (≤ CDSP_FFT_MAX_RADIX): `y_m = Σ_r a_r·W_R^{r·m}`, computed in
/// conjugate pairs `m`, `R − m` from the sums and differences `a_r ± a_{R−r}`. `roots` holds
/// `cos(2πj/R)`, then `sin(2πj/R)`.
CDSP_INLINE void FFT_FN(radixp)(
    const float *restrict sr, const float *restrict si, float *restrict dr, float *restrict di,
    size_t rows, size_t span, const float *restrict tw, const int twiddled, size_t radix,
    const float *restrict roots
) {
    const float *cosine = roots, *sine = roots + radix;
    size_t q = rows / radix, h = (radix - 1) / 2;
    FFT_T xr[CDSP_FFT_MAX_RADIX], xi[CDSP_FFT_MAX_RADIX];
    for (size_t g = 0; g < q; g += span)
        for (size_t k = 0; k < span; k++) {
            size_t j = g + k, o = radix * g + k;
            for (size_t r = 0; r < radix; r++) {
                xr[r] = FFT_LD(sr, j + r * q);
                xi[r] = FFT_LD(si, j + r * q);
                if (twiddled && r > 0) FFT_FN(twiddle)(&xr[r], &xi[r], tw + 2 * (radix - 1) * k + 2 * (r - 1));
            }
            // Sums in slot r, differences in slot R − r.
            FFT_T y0r = xr[0], y0i = xi[0];
            for (size_t r = 1; r <= h; r++) {
                FFT_T pr = xr[r] + xr[radix - r], pi = xi[r] + xi[radix - r];
                FFT_T mr = xr[r] - xr[radix - r], mi = xi[r] - xi[radix - r];
                xr[r] = pr;
                xi[r] = pi;
                xr[radix - r] = mr;
                xi[radix - r] = mi;
                y0r = y0r + pr;
                y0i = y0i + pi;
            }
            FFT_ST(dr, o, y0r);
            FFT_ST(di, o, y0i);
            for (size_t m = 1; m <= h; m++) {
                FFT_T cr = xr[0], ci = xi[0], sr_ = (FFT_T){0}, si_ = (FFT_T){0};
                size_t index = 0;
                for (size_t r = 1; r <= h; r++) {
                    index += m;
                    if (index >= radix) index -= radix;
                    float c = cosine[index], s = sine[index];
                    cr = cr + c * xr[r];
                    ci = ci + c * xi[r];
                    sr_ = sr_ + s * xr[radix - r];
                    si_ = si_ + s * xi[radix - r];
                }
                // y_m = c − i·s, y_{R−m} = c + i·s (c, s the cosine and sine sums).
                FFT_ST(dr, o + m * span, cr + si_);
                FFT_ST(di, o + m * span, ci - sr_);
                FFT_ST(dr, o + (radix - m) * span, cr - si_);
                FFT_ST(di, o + (radix - m) * span, ci + sr_);
            }
        }
}

/// One stage from (sr, si) to (dr, di).
CDSP_INLINE void FFT_FN(stage)(
    const cdsp_fft_complex *plan, const float *table, size_t s, const float *sr, const float *si, float *dr, float *di
) {
    size_t radix = plan->radix[s], span = plan->span[s], rows = plan->rows;
    const float *tw = table + plan->twiddles[s];
    switch (radix) {
    case 2:
        if (span == 1) FFT_FN(radix2)(sr, si, dr, di, rows, 1, tw, 0);
        else FFT_FN(radix2)(sr, si, dr, di, rows, span, tw, 1);
        break;
    case 3:
        if (span == 1) FFT_FN(radix3)(sr, si, dr, di, rows, 1, tw, 0);
        else FFT_FN(radix3)(sr, si, dr, di, rows, span, tw, 1);
        break;
    case 4:
        if (span == 1) FFT_FN(radix4)(sr, si, dr, di, rows, 1, tw, 0);
        else FFT_FN(radix4)(sr, si, dr, di, rows, span, tw, 1);
        break;
    case 5:
        if (span == 1) FFT_FN(radix5)(sr, si, dr, di, rows, 1, tw, 0);
        else FFT_FN(radix5)(sr, si, dr, di, rows, span, tw, 1);
        break;
    default:
        if (span == 1) FFT_FN(radixp)(sr, si, dr, di, rows, 1, tw, 0, radix, table + plan->roots[s]);
        else FFT_FN(radixp)(sr, si, dr, di, rows, span, tw, 1, radix, table + plan->roots[s]);
        break;
    }
}

/// All stages, ping-ponging between buffer 0 `(re[0], im[0])` (which holds the input) and
/// buffer 1; returns the index of the buffer holding the result.
CDSP_INLINE int FFT_FN(stages)(const cdsp_fft_complex *plan, const float *table, float *const re[2], float *const im[2]) {
    int from = 0;
    for (size_t s = 0; s < plan->stage_count; s++) {
        FFT_FN(stage)(plan, table, s, re[from], im[from], re[1 - from], im[1 - from]);
        from = 1 - from;
    }
    return from;
}

#undef FFT_MUL_RE
#undef FFT_MUL_IM
