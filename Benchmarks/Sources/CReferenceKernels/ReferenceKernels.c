#include "CReferenceKernels.h"
#include <math.h>

ref_conversion_report ref_float_to_int16(const float *in, int16_t *out, size_t n) {
    const float bias = 12582912.0f;  // 1.5 * 2^23
    size_t clipped = 0, nans = 0;
    // 32-bit counters per block of 2^20 samples, so the loop vectorises 4 (SSE) lanes wide.
    for (size_t start = 0; start < n; start += (size_t)1 << 20) {
        size_t end = n - start > ((size_t)1 << 20) ? start + ((size_t)1 << 20) : n;
        uint32_t block_clipped = 0, block_nans = 0;
        for (size_t i = start; i < end; i++) {
            float y = in[i] * 32768.0f;
            uint32_t is_nan = y != y;
            y = is_nan ? 0.0f : y;
            uint32_t high = y > 32767.0f, low = y < -32768.0f;
            y = high ? 32767.0f : y;
            y = low ? -32768.0f : y;
            block_nans += is_nan;
            block_clipped += high | low;
            union { float f; uint32_t u; } b = { .f = y + bias };
            out[i] = (int16_t)(uint16_t)b.u;
        }
        clipped += block_clipped;
        nans += block_nans;
    }
    return (ref_conversion_report){ clipped, nans };
}

void ref_int16_to_float(const int16_t *in, float *out, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = (float)in[i] * (1.0f / 32768.0f);
}

ref_level ref_measure_level(const float *in, size_t n, float clip_threshold) {
    ref_level r = { 0, 0, 0, 0, 0 };
    size_t i = 0;
    while (i + 16 <= n) {
        size_t end = i + ((n - i) & ~(size_t)15);
        if (end - i > 4096) end = i + 4096;
        float sq[16] = {0}, s[16] = {0}, pk[16] = {0};
        int32_t cl[16] = {0}, bad[16] = {0};
        for (; i < end; i += 16) {
            for (int l = 0; l < 16; l++) {
                float x = in[i + l];
                float m = fabsf(x);
                int finite = m < INFINITY;
                x = finite ? x : 0.0f;
                m = finite ? m : 0.0f;
                bad[l] += !finite;
                cl[l] += m >= clip_threshold;
                sq[l] += x * x;
                s[l] += x;
                pk[l] = m > pk[l] ? m : pk[l];
            }
        }
        for (int l = 0; l < 16; l++) {
            r.sum_squares += sq[l];
            r.sum += s[l];
            r.peak = pk[l] > r.peak ? pk[l] : r.peak;
            r.clipped += cl[l];
            r.non_finite += bad[l];
        }
    }
    for (; i < n; i++) {
        float x = in[i];
        if (!isfinite(x)) { r.non_finite++; continue; }
        float m = fabsf(x);
        r.sum_squares += x * x;
        r.sum += x;
        r.peak = m > r.peak ? m : r.peak;
        r.clipped += m >= clip_threshold;
    }
    return r;
}
