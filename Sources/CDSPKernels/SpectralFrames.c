// Dispatched kernels for SpectralAnalyzer's per-frame sums taken several frames at a time. See
// include/CDSPSpectral.h for the contracts. Contraction is off for the whole file, as in
// Spectral.c: every clone computes the Swift code's operations (a multiply, then an add), bit
// for bit.
#include "CDSPSpectral.h"

#pragma STDC FP_CONTRACT OFF
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

#include "Dispatch.h"   // CDSP_DISPATCH, CDSP_INLINE
#include "Vectors.h"    // v8, ld8, splat8, lanesum8

/// Four `dot_body`s (Spectral.c) of `a_k · b_k` over `count`, side by side.
CDSP_INLINE void dots4(
    const float *a0, const float *a1, const float *a2, const float *a3, const float *b0, const float *b1,
    const float *b2, const float *b3, size_t count, float out[4]
) {
    v8 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        s0 = s0 + ld8(a0 + i) * ld8(b0 + i);
        s1 = s1 + ld8(a1 + i) * ld8(b1 + i);
        s2 = s2 + ld8(a2 + i) * ld8(b2 + i);
        s3 = s3 + ld8(a3 + i) * ld8(b3 + i);
    }
    float r0 = lanesum8(s0), r1 = lanesum8(s1), r2 = lanesum8(s2), r3 = lanesum8(s3);
    for (; i < count; i++) {
        r0 = r0 + a0[i] * b0[i];
        r1 = r1 + a1[i] * b1[i];
        r2 = r2 + a2[i] * b2[i];
        r3 = r3 + a3[i] * b3[i];
    }
    out[0] = r0;
    out[1] = r1;
    out[2] = r2;
    out[3] = r3;
}

CDSP_INLINE void frame_dots_body(
    const float *first, size_t stride, size_t frames, const float *window, size_t n, size_t hop_start,
    size_t hop_count, float *window_dots, float *hop_energies
) {
    if (frames == 0) return;
    if (frames > 4) frames = 4;
    // Frames past `frames` repeat the last one (valid memory; their sums are dropped).
    const float *f[4];
    for (size_t i = 0; i < 4; i++) f[i] = first + (i < frames ? i : frames - 1) * stride;
    float w[4], e[4];
    dots4(f[0], f[1], f[2], f[3], window, window, window, window, n, w);
    const float *h0 = f[0] + hop_start, *h1 = f[1] + hop_start, *h2 = f[2] + hop_start, *h3 = f[3] + hop_start;
    dots4(h0, h1, h2, h3, h0, h1, h2, h3, hop_count, e);
    for (size_t i = 0; i < frames; i++) {
        window_dots[i] = w[i];
        hop_energies[i] = e[i];
    }
}

CDSP_DISPATCH_V3_VOID(
    cdsp_spectral_frame_dots,
    (const float *first, size_t stride, size_t frames, const float *window, size_t n, size_t hop_start,
     size_t hop_count, float *window_dots, float *hop_energies),
    (first, stride, frames, window, n, hop_start, hop_count, window_dots, hop_energies)) {
    frame_dots_body(first, stride, frames, window, n, hop_start, hop_count, window_dots, hop_energies);
}

/// A plain copy, eight floats per step (see the header for why not `memcpy`).
CDSP_INLINE void copy_body(float *destination, const float *source, size_t count) {
    size_t i = 0;
    for (; i + 32 <= count; i += 32) {
        v8 a = ld8(source + i), b = ld8(source + i + 8), c = ld8(source + i + 16), d = ld8(source + i + 24);
        st8(destination + i, a);
        st8(destination + i + 8, b);
        st8(destination + i + 16, c);
        st8(destination + i + 24, d);
    }
    for (; i + 8 <= count; i += 8) st8(destination + i, ld8(source + i));
    for (; i < count; i++) destination[i] = source[i];
}

CDSP_DISPATCH_V3_VOID(
    cdsp_spectral_copy,
    (float *destination, const float *source, size_t count),
    (destination, source, count)) {
    copy_body(destination, source, count);
}
