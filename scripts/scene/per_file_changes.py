#!/usr/bin/env python3
"""List the scene-corpus files whose background-noise error changed between two dspscore runs.

    per_file_changes.py --corpus DIR --base RECORDS [--base-timeline TIMELINE]
                        --new RECORDS [--new-timeline TIMELINE]
                        [--split dev|test] [--threshold DB]

A condition's median and 90th percentile over 20–80 files can hide one file that a change
breaks: the 4th-worst of 40 is what a p90 reports. This lists, for one split, every file whose
absolute `noise_dbfs` error (against the truth evaluate.py scores it with) grew or shrank by
more than THRESHOLD dB (default 1), and, with both timelines, every file whose per-update error
at the 90th percentile did (each update against the noise track's last whole 0.5 s block, as
evaluate.py scores it). Worse files first. Exit status 0 either way: it reports, it does not
judge.
"""
import argparse
import os
import sys
from collections import defaultdict

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from evaluate import read_jsonl, relative, truth_value, update_block  # noqa: E402


def file_errors(corpus, path):
    """{corpus path: noise_dbfs of the run's ok records}."""
    out = {}
    for r in read_jsonl(path):
        if "audio_filepath" in r and r.get("status", "ok") == "ok":
            out[relative(corpus, r["audio_filepath"])] = ((r.get("environment") or {}).get("noise_dbfs"))
    return out


def update_p90(corpus, path, truth):
    """{corpus path: 90th percentile of |noise_dbfs − block| over the file's updates}."""
    errs = defaultdict(list)
    for line in read_jsonl(path):
        env = line.get("environment")
        if not isinstance(env, dict) or "time" not in line or env.get("noise_dbfs") is None:
            continue
        p = relative(corpus, line["audio_filepath"])
        blocks = (truth.get(p) or {}).get("noise_dbfs_blocks")
        if not blocks:
            continue
        block = update_block(blocks, float(line["time"]))
        if block is not None:
            errs[p].append(abs(env["noise_dbfs"] - block))
    return {p: float(np.percentile(e, 90)) for p, e in errs.items()}


def changes(truth, base, new, threshold):
    """[(growth of the absolute error, path, base error, new error)] beyond `threshold`, worse
    first. Errors are signed for files (dB, estimate − truth) and absolute for the p90s."""
    rows = []
    for p, t in truth.items():
        if p not in base or p not in new or base[p] is None or new[p] is None:
            continue
        b, n = base[p], new[p]
        if t is not None:
            b, n = b - t, n - t
        growth = abs(n) - abs(b)
        if abs(growth) > threshold:
            rows.append((growth, p, b, n))
    return sorted(rows, reverse=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--base", required=True, help="the records of the run compared against")
    ap.add_argument("--new", required=True, help="the records of the run under test")
    ap.add_argument("--base-timeline")
    ap.add_argument("--new-timeline")
    ap.add_argument("--split", choices=["dev", "test"], default="dev")
    ap.add_argument("--threshold", type=float, default=1.0, help="dB (default 1)")
    args = ap.parse_args()
    corpus_truth = {t["path"]: t for t in read_jsonl(os.path.join(args.corpus, "truth.jsonl")) if t["split"] == args.split}
    truth = {p: truth_value(t, "noise_dbfs") for p, t in corpus_truth.items() if truth_value(t, "noise_dbfs") is not None}
    rows = changes(truth, file_errors(args.corpus, args.base), file_errors(args.corpus, args.new), args.threshold)
    print(f"files ({args.split}) whose noise_dbfs error changed by more than {args.threshold:g} dB: {len(rows)}")
    for growth, p, b, n in rows:
        print(f"  {p:<44} {b:+8.2f} -> {n:+8.2f} dB  ({'worse' if growth > 0 else 'better'} by {abs(growth):.2f})")
    if args.base_timeline and args.new_timeline:
        base = update_p90(args.corpus, args.base_timeline, corpus_truth)
        new = update_p90(args.corpus, args.new_timeline, corpus_truth)
        rows = changes({p: None for p in corpus_truth}, base, new, args.threshold)
        print(f"files ({args.split}) whose per-update p90 error changed by more than {args.threshold:g} dB: {len(rows)}")
        for growth, p, b, n in rows:
            print(f"  {p:<44} {b:8.2f} -> {n:8.2f} dB  ({'worse' if growth > 0 else 'better'} by {abs(growth):.2f})")


if __name__ == "__main__":
    main()
