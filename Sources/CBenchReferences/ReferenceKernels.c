// Plain C reference kernels with SpeechDSP's semantics, compiled by the same toolchain with the
// package's default flags (no -march, no -ffast-math). The dithered conversion and the
// streaming analyzer extend the plain conversion and level kernels the way a C engineer would
// write them.
#include "CBenchReferences.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

cbs_conversion_report cbs_ref_float_to_int16(const float *in, int16_t *out, size_t n) {
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
    return (cbs_conversion_report){ clipped, nans };
}

void cbs_ref_int16_to_float(const int16_t *in, float *out, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = (float)in[i] * (1.0f / 32768.0f);
}

static inline uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

cbs_conversion_report cbs_ref_float_to_int16_dithered(const float *in, int16_t *out, size_t n, uint64_t *state) {
    const float bias = 12582912.0f;
    uint64_t s = *state;
    size_t clipped = 0, nans = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = splitmix64(&s);
        float u1 = (float)(int32_t)(r >> 40) * 0x1p-24f;
        float u2 = (float)(int32_t)((r >> 8) & 0xFFFFFF) * 0x1p-24f;
        float y = ((in[i] * 32768.0f + (u1 - u2)) * (1.0f / 32768.0f)) * 32768.0f;
        int is_nan = y != y;
        y = is_nan ? 0.0f : y;
        int high = y > 32767.0f, low = y < -32768.0f;
        y = high ? 32767.0f : y;
        y = low ? -32768.0f : y;
        nans += is_nan;
        clipped += high | low;
        union { float f; uint32_t u; } b = { .f = y + bias };
        out[i] = (int16_t)(uint16_t)b.u;
    }
    *state = s;
    return (cbs_conversion_report){ clipped, nans };
}

cbs_level cbs_ref_measure_level(const float *in, size_t n, float clip_threshold) {
    cbs_level r = { 0, 0, 0, 0, 0 };
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

struct cbs_ref_level_analyzer {
    size_t frame_length;
    float clip_threshold;
    float *carry;
    size_t fill;
    // Running summary, as LevelSummary.
    uint64_t frames;
    uint64_t samples;
    double sum_squares;
    double sum;
    float peak;
    size_t clipped;
    size_t non_finite;
    double loudest_db;
    double quietest_db;
};

cbs_ref_level_analyzer *cbs_ref_level_analyzer_create(size_t frame_length, float clip_threshold) {
    cbs_ref_level_analyzer *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->frame_length = frame_length;
    a->clip_threshold = clip_threshold;
    a->carry = calloc(frame_length, sizeof(float));
    if (!a->carry) { free(a); return NULL; }
    cbs_ref_level_analyzer_reset(a);
    return a;
}

static void analyzer_record(cbs_ref_level_analyzer *a, const float *frame) {
    cbs_level level = cbs_ref_measure_level(frame, a->frame_length, a->clip_threshold);
    size_t finite = a->frame_length - level.non_finite;
    a->frames += 1;
    a->samples += finite;
    a->sum_squares += level.sum_squares;
    a->sum += level.sum;
    a->peak = level.peak > a->peak ? level.peak : a->peak;
    a->clipped += level.clipped;
    a->non_finite += level.non_finite;
    if (finite > 0) {
        double mean_square = level.sum_squares / (double)finite;
        double db = mean_square > 0 ? 10.0 * log10(mean_square) : -INFINITY;
        a->loudest_db = db > a->loudest_db ? db : a->loudest_db;
        a->quietest_db = db < a->quietest_db ? db : a->quietest_db;
    }
}

size_t cbs_ref_level_analyzer_push(cbs_ref_level_analyzer *a, const float *in, size_t n) {
    size_t measured = 0, offset = 0;
    while (offset < n) {
        if (a->fill == 0 && n - offset >= a->frame_length) {
            analyzer_record(a, in + offset);  // whole frame straight from the input
            offset += a->frame_length;
            measured++;
            continue;
        }
        size_t take = a->frame_length - a->fill;
        if (take > n - offset) take = n - offset;
        memcpy(a->carry + a->fill, in + offset, take * sizeof(float));
        a->fill += take;
        offset += take;
        if (a->fill == a->frame_length) {
            analyzer_record(a, a->carry);
            a->fill = 0;
            measured++;
        }
    }
    return measured;
}

double cbs_ref_level_analyzer_mean_square(const cbs_ref_level_analyzer *a) {
    return a->samples ? a->sum_squares / (double)a->samples : 0.0;
}

void cbs_ref_level_analyzer_reset(cbs_ref_level_analyzer *a) {
    a->fill = 0;
    a->frames = 0;
    a->samples = 0;
    a->sum_squares = 0;
    a->sum = 0;
    a->peak = 0;
    a->clipped = 0;
    a->non_finite = 0;
    a->loudest_db = -INFINITY;
    a->quietest_db = INFINITY;
}

void cbs_ref_level_analyzer_destroy(cbs_ref_level_analyzer *a) {
    if (!a) return;
    free(a->carry);
    free(a);
}
