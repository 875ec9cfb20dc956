#!/usr/bin/env python3
"""WebRTC VAD and Silero VAD over one split of the detection material (issue #23).

    run_peers_detect.py --corpus DIR --split val [--out DIR/results/val] [--peers webrtc,silero]

The peers and their settings are scripts/eval/run_peers.py's (imported, not copied): WebRTC VAD
(webrtcvad-wheels) modes 0-3, raw 30 ms decisions, a fresh instance per file; Silero VAD
(silero-vad's ONNX model on onnxruntime, one thread) with the package's get_speech_timestamps
rule ('silero') and raw 32 ms chunks >= 0.5 ('silero-raw'), state reset per file.

Writes OUT/labels.jsonl (the split's labels, paths relative to the corpus root), one timeline
per system (OUT/<system>.jsonl, same paths) and OUT/peers.json (versions, settings, seconds).
"""
import argparse
import importlib.metadata as md
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "eval"))
import run_peers as rp  # noqa: E402


def split_files(corpus, split):
    """Paths (relative to the corpus) of a split's files, in manifest order; 'all' for every file."""
    out = []
    with open(os.path.join(corpus, "manifest.jsonl"), encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if split == "all" or r["split"] == split:
                out.append(r["audio_filepath"])
    return out


def write_split_labels(corpus, files, path):
    keep = set(files)
    with open(os.path.join(corpus, "labels.jsonl"), encoding="utf-8") as f, open(path, "w", encoding="utf-8") as g:
        for line in f:
            if json.loads(line)["audio_filepath"] in keep:
                g.write(line)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--split", default="val", choices=["train", "val", "test", "all"])
    ap.add_argument("--out", help="default: CORPUS/results/SPLIT")
    ap.add_argument("--peers", default="webrtc,silero")
    args = ap.parse_args(argv)
    if args.split == "test":
        print("run_peers_detect: the test split is for the final report only (issue #23)", file=sys.stderr)
    out = args.out or os.path.join(args.corpus, "results", args.split)
    os.makedirs(out, exist_ok=True)
    files = split_files(args.corpus, args.split)
    write_split_labels(args.corpus, files, os.path.join(out, "labels.jsonl"))
    peers = set(args.peers.split(","))
    info = {"split": args.split, "files": len(files), "peers": {}}
    t0 = time.perf_counter()
    audio = {rel: rp.load_16k(os.path.join(args.corpus, rel)) for rel in files}
    seconds = sum(d for _, d in audio.values())
    info["audio_seconds"] = round(seconds, 2)
    info["load_seconds"] = round(time.perf_counter() - t0, 2)

    if "webrtc" in peers:
        import webrtcvad
        for mode in range(4):
            t0 = time.perf_counter()
            lines = []
            for rel in files:
                x, dur = audio[rel]
                lines += rp.to_segments(rel, rp.webrtc_decisions(webrtcvad.Vad(mode), x), 0.03, dur)
            elapsed = time.perf_counter() - t0
            name = f"webrtc-mode{mode}"
            rp.write(os.path.join(out, name + ".jsonl"), lines)
            info["peers"][name] = {"package": f"webrtcvad-wheels {md.version('webrtcvad-wheels')}",
                                   "settings": f"aggressiveness {mode}, 30 ms frames, raw decisions",
                                   "seconds": round(elapsed, 2), "realtime_factor": round(seconds / elapsed)}
            print(f"run_peers_detect: {name}: {elapsed:.1f} s", file=sys.stderr)

    if "silero" in peers:
        import onnxruntime
        model = rp.SileroOnnx(rp.silero_model_path())
        t0 = time.perf_counter()
        probs = {rel: model.probabilities(audio[rel][0]) for rel in files}
        elapsed = time.perf_counter() - t0
        raw, ts = [], []
        for rel in files:
            x, dur = audio[rel]
            raw += rp.to_segments(rel, [p >= 0.5 for p in probs[rel]], 512 / rp.SR, dur)
            ts += rp.intervals_to_segments(rel, [(a / rp.SR, b / rp.SR) for a, b in
                                                 rp.silero_timestamps(probs[rel], len(x))], dur)
        rp.write(os.path.join(out, "silero.jsonl"), ts)
        rp.write(os.path.join(out, "silero-raw.jsonl"), raw)
        common = {"package": f"silero-vad {md.version('silero-vad')} (silero_vad.onnx) on onnxruntime "
                             f"{onnxruntime.__version__}, 1 thread",
                  "seconds": round(elapsed, 2), "realtime_factor": round(seconds / elapsed)}
        info["peers"]["silero"] = {**common, "settings": "get_speech_timestamps defaults (threshold 0.5, "
                                   "neg 0.35, min speech 250 ms, min silence 100 ms, pad 30 ms)"}
        info["peers"]["silero-raw"] = {**common, "settings": "per 32 ms chunk: probability >= 0.5"}
        print(f"run_peers_detect: silero: {elapsed:.1f} s", file=sys.stderr)

    with open(os.path.join(out, "peers.json"), "w", encoding="utf-8") as f:
        json.dump(info, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
