// The FFTW backend's real split step (include/CDSPFFTWSplit.h). FFTW_ESTIMATE plans an even-size
// r2c as its M-point complex DFT (AVX codelets here) followed by a radix-2 split whose SSE2
// codelet (two pairs per step, half-register loads and stores) cost twice the DFT; this is that
// split's arithmetic, eight pairs at a time. Each pair's operations are the codelet's, in its order; contraction is
// off for the whole file, so every clone gives the same bits. FFTWBackend checks the result
// against FFTW's own r2c plan before using it.
#include "CDSPFFTWSplit.h"

#pragma STDC FP_CONTRACT OFF
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

#include "Dispatch.h"   // CDSP_DISPATCH, CDSP_INLINE
#include "Vectors.h"    // v8, ld8, st8, splat8

/// `X[k]` into `xk`, `X[M − k]` into `xmk` from `Z[k] = (pr, pi)`, `Z[M − k] = (qr, qi)`.
CDSP_INLINE void split1(float pr, float pi, float qr, float qi, float c, float s, float *xk, float *xmk) {
    float er = pr + qr, ei = pi + (-qi);
    float sr = qr - pr, si = (-qi) - pi;
    float dr = s * sr + c * (-si), di = s * si + c * sr;
    xk[0] = 0.5f * (er + dr);
    xk[1] = 0.5f * (ei + di);
    xmk[0] = 0.5f * (er - dr);
    xmk[1] = -(0.5f * (ei - di));
}

CDSP_DISPATCH_VOID(
    cdsp_fftw_real_split, (float *spectrum, size_t m, const float *cosine, const float *sine),
    (spectrum, m, cosine, sine)) {
    size_t h = m / 2;
    float z0r = spectrum[0], z0i = spectrum[1];
    v8 half = splat8(0.5f);
    size_t k = 1;
    // Pairs k … k + 7 with M − k … M − k − 7 (loaded from M − k − 7 up, lanes reversed); all
    // below M/2, so no store overlaps a later load.
    for (; k + 8 <= h; k += 8) {
        float *a = spectrum + 2 * k, *b = spectrum + 2 * (m - k - 7);
        v8 a0 = ld8(a), a1 = ld8(a + 8), b0 = ld8(b), b1 = ld8(b + 8);
        v8 pr = __builtin_shufflevector(a0, a1, 0, 2, 4, 6, 8, 10, 12, 14);
        v8 pi = __builtin_shufflevector(a0, a1, 1, 3, 5, 7, 9, 11, 13, 15);
        v8 qr = __builtin_shufflevector(b0, b1, 14, 12, 10, 8, 6, 4, 2, 0);
        v8 qi = __builtin_shufflevector(b0, b1, 15, 13, 11, 9, 7, 5, 3, 1);
        v8 c = ld8(cosine + k), s = ld8(sine + k);
        v8 er = pr + qr, ei = pi + (-qi);
        v8 sr = qr - pr, si = (-qi) - pi;
        v8 dr = s * sr + c * (-si), di = s * si + c * sr;
        v8 xr = half * (er + dr), xi = half * (ei + di);
        v8 yr = half * (er - dr), yi = -(half * (ei - di));
        st8(a, __builtin_shufflevector(xr, xi, 0, 8, 1, 9, 2, 10, 3, 11));
        st8(a + 8, __builtin_shufflevector(xr, xi, 4, 12, 5, 13, 6, 14, 7, 15));
        st8(b, __builtin_shufflevector(yr, yi, 7, 15, 6, 14, 5, 13, 4, 12));
        st8(b + 8, __builtin_shufflevector(yr, yi, 3, 11, 2, 10, 1, 9, 0, 8));
    }
    for (; k < h; k++) {
        float *a = spectrum + 2 * k, *b = spectrum + 2 * (m - k);
        split1(a[0], a[1], b[0], b[1], cosine[k], sine[k], a, b);
    }
    spectrum[2 * h + 1] = -spectrum[2 * h + 1];
    spectrum[0] = z0r + z0i;
    spectrum[1] = 0;
    spectrum[2 * m] = z0r - z0i;
    spectrum[2 * m + 1] = 0;
}
