#!/usr/bin/env python3
"""A probe of voice-activity false alarms on music: one split's music-only files, each rendered
again at four levels, under mains hum, under a steady noise and clipped (issue #23, a diagnostic).

    music_probe.py --corpus .build-detect-full --out DIR [--split val] [--seed 11]

The detection material holds few files per music kind and processing (val: 31 music-only files,
one to fifteen per kind, and one file of music under hum), too few to hold the 3 % music
false-alarm target with a margin or to tell a weakness from one hard file. This probe takes the
split's `music_only` files and writes twelve variants of each (the material's own processing,
make_detect_corpus.py's `_post`):

    level/-40, level/-25, level/-10, level/-1      peak scaled to that dBFS
    hum50/-10, hum60/-10, hum50/-20, hum60/-20     mains hum (seven harmonics) that many dB under
                                                   the music's power, the mixture's peak at a level
                                                   drawn in -30..-6 dBFS
    noise-pink/-10, noise-brown/-10                a synthetic noise 10 dB under the music's power,
                                                   peak drawn in -30..-6 dBFS
    clip/+6, clip/+12                              driven that many dB over full scale, clipped

Each keeps its source file's labels (no speech; music where the source has it). Writes
DIR/p/NNNNN.flac (24-bit), DIR/manifest.jsonl (class music_only, condition
music_probe/<variant>, noise_kind the source's music kind, e.g. midi-solo) and DIR/labels.jsonl,
a corpus that dspscore and `score_detect.py --detail` read as they read the material:

    (cd DIR && ls p | sed 's#^#p/#' > files.txt && dspscore score --files-from files.txt \\
        --format jsonl --analyses speech,music,speakers --timeline speechdsp.jsonl > records.jsonl)
    score_detect.py DIR/labels.jsonl SpeechDSP=DIR/speechdsp.jsonl --root DIR --detail

False alarms per variant and per music kind, for any number of timelines of the probe:

    music_probe.py --summary DIR NAME=TIMELINE [NAME=TIMELINE ...]

Only val (for choosing) or train; the test split is for the final report and is refused.
"""
import argparse
import collections
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
for p in (HERE, os.path.join(HERE, "..", "eval")):
    sys.path.insert(0, p)

import numpy as np  # noqa: E402

VARIANTS = (["level/-40", "level/-25", "level/-10", "level/-1"]
            + [f"hum{f}/{d}" for d in (-10, -20) for f in (50, 60)]
            + ["noise-pink/-10", "noise-brown/-10", "clip/+6", "clip/+12"])


def _render(x, variant, rng, fs):
    """The source `x` (float64) rendered as `variant`."""
    from detectlib import noise  # noqa: E402  (numpy/scipy only when rendering)
    kind, amount = variant.split("/")
    amount = float(amount)
    power = float(np.mean(x ** 2)) or 1e-12
    if kind == "level":
        return x * (10 ** (amount / 20) / max(np.max(np.abs(x)), 1e-9))
    if kind.startswith("hum"):
        f0 = float(kind[3:])
        t = np.arange(len(x)) / fs
        hum = sum(np.sin(2 * np.pi * f0 * k * t + 0.7 * k) / k ** 1.2 for k in range(1, 8))
        y = x + hum / np.sqrt(np.mean(hum ** 2)) * np.sqrt(power) * 10 ** (amount / 20)
    elif kind.startswith("noise-"):
        bg = noise.synthetic(kind[6:], rng, len(x))
        y = x + bg / np.sqrt(max(np.mean(bg ** 2), 1e-20)) * np.sqrt(power) * 10 ** (amount / 20)
    elif kind == "clip":
        return np.clip(x * (10 ** (amount / 20) / max(np.max(np.abs(x)), 1e-9)), -1.0, 1.0)
    else:
        raise ValueError(variant)
    peak = float(rng.uniform(-30, -6))
    return y * (10 ** (peak / 20) / max(np.max(np.abs(y)), 1e-9))


def build(args):
    import soundfile as sf  # noqa: E402
    import probelib  # noqa: E402
    music, labels = probelib.split_sources(args.corpus, args.split, lambda m: m["class"] == "music_only", "music_probe")
    rng = np.random.default_rng(args.seed)
    with probelib.ProbeWriter(args.out) as out:
        for m in music:
            x, fs = sf.read(os.path.join(args.corpus, m["audio_filepath"]), dtype="float64")
            if x.ndim > 1:
                x = x.mean(axis=1)
            kind = m["condition"].split("/", 1)[1]
            for variant in VARIANTS:
                out.add(_render(x, variant, rng, fs), fs, {
                    "split": args.split, "class": "music_only", "condition": f"music_probe/{variant}",
                    "noise_kind": kind, "source": m["audio_filepath"]}, labels[m["audio_filepath"]])
        count = out.count
    print(f"music_probe: {len(music)} music-only files of {args.split}, {count} renders in {args.out}")
    return 0


def summary(args):
    """False alarms per variant and per music kind for each NAME=TIMELINE, percent of frames."""
    import score  # noqa: E402
    man = [json.loads(line) for line in open(os.path.join(args.summary, "manifest.jsonl"), encoding="utf-8")]
    labels = score.read_segments(os.path.join(args.summary, "labels.jsonl"))
    systems = [s.split("=", 1) for s in args.timelines]
    rows = collections.OrderedDict()
    for name, tl in systems:
        hyp = {os.path.normpath(p): segs for p, segs in score.read_segments(tl).items()}
        for m in man:
            key = os.path.normpath(m["audio_filepath"])
            segs = hyp.get(key)
            if segs is None:
                sys.exit(f"music_probe: {name} has no timeline for {key}")
            frames = score.n_frames(max(s["end"] for s in labels[m["audio_filepath"]]))
            called = int(score.to_frames(segs, frames, "speech").sum())
            for group in ("all", "variant " + m["condition"].split("/", 1)[1], "kind " + m["noise_kind"]):
                acc = rows.setdefault(group, {}).setdefault(name, [0, 0])
                acc[0] += called
                acc[1] += frames
    order = ["all"] + ["variant " + v for v in VARIANTS] + sorted(g for g in rows if g.startswith("kind "))
    rows = collections.OrderedDict((g, rows[g]) for g in order if g in rows)
    names = [n for n, _ in systems]
    print("| music probe: VAD false alarms, % of frames | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for group, acc in rows.items():
        print(f"| {group} | " + " | ".join(f"{100 * acc[n][0] / max(acc[n][1], 1):.2f}" for n in names) + " |")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=".build-detect-full")
    ap.add_argument("--out")
    ap.add_argument("--split", default="val", choices=("val", "train"))
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--summary", metavar="DIR", help="summarise timelines of a probe written before")
    ap.add_argument("timelines", nargs="*", metavar="NAME=TIMELINE")
    args = ap.parse_args(argv)
    if args.summary:
        return summary(args)
    if not args.out:
        ap.error("--out is required to write a probe")
    return build(args)


if __name__ == "__main__":
    sys.exit(main())
