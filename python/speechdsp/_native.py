"""ctypes bindings to libSpeechDSPC.so, SpeechDSP's C ABI (Sources/CSpeechDSP/include/speechdsp.h).

The structures here mirror the header field for field; `sdsp_abi_version()` is checked at load
so a library of another layout is refused rather than misread.
"""

from __future__ import annotations

import ctypes
import os
import pathlib

ABI_VERSION = 4

OK = 0
ERROR_NULL_POINTER = -1
ERROR_INVALID_ARGUMENT = -2
ERROR_UNSUPPORTED_CONFIGURATION = -3
ERROR_BUFFER_TOO_SMALL = -4
ERROR_INVALID_STATE = -5
ERROR_INTERNAL = -99

QUALITIES = {"low_latency": 0, "default": 1, "high": 2}
ACTIVITIES = {0: "speech", 1: "music", 2: "multi_speaker"}

DETECT_MUSIC = 1 << 0
DETECT_MULTI_SPEAKER = 1 << 1
DETECT_NO_SPEECH_BOUNDARIES = 1 << 2

STAGES = {
    "output": 1 << 0,
    "levels": 1 << 1,
    "loudness": 1 << 2,
    "clipping": 1 << 3,
    "detection": 1 << 4,
    "environment": 1 << 5,
}

EVENT_KINDS = {0: "started", 1: "ended", 2: "environment", 3: "clipping", 4: "levels"}
NOISE_CATEGORIES = ["very_quiet", "quiet", "moderate", "loud", "very_loud"]
NOISE_SOURCES = ["non_speech_frames", "noise_tracker", "quietest_frame", "background_estimator"]
RECOMMENDATIONS = ["fast", "accurate"]

c_float_p = ctypes.POINTER(ctypes.c_float)
c_int16_p = ctypes.POINTER(ctypes.c_int16)
c_int64_p = ctypes.POINTER(ctypes.c_int64)


class Levels(ctypes.Structure):
    _fields_ = [
        ("rms_dbfs", ctypes.c_double),
        ("rms_dbfs_aes17", ctypes.c_double),
        ("peak_dbfs", ctypes.c_double),
        ("dc_offset", ctypes.c_double),
        ("clipped_samples", ctypes.c_int64),
        ("non_finite_samples", ctypes.c_int64),
        ("loudest_frame_rms_dbfs", ctypes.c_double),
        ("quietest_frame_rms_dbfs", ctypes.c_double),
        ("sample_count", ctypes.c_int64),
        ("analysis_frame_count", ctypes.c_int64),
        ("duration_seconds", ctypes.c_double),
    ]


class Loudness(ctypes.Structure):
    _fields_ = [
        ("integrated_lufs", ctypes.c_double),
        ("loudness_range_lu", ctypes.c_double),
        ("true_peak_dbtp", ctypes.c_double),
        ("sample_peak_dbfs", ctypes.c_double),
        ("max_momentary_lufs", ctypes.c_double),
        ("max_short_term_lufs", ctypes.c_double),
        ("relative_gate_lufs", ctypes.c_double),
        ("gated_block_count", ctypes.c_int64),
        ("non_finite_samples", ctypes.c_int64),
        ("duration_seconds", ctypes.c_double),
    ]


class Segment(ctypes.Structure):
    _fields_ = [
        ("activity", ctypes.c_int32),
        ("reserved", ctypes.c_int32),
        ("start_sample", ctypes.c_int64),
        ("end_sample", ctypes.c_int64),
    ]


class DetectionSummary(ctypes.Structure):
    _fields_ = [
        ("duration_seconds", ctypes.c_double),
        ("sample_count", ctypes.c_int64),
        ("speech_ratio", ctypes.c_double),
        ("music_ratio", ctypes.c_double),
        ("multi_speaker_ratio", ctypes.c_double),
        ("speech_seconds", ctypes.c_double),
        ("music_seconds", ctypes.c_double),
        ("multi_speaker_seconds", ctypes.c_double),
        ("speech_segment_count", ctypes.c_int64),
        ("music_segment_count", ctypes.c_int64),
        ("multi_speaker_segment_count", ctypes.c_int64),
        ("noise_floor_dbfs", ctypes.c_double),
    ]


class FrontEndConfig(ctypes.Structure):
    _fields_ = [
        ("input_rate", ctypes.c_int32),
        ("channel_count", ctypes.c_int32),
        ("stages", ctypes.c_uint32),
        ("resampler_quality", ctypes.c_int32),
        ("clip_threshold", ctypes.c_float),
        ("clip_window_ms", ctypes.c_int32),
        ("emits_level_events", ctypes.c_int32),
        ("downmix_channel", ctypes.c_int32),
        ("detection_hops_per_batch", ctypes.c_int32),
        ("speech_blend", ctypes.c_int32),
        ("pure_tone_gate", ctypes.c_int32),
        ("detects_music", ctypes.c_int32),
        ("detects_multiple_speakers", ctypes.c_int32),
        ("speech_on_threshold", ctypes.c_float),
        ("speech_off_threshold", ctypes.c_float),
        ("speech_end_threshold", ctypes.c_float),
        ("speech_min_seconds", ctypes.c_double),
        ("speech_hangover_seconds", ctypes.c_double),
        ("speech_padding_seconds", ctypes.c_double),
        ("speech_blend_warm_up_seconds", ctypes.c_double),
        ("speech_boundaries", ctypes.c_int32),
    ]


class Event(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_int32),
        ("activity", ctypes.c_int32),
        ("input_frame", ctypes.c_int64),
        ("output_sample", ctypes.c_int64),
        ("seconds", ctypes.c_double),
        ("frame_count", ctypes.c_int64),
        ("clipped_samples", ctypes.c_int64),
        ("non_finite_samples", ctypes.c_int64),
        ("sample_count", ctypes.c_int64),
        ("rms_dbfs", ctypes.c_double),
        ("peak_dbfs", ctypes.c_double),
        ("momentary_lufs", ctypes.c_double),
        ("short_term_lufs", ctypes.c_double),
        ("window_seconds", ctypes.c_double),
        ("noise_dbfs", ctypes.c_double),
        ("noise_level_db", ctypes.c_double),
        ("speech_dbfs", ctypes.c_double),
        ("speech_to_noise_db", ctypes.c_double),
        ("speech_fraction", ctypes.c_double),
        ("music_fraction", ctypes.c_double),
        ("multi_speaker_fraction", ctypes.c_double),
        ("speech_clarity", ctypes.c_double),
        ("frequency_complexity", ctypes.c_double),
        ("rt60_seconds", ctypes.c_double),
        ("c50_db", ctypes.c_double),
        ("noise_category", ctypes.c_int32),
        ("noise_source", ctypes.c_int32),
        ("category_noise_level", ctypes.c_int32),
        ("music_detected", ctypes.c_int32),
        ("multiple_speakers_detected", ctypes.c_int32),
        ("recommendation", ctypes.c_int32),
        ("preferred_recommendation", ctypes.c_int32),
        ("reserved", ctypes.c_int32),
    ]


class FrontEndResult(ctypes.Structure):
    _fields_ = [
        ("consumed", ctypes.c_int64),
        ("produced", ctypes.c_int64),
        ("events", ctypes.c_int64),
        ("dropped_events", ctypes.c_int64),
    ]


class FrontEndSummary(ctypes.Structure):
    _fields_ = [
        ("input_frame_count", ctypes.c_int64),
        ("output_sample_count", ctypes.c_int64),
        ("duration_seconds", ctypes.c_double),
        ("clipped_samples", ctypes.c_int64),
        ("non_finite_samples", ctypes.c_int64),
        ("integrated_lufs", ctypes.c_double),
        ("loudness_range_lu", ctypes.c_double),
        ("has_detection", ctypes.c_int32),
        ("reserved", ctypes.c_int32),
        ("speech_ratio", ctypes.c_double),
        ("music_ratio", ctypes.c_double),
        ("multi_speaker_ratio", ctypes.c_double),
        ("speech_seconds", ctypes.c_double),
        ("speech_segment_count", ctypes.c_int64),
        ("noise_floor_dbfs", ctypes.c_double),
    ]


def library_path() -> pathlib.Path:
    """The shared library: $SPEECHDSP_LIBRARY; else the copy bundled in the package (the wheel's);
    else, for the package imported from a checkout (PYTHONPATH=python), the newest of the
    checkout's `swift build --product SpeechDSPC` builds (.build/release, .build/debug)."""
    override = os.environ.get("SPEECHDSP_LIBRARY")
    if override:
        return pathlib.Path(override)
    package = pathlib.Path(__file__).resolve().parent
    bundled = package / "_lib" / "libSpeechDSPC.so"
    checkout = package.parents[1]
    if bundled.exists() or not (checkout / "Package.swift").exists():
        return bundled
    built = [p for p in (checkout / ".build" / c / "libSpeechDSPC.so" for c in ("release", "debug")) if p.exists()]
    return max(built, key=lambda p: p.stat().st_mtime) if built else bundled


def _load() -> ctypes.CDLL:
    path = library_path()
    if not path.exists():
        raise ImportError(f"speechdsp: the SpeechDSP library is missing ({path}); reinstall the wheel (scripts/build-wheel.sh), set SPEECHDSP_LIBRARY, or, in a checkout, swift build --product SpeechDSPC")
    lib = ctypes.CDLL(str(path))
    status = ctypes.c_int32
    i32, i64, u32, f32, f64 = ctypes.c_int32, ctypes.c_int64, ctypes.c_uint32, ctypes.c_float, ctypes.c_double
    vp = ctypes.c_void_p
    signatures = {
        "sdsp_last_error": (ctypes.c_char_p, []),
        "sdsp_version": (ctypes.c_char_p, []),
        "sdsp_abi_version": (i32, []),
        "sdsp_to_int16": (status, [c_float_p, i64, c_int16_p, c_int64_p, c_int64_p]),
        "sdsp_to_float": (status, [c_int16_p, i64, c_float_p]),
        "sdsp_resample_output_frames": (status, [i64, i32, i32, c_int64_p]),
        "sdsp_resample": (status, [c_float_p, i64, i32, i32, i32, i32, c_float_p, i64, c_int64_p]),
        "sdsp_levels_measure": (status, [c_float_p, i64, i32, i32, i32, f32, i32, ctypes.POINTER(Levels)]),
        "sdsp_loudness_measure": (status, [c_float_p, i64, i32, i32, i32, ctypes.POINTER(Loudness)]),
        "sdsp_detector_create": (status, [i32, i32, u32, ctypes.POINTER(vp)]),
        "sdsp_detector_process": (status, [vp, c_float_p, i64]),
        "sdsp_detector_finish": (status, [vp, ctypes.POINTER(DetectionSummary)]),
        "sdsp_detector_segments": (status, [vp, ctypes.POINTER(Segment), i64, c_int64_p]),
        "sdsp_detector_destroy": (None, [vp]),
        "sdsp_frontend_config_default": (FrontEndConfig, [i32, i32]),
        "sdsp_frontend_create": (status, [ctypes.POINTER(FrontEndConfig), ctypes.POINTER(vp)]),
        "sdsp_frontend_buffer_sizes": (status, [vp, i64, c_int64_p, c_int64_p]),
        "sdsp_frontend_process": (
            status,
            [vp, c_float_p, i64, c_int16_p, i64, ctypes.POINTER(Event), i64, ctypes.POINTER(FrontEndResult)],
        ),
        "sdsp_frontend_flush": (
            status,
            [vp, c_int16_p, i64, ctypes.POINTER(Event), i64, ctypes.POINTER(FrontEndResult), ctypes.POINTER(FrontEndSummary)],
        ),
        "sdsp_frontend_reset": (status, [vp]),
        "sdsp_frontend_latency_seconds": (f64, [vp]),
        "sdsp_frontend_destroy": (None, [vp]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    found = lib.sdsp_abi_version()
    if found != ABI_VERSION:
        raise ImportError(f"speechdsp: {path} has C ABI version {found}, this package needs {ABI_VERSION}")
    return lib


lib = _load()


class SpeechDSPError(RuntimeError):
    """A failure the library reports that is not the caller's argument (a bug, a broken state)."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


def check(status: int) -> None:
    """Raises the Python exception for a status code, with the library's message (this
    thread's: the message is thread-local in the library)."""
    if status == OK:
        return
    message = (lib.sdsp_last_error() or b"").decode("utf-8", "replace")
    if status in (ERROR_INVALID_ARGUMENT, ERROR_UNSUPPORTED_CONFIGURATION, ERROR_NULL_POINTER, ERROR_BUFFER_TOO_SMALL):
        raise ValueError(message)
    if status == ERROR_INVALID_STATE:
        raise SpeechDSPError(message, status)
    raise SpeechDSPError(f"{message} (status {status})", status)
