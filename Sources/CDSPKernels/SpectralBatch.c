// Dispatched kernels for SpectralAnalyzer's post-FFT work on four frames at once. See
// include/CDSPSpectral.h for the contracts. Each kernel runs four copies of a
// Spectral.c kernel side by side — every frame its own accumulators, with exactly that kernel's
// operations in that kernel's order — so the frames' sequential adds overlap instead of waiting
// for one another, and every output is bit-identical to the one-frame kernel's. Contraction is
// off for the whole file, as in Spectral.c.
#include "CDSPSpectral.h"

#pragma STDC FP_CONTRACT OFF
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

#include "Dispatch.h"   // CDSP_DISPATCH, CDSP_INLINE
#include "Vectors.h"    // v8, ld8, st8, splat8, lanesum8
#include "HalfTwiddle.h"  // half_twiddle_strided, half_lags_block, half_lags_step

/// `power_body` (Spectral.c) for four spectra: per frame `f`, `power[f][k] = |Y_f[k]|²·scale`,
/// `sums[2f] = Σ P`, `sums[2f + 1] = Σ k·P`, and `|Y_f[k]|²` either (and 0) back into the
/// interleaved spectrum (`magnitudes` NULL: `power_body`'s layout) or into `magnitudes[f][k]`,
/// leaving the spectrum as it is. Always inlined with a constant `magnitudes` or not, so each
/// wrapper keeps one store layout in its loop.
CDSP_INLINE void power4_body(
    float *const spectra[4], size_t bins, float scale, float *const powers[4], float *const *magnitudes, float sums[8]
) {
    v8 t[4] = {{0}, {0}, {0}, {0}};
    v8 m[4] = {{0}, {0}, {0}, {0}};
    v8 index = {0, 1, 2, 3, 4, 5, 6, 7};
    v8 s = splat8(scale);
    v8 zero = {0};
    size_t k = 0;
    for (; k + 8 <= bins; k += 8) {
        // Unrolled, so that the eight accumulators stay in registers.
#pragma clang loop unroll(full)
        for (int f = 0; f < 4; f++) {
            float *sp = spectra[f];
            v8 lo = ld8(sp + 2 * k), hi = ld8(sp + 2 * k + 8);
            v8 r = __builtin_shufflevector(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14);
            v8 i = __builtin_shufflevector(lo, hi, 1, 3, 5, 7, 9, 11, 13, 15);
            v8 magnitude = r * r + i * i;
            if (magnitudes) {
                st8(magnitudes[f] + k, magnitude);
            } else {
                st8(sp + 2 * k, __builtin_shufflevector(magnitude, zero, 0, 8, 1, 9, 2, 10, 3, 11));
                st8(sp + 2 * k + 8, __builtin_shufflevector(magnitude, zero, 4, 12, 5, 13, 6, 14, 7, 15));
            }
            v8 p = magnitude * s;
            st8(powers[f] + k, p);
            t[f] = t[f] + p;
            m[f] = m[f] + p * index;
        }
        index = index + 8.0f;
    }
    float total[4], weighted[4];
    for (int f = 0; f < 4; f++) {
        total[f] = lanesum8(t[f]);
        weighted[f] = lanesum8(m[f]);
    }
    for (; k < bins; k++) {
        for (int f = 0; f < 4; f++) {
            float *spectrum = spectra[f];
            float r = spectrum[2 * k], i = spectrum[2 * k + 1];
            float magnitude = r * r + i * i;
            if (magnitudes) {
                magnitudes[f][k] = magnitude;
            } else {
                spectrum[2 * k] = magnitude;
                spectrum[2 * k + 1] = 0;
            }
            float p = magnitude * scale;
            powers[f][k] = p;
            total[f] = total[f] + p;
            weighted[f] = weighted[f] + p * (float)k;
        }
    }
    for (int f = 0; f < 4; f++) {
        sums[2 * f] = total[f];
        sums[2 * f + 1] = weighted[f];
    }
}

CDSP_DISPATCH_V3_VOID(
    cdsp_spectral_power4,
    (float *const spectra[4], size_t bins, float scale, float *const powers[4], float sums[8]),
    (spectra, bins, scale, powers, sums)) {
    power4_body(spectra, bins, scale, powers, (float *const *)0, sums);
}

CDSP_DISPATCH_V3_VOID(
    cdsp_spectral_power4_magnitudes,
    (float *const spectra[4], size_t bins, float scale, float *const powers[4], float *const magnitudes[4],
     float sums[8]),
    (spectra, bins, scale, powers, magnitudes, sums)) {
    power4_body(spectra, bins, scale, powers, magnitudes, sums);
}

/// `cdsp_spectral_half_twiddle` for four frames whose `f[j]` are contiguous
/// (`magnitudes[f][j]`, `j = 0 … m`) instead of the real parts of an interleaved spectrum: the
/// same values, the same operations in the same order (one shared body), fewer loads and shuffles.
CDSP_DISPATCH_V3_VOID(
    cdsp_spectral_half_twiddle4,
    (const float *const magnitudes[4], size_t m, const float *sine, const float *cosine, float *const ys[4],
     float f1s[4]),
    (magnitudes, m, sine, cosine, ys, f1s)) {
    for (int f = 0; f < 4; f++) half_twiddle_strided(magnitudes[f], 1, m, sine, cosine, ys[f], f1s + f);
}

/// `band_sums_body`'s per-band sums (each from 0, ascending bins) for four frames, two bands
/// at a time: eight independent chains.
CDSP_INLINE void band_sums4_body(const float *const powers[4], const ptrdiff_t *edges, size_t count, float *const outs[4]) {
    const float *q0 = powers[0], *q1 = powers[1], *q2 = powers[2], *q3 = powers[3];
    size_t b = 0;
    for (; b + 2 <= count; b += 2) {
        ptrdiff_t a = edges[b], mid = edges[b + 1], end = edges[b + 2];
        ptrdiff_t na = mid - a, nb = end - mid;
        ptrdiff_t m = na < nb ? na : nb;
        float a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;
        ptrdiff_t i = 0;
        for (; i < m; i++) {
            a0 = a0 + q0[a + i];
            a1 = a1 + q1[a + i];
            a2 = a2 + q2[a + i];
            a3 = a3 + q3[a + i];
            b0 = b0 + q0[mid + i];
            b1 = b1 + q1[mid + i];
            b2 = b2 + q2[mid + i];
            b3 = b3 + q3[mid + i];
        }
        for (ptrdiff_t j = i; j < na; j++) {
            a0 = a0 + q0[a + j];
            a1 = a1 + q1[a + j];
            a2 = a2 + q2[a + j];
            a3 = a3 + q3[a + j];
        }
        for (ptrdiff_t j = i; j < nb; j++) {
            b0 = b0 + q0[mid + j];
            b1 = b1 + q1[mid + j];
            b2 = b2 + q2[mid + j];
            b3 = b3 + q3[mid + j];
        }
        outs[0][b] = a0; outs[1][b] = a1; outs[2][b] = a2; outs[3][b] = a3;
        outs[0][b + 1] = b0; outs[1][b + 1] = b1; outs[2][b + 1] = b2; outs[3][b + 1] = b3;
    }
    for (; b < count; b++) {
        float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (ptrdiff_t k = edges[b]; k < edges[b + 1]; k++) {
            s0 = s0 + q0[k];
            s1 = s1 + q1[k];
            s2 = s2 + q2[k];
            s3 = s3 + q3[k];
        }
        outs[0][b] = s0; outs[1][b] = s1; outs[2][b] = s2; outs[3][b] = s3;
    }
}

CDSP_DISPATCH_V3_VOID(
    cdsp_spectral_band_sums4,
    (const float *const powers[4], const ptrdiff_t *edges, size_t count, float *const outs[4]),
    (powers, edges, count, outs)) {
    band_sums4_body(powers, edges, count, outs);
}

typedef float v4 __attribute__((vector_size(16)));
typedef int32_t i4 __attribute__((vector_size(16)));

/// The roll-off search for four frames: per frame, `c = 0; for k: c = c + power[k]; if c ≥
/// target → k`, else `bins − 1`. The four running sums are the lanes of one vector, added a bin
/// at a time (the same float adds in the same order as each frame's own loop); a block of eight
/// bins only records whether a lane compared true, and a frame whose lane did is then walked
/// through that block again from the block's starting sum, one add at a time, to find the bin.
CDSP_INLINE void rolloff4_body(const float *const powers[4], size_t bins, const float targets[4], ptrdiff_t out[4]) {
    const float *q[4] = {powers[0], powers[1], powers[2], powers[3]};
    v4 t = {targets[0], targets[1], targets[2], targets[3]};
    v4 c = {0, 0, 0, 0};
    ptrdiff_t last = (ptrdiff_t)bins - 1;
    ptrdiff_t result[4] = {last, last, last, last};
    int done[4] = {0, 0, 0, 0};
    int remaining = 4;
    size_t k = 0;
    for (; k + 8 <= bins && remaining > 0; k += 8) {
        v8 a0 = ld8(q[0] + k), a1 = ld8(q[1] + k), a2 = ld8(q[2] + k), a3 = ld8(q[3] + k);
        v4 start = c;
        i4 hit = {0, 0, 0, 0};
        for (int j = 0; j < 8; j++) {
            v4 x = {a0[j], a1[j], a2[j], a3[j]};
            c = c + x;
            hit |= (i4)(c >= t);
        }
        for (int f = 0; f < 4; f++) {
            if (!hit[f] || done[f]) continue;
            float cf = start[f];
            for (size_t j = 0; j < 8; j++) {
                cf = cf + q[f][k + j];
                if (cf >= t[f]) {
                    result[f] = (ptrdiff_t)(k + j);
                    break;
                }
            }
            done[f] = 1;
            remaining--;
        }
    }
    for (int f = 0; f < 4; f++) {
        if (done[f]) continue;
        float cf = c[f];
        for (size_t j = k; j < bins; j++) {
            cf = cf + q[f][j];
            if (cf >= t[f]) {
                result[f] = (ptrdiff_t)j;
                break;
            }
        }
    }
    for (int f = 0; f < 4; f++) out[f] = result[f];
}

CDSP_DISPATCH_V3_VOID(
    cdsp_spectral_rolloff4,
    (const float *const powers[4], size_t bins, const float targets[4], ptrdiff_t out[4]),
    (powers, bins, targets, out)) {
    rolloff4_body(powers, bins, targets, out);
}

/// `half_lags_body` (Spectral.c) for four frames: per frame, `ac[2k] = 2·Re Y[k]` and the odd
/// lags' prefix sum, the four frames' carries (each block's log-step scan, then the carry added
/// and taken from lane 7) side by side.
CDSP_INLINE void half_lags4_body(const float *const spectra[4], const float f1[4], size_t count, float *const acs[4]) {
    float carry[4] = {f1[0], f1[1], f1[2], f1[3]};
    size_t k = 0;
    for (; 2 * (k + 8) <= count; k += 8) {
        // Unrolled, so that the four carries stay in registers.
#pragma clang loop unroll(full)
        for (int f = 0; f < 4; f++) carry[f] = half_lags_block(spectra[f], k, carry[f], acs[f]);
    }
    for (; 2 * k < count; k++) {
        for (int f = 0; f < 4; f++) carry[f] = half_lags_step(spectra[f], k, count, carry[f], acs[f]);
    }
}

CDSP_DISPATCH_V3_VOID(
    cdsp_spectral_half_lags4,
    (const float *const spectra[4], const float f1[4], size_t count, float *const acs[4]),
    (spectra, f1, count, acs)) {
    half_lags4_body(spectra, f1, count, acs);
}
