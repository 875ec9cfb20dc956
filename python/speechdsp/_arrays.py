"""Input checks shared by the API: NumPy arrays in, float32 C-contiguous to the library."""

from __future__ import annotations

import ctypes

import numpy as np

from . import _native


def float_samples(samples, name: str = "samples") -> tuple[np.ndarray, int]:
    """(a C-contiguous float32 copy or view of `samples`, its channel count).

    1-D arrays are mono (or interleaved, for the front end); 2-D arrays are (frames, channels),
    as soundfile reads them. Floating-point input of any width is converted to float32;
    integer, boolean and complex input is refused (int16 PCM would be off by 32768: convert it
    with `to_float` first).
    """
    array = np.asarray(samples)
    if array.dtype.kind != "f":
        hint = " (PCM: convert with speechdsp.to_float first)" if array.dtype.kind in "iu" else ""
        raise TypeError(f"{name} must hold floating-point samples, got dtype {array.dtype}{hint}")
    if array.ndim == 1:
        channels = 1
    elif array.ndim == 2:
        channels = array.shape[1]
        if channels < 1:
            raise ValueError(f"{name} has shape {array.shape}: no channels")
    else:
        raise ValueError(f"{name} must be 1-D (mono) or 2-D (frames, channels), got shape {array.shape}")
    return np.ascontiguousarray(array, dtype=np.float32), channels


def float_pointer(array: np.ndarray):
    return array.ctypes.data_as(_native.c_float_p)


def int16_pointer(array: np.ndarray):
    return array.ctypes.data_as(_native.c_int16_p)


def rate(value, name: str) -> int:
    """An integer sample rate (Hz); floats with a fraction are refused."""
    if isinstance(value, bool) or not float(value).is_integer():
        raise ValueError(f"{name} must be a whole number of Hz, got {value!r}")
    result = int(value)
    if not -(2**31) <= result < 2**31:
        raise ValueError(f"{name} {value!r} is out of range")
    return result


def int64() -> ctypes.c_int64:
    return ctypes.c_int64(0)
