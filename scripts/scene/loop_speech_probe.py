#!/usr/bin/env python3
"""Two numpy probes of what could read a looped background under speech (docs/scene-measures.md,
"Loops under speech", *Two probes of 2026-12-07*), on the scene corpus's dev split. Prototypes,
not the estimator.

    loop_speech_probe.py bands --corpus .build-scene --frames DIR [--dspbench BIN]
        per dev file of the loops condition: the period search's score (LoopedBackground's:
        Pearson correlation of 0.5 dB hop levels at lags 0.2-2.6 s, the peak's rise over the
        lowest correlation at any shorter lag) over 6 s windows every 0.5 s from 2 s on, on the
        hops' total level and on the level of five bands alone (under 300 Hz, 300 Hz-1 kHz,
        1-3 kHz, over 3 kHz, over 4.5 kHz): the highest score of the file, the share of windows
        at 0.99 or more, and the first lags read there
    loop_speech_probe.py quiet-mean --corpus .build-scene --frames DIR [--guards 4,8,16,31]
        per dev condition: the error of a whole-file reading, the mean power of the hops whose
        speech probability is under 0.3 with no such hop within G hops and whose music
        probability is under 0.5, for each guard G (files with fewer than 31 such hops left out)

DIR receives the detector's per-hop CSVs (`dspbench detect --frames`, written when missing): the
hop level (`level_dbfs`) and the speech and music probabilities come from the shipped detector.
The band levels are recomputed from the audio at 16 kHz (1024-point Hann frames, 256-sample hops,
the window primed with zeros as the analyzer's is).
"""
import argparse
import csv
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scenelib.common import read_mono  # noqa: E402

N, HOP = 1024, 256
HANN = np.hanning(N + 1)[:-1]
WINDOW, SHORTEST, LONGEST, EVERY, FIRST = 375, 13, 163, 31, 125
BANDS = [("total", 0, 8001), ("<300", 0, 300), ("300-1k", 300, 1000), ("1-3k", 1000, 3000),
         (">3k", 3000, 8001), (">4.5k", 4500, 8001)]


def dev_truth(corpus):
    with open(os.path.join(corpus, "truth.jsonl")) as f:
        return [t for t in (json.loads(line) for line in f if line.strip()) if t["split"] == "dev"]


def hop_frames(corpus, frames_dir, path, dspbench):
    """The detector's per-hop CSV of one file as arrays: level dBFS, speech and music probability."""
    out = os.path.join(frames_dir, path.replace("/", "_") + ".csv")
    if not os.path.exists(out):
        os.makedirs(frames_dir, exist_ok=True)
        subprocess.run([dspbench, "detect", "--in", os.path.join(corpus, path), "--frames", out, "--no-speech-blend"],
                       check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        rows = list(csv.DictReader(f))
    level = np.array([float(r["level_dbfs"] or -127.5) for r in rows])
    speech = np.array([float(r["p_speech"]) for r in rows])
    music = np.array([float(r["p_music"]) for r in rows])
    return np.maximum(level, -127.5), speech, music


def band_levels(x):
    """Each band's level per hop, dB, the analysis window primed with zeros."""
    x = np.concatenate([np.zeros(N - HOP), x])
    n = (len(x) - N) // HOP + 1
    frames = np.lib.stride_tricks.sliding_window_view(x, N)[::HOP][:n]
    power = np.abs(np.fft.rfft(frames * HANN, axis=1)) ** 2 / (np.sum(HANN ** 2) * N / 2)
    freq = np.fft.rfftfreq(N, 1 / 16000)
    return [10 * np.log10(np.maximum(power[:, (freq >= lo) & (freq < hi)].sum(1), 1e-13))
            for _, lo, hi in BANDS]


def peak(a):
    """LoopedBackground's period search over one window of levels: (lag, score)."""
    n = len(a)
    best, best_lag = 0.0, 0
    lowest, previous, before = np.inf, -np.inf, -np.inf
    for lag in range(1, min(LONGEST + 1, n // 2) + 1):
        x, y = a[:n - lag], a[lag:]
        r = float(np.corrcoef(x, y)[0, 1]) if x.std() > 0 and y.std() > 0 else 0.0
        p = lag - 1
        if SHORTEST <= p <= LONGEST and previous > 0 and previous >= before and previous >= r:
            s = min(previous, previous - lowest)
            if (best_lag == 0 and s > best) or s > best + 0.005:
                best, best_lag = s, p
        if lag >= 2:
            lowest = min(lowest, previous)
        before, previous = previous, r
    return best_lag, best


def bands(args):
    for t in dev_truth(args.corpus):
        if t["condition"] != "loops":
            continue
        x = read_mono(os.path.join(args.corpus, t["path"]), 16000)[0]
        levels = band_levels(x)
        n = len(levels[0])
        row = [t["path"], "voices=%d" % len(t["sources"].get("voices", []))]
        for (name, _, _), band in zip(BANDS, levels):
            q = np.clip(np.round((band + 127.5) / 0.5), 0, 255)
            found = [peak(q[max(0, end - WINDOW):end]) for end in range(FIRST, n + 1, EVERY)]
            scores = [s for _, s in found]
            lags = [lag for lag, s in found if s >= 0.99][:3]
            row.append("%s %.3f %.2f %s" % (name, max(scores), np.mean(np.array(scores) >= 0.99), lags))
        print("  ".join(row), flush=True)


def quiet_mean(args):
    guards = [int(g) for g in args.guards.split(",")]
    by_condition = {}
    for t in dev_truth(args.corpus):
        if t.get("noise_dbfs") is None or t["condition"] in ("noise_step", "bandwidth"):
            continue
        level, speech, music = hop_frames(args.corpus, args.frames, t["path"], args.dspbench)
        condition = t["condition"]
        if condition == "loops":
            condition += ":speech" if t["sources"].get("voices") else ":alone"
        errors = []
        for g in guards:
            near = np.convolve((speech >= 0.3).astype(float), np.ones(2 * g + 1), mode="same") > 0
            quiet = ~near & (music < 0.5)
            errors.append(10 * np.log10(np.mean(10 ** (level[quiet] / 10))) - t["noise_dbfs"]
                          if quiet.sum() >= 31 else None)
        by_condition.setdefault(condition, []).append(errors)
    for condition, rows in sorted(by_condition.items()):
        for i, g in enumerate(guards):
            e = np.abs([r[i] for r in rows if r[i] is not None])
            print("%-14s guard %2d: %2d of %2d files read, median / p90 |error| %s" % (
                condition, g, len(e), len(rows),
                "%.2f / %.2f dB" % (np.median(e), np.percentile(e, 90)) if len(e) else "-"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    for name in ("bands", "quiet-mean"):
        p = sub.add_parser(name)
        p.add_argument("--corpus", required=True)
        p.add_argument("--frames", required=True)
        p.add_argument("--dspbench", default=".build/release/dspbench")
        if name == "quiet-mean":
            p.add_argument("--guards", default="4,8,16,31")
    args = ap.parse_args()
    bands(args) if args.command == "bands" else quiet_mean(args)


if __name__ == "__main__":
    main()
