#!/usr/bin/env python3
"""Would reading the noise in the detector's pauses help the per-update noise category? A numpy
probe on one split (docs/scene-measures.md, "Where the category misses are").

    scripts/scene/pause_probe.py --corpus .build-scene --timeline TL --frames DIR \
        [--pause-seconds 2] [--music-below 0.5] [--split dev] [--write-frames [--dspbench BIN]]

TL is the `dspscore --timeline` of the split (run-eval.sh writes it); DIR holds the detector's
per-hop CSVs (`dspbench detect --frames`), one per file, written first with --write-frames. For
each environment update, scored against the noise track's 0.5 s block as evaluate.py scores it,
the variant replaces the shipped estimate by the mean power of the update's last 0.5 s (31 hops)
when the detector's speech decision was off and its music probability under --music-below for
the last --pause-seconds: the level a VAD-gated reader would report in a pause. Prints per
condition the updates, how many the variant changed, the median / 90th-percentile absolute
error and the category accuracy, shipped -> variant, and for the changed updates alone.
"""
import argparse
import csv
import math
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evaluate as ev  # noqa: E402

HOP_S = 0.016
BLOCK_HOPS = 31


def hops(frames_dir, path):
    """Per-hop level (dBFS), music probability and speech decision of one file's CSV."""
    level, music, speech = [], [], []
    with open(os.path.join(frames_dir, os.path.basename(path) + ".csv")) as f:
        for row in csv.DictReader(f):
            level.append(float(row["level_dbfs"]) if row["level_dbfs"] else -200.0)
            music.append(float(row["p_music"] or 0))
            speech.append(row["speech"] == "1")
    return np.array(level), np.array(music), np.array(speech)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--timeline", required=True)
    ap.add_argument("--frames", required=True)
    ap.add_argument("--split", choices=["dev", "test"], default="dev")
    ap.add_argument("--pause-seconds", type=float, default=2.0)
    ap.add_argument("--music-below", type=float, default=0.5)
    ap.add_argument("--write-frames", action="store_true")
    ap.add_argument("--dspbench", default=".build/release/dspbench")
    args = ap.parse_args()
    truth = {t["path"]: t for t in ev.read_jsonl(os.path.join(args.corpus, "truth.jsonl"))
             if t["split"] == args.split}
    if args.write_frames:
        os.makedirs(args.frames, exist_ok=True)
        for path in truth:
            out = os.path.join(args.frames, os.path.basename(path) + ".csv")
            if not os.path.exists(out):
                subprocess.run([args.dspbench, "detect", "--in", os.path.join(args.corpus, path), "--frames", out,
                                "--repeats", "1", "--quiet", "--no-speech-blend"], check=True, stdout=subprocess.DEVNULL)
    updates = {}
    for line in ev.read_jsonl(args.timeline):
        if isinstance(line.get("environment"), dict) and "time" in line:
            path = ev.relative(args.corpus, line["audio_filepath"])
            if path in truth:
                updates.setdefault(path, []).append((float(line["time"]), line["environment"]))
    pause_hops = int(round(args.pause_seconds / HOP_S))
    rows = {}
    for path, file_updates in updates.items():
        t = truth[path]
        blocks = t.get("noise_dbfs_blocks")
        if not blocks:
            continue
        level, music, speech = hops(args.frames, path)
        r = rows.setdefault(t["condition"], {"old": [], "new": [], "hit_old": [], "hit_new": [], "changed": []})
        for time_s, env in file_updates:
            block = ev.update_block(blocks, time_s)
            if block is None or env.get("noise_dbfs") is None:
                continue
            old = env["noise_dbfs"]
            new = old
            end = int(round(time_s / HOP_S))
            start = end - pause_hops
            if start >= 0 and end <= len(speech) and not speech[start:end].any() and (music[start:end] < args.music_below).all():
                new = 10 * math.log10(max(float(np.mean(10 ** (level[end - BLOCK_HOPS:end] / 10))), 1e-30))
            r["old"].append(abs(old - block))
            r["new"].append(abs(new - block))
            r["hit_old"].append(env.get("noise_category") == ev.noise_category(block))
            r["hit_new"].append(ev.noise_category(new) == ev.noise_category(block))
            r["changed"].append(new != old)
    print(f"pause of {args.pause_seconds} s, music under {args.music_below} ({args.split} split)")
    print("| condition | updates | changed | error shipped | error variant | category shipped | variant "
          "| changed only: category shipped | variant |")
    print("|---|---:|---:|---|---|---:|---:|---:|---:|")
    for cond in ev.CONDITIONS:
        if cond not in rows:
            continue
        r = {k: np.array(v) for k, v in rows[cond].items()}
        c = r["changed"]
        err = lambda e: f"{np.median(e):.2f} / {np.percentile(e, 90):.2f}"  # noqa: E731
        pct = lambda h: f"{100 * np.mean(h):.1f} %" if len(h) else "—"  # noqa: E731
        print(f"| {cond} | {len(c)} | {int(c.sum())} | {err(r['old'])} | {err(r['new'])} | {pct(r['hit_old'])} "
              f"| {pct(r['hit_new'])} | {pct(r['hit_old'][c])} | {pct(r['hit_new'][c])} |")


if __name__ == "__main__":
    main()
