// The one home of SpeechDSP's benchmark references, shared by dspbench, the package-benchmark
// suites (Benchmarks/) and rsbench (docs/resampler-bench): plain C reference kernels with the
// same semantics as SpeechDSP's Swift kernels, compiled by the same toolchain with the package's
// default flags, and run-time (dlopen) bindings to the peer libraries (libsoxr, libsamplerate,
// speexdsp, libebur128). Peers are never linked, only loaded when present; nothing here is
// linked by the library.
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: - C reference kernels (same semantics as SpeechDSP)

typedef struct {
    size_t clipped;
    size_t nans;
} cbs_conversion_report;

/// Float32 -> Int16: clamp(x * 32768, -32768, 32767), round to nearest even, NaN -> 0,
/// counting clipped and NaN samples (Int16Conversion.convert).
cbs_conversion_report cbs_ref_float_to_int16(const float *in, int16_t *out, size_t n);

/// Int16 -> Float32: y / 32768.
void cbs_ref_int16_to_float(const int16_t *in, float *out, size_t n);

/// Float32 -> Int16 with TPDF dither from SplitMix64, as Int16Converter(dither: .triangular):
/// per sample r = splitmix64(state), d = (r >> 40) / 2^24 - ((r >> 8) & 0xFFFFFF) / 2^24 LSB,
/// value (x * 32768 + d) / 32768 converted by the policy above. Updates *state.
cbs_conversion_report cbs_ref_float_to_int16_dithered(const float *in, int16_t *out, size_t n, uint64_t *state);

typedef struct {
    double sum_squares;
    double sum;
    float peak;
    size_t clipped;
    size_t non_finite;
} cbs_level;

/// Sum of squares, sum, peak, clipped (|x| >= threshold) and non-finite counts, non-finite
/// samples excluded (LevelMeter.measure). 16 independent float accumulators combined in double
/// per 4096-sample block.
cbs_level cbs_ref_measure_level(const float *in, size_t n, float clip_threshold);

/// A streaming level analyzer with LevelAnalyzer's semantics for one channel: the stream is cut
/// into frames of frame_length samples (pushes of any length; a partial frame is carried), each
/// frame is measured with cbs_ref_measure_level and folded into a running summary.
typedef struct cbs_ref_level_analyzer cbs_ref_level_analyzer;
cbs_ref_level_analyzer *cbs_ref_level_analyzer_create(size_t frame_length, float clip_threshold);
/// Pushes samples; returns the number of frames measured.
size_t cbs_ref_level_analyzer_push(cbs_ref_level_analyzer *analyzer, const float *in, size_t n);
/// Overall mean square of the stream so far.
double cbs_ref_level_analyzer_mean_square(const cbs_ref_level_analyzer *analyzer);
void cbs_ref_level_analyzer_reset(cbs_ref_level_analyzer *analyzer);
void cbs_ref_level_analyzer_destroy(cbs_ref_level_analyzer *analyzer);

// MARK: - Peer libraries, loaded with dlopen (never linked)

typedef enum {
    CBS_PEER_SOXR = 0,        // libsoxr.so.0
    CBS_PEER_SAMPLERATE = 1,  // libsamplerate.so.0
    CBS_PEER_SPEEXDSP = 2,    // libspeexdsp.so.1
    CBS_PEER_EBUR128 = 3,     // libebur128.so.1
} cbs_peer_library;

/// The shared object name dlopen is given for `library`.
const char *cbs_peer_soname(cbs_peer_library library);
/// Loads the library (once; later calls return the first result) and resolves the symbols
/// dspbench uses. Returns 1 when usable; otherwise 0 and a reason in `reason`.
int cbs_peer_load(cbs_peer_library library, char *reason, size_t reason_capacity);
/// The library's version as it reports it ("" when it has no version call or is not loaded).
const char *cbs_peer_version(cbs_peer_library library);

/// Quality arguments for cbs_peer_resampler_create, per library.
enum {
    CBS_SOXR_HQ = 4,                    // SOXR_HQ (20-bit)
    CBS_SOXR_VHQ = 6,                   // SOXR_VHQ (28-bit)
    CBS_SRC_SINC_BEST_QUALITY = 0,
    CBS_SRC_SINC_MEDIUM_QUALITY = 1,
    CBS_SRC_SINC_FASTEST = 2,
    // speexdsp: the quality 0...10 itself.
};

typedef struct cbs_peer_resampler cbs_peer_resampler;
/// A streaming resampler of interleaved Float32 from a peer (loaded first with cbs_peer_load):
/// soxr_create with soxr_quality_spec(quality, 0) and one thread; src_new(quality); or
/// speex_resampler_init(quality). NULL and a reason on failure.
cbs_peer_resampler *cbs_peer_resampler_create(cbs_peer_library library, int quality, unsigned input_rate,
                                              unsigned output_rate, unsigned channels, char *reason,
                                              size_t reason_capacity);
/// Pushes `frames` interleaved frames, writing at most `output_capacity` frames. Returns the
/// frames written, or -1 when the peer reported an error or did not take all of the input.
long cbs_peer_resampler_process(cbs_peer_resampler *resampler, const float *in, size_t frames, float *out,
                                size_t output_capacity);
/// Forgets the stream (soxr_clear, src_reset, speex_resampler_reset_mem).
void cbs_peer_resampler_reset(cbs_peer_resampler *resampler);
void cbs_peer_resampler_destroy(cbs_peer_resampler *resampler);

typedef struct cbs_peer_loudness cbs_peer_loudness;
/// libebur128: ebur128_init(channels, rate, EBUR128_MODE_I | EBUR128_MODE_LRA | peak mode),
/// with EBUR128_MODE_TRUE_PEAK when `true_peak` is non-zero, else EBUR128_MODE_SAMPLE_PEAK.
cbs_peer_loudness *cbs_peer_loudness_create(unsigned channels, unsigned long sample_rate, int true_peak,
                                            char *reason, size_t reason_capacity);
/// ebur128_add_frames_float; returns 0 on success.
int cbs_peer_loudness_add(cbs_peer_loudness *meter, const float *in, size_t frames);
/// ebur128_loudness_global, LUFS (-inf for silence; NaN on error).
double cbs_peer_loudness_integrated(cbs_peer_loudness *meter);
/// ebur128_loudness_range, LU (NaN on error).
double cbs_peer_loudness_range(cbs_peer_loudness *meter);
void cbs_peer_loudness_destroy(cbs_peer_loudness *meter);

#ifdef __cplusplus
}
#endif
