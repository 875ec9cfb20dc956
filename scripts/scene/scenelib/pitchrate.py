"""Voices at a set median F0, F0 spread and speaking rate, by WORLD resynthesis (pyworld).

The F0 contour of an utterance is mapped f -> m * (f / median)**k, which
keeps the natural intonation shape, makes the median exactly m (a monotone
map preserves the median; a final multiplication fixes the even-count
average) and scales the log-F0 spread by k.  Time is stretched by resampling
the WORLD frame sequence (F0, spectral envelope, aperiodicity), which
changes the rate without changing pitch or timbre.
"""
import numpy as np
import pyworld

FRAME_MS = 5.0


def analyse(x, fs):
    """WORLD analysis: (f0, sp, ap) with 5 ms frames (DIO + StoneMask, CheapTrick, D4C)."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    f0, t = pyworld.dio(x, fs, frame_period=FRAME_MS, f0_floor=50.0, f0_ceil=600.0)
    f0 = pyworld.stonemask(x, f0, t, fs)
    return f0, pyworld.cheaptrick(x, f0, t, fs), pyworld.d4c(x, f0, t, fs)


def set_f0(f0, median_hz, k):
    """F0 contour remapped to median median_hz and log-spread scaled by k (unvoiced stays 0)."""
    out = np.zeros_like(f0)
    v = f0 > 0
    out[v] = median_hz * (f0[v] / np.median(f0[v])) ** k
    out[v] *= median_hz / np.median(out[v])
    return out


def stretch(f0, sp, ap, factor):
    """Frame sequences resampled to factor x their length (nearest voicing, linear spectra)."""
    n = len(f0)
    m = max(2, int(round(n * factor)))
    pos = np.linspace(0, n - 1, m)
    i0 = np.floor(pos).astype(int)
    i1 = np.minimum(i0 + 1, n - 1)
    w = (pos - i0)[:, None]
    near = np.rint(pos).astype(int)
    f0_new = f0[near].copy()
    both = (f0[i0] > 0) & (f0[i1] > 0)
    f0_new[both] = (f0[i0] * (1 - w[:, 0]) + f0[i1] * w[:, 0])[both]
    return f0_new, sp[i0] * (1 - w) + sp[i1] * w, ap[i0] * (1 - w) + ap[i1] * w


def resynthesise(f0, sp, ap, fs):
    """WORLD synthesis of the frame sequences."""
    return pyworld.synthesize(np.ascontiguousarray(f0), np.ascontiguousarray(sp),
                              np.ascontiguousarray(ap), fs, frame_period=FRAME_MS)


def f0_truth(f0):
    """Truth from the imposed contour: median, spread (std), 10th/90th percentiles over voiced frames (Hz)."""
    v = f0[f0 > 0]
    return {"f0_median_hz": float(np.median(v)), "f0_spread_hz": float(np.std(v)),
            "f0_p10_hz": float(np.percentile(v, 10)), "f0_p90_hz": float(np.percentile(v, 90)),
            "voiced_frames": int(len(v))}
