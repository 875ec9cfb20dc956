// Dispatched C kernels. See include/CDSPKernels.h for the contracts.
//
// Written with clang/GCC vector extensions, so each `target_clones` variant gets the same
// arithmetic (lane for lane, in the same order) at its own register width: one 16-float vector
// is one zmm register with AVX-512, two ymm with AVX2, four xmm with SSE2. `acc + c * x` is
// contracted to a fused multiply-add where the variant has FMA (-ffp-contract=on, the C
// default), the one difference between variants. No -ffast-math: nothing is reassociated.
#include "CDSPKernels.h"

// Dispatch: x86-64 ELF (Linux), where target_clones is an IFUNC. "fma" rather than "avx2,fma":
// in clang (and GCC) a comma inside one string separates clones, so "avx2,fma" would make an
// AVX2 clone *without* FMA plus an FMA clone. The FMA feature implies AVX, which is all that
// float vector code needs; AVX-512F implies AVX2 and FMA. The loader's resolver prefers
// avx512f, then fma, then the SSE2 default.
// Under Thread Sanitizer (`swift test --sanitize=thread`) there is no dispatch: the IFUNC
// resolver runs during relocation, before the TSan runtime is initialised, and its instrumented
// entry crashes the process; the default clone's code is used instead.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CDSP_NO_DISPATCH 1
#endif
#endif
#if !defined(CDSP_NO_DISPATCH) && defined(__x86_64__) && defined(__ELF__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define CDSP_DISPATCH __attribute__((target_clones("avx512f", "fma", "default")))
#endif
#endif
#ifndef CDSP_DISPATCH
#define CDSP_DISPATCH
#endif

// The vector helpers are always inlined into the dispatched kernels, so the ABI of passing
// wide vectors between differently-targeted functions never arises.
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpsabi"
#endif

#define CDSP_INLINE static inline __attribute__((always_inline))

typedef float v16 __attribute__((vector_size(64)));
typedef float v8 __attribute__((vector_size(32)));
typedef float v4 __attribute__((vector_size(16)));

CDSP_INLINE v16 ld16(const float *p) {
    v16 v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

CDSP_INLINE v8 ld8(const float *p) {
    v8 v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

CDSP_INLINE v8 halves16(v16 a) {
    return __builtin_shufflevector(a, a, 0, 1, 2, 3, 4, 5, 6, 7)
         + __builtin_shufflevector(a, a, 8, 9, 10, 11, 12, 13, 14, 15);
}

CDSP_INLINE v4 halves8(v8 a) {
    return __builtin_shufflevector(a, a, 0, 1, 2, 3) + __builtin_shufflevector(a, a, 4, 5, 6, 7);
}

/// (a0 + a2) + (a1 + a3): the last two levels of the fixed pairwise tree.
CDSP_INLINE float sum4(v4 a) {
    return (a[0] + a[2]) + (a[1] + a[3]);
}

/// K (1…4) dot products of `taps` floats (a multiple of 8): out[j·out_stride] = Σ r[j][i]·x[j][i].
/// The same order for every output: 16 lanes over blocks of 16, halves added, an 8-wide tail
/// multiply-added, halves added, sum4.
CDSP_INLINE void dot_k(
    int k, const float *const r[4], const float *const x[4], size_t taps, float *out, size_t out_stride
) {
    v16 acc[4] = {{0}, {0}, {0}, {0}};
    size_t full = taps & ~(size_t)15;
    size_t i = 0;
    for (; i < full; i += 16) {
        for (int j = 0; j < k; j++) acc[j] = acc[j] + ld16(r[j] + i) * ld16(x[j] + i);
    }
    for (int j = 0; j < k; j++) {
        v8 s = halves16(acc[j]);
        if (i < taps) s = s + ld8(r[j] + i) * ld8(x[j] + i);
        out[(size_t)j * out_stride] = sum4(halves8(s));
    }
}

/// `dot_k` with one destination per output.
CDSP_INLINE void dot_kp(int k, const float *const r[4], const float *const x[4], size_t taps, float *const o[4]) {
    v16 acc[4] = {{0}, {0}, {0}, {0}};
    size_t full = taps & ~(size_t)15;
    size_t i = 0;
    for (; i < full; i += 16) {
        for (int j = 0; j < k; j++) acc[j] = acc[j] + ld16(r[j] + i) * ld16(x[j] + i);
    }
    for (int j = 0; j < k; j++) {
        v8 s = halves16(acc[j]);
        if (i < taps) s = s + ld8(r[j] + i) * ld8(x[j] + i);
        *o[j] = sum4(halves8(s));
    }
}

/// Four dot products over two rows: x[0], x[1] with r0 and x[2], x[3] with r1 (each row loaded
/// once per block); the same arithmetic per output as `dot_k`.
CDSP_INLINE void dot_2x2(const float *r0, const float *r1, const float *const x[4], size_t taps, float *const o[4]) {
    v16 acc[4] = {{0}, {0}, {0}, {0}};
    size_t full = taps & ~(size_t)15;
    size_t i = 0;
    for (; i < full; i += 16) {
        v16 c0 = ld16(r0 + i);
        v16 c1 = ld16(r1 + i);
        acc[0] = acc[0] + c0 * ld16(x[0] + i);
        acc[1] = acc[1] + c0 * ld16(x[1] + i);
        acc[2] = acc[2] + c1 * ld16(x[2] + i);
        acc[3] = acc[3] + c1 * ld16(x[3] + i);
    }
    for (int j = 0; j < 4; j++) {
        const float *r = j < 2 ? r0 : r1;
        v8 s = halves16(acc[j]);
        if (i < taps) s = s + ld8(r + i) * ld8(x[j] + i);
        *o[j] = sum4(halves8(s));
    }
}

CDSP_DISPATCH
void cdsp_polyphase(
    const float *bank, size_t taps, const float *window, size_t stride, size_t channels,
    size_t phase, size_t frame_step, size_t phase_step, size_t phases, size_t count, float *out
) {
    size_t frame = 0;
    size_t n = 0;
    if (channels == 1 && phases == 1) {
        // One row shared by four consecutive outputs (one coefficient load, four products).
        const float *r[4] = {bank, bank, bank, bank};
        for (; n + 4 <= count; n += 4) {
            const float *x[4] = {
                window + frame, window + frame + frame_step, window + frame + 2 * frame_step,
                window + frame + 3 * frame_step};
            dot_k(4, r, x, taps, out + n, 1);
            frame += 4 * frame_step;
        }
        for (; n < count; n++) {
            const float *x[4] = {window + frame, 0, 0, 0};
            dot_k(1, r, x, taps, out + n, 1);
            frame += frame_step;
        }
        return;
    }
    if (channels == 1 && count >= 2 * phases) {
        // Phase order (a push of at least 2L outputs): outputs q, q + L, q + 2L, … share the
        // row of output q and their windows start `period` (= M) frames apart. Two consecutive
        // phases at a time, two outputs of each: four chains on two row loads per block instead
        // of four, and each row is fetched (from L2 at 44.1 → 16 kHz, 90 KB bank) once per push
        // instead of once per output. Outputs left over (a phase's third output, an odd last
        // phase) are queued four at a time into `dot_kp`. Every output is the same dot product
        // as in consecutive order, so grouping (and hence chunking) changes no bit.
        size_t period = phases * frame_step + phase_step; // frames per L outputs (= M)
        const float *r[4];
        const float *x[4];
        float *o[4];
        int k = 0;
#define CDSP_QUEUE(row_, w_, q_)              \
    do {                                      \
        r[k] = (row_);                        \
        x[k] = (w_);                          \
        o[k] = out + (q_);                    \
        if (++k == 4) {                       \
            dot_kp(4, r, x, taps, o);         \
            k = 0;                            \
        }                                     \
    } while (0)
        for (size_t m = 0; m < phases; m += 2) {
            const float *row0 = bank + phase * taps;
            const float *w0 = window + frame;
            frame += frame_step;
            phase += phase_step;
            if (phase >= phases) {
                phase -= phases;
                frame += 1;
            }
            if (m + 1 == phases) {
                for (size_t q = m; q < count; q += phases, w0 += period) CDSP_QUEUE(row0, w0, q);
                break;
            }
            const float *row1 = bank + phase * taps;
            const float *w1 = window + frame;
            frame += frame_step;
            phase += phase_step;
            if (phase >= phases) {
                phase -= phases;
                frame += 1;
            }
            size_t q = m;
            // Both phases have outputs q, q + L (q + 1 + L < count).
            for (; q + 1 + phases < count; q += 2 * phases) {
                const float *xx[4] = {w0, w0 + period, w1, w1 + period};
                float *oo[4] = {out + q, out + q + phases, out + q + 1, out + q + 1 + phases};
                dot_2x2(row0, row1, xx, taps, oo);
                w0 += 2 * period;
                w1 += 2 * period;
            }
            for (size_t q0 = q; q0 < count; q0 += phases, w0 += period) CDSP_QUEUE(row0, w0, q0);
            for (size_t q1 = q + 1; q1 < count; q1 += phases, w1 += period) CDSP_QUEUE(row1, w1, q1);
        }
#undef CDSP_QUEUE
        for (int j = 0; j < k; j++) {
            const float *r1[4] = {r[j], 0, 0, 0};
            const float *x1[4] = {x[j], 0, 0, 0};
            float *o1[4] = {o[j], 0, 0, 0};
            dot_kp(1, r1, x1, taps, o1);
        }
        return;
    }
    if (channels == 1) {
        // Four consecutive outputs, four rows: four independent accumulator chains.
        for (; n + 4 <= count; n += 4) {
            const float *r[4];
            const float *x[4];
            for (int j = 0; j < 4; j++) {
                r[j] = bank + phase * taps;
                x[j] = window + frame;
                frame += frame_step;
                phase += phase_step;
                if (phase >= phases) {
                    phase -= phases;
                    frame += 1;
                }
            }
            dot_k(4, r, x, taps, out + n, 1);
        }
        for (; n < count; n++) {
            const float *r[4] = {bank + phase * taps, 0, 0, 0};
            const float *x[4] = {window + frame, 0, 0, 0};
            dot_k(1, r, x, taps, out + n, 1);
            frame += frame_step;
            phase += phase_step;
            if (phase >= phases) {
                phase -= phases;
                frame += 1;
            }
        }
        return;
    }
    // Multichannel: the frame's row shared by four channels at a time.
    for (; n < count; n++) {
        const float *row = bank + phase * taps;
        const float *r[4] = {row, row, row, row};
        const float *base = window + frame;
        float *o = out + n * channels;
        size_t c = 0;
        for (; c + 4 <= channels; c += 4) {
            const float *x[4] = {base + c * stride, base + (c + 1) * stride, base + (c + 2) * stride,
                                 base + (c + 3) * stride};
            dot_k(4, r, x, taps, o + c, 1);
        }
        for (; c < channels; c++) {
            const float *x[4] = {base + c * stride, 0, 0, 0};
            dot_k(1, r, x, taps, o + c, 1);
        }
        frame += frame_step;
        phase += phase_step;
        if (phase >= phases) {
            phase -= phases;
            frame += 1;
        }
    }
}
