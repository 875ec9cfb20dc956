#!/usr/bin/env python3
"""A stream that starts mid-conversation: the scene corpus's speech files cut to a few seconds
from a fixed offset, and the noise estimate scored update by update from the cut.

    startup_corpus.py make --corpus DIR --out OUT [--offset 1.0] [--seconds 3.0]
    startup_corpus.py score --corpus OUT --timeline TL [--split dev|test] [--markdown F]

The scene corpus starts each speech track 0.2–1.5 s into its file, so the estimate has heard the
background alone before the first word; a service's stream often starts with the talker.
`make` cuts every file of the conditions with speech (clean, noise, talkers, dialogue, rooms,
pitch_rate) to [offset, offset + seconds) — at the default 1.0 s offset, after the first word
has begun in nearly every file (speech starts at 0.3–1.0 s in the one-talker conditions; some
cuts start in a pause between utterances, as a stream may) — in the file's own format and rate,
and writes OUT/truth.jsonl with the noise track's 0.5 s blocks that fall in the cut (the offset
is a whole number of blocks). A file whose background is digital silence keeps
`digital_silence`; its truth category is very_quiet.

`score` reads `dspscore score OUT --format jsonl --timeline TL` and gives, per condition and
per update time from the stream's start, the median and 90th-percentile absolute error of
`noise_dbfs` against the last whole block before the update (as `evaluate.py` scores updates)
and how often the noise category is right (digital-silence files: category only, right when
very_quiet). Audio is never committed; OUT is git-ignored (`.build-scene-startup/`).
"""
import argparse
import json
import math
import os
import sys
from collections import defaultdict

import numpy as np
import soundfile as sf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from evaluate import BLOCK_S, noise_category, read_jsonl, update_block  # noqa: E402

CONDITIONS = ["clean", "noise", "talkers", "dialogue", "rooms", "pitch_rate"]


def make(args):
    blocks_off = args.offset / BLOCK_S
    if abs(blocks_off - round(blocks_off)) > 1e-9 or args.seconds <= 0:
        sys.exit("--offset must be a whole number of 0.5 s blocks and --seconds positive")
    first, count = int(round(blocks_off)), int(math.floor(args.seconds / BLOCK_S + 1e-9))
    truth = read_jsonl(os.path.join(args.corpus, "truth.jsonl"))
    os.makedirs(args.out, exist_ok=True)
    lines = []
    for t in truth:
        if t["condition"] not in CONDITIONS:
            continue
        src = os.path.join(args.corpus, t["path"])
        info = sf.info(src)
        start, stop = int(round(args.offset * info.samplerate)), int(round((args.offset + args.seconds) * info.samplerate))
        if stop > info.frames:
            continue
        data, fs = sf.read(src, start=start, stop=stop, dtype="float64", always_2d=True)
        dst = os.path.join(args.out, t["path"])
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        sf.write(dst, data, fs, format=info.format, subtype=info.subtype)
        blocks = t.get("noise_dbfs_blocks")
        cut = dict(t)
        cut["duration_s"] = args.seconds
        cut["startup_offset_s"] = args.offset
        cut["noise_dbfs_blocks"] = blocks[first:first + count] if blocks else None
        for k in ("speech_dbfs", "speech_dbfs_fullband", "snr_db", "speech_activity", "noise_dbfs", "noise_dbfs_fullband"):
            cut.pop(k, None)  # whole-file truths: not the cut's
        lines.append(cut)
    with open(os.path.join(args.out, "truth.jsonl"), "w") as f:
        for cut in lines:
            f.write(json.dumps(cut, sort_keys=True) + "\n")
    print(f"{len(lines)} files cut to [{args.offset}, {args.offset + args.seconds}) s into {args.out}")


def score(args):
    truth = {t["path"]: t for t in read_jsonl(os.path.join(args.corpus, "truth.jsonl"))
             if args.split is None or t["split"] == args.split}
    per = defaultdict(lambda: ([], []))
    for line in read_jsonl(args.timeline):
        env = line.get("environment")
        if not isinstance(env, dict) or "time" not in line:
            continue
        path = os.path.relpath(os.path.realpath(line["audio_filepath"]), os.path.realpath(args.corpus))
        t = truth.get(path)
        if t is None:
            continue
        time_s = float(line["time"])
        key = (t["condition"], round(time_s * 2) / 2)
        errs, hits = per[key]
        blocks = t.get("noise_dbfs_blocks")
        if t.get("digital_silence"):
            hits.append(env.get("noise_category") == "very_quiet")
            continue
        if not blocks:
            continue
        block = update_block(blocks, time_s)
        if env.get("noise_dbfs") is not None:
            errs.append(abs(env["noise_dbfs"] - block))
        hits.append(env.get("noise_category") == noise_category(block))
    times = sorted({k[1] for k in per})
    out = ["| condition | " + " | ".join(f"{s:.1f} s" for s in times) + " |",
           "|---|" + "---|" * len(times)]
    for cond in CONDITIONS:
        cells = []
        for s in times:
            errs, hits = per.get((cond, s), ([], []))
            if not hits:
                cells.append("—")
                continue
            err = f"{np.median(errs):.2f} / {np.percentile(errs, 90):.1f} dB; " if errs else ""
            cells.append(f"{err}{100 * np.mean(hits):.0f} %")
        out.append(f"| {cond} | " + " | ".join(cells) + " |")
    allh = [h for (c, s), (e, hs) in per.items() for h in hs]
    alle = [x for (c, s), (es, h) in per.items() for x in es]
    out.append("")
    out.append(f"all updates: noise {np.median(alle):.2f} / {np.percentile(alle, 90):.1f} dB (median / p90), "
               f"category right {100 * np.mean(allh):.1f} % of {len(allh)}")
    text = "\n".join(out)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make")
    m.add_argument("--corpus", required=True)
    m.add_argument("--out", required=True)
    m.add_argument("--offset", type=float, default=1.0)
    m.add_argument("--seconds", type=float, default=3.0)
    s = sub.add_parser("score")
    s.add_argument("--corpus", required=True)
    s.add_argument("--timeline", required=True)
    s.add_argument("--split", choices=["dev", "test"])
    s.add_argument("--markdown")
    args = p.parse_args()
    make(args) if args.command == "make" else score(args)


if __name__ == "__main__":
    main()
