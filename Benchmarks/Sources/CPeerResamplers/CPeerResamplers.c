#include "CPeerResamplers.h"
#include <samplerate.h>
#include <soxr.h>
#include <speex/speex_resampler.h>
#include <stdlib.h>

enum kind { SOXR, SRC, SPEEX };

struct peer_resampler {
    enum kind kind;
    void *state;
    double ratio;
};

peer_resampler *peer_soxr_create(double input_rate, double output_rate, unsigned long recipe) {
    soxr_error_t error = NULL;
    soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
    soxr_quality_spec_t quality = soxr_quality_spec(recipe, 0);
    soxr_t s = soxr_create(input_rate, output_rate, 1, &error, &io, &quality, NULL);
    if (error || !s) return NULL;
    peer_resampler *r = malloc(sizeof *r);
    r->kind = SOXR; r->state = s; r->ratio = output_rate / input_rate;
    return r;
}

peer_resampler *peer_src_create(double input_rate, double output_rate, int converter) {
    int error = 0;
    SRC_STATE *s = src_new(converter, 1, &error);
    if (!s) return NULL;
    peer_resampler *r = malloc(sizeof *r);
    r->kind = SRC; r->state = s; r->ratio = output_rate / input_rate;
    return r;
}

peer_resampler *peer_speex_create(unsigned input_rate, unsigned output_rate, int quality) {
    int error = 0;
    SpeexResamplerState *s = speex_resampler_init(1, input_rate, output_rate, quality, &error);
    if (!s) return NULL;
    speex_resampler_skip_zeros(s);
    peer_resampler *r = malloc(sizeof *r);
    r->kind = SPEEX; r->state = s; r->ratio = (double)output_rate / input_rate;
    return r;
}

size_t peer_process(peer_resampler *r, const float *input, size_t count, float *output, size_t capacity) {
    switch (r->kind) {
    case SOXR: {
        size_t done_in = 0, done_out = 0;
        soxr_process((soxr_t)r->state, input, count, &done_in, output, capacity, &done_out);
        return done_out;
    }
    case SRC: {
        SRC_DATA d = { .data_in = input, .data_out = output, .input_frames = (long)count,
                       .output_frames = (long)capacity, .end_of_input = 0, .src_ratio = r->ratio };
        src_process((SRC_STATE *)r->state, &d);
        return (size_t)d.output_frames_gen;
    }
    case SPEEX: {
        spx_uint32_t in_len = (spx_uint32_t)count, out_len = (spx_uint32_t)capacity;
        speex_resampler_process_float((SpeexResamplerState *)r->state, 0, input, &in_len, output, &out_len);
        return out_len;
    }
    }
    return 0;
}

void peer_reset(peer_resampler *r) {
    if (!r) return;
    switch (r->kind) {
    case SOXR: soxr_clear((soxr_t)r->state); break;
    case SRC: src_reset((SRC_STATE *)r->state); break;
    case SPEEX: speex_resampler_reset_mem((SpeexResamplerState *)r->state); break;
    }
}

void peer_destroy(peer_resampler *r) {
    if (!r) return;
    switch (r->kind) {
    case SOXR: soxr_delete((soxr_t)r->state); break;
    case SRC: src_delete((SRC_STATE *)r->state); break;
    case SPEEX: speex_resampler_destroy((SpeexResamplerState *)r->state); break;
    }
    free(r);
}
