/*
 * speechdsp.h — SpeechDSP's C ABI (libSpeechDSPC.so, the `SpeechDSPC` dynamic library product).
 *
 * The functions are Swift (`Sources/SpeechDSPC`, `@_cdecl`) compiled against this header, so the
 * structs below are the ones the library reads and writes. Python's `speechdsp` package calls
 * them through ctypes.
 *
 * Conventions
 * - Every function that can fail returns an `sdsp_status`: SDSP_OK (0) or a negative code. On
 *   failure, sdsp_last_error() gives a message naming the bad argument and the accepted range.
 *   The message is thread-local: it belongs to the last failed call *on the calling thread*
 *   and stays valid until that thread's next failed call. Successful calls leave it alone.
 * - No Swift error, trap or exception crosses the boundary for bad input: NULL pointers,
 *   negative counts, unsupported rates, short buffers and counts that are not whole frames
 *   are refused with a code. (Passing a pointer to fewer elements than the count says cannot
 *   be detected, as in any C API.)
 * - Buffers are owned by the caller. Samples are Float32, interleaved for several channels;
 *   counts are samples (all channels), `int64_t`, unless a name says frames.
 * - Streaming objects are opaque handles: *_create, *_process, *_flush / *_finish, *_destroy.
 *   One handle serves one stream; calls on one handle must not overlap (serialise them: the
 *   Python wrapper holds a lock per object). Distinct handles share nothing and may be used
 *   on any threads at once. *_destroy accepts NULL.
 * - The one-shot functions (sdsp_resample, sdsp_levels, sdsp_loudness) allocate internally
 *   and are not for a real-time thread; sdsp_frontend_process allocates only when it is
 *   given a larger event capacity than any call before it.
 * - Levels in dB are -INFINITY for digital silence; NaN marks "not measured" where a field
 *   says so.
 *
 * Versioning: sdsp_abi_version() returns SDSP_ABI_VERSION of the build; a caller compiled
 * against another value must not use the library (struct layouts may differ).
 */
#ifndef SPEECHDSP_H
#define SPEECHDSP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SDSP_ABI_VERSION 4

/* MARK: Status codes */

typedef int32_t sdsp_status;
#define SDSP_OK 0
/** A required pointer was NULL. */
#define SDSP_ERROR_NULL_POINTER (-1)
/** An argument was out of range (a negative count, a count that is not whole frames, a
 *  channel count of 0, an unknown enum value). */
#define SDSP_ERROR_INVALID_ARGUMENT (-2)
/** A configuration the library refuses: a sample rate or ratio out of range, a stage set
 *  that is not valid. The message quotes the parameter, its value and the accepted range. */
#define SDSP_ERROR_UNSUPPORTED_CONFIGURATION (-3)
/** An output buffer is smaller than the call needs (the message gives the need). */
#define SDSP_ERROR_BUFFER_TOO_SMALL (-4)
/** The call is not valid in the handle's state (e.g. segments of a detector not finished). */
#define SDSP_ERROR_INVALID_STATE (-5)
/** The library failed where it should not (a bug): please report the message. */
#define SDSP_ERROR_INTERNAL (-99)

/** The message of the last failed call on this thread ("" if none). Never NULL. */
const char *sdsp_last_error(void);
/** The library version, e.g. "0.1.0" (static storage). */
const char *sdsp_version(void);
/** SDSP_ABI_VERSION of the library. */
int32_t sdsp_abi_version(void);

/* MARK: Enumerations */

/** Resampler presets (alias/image rejection ≥ 80, 100, 120 dB). */
#define SDSP_QUALITY_LOW_LATENCY 0
#define SDSP_QUALITY_DEFAULT 1
#define SDSP_QUALITY_HIGH 2

#define SDSP_ACTIVITY_NONE (-1)
#define SDSP_ACTIVITY_SPEECH 0
#define SDSP_ACTIVITY_MUSIC 1
#define SDSP_ACTIVITY_MULTI_SPEAKER 2

/* MARK: Float32 → Int16 */

/**
 * Converts `count` samples to Int16: Int16(clamp(x × 32768, −32768, 32767)), rounded to
 * nearest with ties to even, in Float32; NaN → 0, +Inf → 32767, −Inf → −32768. `output` holds
 * at least `count` samples. `clipped_count` (samples whose x × 32768 lay outside
 * −32768…32767, ±Inf included) and `nan_count` may be NULL. Never allocates.
 */
sdsp_status sdsp_to_int16(const float *input, int64_t count, int16_t *output,
                          int64_t *clipped_count, int64_t *nan_count);

/** Converts `count` Int16 samples to Float32 (y / 32768). Never allocates. */
sdsp_status sdsp_to_float(const int16_t *input, int64_t count, float *output);

/* MARK: Resampling */

/**
 * The frames sdsp_resample writes for `input_frames` frames: round(N × output_rate /
 * input_rate), halves rounded up. Fails only for rates outside 1 000…768 000 Hz or a
 * negative count.
 */
sdsp_status sdsp_resample_output_frames(int64_t input_frames, int32_t input_rate, int32_t output_rate,
                                        int64_t *output_frames);

/**
 * Resamples a whole signal (`count` interleaved samples of `channel_count` channels, whole
 * frames) from `input_rate` to `output_rate`, aligned with the input (the filter's delay
 * trimmed): sdsp_resample_output_frames(...) frames. `output_capacity` is in samples; too small
 * gives SDSP_ERROR_BUFFER_TOO_SMALL. `quality` is an SDSP_QUALITY_* value. `produced` (samples
 * written) may be NULL.
 */
sdsp_status sdsp_resample(const float *input, int64_t count, int32_t channel_count, int32_t input_rate,
                          int32_t output_rate, int32_t quality, float *output, int64_t output_capacity,
                          int64_t *produced);

/* MARK: Levels */

typedef struct sdsp_levels {
    /** 10·log10(mean x²) over the finite samples, dBFS (−∞ for digital silence). */
    double rms_dbfs;
    /** rms_dbfs + 3.0103 (AES17: a full-scale sine reads 0 dB). */
    double rms_dbfs_aes17;
    /** Largest |x|, dBFS. */
    double peak_dbfs;
    /** Mean of the finite samples. */
    double dc_offset;
    /** Finite samples at or beyond clip_threshold × full scale. */
    int64_t clipped_samples;
    /** NaN and ±Inf samples (excluded from everything else). */
    int64_t non_finite_samples;
    /** RMS of the loudest / quietest analysis frame, dBFS. */
    double loudest_frame_rms_dbfs;
    double quietest_frame_rms_dbfs;
    /** Finite samples measured (all channels). */
    int64_t sample_count;
    /** Analysis frames (the last may be partial). */
    int64_t analysis_frame_count;
    /** Frames / sample_rate, seconds. */
    double duration_seconds;
} sdsp_levels;

/**
 * Levels of a whole signal, as `dspscore` records them (LevelAnalyzer): `frame_length` frames
 * per analysis frame (dspscore: 1024), `clip_threshold` a fraction of full scale in (0, ∞)
 * (dspscore: 1.0), `pcm_bits` 0 for float samples (full scale ±1) or 8…32 for samples read
 * from integer PCM as code / 2^(bits−1) (both rails then count as clipped).
 */
sdsp_status sdsp_levels_measure(const float *input, int64_t count, int32_t sample_rate, int32_t channel_count,
                                int32_t frame_length, float clip_threshold, int32_t pcm_bits, sdsp_levels *result);

/* MARK: Loudness */

typedef struct sdsp_loudness {
    /** Gated integrated loudness (BS.1770-5), LUFS; −∞ when no 400 ms block passes the gates. */
    double integrated_lufs;
    /** Loudness range (EBU Tech 3342), LU. */
    double loudness_range_lu;
    /** Largest true peak over all channels, dBTP; NaN when not measured. */
    double true_peak_dbtp;
    /** Largest sample peak, dBFS. */
    double sample_peak_dbfs;
    /** Largest momentary (400 ms) and short-term (3 s) loudness, LUFS. */
    double max_momentary_lufs;
    double max_short_term_lufs;
    /** The relative gate, LUFS; 400 ms blocks that passed both gates. */
    double relative_gate_lufs;
    int64_t gated_block_count;
    /** NaN and ±Inf samples, measured as 0. */
    int64_t non_finite_samples;
    double duration_seconds;
} sdsp_loudness;

/**
 * BS.1770-5 / EBU R128 loudness of a whole signal at its own rate (8 000…768 000 Hz), as
 * `dspscore` measures files: channel weights by count (1 mono, 2 stereo, 5 = L R C Ls Rs,
 * 6 = L R C LFE Ls Rs, otherwise every channel 1.0); true peak when `true_peak` is non-zero.
 */
sdsp_status sdsp_loudness_measure(const float *input, int64_t count, int32_t sample_rate, int32_t channel_count,
                                  int32_t true_peak, sdsp_loudness *result);

/* MARK: Detection (speech, music, several speakers) */

/** Which detections run besides speech. */
#define SDSP_DETECT_MUSIC (1u << 0)
#define SDSP_DETECT_MULTI_SPEAKER (1u << 1)
/** Speech segments keep the segmenter's edges instead of reading them from the 16 ms hops' power
 *  (the default; sdsp_frontend_config.speech_boundaries). Added in ABI version 4. */
#define SDSP_DETECT_NO_SPEECH_BOUNDARIES (1u << 2)

typedef struct sdsp_detector sdsp_detector;

typedef struct sdsp_segment {
    int32_t activity; /* SDSP_ACTIVITY_* */
    int32_t reserved;
    /** First sample (inclusive) and end (exclusive), at 16 kHz. */
    int64_t start_sample;
    int64_t end_sample;
} sdsp_segment;

typedef struct sdsp_detection_summary {
    /** The 16 kHz stream's duration, seconds, and its samples. */
    double duration_seconds;
    int64_t sample_count;
    /** Fractions of the duration inside segments, 0…1 (music / multi-speaker: 0 when off). */
    double speech_ratio;
    double music_ratio;
    double multi_speaker_ratio;
    double speech_seconds;
    double music_seconds;
    double multi_speaker_seconds;
    int64_t speech_segment_count;
    int64_t music_segment_count;
    int64_t multi_speaker_segment_count;
    /** Median of the background-noise readings (the noise under speech, music and talkers,
        read every 0.5 s and at the end), dBFS, to 0.5 dB (−∞ for a digitally silent background). */
    double noise_floor_dbfs;
} sdsp_detection_summary;

/**
 * A detector for one stream of `channel_count` interleaved channels at `sample_rate`: the
 * audio is mixed to mono and resampled to 16 kHz (delay trimmed), then analysed by the chain
 * `dspscore` and SpeechFrontEnd run. `flags`: SDSP_DETECT_* bits.
 */
sdsp_status sdsp_detector_create(int32_t sample_rate, int32_t channel_count, uint32_t flags, sdsp_detector **detector);
/** Adds `count` samples (any count; a partial frame is carried). Allocates. */
sdsp_status sdsp_detector_process(sdsp_detector *detector, const float *input, int64_t count);
/** Ends the stream: closes open segments and writes the summary (may be NULL). The segments
 *  stay readable until the next process (which starts a new stream) or destroy. */
sdsp_status sdsp_detector_finish(sdsp_detector *detector, sdsp_detection_summary *summary);
/** The finished stream's segments in start order: writes min(capacity, total) and sets
 *  `total` (may be NULL) to their number. `segments` may be NULL when `capacity` is 0. */
sdsp_status sdsp_detector_segments(sdsp_detector *detector, sdsp_segment *segments, int64_t capacity, int64_t *total);
void sdsp_detector_destroy(sdsp_detector *detector);

/* MARK: Front end (one live stream) */

/** Stages (SpeechFrontEnd.Stages bits). */
#define SDSP_STAGE_OUTPUT (1u << 0)
#define SDSP_STAGE_LEVELS (1u << 1)
#define SDSP_STAGE_LOUDNESS (1u << 2)
#define SDSP_STAGE_CLIPPING (1u << 3)
#define SDSP_STAGE_DETECTION (1u << 4)
#define SDSP_STAGE_ENVIRONMENT (1u << 5)
#define SDSP_STAGE_ALL 0x3Fu

typedef struct sdsp_frontend_config {
    /** Input rate, Hz: 8 000…384 000. */
    int32_t input_rate;
    /** Interleaved channels: 1…64. */
    int32_t channel_count;
    /** SDSP_STAGE_* bits (environment needs detection). */
    uint32_t stages;
    /** SDSP_QUALITY_*. */
    int32_t resampler_quality;
    /** |x| at or above which an input sample counts as clipped, > 0 (default 32767/32768). */
    float clip_threshold;
    /** Clipping window, ms of input: 1…10 000 (default 100). */
    int32_t clip_window_ms;
    /** Non-zero: a levels event per 1024-sample frame (default 1). */
    int32_t emits_level_events;
    /** -1: channels averaged (default); 0…channel_count−1: that channel only. */
    int32_t downmix_channel;
    /** 16 ms detection hops analysed together: 1…4 (default 4; SpeechFrontEnd's
     *  detectionHopsPerBatch). Output and events are the same for every value; 1 spreads the
     *  detection's work evenly over the pushes (a lower worst-case push time, for services
     *  running many streams) for a few percent more CPU, 4 costs least. Added in ABI version 2. */
    int32_t detection_hops_per_batch;
    /* The detection settings below (SpeechFrontEnd.Configuration.detector; docs/front-end.md,
     * "Detection settings") were added in ABI version 3. */
    /** Non-zero (default 1): the fitted network blended into voice activity; 0: the speech model
     *  alone: a stream's first half second heard sooner, music and noise called speech more often
     *  (docs/front-end.md, "Detection settings"). */
    int32_t speech_blend;
    /** Non-zero (default 1): steady pure tones and sounds whose spectrum holds still are kept out
     *  of voice activity. */
    int32_t pure_tone_gate;
    /** Non-zero (default 1): music is detected. With this and detects_multiple_speakers both 0,
     *  voice activity runs alone (its own model, about 40 % less detection work). */
    int32_t detects_music;
    /** Non-zero (default 1): several simultaneous speakers are detected. */
    int32_t detects_multiple_speakers;
    /** The voice-activity segmenter. A segment opens when the probability stays at or above
     *  speech_on_threshold for speech_min_seconds (its start back-dated to the run's first frame
     *  less speech_padding_seconds) and closes when it stays below speech_off_threshold for
     *  speech_hangover_seconds; it ends after its last frame at or above speech_end_threshold
     *  (NaN: none, the off threshold), plus the padding. 0 <= off <= on <= 1, off <= end <= 1,
     *  durations finite and >= 0. sdsp_frontend_config_default sets the detector's defaults. */
    float speech_on_threshold;
    float speech_off_threshold;
    float speech_end_threshold;
    double speech_min_seconds;
    double speech_hangover_seconds;
    double speech_padding_seconds;
    /** Seconds over which the blended network's share rises from 0 at the stream's start to its
     *  full share (0…60; default 0: the full share from the first frame). 0.5 hears a stream that
     *  opens on speech sooner, for a little more speech called on music and noise in their first
     *  second (docs/detection.md, "The blend's network weighed in"). */
    double speech_blend_warm_up_seconds;
    /** Non-zero (default 1): speech segments' edges are read from the 16 ms hops' own power (an
     *  end moves back to the last hop that still sounds, a start back over the hops before it that
     *  already do, each by at most 0.1 s; docs/detection.md, "Speech boundaries read from the hops'
     *  energy"); 0: the segmenter's edges as they are. Added in ABI version 4. */
    int32_t speech_boundaries;
} sdsp_frontend_config;

/** The defaults for a stream of `input_rate` Hz and `channel_count` channels. */
sdsp_frontend_config sdsp_frontend_config_default(int32_t input_rate, int32_t channel_count);

typedef struct sdsp_frontend sdsp_frontend;

#define SDSP_EVENT_STARTED 0
#define SDSP_EVENT_ENDED 1
#define SDSP_EVENT_ENVIRONMENT 2
#define SDSP_EVENT_CLIPPING 3
#define SDSP_EVENT_LEVELS 4

/** One front-end event. The fields after `seconds` are those of the event's kind; the others
 *  are 0. Times: input frames and 16 kHz output samples from the stream start; the one on the
 *  event's own grid is exact (SpeechDSP's StreamTime). */
typedef struct sdsp_event {
    int32_t kind;     /* SDSP_EVENT_* */
    int32_t activity; /* SDSP_ACTIVITY_* for STARTED / ENDED, else SDSP_ACTIVITY_NONE */
    int64_t input_frame;
    int64_t output_sample;
    double seconds;
    /* CLIPPING: the window's input frames, clipped and non-finite input samples. */
    int64_t frame_count;
    int64_t clipped_samples;
    int64_t non_finite_samples;
    /* LEVELS: one 1024-sample frame of the 16 kHz stream (momentary / short-term NaN when the
     * loudness stage is off). */
    int64_t sample_count;
    double rms_dbfs;
    double peak_dbfs;
    double momentary_lufs;
    double short_term_lufs;
    /* ENVIRONMENT (SpeechDSP's EnvironmentMeasurement; NaN for an absent optional). */
    double window_seconds;
    double noise_dbfs;
    double noise_level_db;
    double speech_dbfs;
    double speech_to_noise_db;
    double speech_fraction;
    double music_fraction;
    double multi_speaker_fraction;
    double speech_clarity;
    double frequency_complexity;
    double rt60_seconds;
    double c50_db;
    int32_t noise_category;           /* 0 very_quiet, 1 quiet, 2 moderate, 3 loud, 4 very_loud */
    int32_t noise_source;             /* 0 non_speech_frames, 1 noise_tracker, 2 quietest_frame, 3 background_estimator */
    int32_t category_noise_level;     /* dB, a multiple of 5 */
    int32_t music_detected;           /* 0 / 1 */
    int32_t multiple_speakers_detected;
    int32_t recommendation;           /* 0 fast, 1 accurate */
    int32_t preferred_recommendation;
    int32_t reserved;
} sdsp_event;

typedef struct sdsp_frontend_result {
    /** Input samples taken (all, when the output buffer holds sdsp_frontend_output_capacity). */
    int64_t consumed;
    /** 16 kHz Int16 samples written. */
    int64_t produced;
    /** Events written; events that did not fit and were dropped. */
    int64_t events;
    int64_t dropped_events;
} sdsp_frontend_result;

typedef struct sdsp_frontend_summary {
    int64_t input_frame_count;
    /** round(input_frame_count × 16000 / input_rate). */
    int64_t output_sample_count;
    double duration_seconds;
    int64_t clipped_samples;
    int64_t non_finite_samples;
    /** Loudness of the 16 kHz stream (NaN when the loudness stage is off). */
    double integrated_lufs;
    double loudness_range_lu;
    /** Detection totals (all 0 and has_detection 0 when the stage is off). */
    int32_t has_detection;
    int32_t reserved;
    double speech_ratio;
    double music_ratio;
    double multi_speaker_ratio;
    double speech_seconds;
    int64_t speech_segment_count;
    double noise_floor_dbfs;
} sdsp_frontend_summary;

sdsp_status sdsp_frontend_create(const sdsp_frontend_config *config, sdsp_frontend **frontend);
/** Output capacity (Int16 samples) and event capacity that cover any process call with up to
 *  `max_input_count` samples in any state, and the flush (SpeechFrontEnd.bufferSizes). */
sdsp_status sdsp_frontend_buffer_sizes(const sdsp_frontend *frontend, int64_t max_input_count,
                                       int64_t *output_capacity, int64_t *event_capacity);
/** Processes `count` interleaved samples (any count): PCM into `output`, events into `events`.
 *  Buffers of sdsp_frontend_buffer_sizes(count) take everything; smaller ones take what fits
 *  (result->consumed) and drop the events beyond `event_capacity` (counted). */
sdsp_status sdsp_frontend_process(sdsp_frontend *frontend, const float *input, int64_t count, int16_t *output,
                                  int64_t output_capacity, sdsp_event *events, int64_t event_capacity,
                                  sdsp_frontend_result *result);
/** Ends the stream (tail, last events, summary) and readies the front end for a new one.
 *  `output_capacity` must be at least the flush's bound (sdsp_frontend_buffer_sizes(0)). */
sdsp_status sdsp_frontend_flush(sdsp_frontend *frontend, int16_t *output, int64_t output_capacity, sdsp_event *events,
                                int64_t event_capacity, sdsp_frontend_result *result, sdsp_frontend_summary *summary);
/** Forgets the stream without its tail. */
sdsp_status sdsp_frontend_reset(sdsp_frontend *frontend);
/** The audio path's latency (the resampler's group delay), seconds. */
double sdsp_frontend_latency_seconds(const sdsp_frontend *frontend);
void sdsp_frontend_destroy(sdsp_frontend *frontend);

/* MARK: For the Swift implementation (not API) */

/** Sets this thread's message (copied, truncated to 1023 bytes). */
void sdsp__set_error(const char *message);

#ifdef __cplusplus
}
#endif

#endif /* SPEECHDSP_H */
