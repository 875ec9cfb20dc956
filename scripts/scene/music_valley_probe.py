#!/usr/bin/env python3
"""Numpy probes of two levers for the noise estimate under music (docs/scene-measures.md,
"Under music"), on the scene corpus's dev split. Prototypes, not the estimator: they read the
detector's per-hop music probability from `dspbench detect --frames` CSVs and recompute the
16 kHz, 1024-point, 256-hop spectra of each file.

    music_valley_probe.py frames --corpus .build-scene --frames DIR [--dspbench BIN]
        writes DIR/<file>.csv for the dev files of the conditions probed (dspbench detect --frames)
    music_valley_probe.py window --corpus .build-scene --frames DIR
        per music file: the error of a whole-file valley read (each band's median bin x its bin
        count, its 20th or 50th percentile over the hops whose music probability reaches 0.8,
        summed over the 32 bands, calibrated on white noise) with the Hann window the estimator
        sees and with Hann squared (a frequency-domain window on the complex spectrum)
    music_valley_probe.py persistence --corpus .build-scene --frames DIR [--lag-hops N]
        per file with music hops: the share of the loud bands (within 20 dB of the hop's
        loudest) whose strongest bin is within one bin of where it was N hops earlier (a tonal
        background's peaks stay put, music's move with the notes)
"""
import argparse
import csv
import json
import os
import subprocess
import sys

import numpy as np

from scenelib.common import read_mono

N, HOP, BANDS, WIDTH = 1024, 256, 32, 16
MUSIC_THRESHOLD = 0.8
HANN = np.hanning(N + 1)[:-1]


def dev_files(corpus, conditions):
    with open(os.path.join(corpus, "truth.jsonl")) as f:
        truth = [json.loads(line) for line in f if line.strip()]
    return [t for t in truth if t["split"] == "dev" and t["condition"] in conditions]


def audio(corpus, path):
    return read_mono(os.path.join(corpus, path), 16000)[0]


def spectra(x):
    n = (len(x) - N) // HOP + 1
    frames = np.lib.stride_tricks.sliding_window_view(x, N)[::HOP][:n]
    return np.fft.rfft(frames * HANN, axis=1)


def power(x_spec, window):
    if window == "hann":
        return np.abs(x_spec) ** 2
    # Hann squared: the Hann-windowed spectrum convolved with (-1/4, 1/2, -1/4)
    return np.abs(0.5 * x_spec - 0.25 * (np.roll(x_spec, 1, axis=1) + np.roll(x_spec, -1, axis=1))) ** 2


def music_probability(frames_dir, path, hops):
    with open(os.path.join(frames_dir, os.path.basename(path) + ".csv")) as f:
        rows = csv.reader(f)
        column = next(rows).index("p_music")
        p = np.array([float(r[column] or 0) for r in rows])
    return np.pad(p, (0, max(0, hops - len(p))))[:hops]


def valley_db(p, mask, q):
    bands = p[:, 1:1 + BANDS * WIDTH].reshape(len(p), BANDS, WIDTH)
    valleys = np.median(bands, axis=2) * WIDTH
    return 10 * np.log10(np.percentile(valleys[mask], q, axis=0).sum() + 1e-30)


def cmd_frames(args):
    os.makedirs(args.frames, exist_ok=True)
    for t in dev_files(args.corpus, ("music", "noise", "talkers", "dialogue", "noise_only")):
        out = os.path.join(args.frames, os.path.basename(t["path"]) + ".csv")
        subprocess.run([args.dspbench, "detect", "--in", os.path.join(args.corpus, t["path"]), "--frames", out,
                        "--repeats", "1", "--quiet"], check=True, stdout=subprocess.DEVNULL)


def cmd_window(args):
    noise = np.random.default_rng(1).standard_normal(16000 * 60) * 0.01
    windows, quantiles = ("hann", "hann2"), (20, 50)
    calibration = {}
    for w in windows:
        p = power(spectra(noise), w)
        for q in quantiles:
            calibration[w, q] = 10 * np.log10(np.mean(noise ** 2)) - valley_db(p, np.ones(len(p), bool), q)
    errors = []
    print("file\tmusic over noise dB\t" + "\t".join(f"{w} p{q}" for w in windows for q in quantiles))
    for t in dev_files(args.corpus, ("music",)):
        x = spectra(audio(args.corpus, t["path"]))
        mask = music_probability(args.frames, t["path"], len(x)) >= MUSIC_THRESHOLD
        if mask.sum() < 20:
            mask = np.ones(len(x), bool)
        row = [valley_db(power(x, w), mask, q) + calibration[w, q] - t["noise_dbfs"] for w in windows for q in quantiles]
        errors.append(row)
        print(f"{os.path.basename(t['path'])}\t{t['music_dbfs'] - t['noise_dbfs']:.1f}\t" + "\t".join(f"{e:+.1f}" for e in row))
    a = np.abs(np.array(errors))
    print("median abs\t\t" + "\t".join(f"{v:.1f}" for v in np.median(a, axis=0)))
    print("p90 abs\t\t" + "\t".join(f"{v:.1f}" for v in np.percentile(a, 90, axis=0)))


def cmd_persistence(args):
    lag = args.lag_hops
    print("condition\tfile\tmusic hops\tpersistence median\tmean")
    for t in dev_files(args.corpus, ("music", "noise", "talkers", "dialogue", "noise_only")):
        x = spectra(audio(args.corpus, t["path"]))
        pm = music_probability(args.frames, t["path"], len(x))
        bands = (np.abs(x) ** 2)[:, 1:1 + BANDS * WIDTH].reshape(len(x), BANDS, WIDTH)
        peak, level = bands.argmax(axis=2), 10 * np.log10(bands.sum(axis=2) + 1e-30)
        music = pm[lag:] >= MUSIC_THRESHOLD
        if music.sum() < 10:
            continue
        loud = level[lag:] >= level[lag:].max(axis=1, keepdims=True) - 20
        same = (np.abs(peak[lag:] - peak[:-lag]) <= 1) & loud
        share = same.sum(axis=1) / np.maximum(1, loud.sum(axis=1))
        print(f"{t['condition']}\t{os.path.basename(t['path'])}\t{int(music.sum())}\t"
              f"{np.median(share[music]):.2f}\t{share[music].mean():.2f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("frames", "window", "persistence"))
    ap.add_argument("--corpus", default=".build-scene")
    ap.add_argument("--frames", required=True, help="directory of the dspbench detect --frames CSVs")
    ap.add_argument("--dspbench", default=".build/release/dspbench")
    ap.add_argument("--lag-hops", type=int, default=187, help="persistence: hops back (default 187, 3 s)")
    args = ap.parse_args(argv)
    {"frames": cmd_frames, "window": cmd_window, "persistence": cmd_persistence}[args.command](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
