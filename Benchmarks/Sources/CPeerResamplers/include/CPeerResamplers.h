// The peer resamplers (libsoxr, libsamplerate, speexdsp) behind one tiny interface, for the
// benchmarks only. Mono float, streaming.
#pragma once
#include <stddef.h>

typedef struct peer_resampler peer_resampler;

/// libsoxr with a quality recipe (SOXR_HQ = 4, SOXR_VHQ = 6).
peer_resampler *peer_soxr_create(double input_rate, double output_rate, unsigned long recipe);
/// libsamplerate with a converter (SRC_SINC_BEST_QUALITY = 0, MEDIUM = 1, FASTEST = 2).
peer_resampler *peer_src_create(double input_rate, double output_rate, int converter);
/// speexdsp with a quality 0...10.
peer_resampler *peer_speex_create(unsigned input_rate, unsigned output_rate, int quality);
/// Resamples all of `input`; returns output samples written (at most `capacity`).
size_t peer_process(peer_resampler *resampler, const float *input, size_t count, float *output, size_t capacity);
/// Forgets the stream (soxr_clear, src_reset, speex_resampler_reset_mem): the state of a fresh
/// resampler without building its filters again.
void peer_reset(peer_resampler *resampler);
void peer_destroy(peer_resampler *resampler);
