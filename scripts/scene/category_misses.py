#!/usr/bin/env python3
"""Where the per-update noise category misses are, for one condition of one split.

    scripts/scene/category_misses.py --corpus .build-scene --timeline .build-scene/results/timeline.jsonl \
        --condition noise [--split dev]

Reads the environment updates of a `dspscore --timeline` run and scores each against the noise
track's 0.5 s block level (evaluate.py's rule, `update_block`: the block before the update, the category of
dBFS + 90 at 35/45/55/65 dB). Prints the misses by second of the file, how many have a truth
within 1, 2 and 3 dB of a category boundary, the signed error of all updates and of the
misses, the accuracy if every estimate were shifted by -1 ... +1.5 dB (a bias would show as a
better shift than 0), and the misses per noise source.
"""
import argparse
import collections
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evaluate as ev  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--timeline", required=True)
    ap.add_argument("--condition", required=True)
    ap.add_argument("--split", default="dev")
    args = ap.parse_args()
    truth = {t["path"]: t for t in ev.read_jsonl(os.path.join(args.corpus, "truth.jsonl"))}
    rows = []  # (path, time, ours, truth block, our category, true category, dB to a boundary)
    for line in ev.read_jsonl(args.timeline):
        env = line.get("environment")
        if not env or env.get("noise_dbfs") is None:
            continue
        t = truth.get(ev.relative(args.corpus, line["audio_filepath"]))
        if not t or t.get("split") != args.split or t["condition"] != args.condition:
            continue
        blocks = t.get("noise_dbfs_blocks")
        if not blocks:
            continue
        block = ev.update_block(blocks, float(line["time"]))
        if block is None or env.get("noise_category") is None:
            continue
        rows.append((t["path"], float(line["time"]), env["noise_dbfs"], block, env["noise_category"],
                     ev.noise_category(block), min(abs(block + 90 - b) for b, _ in ev.CATEGORIES)))
    if not rows:
        sys.exit(f"no scored updates for {args.condition} in {args.split}")
    misses = [r for r in rows if r[4] != r[5]]
    print(f"{args.condition} ({args.split}): {len(rows)} updates, {len(misses)} misses, "
          f"accuracy {100 * (1 - len(misses) / len(rows)):.2f} %")
    second = lambda r: min(int(r[1]), 10)  # noqa: E731
    print("misses by second of the file (10: 10 s and later):", dict(sorted(collections.Counter(map(second, misses)).items())))
    print("updates by second of the file:", dict(sorted(collections.Counter(map(second, rows)).items())))
    print("misses with the truth within 1 / 2 / 3 dB of a boundary:",
          " / ".join(str(sum(r[6] < d for r in misses)) for d in (1, 2, 3)))
    signed = np.array([r[2] - r[3] for r in rows])
    print("signed error, all updates: median %.2f, p10 %.2f, p90 %.2f dB" % (np.median(signed), *np.percentile(signed, [10, 90])))
    if misses:
        m = np.array([r[2] - r[3] for r in misses])
        print("signed error, misses: median %.2f dB; absolute median %.2f, p90 %.2f dB"
              % (np.median(m), *np.percentile(np.abs(m), [50, 90])))
    print("accuracy with every estimate shifted:", ", ".join(
        "%+.1f dB %.2f %%" % (s, 100 * np.mean([ev.noise_category(r[2] + s) == r[5] for r in rows]))
        for s in (-1, -0.5, 0, 0.5, 1, 1.5)))
    def source(r):
        noise = (truth[r[0]].get("sources") or {}).get("noise") or "none"
        noise = noise if isinstance(noise, str) else ",".join(noise)
        return "babble" if noise.startswith("babble") else noise
    counts, missed = collections.Counter(map(source, rows)), collections.Counter(map(source, misses))
    print("misses / updates per noise source:")
    for name, n in counts.most_common():
        print(f"  {missed[name]:4d} / {n:4d}  {name}")


if __name__ == "__main__":
    main()
