"""``FrontEnd``: one live stream through SpeechDSP's SpeechFrontEnd."""

from __future__ import annotations

import ctypes
import math
import threading

import numpy as np

from . import _native
from ._arrays import float_pointer, float_samples, int16_pointer, rate
from ._native import check, lib

_COMMON = ("kind", "seconds", "input_frame", "output_sample")
_CLIPPING = ("frame_count", "clipped_samples", "non_finite_samples")
_LEVELS = ("sample_count", "rms_dbfs", "peak_dbfs", "momentary_lufs", "short_term_lufs")
_ENVIRONMENT = (
    "window_seconds", "noise_dbfs", "noise_level_db", "speech_dbfs", "speech_to_noise_db", "speech_fraction",
    "music_fraction", "multi_speaker_fraction", "speech_clarity", "frequency_complexity", "rt60_seconds", "c50_db",
    "category_noise_level",
)
_OPTIONAL = ("speech_to_noise_db", "rt60_seconds", "c50_db")


def _event(record: _native.Event) -> dict:
    kind = _native.EVENT_KINDS[record.kind]
    event = {"kind": kind, "seconds": record.seconds, "input_frame": record.input_frame, "output_sample": record.output_sample}
    if kind in ("started", "ended"):
        event["activity"] = _native.ACTIVITIES[record.activity]
    elif kind == "clipping":
        event.update((name, getattr(record, name)) for name in _CLIPPING)
    elif kind == "levels":
        event.update((name, getattr(record, name)) for name in _LEVELS)
    else:
        event.update((name, getattr(record, name)) for name in _ENVIRONMENT)
        for name in _OPTIONAL:
            if math.isnan(event[name]):
                event[name] = None
        event["noise_category"] = _native.NOISE_CATEGORIES[record.noise_category]
        event["noise_source"] = _native.NOISE_SOURCES[record.noise_source]
        event["music_detected"] = bool(record.music_detected)
        event["multiple_speakers_detected"] = bool(record.multiple_speakers_detected)
        event["category_key"] = (
            f"{record.category_noise_level}_{str(bool(record.music_detected)).lower()}"
            f"_{str(bool(record.multiple_speakers_detected)).lower()}"
        )
        event["recommendation"] = _native.RECOMMENDATIONS[record.recommendation]
        event["preferred_recommendation"] = _native.RECOMMENDATIONS[record.preferred_recommendation]
    return event


class FrontEnd:
    """One audio stream: float32 audio at any rate and channel count in, 16 kHz mono int16 PCM
    for a recognizer out, with events — speech / music / several-speaker starts and ends,
    environment measurements, clipping, per-frame levels — on the way.

    ``process(samples)`` takes any number of samples (1-D interleaved, or 2-D (frames,
    channels)) and returns ``(pcm, events)``; output and events do not depend on how the stream
    was chunked. ``flush()`` ends the stream — its tail, so the PCM has exactly
    ``round(N × 16000 / sample_rate)`` samples for N input frames, the last events — sets
    ``summary`` and readies the object for a new stream. Events are dicts with ``kind``,
    ``seconds``, ``input_frame``, ``output_sample`` and the kind's fields.

    ``detection_hops_per_batch`` (1…4, default 4) is how many 16 ms detection hops are analysed
    together: output and events are the same for every value; 1 spreads the detection's work
    evenly over the pushes (a lower worst-case push time) for a few percent more CPU.

    The detection settings (SpeechFrontEnd.Configuration.detector; docs/front-end.md, "Detection
    settings"): ``speech_blend=False`` uses the speech model alone (a stream's first half second
    heard sooner, music and noise called speech more often); ``pure_tone_gate=False`` lets steady
    tones reach voice activity; ``music=False`` and ``multi_speaker=False`` stop those detections
    (both off: voice activity alone, about 40 % less detection work, as ``detect()`` runs it);
    ``speech_segments`` changes the voice-activity segmenter: a dict with any of ``on``, ``off``
    and ``end`` (thresholds, 0…1; ``end=None`` for none) and ``min_seconds``,
    ``hangover_seconds`` and ``padding_seconds``, the others kept at the library's defaults;
    ``speech_blend_warm_up_seconds=0.5`` weighs the blended network in over a stream's first half
    second (a stream that opens on speech is heard sooner; default 0); ``speech_boundaries=False``
    keeps the segmenter's speech edges instead of reading them from the 16 ms hops' power (the
    default since 2026-12-08: docs/detection.md, "Speech boundaries read from the hops' energy").

    One object per stream; calls are serialised by a lock, so the object may be shared between
    threads. Use it as a context manager, or ``close()`` it, to free the library's state now.
    """

    def __init__(
        self,
        sample_rate: int,
        channels: int = 1,
        *,
        stages=None,
        quality: str = "default",
        clip_threshold: float = 32767 / 32768,
        clip_window_ms: int = 100,
        level_events: bool = True,
        downmix="average",
        detection_hops_per_batch: int = 4,
        speech_blend: bool = True,
        pure_tone_gate: bool = True,
        music: bool = True,
        multi_speaker: bool = True,
        speech_segments=None,
        speech_blend_warm_up_seconds: float = 0.0,
        speech_boundaries: bool = True,
    ):
        self._handle = None
        if quality not in _native.QUALITIES:
            raise ValueError(f"quality must be one of {', '.join(_native.QUALITIES)}, got {quality!r}")
        if stages is None:
            stages = tuple(_native.STAGES)
        unknown = [s for s in stages if s not in _native.STAGES]
        if unknown:
            raise ValueError(f"unknown stages {unknown}; the stages are {', '.join(_native.STAGES)}")
        if downmix == "average":
            downmix_channel = -1
        elif isinstance(downmix, int) and not isinstance(downmix, bool) and downmix >= 0:
            downmix_channel = downmix
        else:
            raise ValueError(f"downmix must be 'average' or a channel index, got {downmix!r}")
        config = lib.sdsp_frontend_config_default(rate(sample_rate, "sample_rate"), int(channels))
        config.stages = sum(_native.STAGES[s] for s in set(stages))
        config.resampler_quality = _native.QUALITIES[quality]
        config.clip_threshold = float(clip_threshold)
        config.clip_window_ms = int(clip_window_ms)
        config.emits_level_events = 1 if level_events else 0
        config.downmix_channel = downmix_channel
        config.detection_hops_per_batch = int(detection_hops_per_batch)
        config.speech_blend = 1 if speech_blend else 0
        config.pure_tone_gate = 1 if pure_tone_gate else 0
        config.detects_music = 1 if music else 0
        config.detects_multiple_speakers = 1 if multi_speaker else 0
        config.speech_blend_warm_up_seconds = float(speech_blend_warm_up_seconds)
        config.speech_boundaries = 1 if speech_boundaries else 0
        if speech_segments is not None:
            fields = {"on": "speech_on_threshold", "off": "speech_off_threshold", "end": "speech_end_threshold",
                      "min_seconds": "speech_min_seconds", "hangover_seconds": "speech_hangover_seconds",
                      "padding_seconds": "speech_padding_seconds"}
            if not isinstance(speech_segments, dict):
                raise ValueError(f"speech_segments must be a dict, got {speech_segments!r}")
            unknown = sorted(set(speech_segments) - set(fields))
            if unknown:
                raise ValueError(f"unknown speech_segments keys {unknown}; the keys are {', '.join(fields)}")
            for key, value in speech_segments.items():
                if key == "end" and value is None:
                    value = float("nan")
                setattr(config, fields[key], float(value))
        handle = ctypes.c_void_p()
        check(lib.sdsp_frontend_create(ctypes.byref(config), ctypes.byref(handle)))
        self._handle = handle
        self._lock = threading.Lock()
        self.sample_rate = config.input_rate
        self.channels = config.channel_count
        self.stages = frozenset(stages)
        #: The last finished stream's summary (a dict), set by ``flush()``.
        self.summary = None

    # MARK: Lifetime

    def close(self) -> None:
        """Frees the library's state; the object cannot be used afterwards."""
        handle, self._handle = self._handle, None
        if handle is not None:
            lib.sdsp_frontend_destroy(handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __del__(self):
        if getattr(self, "_handle", None) is not None:
            self.close()

    def _live(self):
        if self._handle is None:
            raise ValueError("FrontEnd is closed")
        return self._handle

    # MARK: Streaming

    @property
    def latency_seconds(self) -> float:
        """The audio path's latency (the resampler's group delay), seconds."""
        return lib.sdsp_frontend_latency_seconds(self._live())

    def _sizes(self, count: int) -> tuple[int, int]:
        output, events = ctypes.c_int64(0), ctypes.c_int64(0)
        check(lib.sdsp_frontend_buffer_sizes(self._live(), count, ctypes.byref(output), ctypes.byref(events)))
        return output.value, events.value

    def process(self, samples) -> tuple[np.ndarray, list[dict]]:
        """Processes one chunk of the stream; returns the 16 kHz int16 PCM and the events it
        completes."""
        array, channels = float_samples(samples)
        if array.ndim == 2 and channels != self.channels:
            raise ValueError(f"samples have {channels} channels, the front end {self.channels}")
        flat = array.reshape(-1)
        with self._lock:
            handle = self._live()
            output_capacity, event_capacity = self._sizes(flat.size)
            pcm = np.empty(output_capacity, dtype=np.int16)
            events = (_native.Event * event_capacity)()
            result = _native.FrontEndResult()
            check(
                lib.sdsp_frontend_process(
                    handle, float_pointer(flat), flat.size, int16_pointer(pcm), output_capacity, events, event_capacity,
                    ctypes.byref(result),
                )
            )
        if result.consumed != flat.size or result.dropped_events:
            raise _native.SpeechDSPError(
                f"front end took {result.consumed} of {flat.size} samples and dropped {result.dropped_events} events "
                "with buffers of its own bounds", _native.ERROR_INTERNAL)
        return pcm[: result.produced].copy(), [_event(e) for e in events[: result.events]]

    def flush(self) -> tuple[np.ndarray, list[dict]]:
        """Ends the stream: the PCM's tail and the last events; sets ``summary``."""
        with self._lock:
            handle = self._live()
            output_capacity, event_capacity = self._sizes(0)
            pcm = np.empty(output_capacity, dtype=np.int16)
            events = (_native.Event * event_capacity)()
            result = _native.FrontEndResult()
            summary = _native.FrontEndSummary()
            check(
                lib.sdsp_frontend_flush(
                    handle, int16_pointer(pcm), output_capacity, events, event_capacity, ctypes.byref(result),
                    ctypes.byref(summary),
                )
            )
        values = {name: getattr(summary, name) for name, _ in summary._fields_ if name not in ("reserved", "has_detection")}
        if not summary.has_detection:
            for name in ("speech_ratio", "music_ratio", "multi_speaker_ratio", "speech_seconds", "speech_segment_count", "noise_floor_dbfs"):
                values[name] = None
        for name in ("integrated_lufs", "loudness_range_lu"):
            if math.isnan(values[name]):
                values[name] = None
        self.summary = values
        return pcm[: result.produced].copy(), [_event(e) for e in events[: result.events]]

    def reset(self) -> None:
        """Drops the stream without its tail; the next ``process`` starts a new one."""
        with self._lock:
            check(lib.sdsp_frontend_reset(self._live()))

    def process_all(self, samples) -> tuple[np.ndarray, list[dict]]:
        """``process(samples)`` then ``flush()``: a whole stream at once."""
        pcm, events = self.process(samples)
        tail, last = self.flush()
        return np.concatenate([pcm, tail]), events + last
