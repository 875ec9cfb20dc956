// The dispatched kernels of DSPDetection's cue tracker. See include/CDSPDetection.h for the
// contract. Comparisons, bit counts and adds in a fixed order: exact, the same at every level.
// The peak mask's levels with AVX gain a one-instruction lane-mask extraction and POPCNT
// (x86-64-v3 and AVX-512 copies) over the Swift loop they replace, which ran baseline SSE2 code
// (no POPCNT: a bit-trick sequence per word); the sieve's sums gain register look-ups at
// AVX-512 (below).
#include "CDSPDetection.h"

#include "Dispatch.h"   // CDSP_DISPATCH_V3_VOID, CDSP_INLINE
#include "Vectors.h"   // v8, ld8, splat8

typedef _Bool b8 __attribute__((ext_vector_type(8)));

/// The eight lanes' truth of `mask` (lanes all ones or all zeros) as bits 0–7.
CDSP_INLINE unsigned lane_bits8(i8 mask) {
    b8 b = __builtin_convertvector(mask != 0, b8);
    unsigned char bits;
    __builtin_memcpy(&bits, &b, 1);
    return bits;
}

CDSP_DISPATCH_V3_VOID(
    cdsp_peak_mask,
    (const float *p, size_t lo, size_t hi, uint64_t *mask, size_t words, const uint64_t *previous, size_t counts[2]),
    (p, lo, hi, mask, words, previous, counts)) {
    for (size_t w = 0; w < words; w++) mask[w] = 0;
    const v8 floor = splat8(1e-11f);
    size_t k = lo;
    for (; k + 8 <= hi; k += 8) {
        v8 c = ld8(p + k), below = ld8(p + k - 1), above = ld8(p + k + 1);
        v8 below2 = ld8(p + k - 2), above2 = ld8(p + k + 2);
        i8 pick = above2 >= below2;
        v8 m = select8(pick, above2, below2);
        i8 peak = (c > 4 * m) & (c >= below) & (c >= above) & (c > floor);
        uint64_t bits = lane_bits8(peak);
        size_t word = k >> 6, shift = k & 63;
        mask[word] |= bits << shift;
        if (shift > 56) mask[word + 1] |= bits >> (64 - shift);
    }
    for (; k < hi; k++) {
        float c = p[k], m = p[k + 2] >= p[k - 2] ? p[k + 2] : p[k - 2];
        if (c > 4 * m && c >= p[k - 1] && c >= p[k + 1] && c > 1e-11f) mask[k >> 6] |= (uint64_t)1 << (k & 63);
    }
    size_t peaks = 0, kept = 0;
    for (size_t w = 0; w < words; w++) {
        uint64_t bits = mask[w];
        peaks += (size_t)__builtin_popcountll(bits);
        if (previous && bits) {
            uint64_t here = previous[w];
            uint64_t fromBelow = w > 0 ? previous[w - 1] >> 63 : 0;
            uint64_t fromAbove = w + 1 < words ? previous[w + 1] << 63 : 0;
            kept += (size_t)__builtin_popcountll(bits & (here | here << 1 | here >> 1 | fromBelow | fromAbove));
        }
    }
    counts[0] = peaks;
    counts[1] = kept;
}

// The harmonic sieve's score sums (include/CDSPDetection.h). Not a CDSP_DISPATCH kernel: the
// levels differ in how a look-up is made, not in their width. Below AVX-512 each lane's sums
// are two chains of scalar loads and adds, as the Swift loop one candidate at a time ran them
// (a 16-lane loop over arrays in memory ran at half that speed: every add waited on a store);
// at level avx512, with windows, sixteen look-ups are one or two two-register permutes (and a
// blend).
// The adds are the same, in the same order, at every level.

/// One candidate at a time over its own terms (the +0 terms past them left out), every level's
/// fallback.
static void sieve_sums_loads(const float *nearMax, const float *peaks, const int32_t *harmonics,
                             const int32_t *halves, const uint8_t *counts, size_t groups, size_t stride,
                             float *sums) {
    for (size_t g = 0; g < groups; g++) {
        const int32_t *h = harmonics + g * stride * 16, *q = halves + g * stride * 16;
        for (size_t l = 0; l < 16; l++) {
            float on = 0, off = 0;
            for (size_t i = 0; i < counts[g * 16 + l]; i++) {
                on += nearMax[h[i * 16 + l]];
                off += peaks[q[i * 16 + l]];
            }
            sums[g * 16 + l] = on - off;
        }
    }
}

#if CDSP_DISPATCH_ON
#include <immintrin.h>

/// Sixteen look-ups of `p[idx]` for `idx` in 0..<64 (`p[0 ..< 64]` readable): bits 0–4 of
/// each index pick within a pair of registers (`vpermt2ps`), bit 5 between the pairs.
#define SIEVE_LOOKUP64(p, idx)                                                                        \
    _mm512_mask_blend_ps(_mm512_test_epi32_mask(idx, _mm512_set1_epi32(32)),                          \
                         _mm512_permutex2var_ps(_mm512_loadu_ps(p), idx, _mm512_loadu_ps((p) + 16)),  \
                         _mm512_permutex2var_ps(_mm512_loadu_ps((p) + 32), idx, _mm512_loadu_ps((p) + 48)))

/// The same for `idx` in 0..<32 (`p[0 ..< 32]` read): one two-register permute.
#define SIEVE_LOOKUP32(p, idx) _mm512_permutex2var_ps(_mm512_loadu_ps(p), idx, _mm512_loadu_ps((p) + 16))

/// Each group's rows up to its longest lane's count; in row `i` the lanes whose count exceeds `i`
/// add (a compare of the counts, widened once per group), the others keep their sums.
__attribute__((target("avx512f"))) static void sieve_sums_avx512(const float *nearMax, const float *peaks,
                                                                 const int32_t *harmonics, const int32_t *halves,
                                                                 const uint8_t *counts, size_t groups, size_t stride,
                                                                 const int32_t *bases, const uint8_t *narrow,
                                                                 float *sums) {
    for (size_t g = 0; g < groups; g++) {
        __m512 on = _mm512_setzero_ps(), off = _mm512_setzero_ps();
        const int32_t *h = harmonics + g * stride * 16, *q = halves + g * stride * 16;
        const int32_t *rowBases = bases + g * stride * 2;
        __m512i laneCounts = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(counts + g * 16)));
        int32_t depth = _mm512_reduce_max_epi32(laneCounts);
        for (int32_t i = 0; i < depth; i++) {
            __mmask16 live = _mm512_cmpgt_epi32_mask(laneCounts, _mm512_set1_epi32(i));
            int32_t hb = rowBases[2 * i], qb = rowBases[2 * i + 1];
            __m512i x = _mm512_sub_epi32(_mm512_loadu_si512((const void *)(h + i * 16)), _mm512_set1_epi32(hb));
            __m512i y = _mm512_sub_epi32(_mm512_loadu_si512((const void *)(q + i * 16)), _mm512_set1_epi32(qb));
            uint8_t within32 = narrow[g * stride + (size_t)i];
            __m512 near = (within32 & 1) ? SIEVE_LOOKUP32(nearMax + hb, x) : SIEVE_LOOKUP64(nearMax + hb, x);
            __m512 half = (within32 & 2) ? SIEVE_LOOKUP32(peaks + qb, y) : SIEVE_LOOKUP64(peaks + qb, y);
            on = _mm512_mask_add_ps(on, live, on, near);
            off = _mm512_mask_add_ps(off, live, off, half);
        }
        _mm512_storeu_ps(sums + g * 16, _mm512_sub_ps(on, off));
    }
}
#endif

void cdsp_sieve_sums(const float *nearMax, const float *peaks, const int32_t *harmonics, const int32_t *halves,
                     const uint8_t *counts, size_t groups, size_t stride, const int32_t *bases,
                     const uint8_t *narrow, float *sums) {
#if CDSP_DISPATCH_ON
    if (bases && narrow && cdsp_dispatch_level() >= CDSP_LEVEL_AVX512) {
        sieve_sums_avx512(nearMax, peaks, harmonics, halves, counts, groups, stride, bases, narrow, sums);
        return;
    }
#else
    (void)bases;
    (void)narrow;
#endif
    sieve_sums_loads(nearMax, peaks, harmonics, halves, counts, groups, stride, sums);
}

// The pure-tone test's peaks (include/CDSPDetection.h): two passes over the band in two
// independent chains of sixteen lanes, each lane keeping its largest bin and that bin's first
// index (a later bin must be larger to replace it), merged lane by lane and then across the
// lanes; the band's sum in the first pass; the windows' sums one bin after another. Adds and
// comparisons only, in a fixed order: the same at every level.

/// Lane-wise `mask ? a : b` for indices.
CDSP_INLINE i8 select_i8(i8 mask, i8 a, i8 b) { return (a & mask) | (b & ~mask); }

/// The largest of the lanes' maxima `m` and of `p[k ..< hi]` (bins outside `[a, b)`), and its
/// first index (lane indices `mi`; the tail's bins come after every lane's); `*index` is left as
/// it is when no value exceeds `floor`.
CDSP_INLINE float tone_reduce(v8 m, i8 mi, const float *p, size_t k, size_t hi, size_t a, size_t b, float floor,
                              size_t *index) {
    float best = floor;
    size_t at = *index;
    for (int j = 0; j < 8; j++) {
        if (m[j] > best || (m[j] == best && m[j] > floor && (size_t)mi[j] < at)) {
            best = m[j];
            at = (size_t)mi[j];
        }
    }
    for (; k < hi; k++) {
        if ((k < a || k >= b) && p[k] > best) {
            best = p[k];
            at = k;
        }
    }
    *index = at;
    return best;
}

/// Lane-wise `mask ? a : b` for indices.
CDSP_INLINE i16 select_i16(i16 mask, i16 a, i16 b) { return (a & mask) | (b & ~mask); }

/// Of two sets of lane maxima, lane by lane the larger (on a tie, the lower index).
CDSP_INLINE void tone_merge(v8 *m, i8 *mi, v8 n, i8 ni) {
    i8 take = (n > *m) | ((n == *m) & (ni < *mi));
    *m = select8(take, n, *m);
    *mi = select_i8(take, ni, *mi);
}

/// The low and high eight lanes of sixteen.
CDSP_INLINE v8 low8(v16 v) { return __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7); }
CDSP_INLINE v8 high8(v16 v) { return __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15); }
CDSP_INLINE i8 low8i(i16 v) { return __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7); }
CDSP_INLINE i8 high8i(i16 v) { return __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15); }

/// Lane maxima and their first indices over `p[lo ..< k]`, bins in `[a, b)` left out, in
/// blocks of 32 (two independent chains of sixteen lanes: a compare and a blend wait on the one
/// before in a chain), then of 8; returns `k`, where the blocks stopped. `sum` gets the bins'
/// sums as four chains of eight lanes would take them — bins `32j + 8c + l` into chain `c`,
/// lane `l`, the 8-bin blocks after them into chain 0 — added `(c0 + c1) + (c2 + c3)`.
CDSP_INLINE size_t tone_lanes(const float *p, size_t lo, size_t hi, size_t a, size_t b, v8 *sum, v8 *m, i8 *mi) {
    const i16 iota = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    const i16 from = iota * 0 + (int32_t)a, to = iota * 0 + (int32_t)b;
    v16 m0 = splat16(-1.0f), m1 = m0;
    i16 i0 = iota * 0 + (int32_t)hi, i1 = i0;
    v16 s0 = splat16(0), s1 = s0;
    size_t k = lo;
#define TONE_LANE16(M, I, S, OFF)                                                  \
    {                                                                              \
        v16 x = ld16(p + k + OFF);                                                 \
        i16 idx = iota + (int32_t)(k + OFF);                                       \
        S = S + x;                                                                 \
        i16 gt = (x > M) & ~((idx >= from) & (idx < to));                          \
        M = select16(gt, x, M);                                                    \
        I = select_i16(gt, idx, I);                                                \
    }
    for (; k + 32 <= hi; k += 32) {
        TONE_LANE16(m0, i0, s0, 0)
        TONE_LANE16(m1, i1, s1, 16)
    }
#undef TONE_LANE16
    v8 c0 = low8(s0), c1 = high8(s0), c2 = low8(s1), c3 = high8(s1);
    v8 n0 = low8(m0), n1 = high8(m0), n2 = low8(m1), n3 = high8(m1);
    i8 j0 = low8i(i0), j1 = high8i(i0), j2 = low8i(i1), j3 = high8i(i1);
    const i8 iota8 = {0, 1, 2, 3, 4, 5, 6, 7};
    const i8 from8 = low8i(from), to8 = low8i(to);
    for (; k + 8 <= hi; k += 8) {
        v8 x = ld8(p + k);
        i8 idx = iota8 + (int32_t)k;
        c0 = c0 + x;
        i8 gt = (x > n0) & ~((idx >= from8) & (idx < to8));
        n0 = select8(gt, x, n0);
        j0 = select_i8(gt, idx, j0);
    }
    tone_merge(&n0, &j0, n1, j1);
    tone_merge(&n2, &j2, n3, j3);
    tone_merge(&n0, &j0, n2, j2);
    *sum = (c0 + c1) + (c2 + c3);
    *m = n0;
    *mi = j0;
    return k;
}

CDSP_DISPATCH_V3_VOID(
    cdsp_tone_peaks,
    (const float *p, size_t lo, size_t hi, size_t halfWidth, float sums[3], size_t peaks[2]),
    (p, lo, hi, halfWidth, sums, peaks)) {
    v8 s, m;
    i8 mi;
    size_t k = tone_lanes(p, lo, hi, hi, hi, &s, &m, &mi);
    float total = lanesum8(s);
    for (size_t t = k; t < hi; t++) total += p[t];
    size_t k1 = lo;
    tone_reduce(m, mi, p, k, hi, hi, hi, -1.0f, &k1);
    size_t a1 = k1 >= lo + halfWidth ? k1 - halfWidth : lo, b1 = k1 + halfWidth + 1 < hi ? k1 + halfWidth + 1 : hi;
    float first = 0;
    for (size_t t = a1; t < b1; t++) first += p[t];
    // The second peak: the largest bin outside the first window.
    k = tone_lanes(p, lo, hi, a1, b1, &s, &m, &mi);
    size_t k2 = k1;
    float second = 0;
    if (tone_reduce(m, mi, p, k, hi, a1, b1, -1.0f, &k2) > -1.0f) {
        size_t a2 = k2 >= lo + halfWidth ? k2 - halfWidth : lo, b2 = k2 + halfWidth + 1 < hi ? k2 + halfWidth + 1 : hi;
        for (size_t t = a2; t < b2; t++) if (t < a1 || t >= b1) second += p[t];
    } else {
        k2 = k1;
    }
    sums[0] = total;
    sums[1] = first;
    sums[2] = second;
    peaks[0] = k1;
    peaks[1] = k2;
}
