#!/usr/bin/env python3
"""A probe of voice activity where a stream starts mid-utterance: one split's files cut so the
stream opens on speech, as a push-to-talk client's does (issue #23, a diagnostic).

    startup_probe.py --corpus .build-detect-full --out DIR [--split val] [--lead 0.2] [--seconds 3]
    startup_probe.py --corpus .build-detect-full --out DIR --split train --lead-range 0.05,0.5 \
        --exclude-classes overlap_train      # K3's train cuts (train_models.py --startup DIR)

Every file of the material starts with non-speech before its first utterance, so the detector's
cues (a noise floor found by minimum statistics, one-second summaries, the frames 64 and 128 ms
back) have heard the background when speech begins, and the models were fitted only on such
starts. A service's stream often opens on the talker. For each file of the split whose labels
hold a speech segment of at least 1.5 s starting at 0.5 s or later, the probe cuts the file
`--lead` seconds after that segment's start (mid-word) and keeps `--seconds` seconds: the first
frame of the stream is speech. Writes DIR/p/NNNNN.flac (24-bit), DIR/manifest.jsonl (the
source's class and condition, `source`, `offset`) and DIR/labels.jsonl (the source's segments
shifted and clipped to the cut), a corpus that dspscore, run_peers_detect.py and
`score_detect.py` read as they read the material:

    (cd DIR && ls p | sed 's#^#p/#' > files.txt && dspscore score --files-from files.txt \\
        --format jsonl --analyses speech,music,speakers --timeline speechdsp.jsonl > records.jsonl)
    run_peers_detect.py --corpus DIR --split val --out DIR/peers --peers silero

Speech recall by time from the stream's start, for any number of timelines of the probe, and
for timelines of the uncut material (`--full NAME=TIMELINE`, paths as in the material's labels:
the same frames heard after the file's own lead-in):

    startup_probe.py --summary DIR NAME=TIMELINE [...] [--full NAME=TIMELINE ...]

Only val (for choosing) or train (cuts to fit on: `train_models.py --startup DIR`); the test split
is for the final report and is refused.
"""
import argparse
import collections
import hashlib
import json
import os
import shlex
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
for p in (HERE, os.path.join(HERE, "..", "eval")):
    sys.path.insert(0, p)

import numpy as np  # noqa: E402

# Windows from the stream's start, seconds: ten of 0.1 s, then wider ones.
WINDOWS = [(i / 10, (i + 1) / 10) for i in range(10)] + [(1.0, 1.5), (1.5, 2.0), (2.0, 3.0)]
STEP = 0.01  # the scorer's frame (score.py)
# Spans of WINDOWS pooled in the summary (docs/detection.md's rules judge these).
POOLED = [(0.1, 0.5), (0.5, 1.0)]


def lead_of(path, lead, lead_range):
    """Seconds into the first long utterance a stream of `path` starts: `lead`, or with
    `lead_range` (low, high) a draw in it seeded by the path (the same for every run)."""
    if lead_range is None:
        return lead
    low, high = lead_range
    digest = hashlib.sha256(path.encode("utf-8")).digest()
    return low + (high - low) * int.from_bytes(digest[:8], "big") / 2 ** 64


def build_argv(args):
    """The options that made a probe, as they would be typed."""
    argv = ["--corpus", args.corpus, "--out", args.out, "--split", args.split, "--seconds", f"{args.seconds:g}",
            "--open-on", args.open_on]
    argv += ["--lead-range", args.lead_range] if args.lead_range else ["--lead", f"{args.lead:g}"]
    argv += ["--after", f"{args.after:g}"] if args.after else []
    argv += ["--only-classes", args.only_classes] if args.only_classes else []
    return argv + (["--exclude-classes", args.exclude_classes] if args.exclude_classes else [])


def opening(segs, open_on, after=0.0):
    """Where a stream of a file with labels `segs` is cut before its lead: the start of its first
    speech segment of at least 1.5 s from `earliest` = 0.5 s + `after` on (`speech`), or the first
    point from `earliest` on with 1.5 s of non-speech after it (`non-speech`: a stream that opens
    on its background, music or effects, later than the file's own start); None when there is
    none. `after` > 0 cuts a second stream further into the same file."""
    earliest = 0.5 + after
    for s in segs:
        if open_on == "speech" and s["speech"] and s["end"] - s["start"] >= 1.5 and s["start"] >= earliest:
            return s["start"]
        if open_on == "non-speech" and not s["speech"] and s["end"] - max(s["start"], earliest) >= 1.5:
            return max(s["start"], earliest)
    return None


def build(args):
    import soundfile as sf  # noqa: E402
    import probelib  # noqa: E402
    skip = {c for c in args.exclude_classes.split(",") if c}
    only = {c for c in args.only_classes.split(",") if c}
    lead_range = tuple(float(v) for v in args.lead_range.split(",")) if args.lead_range else None
    rows, labels = probelib.split_sources(args.corpus, args.split,
                                          lambda m: m["class"] not in skip and (not only or m["class"] in only),
                                          "startup_probe")
    count = 0
    with probelib.ProbeWriter(args.out) as out:
        for m in rows:
            segs = labels[m["audio_filepath"]]
            start = opening(segs, args.open_on, args.after)
            if start is None:
                continue
            info = sf.info(os.path.join(args.corpus, m["audio_filepath"]))
            t0 = start + lead_of(m["audio_filepath"], args.lead, lead_range)
            if t0 + args.seconds > info.duration:
                continue
            x, fs = sf.read(os.path.join(args.corpus, m["audio_filepath"]), dtype="float64",
                            start=int(round(t0 * info.samplerate)), frames=int(round(args.seconds * info.samplerate)))
            if x.ndim > 1:
                x = x.mean(axis=1)
            cut = []
            for s in segs:
                a, b = max(s["start"], t0) - t0, min(s["end"], t0 + args.seconds) - t0
                if b > a:
                    cut.append(dict(s, start=round(a, 6), end=round(b, 6)))
            out.add(x, fs, {"split": args.split, "class": m["class"], "condition": m["condition"],
                            "source": m["audio_filepath"], "offset": round(t0, 6)}, cut)
            count += 1
    with open(os.path.join(args.out, "probe.json"), "w", encoding="utf-8") as f:
        # How the probe was made (train_models.py --startup writes it into the models' header).
        json.dump({"command": "scripts/detect/startup_probe.py " + " ".join(shlex.quote(a) for a in build_argv(args)),
                   "open_on": args.open_on, "files": count}, f)
    what = ("first long utterance" if args.open_on == "speech" else "first 1.5 s of non-speech") + f" from {0.5 + args.after:g} s on"
    print(f"startup_probe: {count} files of {args.split} cut {args.lead_range or args.lead} s into their {what}, "
          f"{args.seconds} s each, in {args.out}")
    return 0


def _mask(segs, t0, t1, key="speech"):
    """Frames (STEP) of [t0, t1) covered by the segments with `key` true."""
    n = int(round((t1 - t0) / STEP))
    t = t0 + (np.arange(n) + 0.5) * STEP
    m = np.zeros(n, bool)
    for s in segs:
        if s.get(key):
            m |= (t >= s["start"]) & (t < s["end"])
    return m


def counts(man, labels, systems):
    """{window: {name: [speech frames called, speech frames, non-speech frames called,
    non-speech frames]}} over the probe's files (manifest rows `man`, probe labels `labels`) for
    `systems`, a list of (name, {path: segments}, uncut): an uncut system's timeline is of the
    material's file (`source`), read `offset` seconds later."""
    table = collections.OrderedDict((w, {}) for w in WINDOWS)
    for name, hyp, full in systems:
        for m in man:
            key = os.path.normpath(m["source"] if full else m["audio_filepath"])
            segs = hyp.get(key)
            if segs is None:
                raise KeyError(f"startup_probe: {name} has no timeline for {key}")
            shift = m["offset"] if full else 0.0
            for w in WINDOWS:
                truth = _mask(labels[m["audio_filepath"]], *w)
                called = _mask(segs, w[0] + shift, w[1] + shift)
                acc = table[w].setdefault(name, [0, 0, 0, 0])
                acc[0] += int((truth & called).sum())
                acc[1] += int(truth.sum())
                acc[2] += int((~truth & called).sum())
                acc[3] += int((~truth).sum())
    return table


def pooled(table, name, low, high):
    """Speech recall, percent, of `name` over the windows of `table` (counts') within [low, high)."""
    spans = [row[name] for (a, b), row in table.items() if a >= low - 1e-9 and b <= high + 1e-9]
    return 100 * sum(acc[0] for acc in spans) / max(sum(acc[1] for acc in spans), 1)


def summary(args):
    """Speech recall (and frames called speech where the labels hold none) per window from the
    stream's start, for each timeline of the probe and each of the uncut material."""
    import score  # noqa: E402
    man = [json.loads(line) for line in open(os.path.join(args.summary, "manifest.jsonl"), encoding="utf-8")]
    labels = score.read_segments(os.path.join(args.summary, "labels.jsonl"))
    systems = []
    for spec, full in [(s, False) for s in args.timelines] + [(s, True) for s in args.full]:
        name, tl = spec.split("=", 1)
        hyp = {os.path.normpath(p): segs for p, segs in score.read_segments(tl).items()}
        systems.append((name + (" (uncut)" if full else ""), hyp, full))
    try:
        table = counts(man, labels, systems)
    except KeyError as e:
        sys.exit(e.args[0])
    names = [n for n, _, _ in systems]
    print(f"| {len(man)} streams that open on speech: speech recall, % (false alarms, %) | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for (a, b), accs in table.items():
        cells = []
        for n in names:
            tp, pos, fp, neg = accs[n]
            # False alarms only where a window holds 1 s of non-speech frames over the files.
            cells.append(f"{100 * tp / max(pos, 1):.1f}" + (f" ({100 * fp / neg:.1f})" if neg >= 100 else ""))
        print(f"| {a:.1f}–{b:.1f} s | " + " | ".join(cells) + " |")
    for low, high in POOLED:
        print(f"| {low:.1f}–{high:.1f} s, pooled | " + " | ".join(f"{pooled(table, n, low, high):.1f}" for n in names) + " |")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=".build-detect-full")
    ap.add_argument("--out")
    ap.add_argument("--split", default="val", choices=("val", "train"))
    ap.add_argument("--lead", type=float, default=0.2, help="seconds into the first long utterance the stream starts")
    ap.add_argument("--lead-range", metavar="LOW,HIGH",
                    help="instead of --lead, a draw in [LOW, HIGH) seconds per file, seeded by its path (train cuts)")
    ap.add_argument("--open-on", choices=("speech", "non-speech"), default="speech",
                    help="what the streams open on (non-speech: train cuts that teach a stream's start is not speech)")
    ap.add_argument("--exclude-classes", default="", metavar="CLASS,...", help="the material's classes not cut")
    ap.add_argument("--only-classes", default="", metavar="CLASS,...", help="cut only these classes of the material")
    ap.add_argument("--after", type=float, default=0.0, metavar="SECONDS",
                    help="look for the opening this much later than 0.5 s (a further stream from the same files)")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--summary", metavar="DIR", help="summarise timelines of a probe written before")
    ap.add_argument("--full", action="append", default=[], metavar="NAME=TIMELINE",
                    help="a timeline of the uncut material, scored on the same frames")
    ap.add_argument("timelines", nargs="*", metavar="NAME=TIMELINE")
    args = ap.parse_args(argv)
    if args.summary:
        return summary(args)
    if not args.out:
        ap.error("--out is required to write a probe")
    return build(args)


if __name__ == "__main__":
    sys.exit(main())
