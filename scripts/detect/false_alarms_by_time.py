#!/usr/bin/env python3
"""Voice-activity false alarms on the material's music-only and noise-only files by time from the
file's start (issue #23, a diagnostic): the share of their 10 ms frames called speech in the first
second, the second second and after, per class. Every file of the material opens on its background,
so this shows how much more a detector calls speech before it has heard a second or two of it.

    scripts/detect/false_alarms_by_time.py LABELS NAME=TIMELINE [NAME=TIMELINE ...]

LABELS is a split's labels.jsonl (as run_detect_eval.sh writes it, e.g. results/val/labels.jsonl);
each TIMELINE a `dspscore --timeline` (or a peer's timeline) of the same files. docs/detection.md
(Fitting, the K-series and the back-dating tables) quotes it for val.
"""
import json
import sys
from collections import defaultdict

import numpy as np

CLASSES = ("music_only", "noise_only")
WINDOWS = (("0-1 s", 0.0, 1.0), ("1-2 s", 1.0, 2.0), ("2 s+", 2.0, float("inf")))


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def speech_segments(rows):
    """The timeline's speech spans per file."""
    spans = defaultdict(list)
    for d in rows:
        if d.get("speech") and "start" in d:
            spans[d["audio_filepath"]].append((float(d["start"]), float(d["end"])))
    return spans


def by_time(label_rows, spans):
    """{(class, window): [frames called speech, frames]} over the music-only and noise-only files."""
    files = defaultdict(list)
    for d in label_rows:
        files[d["audio_filepath"]].append(d)
    acc = defaultdict(lambda: [0, 0])
    for path, rows in files.items():
        kind = rows[0]["condition"].split("/")[0]
        if kind not in CLASSES:
            continue
        duration = max(float(r["end"]) for r in rows)
        t = np.arange(0.0, duration - 1e-9, 0.01) + 0.005
        called = np.zeros(len(t), bool)
        for a, b in spans.get(path, []):
            called |= (t >= a) & (t < b)
        for name, a, b in WINDOWS:
            k = (t >= a) & (t < b)
            acc[(kind, name)][0] += int(called[k].sum())
            acc[(kind, name)][1] += int(k.sum())
    return acc


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    labels = read_jsonl(argv[0])
    names = []
    tables = []
    for spec in argv[1:]:
        name, path = spec.split("=", 1)
        names.append(name)
        tables.append(by_time(labels, speech_segments(read_jsonl(path))))
    print("| speech called on, % of frames | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for kind in CLASSES:
        for window, _, _ in WINDOWS:
            cells = []
            for table in tables:
                hit, total = table[(kind, window)]
                cells.append(f"{100 * hit / total:.1f}" if total else "-")
            print(f"| {kind}, {window} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
