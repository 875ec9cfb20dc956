// Peer libraries for dspbench --compare and the benchmarks, loaded at run time with dlopen/dlsym. Their headers
// are not needed to build: the few types used are mirrored here from the stable C ABIs
// (libsoxr 0.1, libsamplerate 0.1/0.2, speexdsp 1.2, libebur128 1.2).
#define _GNU_SOURCE
#include "CBenchReferences.h"
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// MARK: - Mirrored peer types

// libsoxr
typedef struct {
    double precision, phase_response, passband_end, stopband_begin;
    void *e;
    unsigned long flags;
} soxr_quality_spec_t;
typedef const char *soxr_error_t;
typedef void *soxr_t;

// libsamplerate
typedef struct {
    const float *data_in;
    float *data_out;
    long input_frames, output_frames;
    long input_frames_used, output_frames_gen;
    int end_of_input;
    double src_ratio;
} SRC_DATA;

// libebur128 modes
enum {
    EBUR128_MODE_M = (1 << 0),
    EBUR128_MODE_S = (1 << 1) | EBUR128_MODE_M,
    EBUR128_MODE_I = (1 << 2) | EBUR128_MODE_M,
    EBUR128_MODE_LRA = (1 << 3) | EBUR128_MODE_S,
    EBUR128_MODE_SAMPLE_PEAK = (1 << 4) | EBUR128_MODE_M,
    EBUR128_MODE_TRUE_PEAK = (1 << 5) | EBUR128_MODE_M | EBUR128_MODE_SAMPLE_PEAK,
};

// MARK: - Loading

static struct {
    soxr_t (*create)(double, double, unsigned, soxr_error_t *, const void *, const soxr_quality_spec_t *, const void *);
    soxr_error_t (*process)(soxr_t, const void *, size_t, size_t *, void *, size_t, size_t *);
    soxr_quality_spec_t (*quality_spec)(unsigned long, unsigned long);
    soxr_error_t (*clear)(soxr_t);
    void (*delete_)(soxr_t);
    const char *(*version)(void);
} soxr;

static struct {
    void *(*new_)(int, int, int *);
    int (*process)(void *, SRC_DATA *);
    int (*reset)(void *);
    void *(*delete_)(void *);
    const char *(*strerror)(int);
    const char *(*version)(void);
} src;

static struct {
    void *(*init)(unsigned, unsigned, unsigned, int, int *);
    int (*process_float)(void *, unsigned, const float *, unsigned *, float *, unsigned *);
    int (*process_interleaved_float)(void *, const float *, unsigned *, float *, unsigned *);
    int (*reset_mem)(void *);
    void (*destroy)(void *);
    const char *(*strerror)(int);
} speex;

static struct {
    void *(*init)(unsigned, unsigned long, int);
    void (*destroy)(void **);
    int (*add_frames_float)(void *, const float *, size_t);
    int (*loudness_global)(void *, double *);
    int (*loudness_range)(void *, double *);
    void (*get_version)(int *, int *, int *);
} ebur;

static const char *const sonames[] = { "libsoxr.so.0", "libsamplerate.so.0", "libspeexdsp.so.1", "libebur128.so.1" };
static int load_state[4];  // 0 = not tried, 1 = usable, -1 = unusable
static char load_reason[4][256];
static char versions[4][64];

const char *cbs_peer_soname(cbs_peer_library library) {
    return (unsigned)library < 4 ? sonames[library] : "";
}

static void *resolve(void *handle, const char *name, int library, int *ok) {
    void *symbol = dlsym(handle, name);
    if (!symbol && *ok) {
        snprintf(load_reason[library], sizeof load_reason[library], "%s lacks %s", sonames[library], name);
        *ok = 0;
    }
    return symbol;
}

#define RESOLVE(field, name) *(void **)(&(field)) = resolve(handle, name, library, &ok)

static int load(int library) {
    void *handle = dlopen(sonames[library], RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *error = dlerror();
        snprintf(load_reason[library], sizeof load_reason[library], "%s", error ? error : "dlopen failed");
        return 0;
    }
    int ok = 1;
    switch (library) {
    case CBS_PEER_SOXR:
        RESOLVE(soxr.create, "soxr_create");
        RESOLVE(soxr.process, "soxr_process");
        RESOLVE(soxr.quality_spec, "soxr_quality_spec");
        RESOLVE(soxr.clear, "soxr_clear");
        RESOLVE(soxr.delete_, "soxr_delete");
        RESOLVE(soxr.version, "soxr_version");
        if (ok) snprintf(versions[library], sizeof versions[library], "%s", soxr.version());
        break;
    case CBS_PEER_SAMPLERATE:
        RESOLVE(src.new_, "src_new");
        RESOLVE(src.process, "src_process");
        RESOLVE(src.reset, "src_reset");
        RESOLVE(src.delete_, "src_delete");
        RESOLVE(src.strerror, "src_strerror");
        RESOLVE(src.version, "src_get_version");
        if (ok) snprintf(versions[library], sizeof versions[library], "%s", src.version());
        break;
    case CBS_PEER_SPEEXDSP:
        RESOLVE(speex.init, "speex_resampler_init");
        RESOLVE(speex.process_float, "speex_resampler_process_float");
        RESOLVE(speex.process_interleaved_float, "speex_resampler_process_interleaved_float");
        RESOLVE(speex.reset_mem, "speex_resampler_reset_mem");
        RESOLVE(speex.destroy, "speex_resampler_destroy");
        RESOLVE(speex.strerror, "speex_resampler_strerror");
        break;
    case CBS_PEER_EBUR128:
        RESOLVE(ebur.init, "ebur128_init");
        RESOLVE(ebur.destroy, "ebur128_destroy");
        RESOLVE(ebur.add_frames_float, "ebur128_add_frames_float");
        RESOLVE(ebur.loudness_global, "ebur128_loudness_global");
        RESOLVE(ebur.loudness_range, "ebur128_loudness_range");
        RESOLVE(ebur.get_version, "ebur128_get_version");
        if (ok) {
            int major = 0, minor = 0, patch = 0;
            ebur.get_version(&major, &minor, &patch);
            snprintf(versions[library], sizeof versions[library], "%d.%d.%d", major, minor, patch);
        }
        break;
    }
    if (!ok) dlclose(handle);
    return ok;
}

int cbs_peer_load(cbs_peer_library library, char *reason, size_t reason_capacity) {
    if ((unsigned)library >= 4) {
        if (reason && reason_capacity) snprintf(reason, reason_capacity, "unknown peer library %d", (int)library);
        return 0;
    }
    if (load_state[library] == 0) load_state[library] = load(library) ? 1 : -1;
    if (load_state[library] < 0 && reason && reason_capacity) snprintf(reason, reason_capacity, "%s", load_reason[library]);
    return load_state[library] > 0;
}

const char *cbs_peer_version(cbs_peer_library library) {
    return (unsigned)library < 4 && load_state[library] > 0 ? versions[library] : "";
}

// MARK: - Resamplers

struct cbs_peer_resampler {
    cbs_peer_library library;
    unsigned channels;
    void *state;
    double ratio;
    int quality;
    unsigned input_rate, output_rate;
};

static void set_reason(char *reason, size_t capacity, const char *message) {
    if (reason && capacity) snprintf(reason, capacity, "%s", message ? message : "unknown error");
}

cbs_peer_resampler *cbs_peer_resampler_create(cbs_peer_library library, int quality, unsigned input_rate,
                                              unsigned output_rate, unsigned channels, char *reason,
                                              size_t reason_capacity) {
    if (library > CBS_PEER_SPEEXDSP || !cbs_peer_load(library, reason, reason_capacity)) {
        if (library > CBS_PEER_SPEEXDSP) set_reason(reason, reason_capacity, "not a resampler library");
        return NULL;
    }
    cbs_peer_resampler *r = calloc(1, sizeof *r);
    if (!r) { set_reason(reason, reason_capacity, "out of memory"); return NULL; }
    r->library = library;
    r->channels = channels;
    r->ratio = (double)output_rate / (double)input_rate;
    r->quality = quality;
    r->input_rate = input_rate;
    r->output_rate = output_rate;
    int error = 0;
    switch (library) {
    case CBS_PEER_SOXR: {
        soxr_error_t message = NULL;
        soxr_quality_spec_t spec = soxr.quality_spec((unsigned long)quality, 0);
        r->state = soxr.create(input_rate, output_rate, channels, &message, NULL, &spec, NULL);
        if (!r->state || message) set_reason(reason, reason_capacity, message ? message : "soxr_create failed");
        break;
    }
    case CBS_PEER_SAMPLERATE:
        r->state = src.new_(quality, (int)channels, &error);
        if (!r->state) set_reason(reason, reason_capacity, src.strerror(error));
        break;
    case CBS_PEER_SPEEXDSP:
        r->state = speex.init(channels, input_rate, output_rate, quality, &error);
        if (!r->state || error) set_reason(reason, reason_capacity, speex.strerror(error));
        break;
    default:
        break;
    }
    if (!r->state) { free(r); return NULL; }
    return r;
}

long cbs_peer_resampler_process(cbs_peer_resampler *r, const float *in, size_t frames, float *out,
                                size_t output_capacity) {
    size_t taken = 0, written = 0;
    // A peer may stop early when its output fills; a few rounds cover any internal buffering.
    for (int round = 0; round < 4 && (taken < frames || round == 0); round++) {
        const float *source = in + taken * r->channels;
        float *destination = out + written * r->channels;
        size_t in_left = frames - taken, out_left = output_capacity - written;
        switch (r->library) {
        case CBS_PEER_SOXR: {
            size_t idone = 0, odone = 0;
            if (soxr.process(r->state, source, in_left, &idone, destination, out_left, &odone)) return -1;
            taken += idone;
            written += odone;
            break;
        }
        case CBS_PEER_SAMPLERATE: {
            SRC_DATA data = { source, destination, (long)in_left, (long)out_left, 0, 0, 0, r->ratio };
            if (src.process(r->state, &data)) return -1;
            taken += (size_t)data.input_frames_used;
            written += (size_t)data.output_frames_gen;
            break;
        }
        case CBS_PEER_SPEEXDSP: {
            unsigned in_len = (unsigned)in_left, out_len = (unsigned)out_left;
            int error = r->channels == 1
                ? speex.process_float(r->state, 0, source, &in_len, destination, &out_len)
                : speex.process_interleaved_float(r->state, source, &in_len, destination, &out_len);
            if (error) return -1;
            taken += in_len;
            written += out_len;
            break;
        }
        default:
            return -1;
        }
        if (written >= output_capacity) break;
    }
    return taken == frames ? (long)written : -1;
}

void cbs_peer_resampler_reset(cbs_peer_resampler *r) {
    switch (r->library) {
    case CBS_PEER_SOXR: soxr.clear(r->state); break;
    case CBS_PEER_SAMPLERATE: src.reset(r->state); break;
    case CBS_PEER_SPEEXDSP: speex.reset_mem(r->state); break;
    default: break;
    }
}

void cbs_peer_resampler_destroy(cbs_peer_resampler *r) {
    if (!r) return;
    switch (r->library) {
    case CBS_PEER_SOXR: soxr.delete_(r->state); break;
    case CBS_PEER_SAMPLERATE: src.delete_(r->state); break;
    case CBS_PEER_SPEEXDSP: speex.destroy(r->state); break;
    default: break;
    }
    free(r);
}

// MARK: - Loudness

struct cbs_peer_loudness {
    void *state;
};

cbs_peer_loudness *cbs_peer_loudness_create(unsigned channels, unsigned long sample_rate, int true_peak,
                                            char *reason, size_t reason_capacity) {
    if (!cbs_peer_load(CBS_PEER_EBUR128, reason, reason_capacity)) return NULL;
    int mode = EBUR128_MODE_I | EBUR128_MODE_LRA | (true_peak ? EBUR128_MODE_TRUE_PEAK : EBUR128_MODE_SAMPLE_PEAK);
    void *state = ebur.init(channels, sample_rate, mode);
    if (!state) { set_reason(reason, reason_capacity, "ebur128_init failed"); return NULL; }
    cbs_peer_loudness *meter = calloc(1, sizeof *meter);
    if (!meter) { ebur.destroy(&state); set_reason(reason, reason_capacity, "out of memory"); return NULL; }
    meter->state = state;
    return meter;
}

int cbs_peer_loudness_add(cbs_peer_loudness *meter, const float *in, size_t frames) {
    return ebur.add_frames_float(meter->state, in, frames);
}

double cbs_peer_loudness_integrated(cbs_peer_loudness *meter) {
    double value = NAN;
    if (ebur.loudness_global(meter->state, &value)) return NAN;
    return value;
}

double cbs_peer_loudness_range(cbs_peer_loudness *meter) {
    double value = NAN;
    if (ebur.loudness_range(meter->state, &value)) return NAN;
    return value;
}

void cbs_peer_loudness_destroy(cbs_peer_loudness *meter) {
    if (!meter) return;
    ebur.destroy(&meter->state);
    free(meter);
}
