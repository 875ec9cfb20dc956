// Plain C reference kernels, built by the same toolchain with the package's default flags,
// for side-by-side throughput ratios. Same semantics as SpeechDSP's Swift kernels.
#pragma once
#include <stddef.h>
#include <stdint.h>

typedef struct {
    size_t clipped;
    size_t nans;
} ref_conversion_report;

/// Float32 -> Int16: clamp(x * 32768, -32768, 32767), round to nearest even, NaN -> 0,
/// counting clipped and NaN samples. Rounds by adding 1.5 * 2^23 (the idiom a C engineer
/// reaches for when lrintf is a library call without -fno-math-errno).
ref_conversion_report ref_float_to_int16(const float *in, int16_t *out, size_t n);

/// Int16 -> Float32: y / 32768.
void ref_int16_to_float(const int16_t *in, float *out, size_t n);

typedef struct {
    double sum_squares;
    double sum;
    float peak;
    size_t clipped;
    size_t non_finite;
} ref_level;

/// Mean square, sum, peak, clipped (|x| >= threshold) and non-finite counts, non-finite
/// samples excluded. 16 independent float accumulators (so the compiler can vectorise
/// without -ffast-math), combined in double per 4096-sample block — as SpeechDSP does.
ref_level ref_measure_level(const float *in, size_t n, float clip_threshold);
