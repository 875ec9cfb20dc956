"""SpeechDSP for Python: NumPy arrays through SpeechDSP's C ABI (libSpeechDSPC.so, bundled).

>>> import numpy as np, speechdsp
>>> x = np.zeros(48000, dtype=np.float32)
>>> speechdsp.resample(x, 48000, 16000).shape
(16000,)

Functions: ``to_int16``, ``to_float``, ``resample``, ``resampled_length``, ``levels``,
``loudness``, ``detect``, ``speech_segments``; class ``FrontEnd`` for live streams. The
``dspscore`` command is installed with the package.
"""

from ._api import detect, levels, loudness, resample, resampled_length, speech_segments, to_float, to_int16
from ._native import SpeechDSPError, library_path
from ._native import lib as _lib
from .frontend import FrontEnd

__version__ = _lib.sdsp_version().decode()

__all__ = [
    "FrontEnd",
    "SpeechDSPError",
    "detect",
    "levels",
    "library_path",
    "loudness",
    "resample",
    "resampled_length",
    "speech_segments",
    "to_float",
    "to_int16",
]
