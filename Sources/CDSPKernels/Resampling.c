// DSPCore.Resampler's dispatched kernels: the polyphase dot products and the half-band
// decimator. See include/CDSPResampling.h for the contracts.
//
// Written with clang/GCC vector extensions, so each dispatched copy (Dispatch.h) gets the same
// arithmetic (lane for lane, in the same order) at its own register width: one 16-float vector
// is one zmm register with AVX-512, two ymm with AVX2, four xmm with SSE2. `acc + c * x` is
// contracted to a fused multiply-add where the copy has FMA (-ffp-contract=on, the C
// default), the one difference between copies: the SSE2 copy's results differ in the last
// bits from the others', which agree with one another bit for bit (KernelDispatchTests). No
// -ffast-math: nothing is reassociated.
#include "CDSPResampling.h"

#include "Dispatch.h"   // CDSP_DISPATCH, CDSP_INLINE
#include "Vectors.h"   // v8, v16, i8, ld8, ld16, st8, splat8

// Loops over a compile-time number of vectors are unrolled completely so that accumulator
// arrays live in registers.
#if defined(__clang__)
#define CDSP_UNROLL _Pragma("clang loop unroll(full)")
#else
#define CDSP_UNROLL
#endif

typedef float v4 __attribute__((vector_size(16)));

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

/// sum4(halves8(s)) of four vectors at once, with the same additions per output (the tree
/// (s_i + s_{i+4}), then (·₀ + ·₂) + (·₁ + ·₃)), by transposing shuffles instead of four
/// separate horizontal reductions.
CDSP_INLINE v4 reduce4(v8 a, v8 b, v8 c, v8 d) {
    v8 x = __builtin_shufflevector(a, b, 0, 1, 2, 3, 8, 9, 10, 11) + __builtin_shufflevector(a, b, 4, 5, 6, 7, 12, 13, 14, 15);
    v8 y = __builtin_shufflevector(c, d, 0, 1, 2, 3, 8, 9, 10, 11) + __builtin_shufflevector(c, d, 4, 5, 6, 7, 12, 13, 14, 15);
    v8 z = __builtin_shufflevector(x, y, 0, 1, 4, 5, 8, 9, 12, 13) + __builtin_shufflevector(x, y, 2, 3, 6, 7, 10, 11, 14, 15);
    return __builtin_shufflevector(z, z, 0, 2, 4, 6) + __builtin_shufflevector(z, z, 1, 3, 5, 7);
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
    v8 s[4];
    for (int j = 0; j < k; j++) {
        s[j] = halves16(acc[j]);
        if (i < taps) s[j] = s[j] + ld8(r[j] + i) * ld8(x[j] + i);
    }
    if (k == 4) {
        v4 w = reduce4(s[0], s[1], s[2], s[3]);
        for (int j = 0; j < 4; j++) out[(size_t)j * out_stride] = w[j];
    } else {
        for (int j = 0; j < k; j++) out[(size_t)j * out_stride] = sum4(halves8(s[j]));
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
    v8 s[4];
    for (int j = 0; j < k; j++) {
        s[j] = halves16(acc[j]);
        if (i < taps) s[j] = s[j] + ld8(r[j] + i) * ld8(x[j] + i);
    }
    if (k == 4) {
        v4 w = reduce4(s[0], s[1], s[2], s[3]);
        for (int j = 0; j < 4; j++) *o[j] = w[j];
    } else {
        for (int j = 0; j < k; j++) *o[j] = sum4(halves8(s[j]));
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
    v8 s[4];
    for (int j = 0; j < 4; j++) {
        const float *r = j < 2 ? r0 : r1;
        s[j] = halves16(acc[j]);
        if (i < taps) s[j] = s[j] + ld8(r + i) * ld8(x[j] + i);
    }
    v4 w = reduce4(s[0], s[1], s[2], s[3]);
    for (int j = 0; j < 4; j++) *o[j] = w[j];
}

CDSP_DISPATCH_V3_VOID(
    cdsp_polyphase,
    (const float *bank, size_t taps, const float *window, size_t stride, size_t channels, size_t phase, size_t slot,
     size_t frame_step, size_t phase_step, size_t phases, size_t count, float *out),
    (bank, taps, window, stride, channels, phase, slot, frame_step, phase_step, phases, count, out)) {
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
            const float *row0 = bank + slot * taps;
            const float *w0 = window + frame;
            frame += frame_step;
            phase += phase_step;
            if (++slot == phases) slot = 0;
            if (phase >= phases) {
                phase -= phases;
                frame += 1;
            }
            if (m + 1 == phases) {
                for (size_t q = m; q < count; q += phases, w0 += period) CDSP_QUEUE(row0, w0, q);
                break;
            }
            const float *row1 = bank + slot * taps;
            const float *w1 = window + frame;
            frame += frame_step;
            phase += phase_step;
            if (++slot == phases) slot = 0;
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
                r[j] = bank + slot * taps;
                x[j] = window + frame;
                frame += frame_step;
                phase += phase_step;
                if (++slot == phases) slot = 0;
                if (phase >= phases) {
                    phase -= phases;
                    frame += 1;
                }
            }
            dot_k(4, r, x, taps, out + n, 1);
        }
        for (; n < count; n++) {
            const float *r[4] = {bank + slot * taps, 0, 0, 0};
            const float *x[4] = {window + frame, 0, 0, 0};
            dot_k(1, r, x, taps, out + n, 1);
            frame += frame_step;
            phase += phase_step;
            if (++slot == phases) slot = 0;
            if (phase >= phases) {
                phase -= phases;
                frame += 1;
            }
        }
        return;
    }
    // Multichannel: the frame's row shared by four channels at a time.
    for (; n < count; n++) {
        const float *row = bank + slot * taps;
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
        if (++slot == phases) slot = 0;
        if (phase >= phases) {
            phase -= phases;
            frame += 1;
        }
    }
}

CDSP_INLINE void st16(float *p, v16 v) { __builtin_memcpy(p, &v, sizeof v); }

// The vector work of the half-band kernels lives in always-inlined helpers that take only
// pointers, like dot_k above, so no vector value crosses a call in the dispatched functions.

/// 16 frame pairs: even[0…15] = src[0, 2, …, 30], odd[0…15] = src[1, 3, …, 31].
CDSP_INLINE void split16(const float *src, float *even, float *odd) {
    v16 a = ld16(src);
    v16 b = ld16(src + 16);
    st16(even, __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30));
    st16(odd, __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31));
}

// MARK: - Across-outputs FIR with shared window loads
//
// `fir_reuse` adds Σ_{g<G} c[g·cs] · s[8v + g + ℓ] to lane ℓ of accumulator v (V ≤ 8 vectors
// of 8 consecutive outputs). Taps g = j + 8k (same j) read the window at offsets that differ by
// whole vectors: vector v at tap j + 8k loads what vector v + k loads at tap j. So for each
// j = 0…7 the window is loaded V + K − 1 times (not V·K) and each load feeds up to K = 4
// multiply-adds with broadcast coefficients: for V = 8, 11 window and 4 coefficient loads per
// 32 multiply-adds, against 33 per 32 in the load-per-tap form, whose unaligned window loads
// (every offset mod 16) split a cache line 7 times in 16. Taps go in blocks of 32; the order
// in which one lane adds its taps — block by block, j = 0…7, k ascending — depends on G
// only, never on V or on which outputs share a call, so grouping cannot change a bit.

/// One j of one block: K taps g = j + 8k (coefficients `c[k·cstep]`) on V vectors.
CDSP_INLINE void fir_step(v8 *acc, const int v_count, const int k_count, const float *c, size_t cstep, const float *x) {
    float ck[4];
    CDSP_UNROLL
    for (int k = 0; k < k_count; k++) ck[k] = c[(size_t)k * cstep];
    CDSP_UNROLL
    for (int w = 0; w < v_count + k_count - 1; w++) {
        v8 window = ld8(x + 8 * w);
        CDSP_UNROLL
        for (int k = 0; k < k_count; k++) {
            int v = w - k;
            if (v >= 0 && v < v_count) acc[v] = acc[v] + ck[k] * window;
        }
    }
}

/// Residues j0 ≤ j < j1 of one block, K taps each, K a compile-time constant.
CDSP_INLINE void fir_residues(v8 *acc, const int v_count, const int k_count, const float *c, size_t cs, size_t j0,
                              size_t j1, const float *s) {
    for (size_t j = j0; j < j1; j++) fir_step(acc, v_count, k_count, c + j * cs, 8 * cs, s + j);
}

CDSP_INLINE void fir_reuse(v8 *acc, const int v_count, const float *c, size_t cs, size_t g_count, const float *s) {
    for (size_t g0 = 0; g0 < g_count; g0 += 32) {
        size_t rem = g_count - g0;
        const float *x = s + g0;
        const float *cc = c + g0 * cs;
        if (rem >= 32) {
            fir_residues(acc, v_count, 4, cc, cs, 0, 8, x);
            continue;
        }
        // Residue j has ⌈(rem − j)/8⌉ taps: q + 1 for j < e, q for the rest (rem = 8q + e).
        size_t q = rem / 8;
        size_t e = rem % 8;
        switch (q) {
        case 3:
            fir_residues(acc, v_count, 4, cc, cs, 0, e, x);
            fir_residues(acc, v_count, 3, cc, cs, e, 8, x);
            break;
        case 2:
            fir_residues(acc, v_count, 3, cc, cs, 0, e, x);
            fir_residues(acc, v_count, 2, cc, cs, e, 8, x);
            break;
        case 1:
            fir_residues(acc, v_count, 2, cc, cs, 0, e, x);
            fir_residues(acc, v_count, 1, cc, cs, e, 8, x);
            break;
        default:
            fir_residues(acc, v_count, 1, cc, cs, 0, e, x);
            break;
        }
    }
}

/// Stores the first `valid` of the 8·V lanes.
CDSP_INLINE void store_lanes(const v8 *acc, const int v_count, float *out, size_t valid) {
    if (valid >= (size_t)(8 * v_count)) {
        CDSP_UNROLL
        for (int v = 0; v < v_count; v++) st8(out + 8 * v, acc[v]);
    } else {
        float lanes[64];
        CDSP_UNROLL
        for (int v = 0; v < v_count; v++) st8(lanes + 8 * v, acc[v]);
        for (size_t i = 0; i < valid; i++) out[i] = lanes[i];
    }
}

/// Up to 8·V half-band outputs: lane n = center·even[n], then the taps (`fir_reuse` order).
CDSP_INLINE void halfband_block(
    const int v_count, const float *even, const float *odd, const float *coef, size_t taps, float center, float *out,
    size_t valid
) {
    v8 acc[8];
    CDSP_UNROLL
    for (int v = 0; v < v_count; v++) acc[v] = ld8(even + 8 * v) * center;
    fir_reuse(acc, v_count, coef, 1, taps, odd);
    store_lanes(acc, v_count, out, valid);
}

CDSP_DISPATCH_V3_VOID(
    cdsp_split_even_odd,
    (const float *src, size_t stride, size_t pairs, float *even, float *odd),
    (src, stride, pairs, even, odd)) {
    size_t j = 0;
    if (stride == 1) {
        for (; j + 16 <= pairs; j += 16) split16(src + 2 * j, even + j, odd + j);
    }
    for (; j < pairs; j++) {
        even[j] = src[2 * j * stride];
        odd[j] = src[(2 * j + 1) * stride];
    }
}

CDSP_DISPATCH_V3_VOID(
    cdsp_halfband,
    (const float *even, const float *odd, const float *coef, size_t taps, float center, size_t count, float *out),
    (even, odd, coef, taps, center, count, out)) {
    // Lane n always computes center·even[n], then adds coef[t]·odd[n + t] in the fixed
    // `fir_reuse` order: blocks of 64 outputs, then one block of 8·⌈rest/8⌉.
    size_t n = 0;
    for (; n + 64 <= count; n += 64) halfband_block(8, even + n, odd + n, coef, taps, center, out + n, 64);
    size_t rest = count - n;
    switch ((rest + 7) / 8) {
    case 0: break;
    case 1: halfband_block(1, even + n, odd + n, coef, taps, center, out + n, rest); break;
    case 2: halfband_block(2, even + n, odd + n, coef, taps, center, out + n, rest); break;
    case 3: halfband_block(3, even + n, odd + n, coef, taps, center, out + n, rest); break;
    case 4: halfband_block(4, even + n, odd + n, coef, taps, center, out + n, rest); break;
    case 5: halfband_block(5, even + n, odd + n, coef, taps, center, out + n, rest); break;
    case 6: halfband_block(6, even + n, odd + n, coef, taps, center, out + n, rest); break;
    case 7: halfband_block(7, even + n, odd + n, coef, taps, center, out + n, rest); break;
    default: halfband_block(8, even + n, odd + n, coef, taps, center, out + n, rest); break;
    }
}

// MARK: - Small-ratio polyphase kernel (L ≤ 4, M ≤ 8), vectorised across outputs

/// Where tap group r (taps r, r + M, …) of an output with window offset b starts in the
/// de-interleaved scratch — substream (b + r) mod M, (b + r) / M further — and how many taps it
/// has, for r < min(M, taps) (`small_plan_make`); computed once per call, not per block.
typedef struct {
    size_t count;
    size_t start[8];
    size_t taps[8];
} small_plan;

CDSP_INLINE void small_plan_make(small_plan *plan, size_t m, size_t taps, size_t sl, size_t b) {
    plan->count = m < taps ? m : taps;
    for (size_t r = 0; r < plan->count; r++) {
        plan->start[r] = ((b + r) % m) * sl + (b + r) / m;
        plan->taps[r] = (taps - r + m - 1) / m;
    }
}

/// One to eight vectors of 8 outputs of one phase: lane t of vector v accumulates
/// Σ_i row[i] · s[(b + i) mod M][j + 8v + t + (b + i) / M], starting from 0. Tap i = g·M + r
/// reads substream (b + r) mod M at offset g + (b + r) / M, so the taps of one r form an FIR
/// over one contiguous substream: r = 0…M − 1 in turn, each in the `fir_reuse` order. The
/// same lane operations for any vector count.
CDSP_INLINE void small_block(
    const int v_count, size_t m, const float *row, const small_plan *plan, const float *scratch, size_t j,
    float *lanes
) {
    v8 acc[8];
    CDSP_UNROLL
    for (int v = 0; v < v_count; v++) acc[v] = (v8){0};
    for (size_t r = 0; r < plan->count; r++) {
        fir_reuse(acc, v_count, row + r, m, plan->taps[r], scratch + plan->start[r] + j);
    }
    CDSP_UNROLL
    for (int v = 0; v < v_count; v++) st8(lanes + 8 * v, acc[v]);
}

/// `small_block` with the vector count (1…8) as a compile-time constant.
CDSP_INLINE void small_block_dispatch(
    int vectors, size_t m, const float *row, const small_plan *plan, const float *scratch, size_t j, float *lanes
) {
    switch (vectors) {
    case 8: small_block(8, m, row, plan, scratch, j, lanes); break;
    case 7: small_block(7, m, row, plan, scratch, j, lanes); break;
    case 6: small_block(6, m, row, plan, scratch, j, lanes); break;
    case 5: small_block(5, m, row, plan, scratch, j, lanes); break;
    case 4: small_block(4, m, row, plan, scratch, j, lanes); break;
    case 3: small_block(3, m, row, plan, scratch, j, lanes); break;
    case 2: small_block(2, m, row, plan, scratch, j, lanes); break;
    default: small_block(1, m, row, plan, scratch, j, lanes); break;
    }
}

/// 16 frame triples: s[0…15] = src[0, 3, …, 45], s[sl + …] = src[1, 4, …], s[2sl + …] = src[2, 5, …].
CDSP_INLINE void split3x16(const float *src, float *s, size_t sl) {
    v16 a = ld16(src);
    v16 b = ld16(src + 16);
    v16 c = ld16(src + 32);
    // Lanes of (a, b) are 0…31, of (·, c) the second operand's are 16…31.
    v16 ab0 = __builtin_shufflevector(a, b, 0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 0, 0, 0, 0, 0);
    v16 ab1 = __builtin_shufflevector(a, b, 1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 0, 0, 0, 0, 0);
    v16 ab2 = __builtin_shufflevector(a, b, 2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 0, 0, 0, 0, 0, 0);
    st16(s, __builtin_shufflevector(ab0, c, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 17, 20, 23, 26, 29));
    st16(s + sl, __builtin_shufflevector(ab1, c, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 18, 21, 24, 27, 30));
    st16(s + 2 * sl, __builtin_shufflevector(ab2, c, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 19, 22, 25, 28, 31));
}

CDSP_INLINE void copy16(const float *src, float *dst) { st16(dst, ld16(src)); }

CDSP_INLINE void zero16(float *dst) { st16(dst, (v16){0}); }

/// out[2t] = a[t], out[2t + 1] = b[t] for t < 8.
CDSP_INLINE void interleave8(const float *a, const float *b, float *out) {
    v8 x = ld8(a);
    v8 y = ld8(b);
    st8(out, __builtin_shufflevector(x, y, 0, 8, 1, 9, 2, 10, 3, 11));
    st8(out + 8, __builtin_shufflevector(x, y, 4, 12, 5, 13, 6, 14, 7, 15));
}

enum { CDSP_SMALL_PIECE = 256, CDSP_SMALL_SCRATCH = 4096 };

CDSP_DISPATCH_V3_VOID(
    cdsp_polyphase_small,
    (const float *bank, size_t taps, const float *window, size_t stride, size_t channels, size_t phase, size_t slot,
     size_t frame_step, size_t phase_step, size_t phases, size_t count, float *out),
    (bank, taps, window, stride, channels, phase, slot, frame_step, phase_step, phases, count, out)) {
    size_t l = phases;
    size_t m = frame_step * l + phase_step;  // frames per L outputs
    // Frame offset and row of the call's first L outputs; output L·j + a is output a's
    // window moved by M·j frames, with output a's row.
    size_t first[4];
    const float *rows[4];
    size_t frame = 0;
    for (size_t a = 0; a < l; a++) {
        first[a] = frame;
        rows[a] = bank + ((slot + a) % l) * taps;
        frame += frame_step;
        phase += phase_step;
        if (phase >= l) {
            phase -= l;
            frame += 1;
        }
    }
    size_t total_j = (count + l - 1) / l;
    // Substream length per piece: the piece's j's, the span of a window in frames / M, the
    // first outputs' offsets, and one vector of overrun.
    size_t sl = CDSP_SMALL_PIECE + (taps + m) / m + 1 + 64;
    float scratch[CDSP_SMALL_SCRATCH];
    float lanes[4 * 64];
    small_plan plans[4];
    for (size_t a = 0; a < l; a++) small_plan_make(&plans[a], m, taps, sl, first[a]);
    for (size_t c = 0; c < channels; c++) {
        const float *w = window + c * stride;
        for (size_t j0 = 0; j0 < total_j; j0 += CDSP_SMALL_PIECE) {
            size_t pj = total_j - j0 < CDSP_SMALL_PIECE ? total_j - j0 : CDSP_SMALL_PIECE;
            // Frames this piece reads: up to the last output's window end (relative to M·j0).
            size_t last_k = (j0 + pj) * l - 1 < count - 1 ? (j0 + pj) * l - 1 : count - 1;
            size_t last_a = last_k % l;
            size_t needed = first[last_a] + m * (last_k / l - j0) + taps;
            const float *base = w + m * j0;
            // De-interleave by M: scratch[ρ·sl + n] = base[ρ + M·n] for the frames below
            // `needed`, then 16 zeros: the lanes past the last output (at most 7 outputs, so
            // 7 floats of each substream further) read them; nothing reads beyond.
            size_t whole = needed / m;  // n below this: every ρ valid
            if (whole > sl) whole = sl;
            size_t n = 0;
            if (m == 3) {
                for (; n + 16 <= whole; n += 16) split3x16(base + 3 * n, scratch + n, sl);
            } else if (m == 2) {
                for (; n + 16 <= whole; n += 16) split16(base + 2 * n, scratch + n, scratch + sl + n);
            } else if (m == 1) {
                for (; n + 16 <= whole; n += 16) copy16(base + n, scratch + n);
            }
            for (size_t rho = 0; rho < m; rho++) {
                float *s = scratch + rho * sl;
                size_t k = n;
                for (; k < sl && rho + m * k < needed; k++) s[k] = base[rho + m * k];
                if (k + 16 <= sl) {
                    zero16(s + k);
                } else {
                    for (; k < sl; k++) s[k] = 0;
                }
            }
            // Blocks of up to 64 outputs of every phase (eight vectors of 8, independent
            // chains), then written out together: for L = 2 mono, interleaved by vector shuffles.
            size_t nj[4] = {0, 0, 0, 0};  // outputs of phase a from j0 on, in this piece
            for (size_t a = 0; a < l && j0 * l + a < count; a++) {
                nj[a] = (count - a + l - 1) / l - j0;
                if (nj[a] > pj) nj[a] = pj;
            }
            for (size_t jj = 0; jj < nj[0]; jj += 64) {
                size_t valid[4] = {0, 0, 0, 0};
                for (size_t a = 0; a < l && jj < nj[a]; a++) {
                    size_t left = nj[a] - jj;
                    int vectors = left >= 64 ? 8 : (int)((left + 7) / 8);
                    small_block_dispatch(vectors, m, rows[a], &plans[a], scratch, jj, lanes + 64 * a);
                    valid[a] = left < 64 ? left : 64;
                }
                if (l == 1 && channels == 1) {
                    float *o = out + j0 + jj;
                    for (size_t t = 0; t < valid[0]; t++) o[t] = lanes[t];
                } else if (l == 2 && channels == 1) {
                    // valid[1] is valid[0] or one less.
                    float *o = out + 2 * (j0 + jj);
                    size_t t = 0;
                    for (; t + 8 <= valid[1]; t += 8) interleave8(lanes + t, lanes + 64 + t, o + 2 * t);
                    for (; t < valid[0]; t++) {
                        o[2 * t] = lanes[t];
                        if (t < valid[1]) o[2 * t + 1] = lanes[64 + t];
                    }
                } else {
                    for (size_t a = 0; a < l; a++) {
                        for (size_t t = 0; t < valid[a]; t++) out[((j0 + jj + t) * l + a) * channels + c] = lanes[64 * a + t];
                    }
                }
            }
        }
    }
}
