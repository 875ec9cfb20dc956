"""Shared helpers: source splits, seeds, audio I/O, resampling."""
import hashlib
import math
import os
import subprocess
import tempfile

import numpy as np
import scipy.signal as ss
import soundfile as sf

DEV_FRACTION = 0.5


def split_of(source_id):
    """'dev' or 'test' for a source id, by SHA-256 of the id (about 50/50, fixed forever)."""
    h = int(hashlib.sha256(source_id.encode("utf-8")).hexdigest()[:8], 16)
    return "dev" if h / 2**32 < DEV_FRACTION else "test"


def seed_of(*parts):
    """A 64-bit seed derived from the corpus seed and a file's identity."""
    return int(hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()[:16], 16)


def resample(x, fs_in, fs_out):
    """Polyphase resampling (scipy resample_poly, Kaiser window beta 8.6)."""
    if fs_in == fs_out:
        return np.asarray(x, dtype=np.float64)
    g = math.gcd(int(fs_in), int(fs_out))
    return ss.resample_poly(x, fs_out // g, fs_in // g, window=("kaiser", 8.6))


def read_mono(path, fs=None):
    """Read a file as float64 mono (channel mean), resampled to fs when given."""
    x, rate = sf.read(path, dtype="float64", always_2d=True)
    x = x.mean(axis=1)
    return (resample(x, rate, fs), fs) if fs else (x, rate)


def run(cmd, **kw):
    """Run a command, raising with its stderr on failure."""
    r = subprocess.run(cmd, capture_output=True, **kw)
    if r.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed: {r.stderr.decode(errors='replace')[-400:]}")
    return r


def via_tempfile(suffix, produce):
    """Call produce(path) to write a temporary file and return its audio (float64 mono, rate)."""
    fd, path = tempfile.mkstemp(suffix=suffix)
    os.close(fd)
    try:
        produce(path)
        return read_mono(path)
    finally:
        os.unlink(path)


def trim_silence(x, rel_db=-50.0):
    """Drop leading and trailing samples below rel_db relative to the peak."""
    peak = np.max(np.abs(x)) if len(x) else 0.0
    if peak == 0.0:
        return x
    idx = np.nonzero(np.abs(x) >= peak * 10 ** (rel_db / 20.0))[0]
    return x[idx[0]:idx[-1] + 1]


def scale_to(x, level_now, level_db):
    """x scaled so that a level of level_now dB becomes level_db."""
    return x * 10.0 ** ((level_db - level_now) / 20.0)


def loop_to(x, n, rng, fade=256):
    """x repeated (random start, short crossfades) to exactly n samples."""
    if len(x) >= n + 1:
        start = int(rng.integers(0, len(x) - n))
        return x[start:start + n].copy()
    out = np.zeros(n + len(x))
    ramp = np.linspace(0.0, 1.0, fade)
    seg = x.copy()
    seg[:fade] *= ramp
    seg[-fade:] *= ramp[::-1]
    pos = -int(rng.integers(0, len(x)))
    while pos < n:
        a = max(pos, 0)
        out[a:pos + len(seg)] += seg[a - pos:]
        pos += len(seg) - fade
    return out[:n]
