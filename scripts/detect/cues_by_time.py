#!/usr/bin/env python3
"""The detector's cues at the start of a file against later in it, on a split's music-only and
noise-only files (issue #23, a diagnostic): which cues read differently before the detector has
heard its background for a while (docs/detection.md, Fitting, "The cue floor's first frames").

    scripts/detect/cues_by_time.py --corpus .build-detect-full --frames DIR [--split val]
        [--dspbench .build/release/dspbench] [--top 15]

DIR receives the detector's per-frame CSVs (`dspbench detect --frames`, written when missing).
Per class (music_only, noise_only): the mean speech probability and the share of frames over
0.5 in 0.2-2.0 s and from 3.0 s on, then the cues whose means differ most between the two spans,
in standard deviations of the cue over both (the first `--top`).
"""
import argparse
import csv
import json
import os
import subprocess
import sys

import numpy as np

CLASSES = ("music_only", "noise_only")
SKIP = {"time", "stream_seconds", "speech", "music", "multi"}


def split_files(corpus, split):
    with open(os.path.join(corpus, "labels.jsonl"), encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    files = {}
    for d in rows:
        kind = d["condition"].split("/")[0]
        if d.get("split") == split and kind in CLASSES:
            files[d["audio_filepath"]] = kind
    return files


def frames(corpus, directory, path, dspbench):
    out = os.path.join(directory, path.replace("/", "_") + ".csv")
    if not os.path.exists(out):
        os.makedirs(directory, exist_ok=True)
        subprocess.run([dspbench, "detect", "--in", os.path.join(corpus, path), "--frames", out, "--repeats", "1",
                        "--quiet", "--no-speech-blend"], check=True, stdout=subprocess.DEVNULL)
    with open(out, encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    columns = list(rows[0].keys())
    return columns, np.array([[float(r[c] or "nan") for c in columns] for r in rows])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=".build-detect-full")
    ap.add_argument("--frames", required=True)
    ap.add_argument("--split", default="val", choices=("val", "train"))
    ap.add_argument("--dspbench", default=".build/release/dspbench")
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args(argv)
    files = split_files(args.corpus, args.split)
    for kind in CLASSES:
        early, late, columns = [], [], None
        for path, k in sorted(files.items()):
            if k != kind:
                continue
            columns, a = frames(args.corpus, args.frames, path, args.dspbench)
            t = a[:, columns.index("time")]
            early.append(a[(t >= 0.2) & (t < 2.0)])
            late.append(a[t >= 3.0])
        if not early:
            continue
        e, l = np.vstack(early), np.vstack(late)
        p = columns.index("p_speech")
        print(f"{kind} ({sum(1 for v in files.values() if v == kind)} files): speech probability mean "
              f"{np.nanmean(e[:, p]):.3f} at 0.2-2.0 s, {np.nanmean(l[:, p]):.3f} from 3 s; over 0.5 "
              f"{np.mean(e[:, p] > 0.5):.3f} and {np.mean(l[:, p] > 0.5):.3f}")
        moved = []
        for i, c in enumerate(columns):
            if c in SKIP or c.startswith("p_"):
                continue
            sd = np.nanstd(np.concatenate([e[:, i], l[:, i]]))
            if sd > 0:
                moved.append((abs(np.nanmean(e[:, i]) - np.nanmean(l[:, i])) / sd, c, np.nanmean(e[:, i]), np.nanmean(l[:, i])))
        for z, c, a, b in sorted(moved, reverse=True)[:args.top]:
            print(f"  {c:<28} {z:.2f} sd: {a:.3f} at 0.2-2.0 s, {b:.3f} from 3 s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
