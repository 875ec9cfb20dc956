"""Bad input through the Python API and straight through the C ABI: clear errors, no crash."""

from __future__ import annotations

import ctypes
import threading

import numpy as np
import pytest

import speechdsp
from speechdsp import _native

lib = _native.lib


def test_metering_arguments():
    x = np.zeros(1000, dtype=np.float32)
    with pytest.raises(ValueError, match="frameLength"):
        speechdsp.levels(x, 16000, frame_length=0)
    with pytest.raises(ValueError, match="pcm_bits"):
        speechdsp.levels(x, 16000, pcm_bits=4)
    with pytest.raises(ValueError, match="clipThreshold"):
        speechdsp.levels(x, 16000, clip_threshold=float("nan"))
    with pytest.raises(ValueError, match="sampleRate"):
        speechdsp.loudness(x, 4000)
    with pytest.raises(ValueError, match="channel_count 65"):
        speechdsp.loudness(np.zeros((10, 65), dtype=np.float32), 48000)
    with pytest.raises(TypeError, match="floating-point"):
        speechdsp.levels(np.zeros(10, dtype=np.int32), 16000)
    with pytest.raises(TypeError):
        speechdsp.detect(np.zeros(10, dtype=np.complex64), 16000)


def test_edge_inputs_are_measured():
    silence = speechdsp.levels(np.zeros(100, dtype=np.float32), 16000)
    assert silence["rms_dbfs"] == float("-inf") and silence["peak_dbfs"] == float("-inf")
    empty = speechdsp.levels(np.zeros(0, dtype=np.float32), 16000)
    assert empty["sample_count"] == 0
    odd = speechdsp.levels(np.array([np.nan, np.inf, 0.5], dtype=np.float32), 16000)
    assert odd["non_finite_samples"] == 2 and odd["sample_count"] == 1
    assert speechdsp.loudness(np.zeros(100, dtype=np.float32), 48000)["integrated_lufs"] == float("-inf")
    assert speechdsp.detect(np.zeros(0, dtype=np.float32), 48000)["segments"] == []
    assert speechdsp.speech_segments(np.zeros(16000, dtype=np.float32), 16000) == []
    assert speechdsp.loudness(np.full(48000, 0.1, dtype=np.float32), 48000, true_peak=False)["true_peak_dbtp"] is None


def test_detect_rates():
    with pytest.raises(ValueError, match="inputRate: 100"):
        speechdsp.detect(np.zeros(100, dtype=np.float32), 100)


def test_raw_abi_refuses_bad_pointers_and_counts():
    out = (ctypes.c_int16 * 4)()
    assert lib.sdsp_to_int16(None, 4, out, None, None) == _native.ERROR_NULL_POINTER
    assert lib.sdsp_last_error() == b"input is NULL"
    x = (ctypes.c_float * 4)()
    assert lib.sdsp_to_int16(x, -3, out, None, None) == _native.ERROR_INVALID_ARGUMENT
    assert b"negative" in lib.sdsp_last_error()
    assert lib.sdsp_to_int16(x, 4, None, None, None) == _native.ERROR_NULL_POINTER
    assert lib.sdsp_frontend_process(None, x, 4, out, 4, None, 0, None) == _native.ERROR_NULL_POINTER
    handle = ctypes.c_void_p()
    assert lib.sdsp_detector_create(16000, 1, 0, ctypes.byref(handle)) == _native.OK
    try:
        total = ctypes.c_int64()
        assert lib.sdsp_detector_segments(handle, None, 0, ctypes.byref(total)) == _native.ERROR_INVALID_STATE
        assert lib.sdsp_detector_segments(handle, None, -1, ctypes.byref(total)) == _native.ERROR_INVALID_ARGUMENT
    finally:
        lib.sdsp_detector_destroy(handle)
    lib.sdsp_detector_destroy(None)
    lib.sdsp_frontend_destroy(None)


def test_raw_abi_flush_buffer_checked():
    config = lib.sdsp_frontend_config_default(48000, 1)
    handle = ctypes.c_void_p()
    assert lib.sdsp_frontend_create(ctypes.byref(config), ctypes.byref(handle)) == _native.OK
    try:
        out = (ctypes.c_int16 * 1)()
        assert lib.sdsp_frontend_flush(handle, out, 1, None, 0, None, None) == _native.ERROR_BUFFER_TOO_SMALL
        assert b"flush" in lib.sdsp_last_error()
    finally:
        lib.sdsp_frontend_destroy(handle)


def test_error_message_is_per_thread():
    """A failure on another thread does not replace this thread's message."""
    out = (ctypes.c_int16 * 1)()
    assert lib.sdsp_to_int16(None, 1, out, None, None) == _native.ERROR_NULL_POINTER
    seen = []

    def other():
        frames = ctypes.c_int64()
        lib.sdsp_resample_output_frames(10, 5, 16000, ctypes.byref(frames))
        seen.append(lib.sdsp_last_error())

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert b"input_rate 5 Hz" in seen[0]
    assert lib.sdsp_last_error() == b"input is NULL"


def test_version():
    assert speechdsp.__version__.count(".") == 2
    assert lib.sdsp_abi_version() == _native.ABI_VERSION
