"""Background noises: synthetic (generated per file from its RNG) and recorded.

Every function returns a unit-level track (0 dBFS mean square is not
implied; callers scale with levels.dbfs) of exactly n samples.
"""
import functools
import os
import re
import sys

import numpy as np
import scipy.signal as ss

from .common import loop_to, read_mono, resample, split_of, trim_silence

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


# Looped backgrounds (generator 1.3.0): a short recorded effect repeated back to back, as a
# game or an appliance repeats one. `hedgewars:ufo` (dev) and `hedgewars:jetpackboost` (test)
# were the only loops of 1.2.0, one per split, so no choice about them could be made on dev
# alone (docs/scene-measures.md, "Looped and bursty backgrounds").
LOOP_SECONDS = (0.25, 2.5)
NOTE_NAME = re.compile(r"^\d[A-G]$")  # hedgewars' piano notes (1C ... 9D): music, not a loop


@functools.lru_cache(maxsize=None)
def loop_entries():
    """{split: [(id, path)]}: effects of the detection material's catalogue
    (scripts/detect/detectlib/sources.py: Debian game and desktop sounds, voices and music
    names left out) lasting LOOP_SECONDS, not a note, not digital silence and not one of RECORDED.

    Split by this corpus's rule on the effect's id. A dev effect is kept only where the
    detection material holds it in *val* (detectlib/splits.py), so that no dev loop was
    fitted on by the detection models: dev's loops are as new to the detector as test's."""
    detect = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "detect")
    if detect not in sys.path:
        sys.path.insert(0, os.path.normpath(detect))
    from detectlib import sources, splits  # noqa: E402 (the detection scripts' catalogue)
    out = {"dev": [], "test": []}
    for e in sources.noises():
        if e["kind"] != "effect" or not LOOP_SECONDS[0] <= e["seconds"] <= LOOP_SECONDS[1]:
            continue
        name = e["id"].split(":", 1)[1]
        if e["id"] in RECORDED or NOTE_NAME.match(os.path.basename(name)):
            continue
        split = split_of(e["id"])
        if split == "dev" and splits.SplitRule([e["id"]]).split_of(e["id"]) != "val":
            continue
        if not np.any(sources.read(e["path"])[0]):
            continue  # digital silence (warzone2100's sfx/misc/silence.ogg)
        out[split].append((e["id"], e["path"]))
    return {k: sorted(v) for k, v in out.items()}


def looped(path, rng, n, fs):
    """A short effect (silence at its ends trimmed at -50 dB) looped with crossfades to n samples at fs."""
    loop_entries()  # puts the detection scripts on the path
    from detectlib import sources  # noqa: E402
    x, rate = sources.read(path)
    x = trim_silence(resample(x, rate, fs))
    return loop_to(x - np.mean(x), n, rng)
