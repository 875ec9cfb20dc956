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
import os
import sys
from collections import defaultdict

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "eval"))
import score  # noqa: E402  (the scorer's segment reader and frame-centre sampling)

CLASSES = ("music_only", "noise_only")
WINDOWS = (("0-1 s", 0.0, 1.0), ("1-2 s", 1.0, 2.0), ("2 s+", 2.0, float("inf")))


def by_time(labels, timeline):
    """{(class, window): [frames called speech, frames]} over the music-only and noise-only files;
    `labels` and `timeline` as `score.read_segments` gives them, frames as the scorer counts them."""
    acc = defaultdict(lambda: [0, 0])
    for path, segments in labels.items():
        kind = segments[0]["condition"].split("/")[0]
        if kind not in CLASSES:
            continue
        count = score.n_frames(max(float(s["end"]) for s in segments))
        called = score.to_frames(timeline.get(path, []), count, "speech")
        if called is None:
            called = np.zeros(count, dtype=bool)
        centre = (np.arange(count) + 0.5) * score.FRAME
        for name, a, b in WINDOWS:
            k = (centre >= a) & (centre < b)
            acc[(kind, name)][0] += int(called[k].sum())
            acc[(kind, name)][1] += int(k.sum())
    return acc


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    labels = score.read_segments(argv[0])
    names = []
    tables = []
    for spec in argv[1:]:
        name, path = spec.split("=", 1)
        names.append(name)
        tables.append(by_time(labels, score.read_segments(path)))
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
