// The half-size autocorrelation twiddle and lag expansion shared by the one-frame kernels
// (Spectral.c; the twiddle's `f[j]` the real parts of an interleaved spectrum) and the
// four-frame ones (SpectralBatch.c; `f[j]` contiguous). Private to CDSPKernels; include after Dispatch.h and Vectors.h, in a file
// compiled with contraction off (both are), so every caller gets the same operations.
#pragma once

#include <stddef.h>

/// `y[j] = ½(f[j] + f[m − j]) − sin(πj/m)·(f[j] − f[m − j])` for `0 < j < m/2`, its mirror
/// `y[m − j]` with `+`, `y[0] = ½(f[0] + f[m])`, `y[m/2] = f[m/2]`, and
/// `*f1 = ½(f[0] − f[m]) + Σ cos(πj/m)·(f[j] − f[m − j])`, eight pairs per vector, where
/// `f[j] = x[stride·j]` (`stride` 1 or 2, a constant after inlining: it only changes the loads).
CDSP_INLINE void half_twiddle_strided(
    const float *x, const size_t stride, size_t m, const float *sine, const float *cosine, float *y, float *f1) {
    size_t h = m / 2;
    float f0 = x[0], fm = x[stride * m];
    v8 acc = {0};
    size_t j = 1;
    for (; j + 8 <= h; j += 8) {
        // a[l] = f[j + l]; b[l] = f[m − j − l] (the eight values from m − j − 7, reversed).
        v8 a, b;
        if (stride == 1) {
            a = ld8(x + j);
            v8 braw = ld8(x + m - j - 7);
            b = __builtin_shufflevector(braw, braw, 7, 6, 5, 4, 3, 2, 1, 0);
        } else {
            v8 alo = ld8(x + 2 * j), ahi = ld8(x + 2 * j + 8);
            a = __builtin_shufflevector(alo, ahi, 0, 2, 4, 6, 8, 10, 12, 14);
            v8 blo = ld8(x + 2 * (m - j - 7)), bhi = ld8(x + 2 * (m - j - 7) + 8);
            b = __builtin_shufflevector(blo, bhi, 14, 12, 10, 8, 6, 4, 2, 0);
        }
        v8 y1 = splat8(0.5f) * (a + b);
        v8 y2 = a - b;
        v8 t = ld8(sine + j) * y2;
        v8 lo = y1 - t, hi = y1 + t;
        st8(y + j, lo);
        st8(y + m - j - 7, __builtin_shufflevector(hi, hi, 7, 6, 5, 4, 3, 2, 1, 0));
        acc = acc + ld8(cosine + j) * y2;
    }
    float sum = lanesum8(acc);
    for (; j < h; j++) {
        float a = x[stride * j], b = x[stride * (m - j)];
        float y1 = 0.5f * (a + b), y2 = a - b;
        float t = sine[j] * y2;
        y[j] = y1 - t;
        y[m - j] = y1 + t;
        sum = sum + cosine[j] * y2;
    }
    y[0] = 0.5f * (f0 + fm);
    y[h] = x[stride * h];
    *f1 = 0.5f * (f0 - fm) + sum;
}

/// Lags 2k … 2k + 15 of the half-size autocorrelation from the half spectrum Y (interleaved):
/// `ac[2k + 2i] = 2·Re Y[k + i]`, `ac[2k + 2i + 1] = 2·(carry − Σ_{n=max(k,1)}^{k+i} Im Y[n])`,
/// the odd terms a log-step prefix sum within the vector plus the running carry. Returns the
/// carry for the next block (the last odd term before doubling).
CDSP_INLINE float half_lags_block(const float *spectrum, size_t k, float carry, float *ac) {
    v8 zero = {0}, two = splat8(2.0f);
    v8 lo = ld8(spectrum + 2 * k), hi = ld8(spectrum + 2 * k + 8);
    v8 re = __builtin_shufflevector(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14);
    v8 d = zero - __builtin_shufflevector(lo, hi, 1, 3, 5, 7, 9, 11, 13, 15);
    if (k == 0) d[0] = 0.0f;
    d = d + __builtin_shufflevector(d, zero, 8, 0, 1, 2, 3, 4, 5, 6);
    d = d + __builtin_shufflevector(d, zero, 8, 8, 0, 1, 2, 3, 4, 5);
    d = d + __builtin_shufflevector(d, zero, 8, 8, 8, 8, 0, 1, 2, 3);
    v8 odd = splat8(carry) + d;
    float next = odd[7];
    re = re * two;
    odd = odd * two;
    st8(ac + 2 * k, __builtin_shufflevector(re, odd, 0, 8, 1, 9, 2, 10, 3, 11));
    st8(ac + 2 * k + 8, __builtin_shufflevector(re, odd, 4, 12, 5, 13, 6, 14, 7, 15));
    return next;
}

/// The same for the one bin k of the tail (lags 2k and, below `count`, 2k + 1), one at a time.
CDSP_INLINE float half_lags_step(const float *spectrum, size_t k, size_t count, float carry, float *ac) {
    ac[2 * k] = 2.0f * spectrum[2 * k];
    if (2 * k + 1 < count) {
        if (k > 0) carry = carry + (0.0f - spectrum[2 * k + 1]);
        ac[2 * k + 1] = 2.0f * carry;
    }
    return carry;
}
