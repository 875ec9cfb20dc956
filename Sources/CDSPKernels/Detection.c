// The dispatched kernels of DSPDetection's cue tracker. See include/CDSPDetection.h for the
// contract. Comparisons and bit counts only: exact, the same at every level. The levels with
// AVX gain a one-instruction lane-mask extraction and POPCNT (x86-64-v3 and AVX-512 copies)
// over the Swift loop they replace, which ran baseline SSE2 code (no POPCNT: a bit-trick
// sequence per word).
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
