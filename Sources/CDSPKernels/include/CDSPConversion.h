// Sample-format conversion kernels: the 16-bit PCM widening of DSPIO.AudioFileReader
// (Conversion.c). Exact: the results are the same on every clone and every CPU.
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Widens `count` 16-bit samples to Float: `out[i] = (float)in[i] · 2⁻¹⁵` (exact, as
/// `sf_readf_float` with normalisation gives). `in` may overlap `out` if it starts at or after
/// `(const int16_t *)out + count` (the reader reads the shorts into the back half of its float
/// buffer): each group of samples is loaded before the floats over it are stored, front to
/// back, and no store reaches a sample not yet loaded.
void cdsp_widen_pcm16(const int16_t *in, float *out, size_t count);

#ifdef __cplusplus
}
#endif
