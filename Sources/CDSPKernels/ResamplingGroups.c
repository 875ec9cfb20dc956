// The staggered-groups polyphase kernel (DSPCore.Resampler, large L). See
// include/CDSPResampling.h for the contract and docs/resampling.md for the design.
#include "CDSPResampling.h"

#include "Dispatch.h"   // CDSP_DISPATCH, CDSP_INLINE
#include "Vectors.h"   // v8, i8, ld8, st8, splat8

#if defined(__clang__)
#define CDSP_UNROLL _Pragma("clang loop unroll(full)")
#else
#define CDSP_UNROLL
#endif

/// One frame into chain set `acc` (w accumulators): acc[k] += c[8k…8k + 7] · v.
CDSP_INLINE void groups_frame(v8 *acc, const int w, const float *c, float v) {
    v8 b = splat8(v);
    CDSP_UNROLL
    for (int k = 0; k < w; k++) acc[k] = acc[k] + ld8(c + 8 * k) * b;
}

/// One chunk of `len` frames starting at `x` (frame i goes into chain i mod nc); frame i's
/// coefficient vectors are the w at `c + 8·w·i`. `guarded`: frames outside [lo, hi) (relative
/// to `x`) are not read and count as zero, which leaves every sum unchanged.
CDSP_INLINE void groups_chunk(v8 (*acc)[12], const int w, const int nc, const float *c, const float *x, ptrdiff_t len,
                              const int guarded, ptrdiff_t lo, ptrdiff_t hi) {
    ptrdiff_t i = 0;
    for (; i + nc <= len; i += nc) {
        CDSP_UNROLL
        for (int j = 0; j < nc; j++) {
            ptrdiff_t n = i + j;
            float v = guarded ? (n >= lo && n < hi ? x[n] : 0.0f) : x[n];
            groups_frame(acc[j], w, c + 8 * w * n, v);
        }
    }
    CDSP_UNROLL
    for (int j = 0; j + 1 < nc; j++) {
        ptrdiff_t n = i + j;
        if (n < len) {
            float v = guarded ? (n >= lo && n < hi ? x[n] : 0.0f) : x[n];
            groups_frame(acc[j], w, c + 8 * w * n, v);
        }
    }
}

CDSP_INLINE v8 groups_combine(v8 (*acc)[12], const int nc, int k) {
    if (nc == 1) return acc[0][k];
    if (nc == 2) return acc[0][k] + acc[1][k];
    return (acc[0][k] + acc[2][k]) + (acc[1][k] + acc[3][k]);
}

/// Stores group g's 8 lanes y (lanes r = 8g + ℓ − skip in [0, count)) and folds whether any
/// lane is NaN or ±∞ into `*bad` (y − y is NaN exactly then, and NaN ≠ 0).
CDSP_INLINE void groups_store(v8 y, size_t g, size_t skip, size_t count, float *out, size_t out_stride, i8 *bad) {
    *bad |= (y - y) != (v8){0, 0, 0, 0, 0, 0, 0, 0};
    size_t first = 8 * g;
    if (first >= skip && first - skip + 8 <= count && out_stride == 1) {
        st8(out + (first - skip), y);
    } else {
        float lanes[8];
        st8(lanes, y);
        for (size_t l = 0; l < 8; l++) {
            size_t r = first + l;
            if (r >= skip && r - skip < count) out[(r - skip) * out_stride] = lanes[l];
        }
    }
}

/// Where a chunk starting at frame `start` reads its frames: `x + start` when it starts before
/// `split`, else `y + (start − split)` (`y` holds frame `split` at `y[0]`).
CDSP_INLINE const float *groups_source(const float *x, const float *y, ptrdiff_t split, ptrdiff_t start) {
    return start < split ? x + start : y + (start - split);
}

/// One run over chunks c0 ..< c1 from fresh sums (chunk c0 starts at frame `start`, pattern
/// `pattern`), storing the groups in [g_lo, g_hi) as they complete (group g at chunk
/// g + w − 1). Slots of groups outside that range add what they add and are never stored.
CDSP_INLINE void groups_run(const int w, const int nc, const float *coef, const uint32_t *chunk_offset,
                            const uint32_t *span, size_t patterns, const float *x, const float *y, ptrdiff_t split,
                            ptrdiff_t start, ptrdiff_t lo, ptrdiff_t hi, size_t pattern, size_t c0, size_t c1,
                            size_t g_lo, size_t g_hi, size_t skip, size_t count, float *out, size_t out_stride,
                            i8 *bad) {
    v8 acc[4][12];
    CDSP_UNROLL
    for (int j = 0; j < nc; j++) {
        CDSP_UNROLL
        for (int k = 0; k < w; k++) acc[j][k] = (v8){0, 0, 0, 0, 0, 0, 0, 0};
    }
    for (size_t c = c0; c < c1; c++) {
        ptrdiff_t len = (ptrdiff_t)span[pattern];
        const float *cp = coef + chunk_offset[pattern];
        const float *xs = groups_source(x, y, split, start);
        if (start >= lo && start + len <= hi) {
            groups_chunk(acc, w, nc, cp, xs, len, 0, 0, 0);
        } else if (start + len > lo && start < hi) {
            groups_chunk(acc, w, nc, cp, xs, len, 1, lo - start, hi - start);
        }
        if (c + 1 >= (size_t)w) {
            size_t g = c + 1 - (size_t)w;  // slot 0 holds group g, complete
            if (g >= g_lo && g < g_hi) groups_store(groups_combine(acc, nc, 0), g, skip, count, out, out_stride, bad);
        }
        CDSP_UNROLL
        for (int j = 0; j < nc; j++) {
            CDSP_UNROLL
            for (int k = 0; k + 1 < w; k++) acc[j][k] = acc[j][k + 1];
            acc[j][w - 1] = (v8){0, 0, 0, 0, 0, 0, 0, 0};
        }
        start += len;
        if (++pattern == patterns) pattern = 0;
    }
}

/// One frame into both streams' chain sets (w accumulators each), one coefficient load for both.
CDSP_INLINE void groups_frame_dual(v8 *a, v8 *b, const int w, const float *c, float xa, float xb) {
    v8 va = splat8(xa);
    v8 vb = splat8(xb);
    CDSP_UNROLL
    for (int k = 0; k < w; k++) {
        v8 cv = ld8(c + 8 * k);
        a[k] = a[k] + cv * va;
        b[k] = b[k] + cv * vb;
    }
}

/// Two runs at once, sharing every coefficient load: stream A over chunks c0 ..< c1 (storing
/// groups [c0, c1 − w + 1)) and stream B `period_frames` frames later — a whole number of
/// pattern periods, `period_groups` groups, so B's chunks have A's patterns and coefficients.
/// Each stream's sums get exactly the operations `groups_run` gives them (same chains, same
/// order), so outputs do not depend on which path computed them. Every chunk of both
/// streams must lie inside [lo, hi). Needs 2·w·nc ≤ 12 accumulators.
CDSP_INLINE void groups_dual(const int w, const int nc, const float *coef, const uint32_t *chunk_offset,
                             const uint32_t *span, size_t patterns, const float *x, const float *y, ptrdiff_t split,
                             ptrdiff_t start, ptrdiff_t period_frames, size_t period_groups, size_t pattern,
                             size_t c0, size_t c1, size_t skip, size_t count, float *out, size_t out_stride,
                             i8 *bad) {
    v8 a[2][3];
    v8 b[2][3];
    CDSP_UNROLL
    for (int j = 0; j < nc; j++) {
        CDSP_UNROLL
        for (int k = 0; k < w; k++) {
            a[j][k] = (v8){0, 0, 0, 0, 0, 0, 0, 0};
            b[j][k] = (v8){0, 0, 0, 0, 0, 0, 0, 0};
        }
    }
    for (size_t c = c0; c < c1; c++) {
        ptrdiff_t len = (ptrdiff_t)span[pattern];
        const float *cp = coef + chunk_offset[pattern];
        const float *xa = groups_source(x, y, split, start);
        const float *xb = groups_source(x, y, split, start + period_frames);
        ptrdiff_t i = 0;
        for (; i + nc <= len; i += nc) {
            CDSP_UNROLL
            for (int j = 0; j < nc; j++) groups_frame_dual(a[j], b[j], w, cp + 8 * w * (i + j), xa[i + j], xb[i + j]);
        }
        CDSP_UNROLL
        for (int j = 0; j + 1 < nc; j++) {
            if (i + j < len) groups_frame_dual(a[j], b[j], w, cp + 8 * w * (i + j), xa[i + j], xb[i + j]);
        }
        if (c + 1 >= c0 + (size_t)w) {
            size_t g = c + 1 - (size_t)w;
            v8 ya = nc == 1 ? a[0][0] : a[0][0] + a[1][0];
            v8 yb = nc == 1 ? b[0][0] : b[0][0] + b[1][0];
            groups_store(ya, g, skip, count, out, out_stride, bad);
            groups_store(yb, g + period_groups, skip, count, out, out_stride, bad);
        }
        CDSP_UNROLL
        for (int j = 0; j < nc; j++) {
            CDSP_UNROLL
            for (int k = 0; k + 1 < w; k++) {
                a[j][k] = a[j][k + 1];
                b[j][k] = b[j][k + 1];
            }
            a[j][w - 1] = (v8){0, 0, 0, 0, 0, 0, 0, 0};
            b[j][w - 1] = (v8){0, 0, 0, 0, 0, 0, 0, 0};
        }
        start += len;
        if (++pattern == patterns) pattern = 0;
    }
}

/// The finite path: groups 0 ..< `groups` (group g's chunks are g ..< g + w; chunk 0 starts at
/// `base`, pattern `pattern`). Where two pattern periods of groups and more lie inside
/// [lo, hi), two runs a whole number of periods apart go together (`groups_dual`: w ≤ 3,
/// nc ≤ 2); the groups before and after, one run each.
CDSP_INLINE void groups_w(const int w, const int nc, const float *coef, const uint32_t *chunk_offset,
                          const uint32_t *span, size_t patterns, const float *x, const float *y, ptrdiff_t split,
                          ptrdiff_t base, ptrdiff_t lo, ptrdiff_t hi, size_t pattern, size_t groups, size_t skip,
                          size_t count, float *out, size_t out_stride, i8 *bad) {
    size_t chunks = groups + (size_t)w - 1;
    if (w <= 3 && nc <= 2 && groups >= 2 * patterns + (size_t)w) {
        // h: the first chunk starting at or after lo (0 or 1 in practice).
        size_t h = 0;
        ptrdiff_t start = base;
        size_t pat = pattern;
        while (h < chunks && start < lo) {
            start += (ptrdiff_t)span[pat];
            if (++pat == patterns) pat = 0;
            h++;
        }
        // Frames per pattern period (= M), then the last chunk and back to the last one
        // that ends by hi: chunks h ..< end are inside [lo, hi).
        ptrdiff_t period = 0;
        for (size_t i = 0; i < patterns; i++) period += (ptrdiff_t)span[i];
        size_t last = chunks - 1;
        size_t n = last - h;  // chunks from h to the last
        ptrdiff_t at = start + (ptrdiff_t)(n / patterns) * period;
        size_t p_last = pat;
        for (size_t i = 0; i < n % patterns; i++) {
            at += (ptrdiff_t)span[p_last];
            if (++p_last == patterns) p_last = 0;
        }
        size_t end = chunks;
        while (end > h && at + (ptrdiff_t)span[p_last] > hi) {
            end--;
            p_last = p_last == 0 ? patterns - 1 : p_last - 1;
            at -= (ptrdiff_t)span[p_last];
        }
        size_t room = end - h;
        size_t usable = room >= (size_t)w - 1 ? room - ((size_t)w - 1) : 0;  // groups completable in them
        if (usable > groups - h) usable = groups - h;
        size_t q = usable / (2 * patterns);
        if (q >= 1) {
            size_t d = q * patterns;  // groups between the streams: q periods, q·M frames
            ptrdiff_t period_frames = (ptrdiff_t)q * period;
            if (h > 0) {
                groups_run(w, nc, coef, chunk_offset, span, patterns, x, y, split, base, lo, hi, pattern, 0,
                           h + (size_t)w - 1, 0, h, skip, count, out, out_stride, bad);
            }
            groups_dual(w, nc, coef, chunk_offset, span, patterns, x, y, split, start, period_frames, d, pat, h,
                        h + d + (size_t)w - 1, skip, count, out, out_stride, bad);
            size_t t = h + 2 * d;  // first group after the dual run
            if (t < groups) {
                groups_run(w, nc, coef, chunk_offset, span, patterns, x, y, split, start + 2 * period_frames, lo, hi,
                           pat, t, chunks, t, groups, skip, count, out, out_stride, bad);
            }
            return;
        }
    }
    groups_run(w, nc, coef, chunk_offset, span, patterns, x, y, split, base, lo, hi, pattern, 0, chunks, 0, groups,
               skip, count, out, out_stride, bad);
}

/// Whether any lane of a mask is set.
CDSP_INLINE int groups_any(const i8 *m) {
    int any = 0;
    for (int l = 0; l < 8; l++) any |= (*m)[l];
    return any != 0;
}

/// The same outputs one lane at a time, each adding only its nonzero coefficients (same
/// chains, same order, same operations as the vector path, so bit-identical for finite input),
/// so that a NaN or infinity poisons exactly the outputs whose windows hold it. Frame n is
/// read from y when n ≥ split (the same value `x` holds where both do).
CDSP_INLINE void groups_exact(const int w, const int nc, const float *coef, const uint32_t *chunk_offset,
                              const uint32_t *span, size_t patterns, const float *x, const float *y,
                              ptrdiff_t split, ptrdiff_t base, ptrdiff_t lo, ptrdiff_t hi, size_t pattern,
                              size_t groups, size_t skip, size_t count, float *out, size_t out_stride) {
    ptrdiff_t group_start = base;
    size_t group_pattern = pattern;
    for (size_t j = 0; j < groups; j++) {
        for (size_t l = 0; l < 8; l++) {
            size_t r = 8 * j + l;
            if (r < skip || r - skip >= count) continue;
            float chain[4] = {0, 0, 0, 0};
            ptrdiff_t start = group_start;
            size_t p = group_pattern;
            for (int c = 0; c < w; c++) {
                ptrdiff_t len = (ptrdiff_t)span[p];
                const float *block = coef + chunk_offset[p];
                int k = w - 1 - c; // this group's slot in chunk j + c
                for (ptrdiff_t i = 0; i < len; i++) {
                    float h = block[((size_t)i * (size_t)w + (size_t)k) * 8 + l];
                    ptrdiff_t n = start + i;
                    if (h != 0 && n >= lo && n < hi) {
                        int q = (int)(i % nc);
                        chain[q] = chain[q] + h * (n >= split ? y[n - split] : x[n]);
                    }
                }
                start += len;
                if (++p == patterns) p = 0;
            }
            float sum = nc == 1 ? chain[0] : nc == 2 ? chain[0] + chain[1] : (chain[0] + chain[2]) + (chain[1] + chain[3]);
            out[(r - skip) * out_stride] = sum;
        }
        group_start += (ptrdiff_t)span[group_pattern];
        if (++group_pattern == patterns) group_pattern = 0;
    }
}

size_t cdsp_polyphase_groups_chains(size_t width) {
    return width <= 2 ? 4 : width <= 7 ? 2 : 1;
}

CDSP_DISPATCH_V3_VOID(
    cdsp_polyphase_groups,
    (const float *coef, const uint32_t *chunk_offset, const uint32_t *span, size_t patterns, size_t width,
     const float *x, const float *y, ptrdiff_t split, ptrdiff_t base, ptrdiff_t lo, ptrdiff_t hi, size_t pattern,
     size_t groups, size_t skip, size_t count, float *out, size_t out_stride),
    (coef, chunk_offset, span, patterns, width, x, y, split, base, lo, hi, pattern, groups, skip, count, out,
     out_stride)) {
    // The vector path first; a NaN or infinity in any frame it read makes every lane of the
    // groups that read it non-finite, so when a stored group has a non-finite lane the call
    // is done again by the exact per-lane path (rare), which overwrites every output.
    i8 bad = {0, 0, 0, 0, 0, 0, 0, 0};
    // A push read in place (y ≠ x) may come from memory: request all its lines now, so they
    // arrive while the first groups are computed instead of one miss stream at a time.
    if (y != x) {
        for (ptrdiff_t n = 0; n < hi - split; n += 16) __builtin_prefetch(y + n, 0, 3);
    }
    switch (width) {
#define CDSP_GROUPS_CASE(W, C)                                                                                     \
    case W:                                                                                                        \
        groups_w(W, C, coef, chunk_offset, span, patterns, x, y, split, base, lo, hi, pattern, groups, skip, count, \
                 out, out_stride, &bad);                                                                           \
        if (groups_any(&bad)) {                                                                                    \
            groups_exact(W, C, coef, chunk_offset, span, patterns, x, y, split, base, lo, hi, pattern, groups, skip, \
                         count, out, out_stride);                                                                  \
        }                                                                                                          \
        break;
    CDSP_GROUPS_CASE(1, 4)
    CDSP_GROUPS_CASE(2, 4)
    CDSP_GROUPS_CASE(3, 2)
    CDSP_GROUPS_CASE(4, 2)
    CDSP_GROUPS_CASE(5, 2)
    CDSP_GROUPS_CASE(6, 2)
    CDSP_GROUPS_CASE(7, 2)
    CDSP_GROUPS_CASE(8, 1)
    CDSP_GROUPS_CASE(9, 1)
    CDSP_GROUPS_CASE(10, 1)
    CDSP_GROUPS_CASE(11, 1)
    CDSP_GROUPS_CASE(12, 1)
#undef CDSP_GROUPS_CASE
    default: break;
    }
}
