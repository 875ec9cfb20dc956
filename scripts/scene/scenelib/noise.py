"""Background noises: synthetic (generated per file from its RNG) and recorded.

Every function returns a unit-level track (0 dBFS mean square is not
implied; callers scale with levels.dbfs) of exactly n samples.
"""
import os

import numpy as np
import scipy.signal as ss

from .common import loop_to, read_mono, split_of

SYNTHETIC = ["white", "pink", "brown", "hum50", "hum60", "fan"]
HEDGEWARS_SOUNDS = "/usr/share/games/hedgewars/Data/Sounds"
RECORDED = {  # id -> path; short stationary-ish recordings, looped.
    "hedgewars:steam": f"{HEDGEWARS_SOUNDS}/steam.ogg",
    "hedgewars:blowtorch": f"{HEDGEWARS_SOUNDS}/blowtorch.ogg",
    "hedgewars:flamethrower": f"{HEDGEWARS_SOUNDS}/flamethrower.ogg",
    "hedgewars:ice_beam_idle": f"{HEDGEWARS_SOUNDS}/ice_beam_idle.ogg",
    "hedgewars:jetpackboost": f"{HEDGEWARS_SOUNDS}/jetpackboost.ogg",
    "hedgewars:plane": f"{HEDGEWARS_SOUNDS}/plane.ogg",
    "hedgewars:ufo": f"{HEDGEWARS_SOUNDS}/ufo.ogg",
    "hedgewars:rcplane": f"{HEDGEWARS_SOUNDS}/rcplane.ogg",
    "alsa-utils:Noise": "/usr/share/sounds/alsa/Noise.wav",
}


def recorded_ids(split):
    """Recorded noise ids available on this machine in a split."""
    return [k for k, p in sorted(RECORDED.items()) if os.path.exists(p) and split_of(k) == split]


def _coloured(rng, n, exponent):
    """Gaussian noise with PSD ~ 1/f**exponent (0 white, 1 pink, 2 brown), by FFT shaping."""
    spec = np.fft.rfft(rng.standard_normal(n))
    f = np.fft.rfftfreq(n)
    f[0] = f[1]
    spec *= f ** (-exponent / 2.0)
    return np.fft.irfft(spec, n)


def synthetic(kind, rng, n, fs):
    """A synthetic noise of n samples."""
    if kind == "white":
        return rng.standard_normal(n)
    if kind == "pink":
        return _coloured(rng, n, 1.0)
    if kind == "brown":
        b, a = ss.butter(1, 20.0 / (fs / 2), "highpass")  # keep the DC/sub-audio drift out
        return ss.lfilter(b, a, _coloured(rng, n, 2.0))
    if kind in ("hum50", "hum60"):
        f0 = 50.0 if kind == "hum50" else 60.0
        t = np.arange(n) / fs
        hum = sum(rng.uniform(0.2, 1.0) / k * np.sin(2 * np.pi * f0 * k * t + rng.uniform(0, 2 * np.pi))
                  for k in range(1, 8))
        floor = _coloured(rng, n, 1.0)
        return hum + 0.05 * floor / np.std(floor)
    if kind == "fan":
        b, a = ss.butter(2, min(2000.0, fs / 2 - 1) / (fs / 2))
        t = np.arange(n) / fs
        base = ss.lfilter(b, a, _coloured(rng, n, 1.0))
        base /= np.std(base)
        return base + 0.3 * np.sin(2 * np.pi * rng.uniform(90, 160) * t)
    raise ValueError(kind)


def recorded(noise_id, rng, n, fs):
    """A recorded noise looped (with crossfades) to n samples at fs."""
    x, _ = read_mono(RECORDED[noise_id], fs)
    x = x - np.mean(x)
    return loop_to(x, n, rng)


def make(noise_id, rng, n, fs):
    """Noise track for an id 'synthetic:<kind>' or a recorded id."""
    if noise_id.startswith("synthetic:"):
        return synthetic(noise_id.split(":", 1)[1], rng, n, fs)
    return recorded(noise_id, rng, n, fs)
