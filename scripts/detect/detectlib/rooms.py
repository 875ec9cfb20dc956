"""Rooms: issue #19's simulated shoebox rooms (scenelib.rooms), more of them.

'room:<n>' for n < 120; rooms 0-39 are #19's and keep their #19 split (splits.py).
"""
import functools

import numpy as np

from scenelib import rooms as scene_rooms

N_ROOMS = 120


def room_ids():
    return [f"room:{i}" for i in range(N_ROOMS)]


@functools.lru_cache(maxsize=32)
def rir(room_id, fs=16000):
    """Impulse response (float64, read-only), normalised so its direct path has gain 1."""
    h = scene_rooms.rir(room_id, fs)
    h = h / np.max(np.abs(h))
    h.setflags(write=False)
    return h


def direct_delay(h):
    """Samples from t = 0 to the direct path (the peak of |h|)."""
    return int(np.argmax(np.abs(h)))
