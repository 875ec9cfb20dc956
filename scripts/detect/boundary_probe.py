#!/usr/bin/env python3
"""Where voice activity's errors lie against segment edges, and a numpy replay of speech edges
read from the hops' power (issue #23; docs/detection.md, Fitting, "Speech boundaries read from the
hops' energy"). A diagnostic, as the other probes here:

    boundary_probe.py edges LABELS TIMELINE [--condition clean/]
    boundary_probe.py replay --corpus DIR --timeline TIMELINE --out OUT \\
        [--floor-margin 6] [--peak-range 40] [--end-search 0.1] [--start-search 0.1]

`edges` counts, on 10 ms frames, the false frames by their distance after a labelled end or before
a labelled start, and the missed frames by their distance from the start or end of their labelled
segment (the condition prefix selects files). `replay` rewrites a timeline's speech segments as
the rule does — an end moves back to the end of the last 16 ms hop within the search whose power
is `--floor-margin` dB over the detector's cue floor and within `--peak-range` dB of the segment's
loudest hop; a start moves back over such hops — reading each file's hop powers from its audio
(16 kHz, scipy's polyphase resampling) and the cue floor from the frames `train_models.py` wrote
(`DIR/results/frames/<split>__<class>__<file>.csv`, `dspbench detect --frames`). The replay takes
the segment's loudest hop over the whole segment at both ends (the Swift rule, at a start, only
over the hops heard so far). `replay` reads only val and train files and refuses test; `edges` is
a diagnostic of any timeline against its labels.
"""
import argparse
import collections
import csv
import json
import os
import sys

import numpy as np

HOP = 256
RATE = 16000


def read_timeline(path):
    out = collections.defaultdict(list)
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            if "start" in d:
                out[d["audio_filepath"]].append(d)
    return out


def edges(args):
    labels = read_timeline(args.labels)
    hyp = read_timeline(args.timeline)
    counts = collections.Counter()
    total = collections.Counter()
    bounds = (5, 10, 20, 50)

    def bucket(frames):
        for b in bounds:
            if frames < b:
                return f"< {b * 10} ms"
        return f">= {bounds[-1] * 10} ms"

    for path, segs in labels.items():
        if not segs[0].get("condition", "").startswith(args.condition):
            continue
        n = int(round(max(s["end"] for s in segs) * 100))
        ref = np.zeros(n, bool)
        got = np.zeros(n, bool)
        for s in segs:
            if s["speech"]:
                ref[int(round(s["start"] * 100)):int(round(s["end"] * 100))] = True
        for s in hyp.get(path, []):
            if s.get("speech"):
                got[int(round(s["start"] * 100)):int(round(s["end"] * 100))] = True
        total["tp"] += int((ref & got).sum())
        total["fp"] += int((~ref & got).sum())
        total["fn"] += int((ref & ~got).sum())
        d = np.diff(np.r_[False, ref, False].astype(int))
        starts, ends = np.where(d == 1)[0], np.where(d == -1)[0]
        for i in np.where(ref & ~got)[0]:
            k = np.searchsorted(starts, i, "right") - 1
            a, b = i - starts[k], ends[k] - 1 - i
            counts[("missed", "after a start" if a <= b else "before an end", bucket(min(a, b)))] += 1
        for i in np.where(~ref & got)[0]:
            before, after = ends[ends <= i], starts[starts > i]
            a = i - before[-1] if len(before) else 10 ** 9
            b = after[0] - i - 1 if len(after) else 10 ** 9
            counts[("false", "after an end" if a <= b else "before a start", bucket(min(a, b)))] += 1
    p = total["tp"] / max(1, total["tp"] + total["fp"])
    r = total["tp"] / max(1, total["tp"] + total["fn"])
    print(f"{args.condition or 'all'}: {dict(total)}, precision {p:.3f}, recall {r:.3f}, F1 {200 * p * r / max(1e-12, p + r):.1f}")
    for key in sorted(counts):
        print(" ".join(key), counts[key])


def hop_levels(path):
    import soundfile as sf
    from scipy.signal import resample_poly
    x, fs = sf.read(path, dtype="float64", always_2d=True)
    x = x.mean(axis=1)
    if fs != RATE:
        g = np.gcd(fs, RATE)
        x = resample_poly(x, RATE // g, fs // g)
    n = len(x) // HOP
    p = (x[:n * HOP].reshape(n, HOP) ** 2).mean(axis=1)
    with np.errstate(divide="ignore"):
        return 10 * np.log10(p)


def cue_floor(corpus, path):
    frames = os.path.join(corpus, "results", "frames", path.replace("/", "__") + ".csv")
    with open(frames) as f:
        reader = csv.reader(f)
        column = next(reader).index("noise_floor_cue_dbfs")
        return np.array([float(row[column]) if row[column] else -np.inf for row in reader])


def replay(args):
    timeline = read_timeline(args.timeline)
    with open(args.out, "w") as out:
        for path, segs in timeline.items():
            if path.startswith("test/"):
                sys.exit("boundary_probe: the test split is for the final report only (issue #23)")
            n = int(round(max(s["end"] for s in segs) * 1000))
            tracks = {k: np.zeros(n, bool) for k in ("speech", "music", "multi_speaker")}
            for s in segs:
                for k, v in tracks.items():
                    v[int(round(s["start"] * 1000)):int(round(s["end"] * 1000))] = bool(s.get(k))
            level = hop_levels(os.path.join(args.corpus, path))
            floor = cue_floor(args.corpus, path)
            m = min(len(level), len(floor))
            level, floor = level[:m], floor[:m]
            speech = tracks["speech"]
            d = np.diff(np.r_[False, speech, False].astype(int))
            refined = speech.copy()
            hop_ms = HOP * 1000 // RATE
            for s0, e0 in zip(np.where(d == 1)[0], np.where(d == -1)[0]):
                first, last = s0 // hop_ms, min((e0 + hop_ms - 1) // hop_ms, m)
                if last <= first or not np.isfinite(level[first:last]).any():
                    continue
                peak = np.max(level[first:last])

                def sounds(j):
                    return np.isfinite(level[j]) and level[j] >= floor[j] + args.floor_margin and level[j] >= peak - args.peak_range

                earliest = max(s0, e0 - int(args.end_search * 1000))
                cut = earliest
                for j in range(last - 1, first - 1, -1):
                    if (j + 1) * hop_ms <= earliest:
                        break
                    if sounds(j):
                        cut = min(e0, (j + 1) * hop_ms)
                        break
                refined[cut:e0] = False
                lowest = max(0, s0 - int(args.start_search * 1000))
                j = first - 1
                while j >= lowest // hop_ms and sounds(j):
                    j -= 1
                start = max((j + 1) * hop_ms, lowest)
                refined[start:s0] = True
            tracks["speech"] = refined
            change = np.ones(n, bool)
            for v in tracks.values():
                change[1:] |= v[1:] != v[:-1]
            cuts = list(np.where(change)[0]) + [n]
            for a, b in zip(cuts[:-1], cuts[1:]):
                out.write(json.dumps({"audio_filepath": path, "start": a / 1000, "end": b / 1000,
                                      **{k: bool(v[a]) for k, v in tracks.items()}}) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    e = sub.add_parser("edges")
    e.add_argument("labels")
    e.add_argument("timeline")
    e.add_argument("--condition", default="")
    r = sub.add_parser("replay")
    r.add_argument("--corpus", required=True)
    r.add_argument("--timeline", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--floor-margin", type=float, default=6.0)
    r.add_argument("--peak-range", type=float, default=40.0)
    r.add_argument("--end-search", type=float, default=0.1)
    r.add_argument("--start-search", type=float, default=0.1)
    args = ap.parse_args(argv)
    (edges if args.command == "edges" else replay)(args)


if __name__ == "__main__":
    main()
