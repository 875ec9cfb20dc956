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
    music_valley_probe.py runs --corpus .build-scene --frames DIR --file PATH
        per band of one file: the share of its hops at which the band's strongest bin has stayed
        within one bin for 3 s (187 hops; a run ends after more than 8 misses, one forgiven every
        8 hits), the longest run, and the band's level and valley (every hop counted, as for a
        noise-only file heard as music throughout)
    music_valley_probe.py cap --corpus .build-scene --frames DIR
        per music file: the error of the whole-file valley read (the 20th percentile over the hops
        whose music probability reaches 0.99, each band calibrated on white noise as one sum) and
        of the same with each band capped at a robust line (order 1 or 2, in dB over log
        frequency, refitted without the bands more than MARGIN dB over it or 15 dB under it)
        plus MARGIN, for MARGIN 3 and 6 dB: a smooth background's spectrum read from the bands the
        music leaves it
    music_valley_probe.py drift --corpus .build-scene --frames DIR
        per file with music hops: over its music hops without speech after the first 4 s
        (probabilities from the frames), the share of the loud bands (within 20 dB of the
        loudest) whose level's 1 s exponential spread about the 1 s average is at most 2.5 dB,
        and the RMS difference over the loud bands between 1 s and 4 s exponential averages of
        the band levels in dB (both averages updated on hops with speech probability under 0.3)
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


def frame_column(frames_dir, path, hops, column="p_music"):
    with open(os.path.join(frames_dir, os.path.basename(path) + ".csv")) as f:
        rows = csv.reader(f)
        column = next(rows).index(column)
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
                        "--repeats", "1", "--quiet", "--no-speech-blend"], check=True, stdout=subprocess.DEVNULL)


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
        mask = frame_column(args.frames, t["path"], len(x)) >= MUSIC_THRESHOLD
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
        pm = frame_column(args.frames, t["path"], len(x))
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


def band_matrix(x):
    return (np.abs(x) ** 2)[:, 1:1 + BANDS * WIDTH].reshape(len(x), BANDS, WIDTH)


def cmd_runs(args):
    bands = band_matrix(spectra(audio(args.corpus, args.file)))
    peaks = bands.argmax(axis=2)
    ref, run, miss = np.zeros(BANDS, int), np.zeros(BANDS, int), np.zeros(BANDS, int)
    runs = np.zeros(peaks.shape, int)
    for h in range(len(peaks)):
        for b in range(BANDS):
            if abs(peaks[h, b] - ref[b]) <= 1:
                if miss[b] > 0 and run[b] % 8 == 0:
                    miss[b] -= 1
                run[b] += 1
            elif miss[b] < 8:
                miss[b] += 1
            else:
                ref[b], run[b], miss[b] = peaks[h, b], 0, 0
        runs[h] = run
    level = 10 * np.log10(bands.sum(axis=2).mean(axis=0) + 1e-30)
    valley = 10 * np.log10(np.median(np.median(bands, axis=2), axis=0) * WIDTH + 1e-30) + 1.5
    print("band\tlevel dB\tvalley dB\tshare of hops past 3 s\tlongest run (hops)\tstrongest bin, first 400 hops")
    for b in range(BANDS):
        print(f"{b}\t{level[b]:.1f}\t{valley[b]:.1f}\t{(runs[:, b] >= 187).mean():.2f}\t{runs[:, b].max()}\t"
              + "".join(f"{v:x}" for v in peaks[:400, b]))


def robust_cap(db, margin, order):
    """Each band's level capped at a robust line through the bands' levels plus `margin` dB."""
    lf = np.log2((np.arange(BANDS) + 0.5) * WIDTH * 16000 / N)
    use = np.ones(BANDS, bool)
    for _ in range(6):
        coef = np.polyfit(lf[use], db[use], order)
        r = db - np.polyval(coef, lf)
        new = (r <= margin) & (r >= -15)
        if (new == use).all() or new.sum() < order + 3:
            break
        use = new
    return np.minimum(db, np.polyval(coef, lf) + margin)


def cmd_cap(args):
    noise = np.random.default_rng(1).standard_normal(16000 * 60) * 0.01
    p = power(spectra(noise), "hann")
    bands = p[:, 1:1 + BANDS * WIDTH].reshape(len(p), BANDS, WIDTH)
    calibration = np.mean(noise ** 2) / np.percentile(np.median(bands, axis=2) * WIDTH, 20, axis=0).sum()
    variants = [(m, o) for m in (3, 6) for o in (1, 2)]
    print("file\tnoise\tplain\t" + "\t".join(f"cap {m} dB, order {o}" for m, o in variants))
    errors = []
    for t in dev_files(args.corpus, ("music",)):
        x = power(spectra(audio(args.corpus, t["path"])), "hann")
        mask = frame_column(args.frames, t["path"], len(x)) >= 0.99
        if mask.sum() < 20:
            continue
        b = x[:, 1:1 + BANDS * WIDTH].reshape(len(x), BANDS, WIDTH)
        db = 10 * np.log10(np.percentile((np.median(b, axis=2) * WIDTH)[mask], 20, axis=0) * calibration + 1e-30)
        row = [10 * np.log10((10 ** (db / 10)).sum()) - t["noise_dbfs"]]
        row += [10 * np.log10((10 ** (robust_cap(db, m, o) / 10)).sum()) - t["noise_dbfs"] for m, o in variants]
        errors.append(row)
        print(f"{os.path.basename(t['path'])}\t{t['sources'].get('noise', '')}\t" + "\t".join(f"{e:+.1f}" for e in row))
    a = np.abs(np.array(errors))
    print("median abs\t\t" + "\t".join(f"{v:.2f}" for v in np.median(a, axis=0)))
    print("p90 abs\t\t" + "\t".join(f"{v:.2f}" for v in np.percentile(a, 90, axis=0)))


def cmd_drift(args):
    a1, a4 = np.exp(-1 / (1.0 * 62.5)), np.exp(-1 / (4.0 * 62.5))
    print("condition\tfile\tmusic hops\tsteady share median\tdrift median dB\tdrift p10 dB")
    for t in dev_files(args.corpus, ("music", "noise", "talkers", "dialogue", "noise_only")):
        x = spectra(audio(args.corpus, t["path"]))
        level = 10 * np.log10(band_matrix(x).sum(axis=2) + 1e-20)
        pm = frame_column(args.frames, t["path"], len(x))
        ps = frame_column(args.frames, t["path"], len(x), column="p_speech")
        m1, m4, var = level[0].copy(), level[0].copy(), np.zeros(BANDS)
        steady, drift = np.zeros(len(x)), np.zeros(len(x))
        for h in range(len(x)):
            d = level[h] - m1
            var = a1 * (var + (1 - a1) * d * d)
            if ps[h] < 0.3:
                m1 = a1 * m1 + (1 - a1) * level[h]
                m4 = a4 * m4 + (1 - a4) * level[h]
            loud = m4 >= m4.max() - 20
            steady[h] = ((var <= 2.5 ** 2) & loud).sum() / max(1, loud.sum())
            drift[h] = np.sqrt(np.mean((m1 - m4)[loud] ** 2))
        hops = (pm >= MUSIC_THRESHOLD) & (ps < 0.5)
        hops[:250] = False
        if hops.sum() < 20:
            continue
        print(f"{t['condition']}\t{os.path.basename(t['path'])}\t{int(hops.sum())}\t{np.median(steady[hops]):.2f}\t"
              f"{np.median(drift[hops]):.2f}\t{np.percentile(drift[hops], 10):.2f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("frames", "window", "persistence", "runs", "drift", "cap"))
    ap.add_argument("--corpus", default=".build-scene")
    ap.add_argument("--frames", required=True, help="directory of the dspbench detect --frames CSVs")
    ap.add_argument("--dspbench", default=".build/release/dspbench")
    ap.add_argument("--lag-hops", type=int, default=187, help="persistence: hops back (default 187, 3 s)")
    ap.add_argument("--file", help="runs: the file (a path in the corpus)")
    args = ap.parse_args(argv)
    {"frames": cmd_frames, "window": cmd_window, "persistence": cmd_persistence, "runs": cmd_runs,
     "drift": cmd_drift, "cap": cmd_cap}[args.command](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
