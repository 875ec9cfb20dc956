#!/usr/bin/env python3
"""WADA-SNR blind SNR estimator (C. Kim and R. M. Stern, "Robust signal-to-noise ratio
estimation based on waveform amplitude distribution analysis", Interspeech 2008).

Model: clean speech amplitudes follow a Gamma distribution with shape 0.4,
noise is Gaussian.  The statistic G = log(E|x|) - E[log|x|] of the noisy
waveform is a monotone function of the SNR; the table G(SNR) for
SNR = -20..100 dB is computed here by Monte Carlo from that model (2**18
samples with a fixed seed, every 0.5 dB, made non-decreasing and linearly
interpolated to 0.1 dB; the published MATLAB code ships such a table as
Alpha0.400000.mat).  The estimate is the SNR whose G matches the file's G
(linear interpolation, clamped to the table's ends).

    wada_snr.py FILE...        prints "<snr_db>\t<path>" per file (mean of channels)
"""
import functools
import sys

import numpy as np
import soundfile as sf

ALPHA = 0.4
SNR_GRID_DB = np.round(np.arange(-20.0, 100.05, 0.1), 1)


@functools.lru_cache(maxsize=1)
def g_table():
    """G(SNR) on SNR_GRID_DB for Gamma(0.4) speech plus unit Gaussian noise."""
    rng = np.random.default_rng(20080922)
    n = 1 << 18
    s = rng.gamma(ALPHA, 1.0, n) * rng.choice([-1.0, 1.0], n)
    s /= np.sqrt(np.mean(s * s))
    noise = rng.standard_normal(n)
    noise /= np.sqrt(np.mean(noise * noise))
    coarse = np.arange(-20.0, 100.25, 0.5)
    g = np.empty(len(coarse))
    for i, snr in enumerate(coarse):
        a = np.maximum(np.abs(10 ** (snr / 20) * s + noise), 1e-20)
        g[i] = np.log(np.mean(a)) - np.mean(np.log(a))
    return np.interp(SNR_GRID_DB, coarse, np.maximum.accumulate(g))


def wada_snr(x):
    """WADA-SNR estimate (dB) of a mono signal; None for an all-zero signal."""
    x = np.asarray(x, dtype=np.float64)
    peak = np.max(np.abs(x)) if len(x) else 0.0
    if peak == 0.0:
        return None
    a = np.maximum(np.abs(x / peak), 1e-10)
    g = np.log(max(np.mean(a), 1e-10)) - np.mean(np.log(a))
    table = g_table()
    if g <= table[0]:
        return float(SNR_GRID_DB[0])
    if g >= table[-1]:
        return float(SNR_GRID_DB[-1])
    return float(np.interp(g, table, SNR_GRID_DB))


def wada_snr_file(path):
    """WADA-SNR of a file (channels averaged)."""
    x, _ = sf.read(path, dtype="float64", always_2d=True)
    return wada_snr(x.mean(axis=1))


def main(paths):
    for p in paths:
        snr = wada_snr_file(p)
        print(f"{'nan' if snr is None else f'{snr:.2f}'}\t{p}")


if __name__ == "__main__":
    main(sys.argv[1:])
