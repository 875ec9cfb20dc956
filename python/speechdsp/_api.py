"""The one-shot functions: conversion, resampling, levels, loudness, detection."""

from __future__ import annotations

import ctypes
import math

import numpy as np

from . import _native
from ._arrays import float_pointer, float_samples, int16_pointer, rate
from ._native import check, lib


def to_int16(samples, *, report: bool = False):
    """Float32 → Int16 PCM, SpeechDSP's sample-format policy: ``clamp(x × 32768, −32768, 32767)``
    rounded to nearest with ties to even, in float32; NaN → 0, +Inf → 32767, −Inf → −32768.

    Returns an int16 array of the input's shape; with ``report=True``, ``(pcm, clipped, nans)``
    where ``clipped`` counts samples whose ``x × 32768`` lay outside −32768…32767 (±Inf
    included) and ``nans`` the NaN samples.
    """
    array, _ = float_samples(samples)
    output = np.empty(array.shape, dtype=np.int16)
    clipped, nans = ctypes.c_int64(0), ctypes.c_int64(0)
    check(lib.sdsp_to_int16(float_pointer(array), array.size, int16_pointer(output), ctypes.byref(clipped), ctypes.byref(nans)))
    return (output, clipped.value, nans.value) if report else output


def to_float(pcm) -> np.ndarray:
    """Int16 PCM → float32, ``y / 32768`` (exact: ``to_int16(to_float(pcm)) == pcm``)."""
    array = np.asarray(pcm)
    if array.dtype != np.int16:
        raise TypeError(f"pcm must be int16, got dtype {array.dtype}")
    array = np.ascontiguousarray(array)
    output = np.empty(array.shape, dtype=np.float32)
    check(lib.sdsp_to_float(int16_pointer(array), array.size, float_pointer(output)))
    return output


def resampled_length(frames: int, from_rate: int, to_rate: int) -> int:
    """Frames ``resample`` returns for ``frames`` input frames: ``round(frames × to_rate /
    from_rate)``, halves rounded up."""
    result = ctypes.c_int64(0)
    check(lib.sdsp_resample_output_frames(int(frames), rate(from_rate, "from_rate"), rate(to_rate, "to_rate"), ctypes.byref(result)))
    return result.value


def resample(samples, from_rate: int, to_rate: int, *, quality: str = "default") -> np.ndarray:
    """Resamples a whole signal (1-D mono or 2-D (frames, channels)) from ``from_rate`` to
    ``to_rate`` Hz (1 000…768 000, any rational ratio), aligned with the input (the filter's
    delay trimmed): exactly ``resampled_length(frames, from_rate, to_rate)`` frames.

    ``quality``: ``"low_latency"`` (alias rejection ≥ 80 dB), ``"default"`` (≥ 100 dB) or
    ``"high"`` (≥ 120 dB).
    """
    if quality not in _native.QUALITIES:
        raise ValueError(f"quality must be one of {', '.join(_native.QUALITIES)}, got {quality!r}")
    array, channels = float_samples(samples)
    frames = array.shape[0]
    out_frames = resampled_length(frames, from_rate, to_rate)
    output = np.empty((out_frames, channels) if array.ndim == 2 else (out_frames,), dtype=np.float32)
    produced = ctypes.c_int64(0)
    check(
        lib.sdsp_resample(
            float_pointer(array), array.size, channels, rate(from_rate, "from_rate"), rate(to_rate, "to_rate"),
            _native.QUALITIES[quality], float_pointer(output), output.size, ctypes.byref(produced),
        )
    )
    return output


def _fields(structure) -> dict:
    return {name: getattr(structure, name) for name, _ in structure._fields_ if name != "reserved"}


def levels(samples, sample_rate: int, *, frame_length: int = 1024, clip_threshold: float = 1.0, pcm_bits: int | None = None) -> dict:
    """Levels of a whole signal, as ``dspscore`` records them (its ``levels`` object): RMS
    (``10·log10(mean x²)`` dBFS) and its AES17 form, sample peak, DC offset, clipped and
    non-finite samples, the loudest and quietest ``frame_length``-frame RMS.

    dB values are ``-inf`` for digital silence (``null`` in dspscore's JSON). ``pcm_bits``: for
    samples read from integer PCM (``code / 2**(bits-1)``), so both rails count as clipped as
    dspscore counts them for such files; None for float audio (full scale ±1).
    """
    array, channels = float_samples(samples)
    result = _native.Levels()
    check(
        lib.sdsp_levels_measure(
            float_pointer(array), array.size, rate(sample_rate, "sample_rate"), channels, int(frame_length),
            float(clip_threshold), 0 if pcm_bits is None else int(pcm_bits), ctypes.byref(result),
        )
    )
    return _fields(result)


def loudness(samples, sample_rate: int, *, true_peak: bool = True) -> dict:
    """BS.1770-5 / EBU R128 loudness of a whole signal at its own rate (8 000…768 000 Hz), as
    ``dspscore`` measures a file (channel weights by count: mono, stereo, 5.0, 5.1, else 1.0):
    ``integrated_lufs``, ``loudness_range_lu``, ``true_peak_dbtp`` (None without ``true_peak``),
    ``max_momentary_lufs``, ``max_short_term_lufs`` and more. ``-inf`` where nothing passed the
    gates.
    """
    array, channels = float_samples(samples)
    result = _native.Loudness()
    check(
        lib.sdsp_loudness_measure(
            float_pointer(array), array.size, rate(sample_rate, "sample_rate"), channels, 1 if true_peak else 0, ctypes.byref(result)
        )
    )
    values = _fields(result)
    if math.isnan(values["true_peak_dbtp"]):
        values["true_peak_dbtp"] = None
    return values


_DETECT_BLOCK = 1 << 20


def detect(samples, sample_rate: int, *, music: bool = True, multi_speaker: bool = True,
           speech_boundaries: bool = True) -> dict:
    """Speech, music and several-speaker detection over a whole signal, as ``dspscore`` runs it
    (mixed to mono, resampled to 16 kHz, the same analysis chain). ``speech_boundaries=False``
    keeps the segmenter's speech edges instead of reading them from the 16 ms hops' power (the
    default since 2026-12-08; ``dspscore --no-speech-boundaries``).

    Returns the record's ``detection`` fields — ``speech_ratio``, ``music_ratio``,
    ``multi_speaker_ratio`` (None when that detection is off), ``speech_seconds``,
    ``speech_segments`` (a count), ``noise_floor_dbfs`` — plus ``duration_seconds``,
    ``music_seconds``, ``multi_speaker_seconds`` and ``segments``: a list of
    ``{"activity", "start", "end", "start_sample", "end_sample"}`` (seconds, and samples at
    16 kHz) in start order.
    """
    array, channels = float_samples(samples)
    flags = ((_native.DETECT_MUSIC if music else 0) | (_native.DETECT_MULTI_SPEAKER if multi_speaker else 0)
             | (0 if speech_boundaries else _native.DETECT_NO_SPEECH_BOUNDARIES))
    handle = ctypes.c_void_p()
    check(lib.sdsp_detector_create(rate(sample_rate, "sample_rate"), channels, flags, ctypes.byref(handle)))
    try:
        flat = array.reshape(-1)
        for start in range(0, flat.size, _DETECT_BLOCK):
            block = flat[start : start + _DETECT_BLOCK]
            check(lib.sdsp_detector_process(handle, float_pointer(block), block.size))
        summary = _native.DetectionSummary()
        check(lib.sdsp_detector_finish(handle, ctypes.byref(summary)))
        total = ctypes.c_int64(0)
        check(lib.sdsp_detector_segments(handle, None, 0, ctypes.byref(total)))
        records = (_native.Segment * max(1, total.value))()
        check(lib.sdsp_detector_segments(handle, records, total.value, ctypes.byref(total)))
    finally:
        lib.sdsp_detector_destroy(handle)
    segments = [
        {
            "activity": _native.ACTIVITIES[s.activity],
            "start": s.start_sample / 16000,
            "end": s.end_sample / 16000,
            "start_sample": s.start_sample,
            "end_sample": s.end_sample,
        }
        for s in records[: total.value]
    ]
    return {
        "speech_ratio": summary.speech_ratio,
        "music_ratio": summary.music_ratio if music else None,
        "multi_speaker_ratio": summary.multi_speaker_ratio if multi_speaker else None,
        "speech_seconds": summary.speech_seconds,
        "speech_segments": summary.speech_segment_count,
        "noise_floor_dbfs": summary.noise_floor_dbfs,
        "duration_seconds": summary.duration_seconds,
        "music_seconds": summary.music_seconds if music else None,
        "multi_speaker_seconds": summary.multi_speaker_seconds if multi_speaker else None,
        "segments": segments,
    }


def speech_segments(samples, sample_rate: int) -> list[tuple[float, float]]:
    """The speech segments of a whole signal, ``(start, end)`` in seconds: ``detect``'s speech
    segments (the boundaries ``dspscore --timeline`` writes)."""
    return [(s["start"], s["end"]) for s in detect(samples, sample_rate)["segments"] if s["activity"] == "speech"]
