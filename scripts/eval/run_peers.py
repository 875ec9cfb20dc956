#!/usr/bin/env python3
"""Run the peer VADs over the evaluation corpus and write their timelines (issue #4).

    run_peers.py [--corpus corpus] [--out corpus/results] [--peers webrtc,silero]

Writes, in the segment format of dspscore --timeline (speech only: a VAD writes no music or
multi_speaker field, so score.py reports those tasks as n/a):

  webrtc-mode0.jsonl ... webrtc-mode3.jsonl   WebRTC VAD (PyPI webrtcvad-wheels), aggressiveness
                                              0-3, raw decision of every 30 ms frame (480 samples
                                              at 16 kHz; the last partial frame is zero-padded),
                                              a new Vad instance per file. Silero's state is also
                                              reset per file.
                                              Headline: mode 3.
  silero.jsonl                                Silero VAD (PyPI silero-vad, its bundled ONNX model
                                              run with onnxruntime): per 512-sample chunk
                                              probabilities as in the package's OnnxWrapper
                                              (64-sample context, recurrent state), turned into
                                              segments by the package's get_speech_timestamps
                                              rule with its defaults (threshold 0.5, negative
                                              threshold 0.35, min speech 250 ms, min silence
                                              100 ms, speech pad 30 ms). Headline.
  silero-raw.jsonl                            the same probabilities, raw: chunk >= 0.5.
  peers.json                                  versions, settings and run times.

Audio is read with soundfile, mixed to mono, and brought to 16 kHz with sox (`rate -v`) when it
is at another rate; both peers see 16-bit-range samples (WebRTC takes PCM16, Silero float32).
"""
import argparse
import importlib.metadata as md
import importlib.util
import json
import os
import subprocess
import sys
import time

import numpy as np
import soundfile as sf

SR = 16000


def load_16k(path):
    x, sr = sf.read(path, dtype="float32", always_2d=True)
    x = x.mean(axis=1)
    if sr != SR:
        raw = subprocess.run(["sox", "-R", "-D", "-t", "f32", "-L", "-r", str(sr), "-c", "1", "-",
                              "-t", "f32", "-L", "-", "rate", "-v", str(SR)],
                             input=x.astype("<f4").tobytes(), stdout=subprocess.PIPE, check=True).stdout
        x = np.frombuffer(raw, dtype="<f4")
    return x, len(x) / SR


def to_segments(path, decisions, hop_s, duration):
    """Per-frame booleans (frame i = [i*hop, (i+1)*hop)) -> segments covering [0, duration)."""
    out = []
    start = 0
    n = len(decisions)
    for i in range(1, n + 1):
        if i == n or decisions[i] != decisions[start]:
            end = duration if i == n else min(duration, i * hop_s)
            out.append({"audio_filepath": path, "start": round(start * hop_s, 4), "end": round(end, 4),
                        "speech": bool(decisions[start])})
            start = i
    if not out:
        out.append({"audio_filepath": path, "start": 0.0, "end": round(duration, 4), "speech": False})
    return out


def intervals_to_segments(path, intervals, duration):
    """Speech intervals in seconds (sorted, disjoint) -> segments covering [0, duration)."""
    out, pos = [], 0.0
    for a, b in intervals:
        if a > pos:
            out.append({"audio_filepath": path, "start": round(pos, 4), "end": round(a, 4), "speech": False})
        out.append({"audio_filepath": path, "start": round(a, 4), "end": round(b, 4), "speech": True})
        pos = b
    if pos < duration or not out:
        out.append({"audio_filepath": path, "start": round(pos, 4), "end": round(duration, 4), "speech": False})
    return out


# ------------------------------------------------------------------------------------------------
# WebRTC VAD
# ------------------------------------------------------------------------------------------------

def webrtc_decisions(vad, x):
    frame = 480  # 30 ms
    pcm = np.clip(np.round(x * 32768), -32768, 32767).astype("<i2")
    pcm = np.concatenate([pcm, np.zeros((-len(pcm)) % frame, dtype="<i2")])
    b = pcm.tobytes()
    return [vad.is_speech(b[i * 2 * frame:(i + 1) * 2 * frame], SR) for i in range(len(pcm) // frame)]


# ------------------------------------------------------------------------------------------------
# Silero VAD (ONNX model shipped in the silero-vad package; torch not needed)
# ------------------------------------------------------------------------------------------------

def silero_model_path():
    spec = importlib.util.find_spec("silero_vad")
    if spec is None:
        raise RuntimeError("silero-vad not installed: run scripts/eval/setup.sh")
    return os.path.join(os.path.dirname(spec.origin), "data", "silero_vad.onnx")


class SileroOnnx:
    """The package's OnnxWrapper.__call__ on numpy: 512-sample chunks at 16 kHz, each prefixed with
    the previous chunk's last 64 samples, recurrent state (2, 1, 128) carried across chunks."""

    CHUNK, CONTEXT = 512, 64

    def __init__(self, path):
        import onnxruntime
        opts = onnxruntime.SessionOptions()
        opts.inter_op_num_threads = 1
        opts.intra_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"], sess_options=opts)

    def probabilities(self, x):
        state = np.zeros((2, 1, 128), dtype=np.float32)
        context = np.zeros((1, self.CONTEXT), dtype=np.float32)
        sr = np.array(SR, dtype=np.int64)
        n = len(x)
        x = np.concatenate([x.astype(np.float32), np.zeros((-n) % self.CHUNK, dtype=np.float32)])
        probs = []
        for i in range(0, len(x), self.CHUNK):
            inp = np.concatenate([context, x[None, i:i + self.CHUNK]], axis=1)
            out, state = self.session.run(None, {"input": inp, "state": state, "sr": sr})
            context = inp[:, -self.CONTEXT:]
            probs.append(float(out[0, 0]))
        return probs


def silero_timestamps(probs, n_samples, threshold=0.5, min_speech_ms=250, min_silence_ms=100, pad_ms=30):
    """silero_vad.utils_vad.get_speech_timestamps_from_probs with its defaults
    (max_speech_duration_s = inf, so its max-speech branch never runs). Returns sample intervals."""
    window = 512
    min_speech = SR * min_speech_ms / 1000
    pad = SR * pad_ms / 1000
    min_silence = SR * min_silence_ms / 1000
    neg = max(threshold - 0.15, 0.01)
    triggered, speeches, current, temp_end = False, [], {}, 0
    for i, p in enumerate(probs):
        cur = window * i
        if p >= threshold and temp_end:
            temp_end = 0
        if p >= threshold and not triggered:
            triggered = True
            current["start"] = cur
            continue
        if p < neg and triggered:
            if not temp_end:
                temp_end = cur
            if cur - temp_end < min_silence:
                continue
            current["end"] = temp_end
            if current["end"] - current["start"] > min_speech:
                speeches.append(current)
            current, temp_end, triggered = {}, 0, False
    if current and n_samples - current["start"] > min_speech:
        current["end"] = n_samples
        speeches.append(current)
    for i, s in enumerate(speeches):
        if i == 0:
            s["start"] = int(max(0, s["start"] - pad))
        if i != len(speeches) - 1:
            gap = speeches[i + 1]["start"] - s["end"]
            if gap < 2 * pad:
                s["end"] += int(gap // 2)
                speeches[i + 1]["start"] = int(max(0, speeches[i + 1]["start"] - gap // 2))
            else:
                s["end"] = int(min(n_samples, s["end"] + pad))
                speeches[i + 1]["start"] = int(max(0, speeches[i + 1]["start"] - pad))
        else:
            s["end"] = int(min(n_samples, s["end"] + pad))
    return [(s["start"], s["end"]) for s in speeches]


# ------------------------------------------------------------------------------------------------

def corpus_files(corpus):
    seen, files = set(), []
    with open(os.path.join(corpus, "labels.jsonl"), encoding="utf-8") as f:
        for line in f:
            p = json.loads(line)["audio_filepath"]
            if p not in seen:
                seen.add(p)
                files.append(p)
    return files


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=os.path.normpath(os.path.join(here, "..", "..", "corpus")))
    ap.add_argument("--out", help="default: CORPUS/results")
    ap.add_argument("--peers", default="webrtc,silero")
    args = ap.parse_args()
    out = args.out or os.path.join(args.corpus, "results")
    os.makedirs(out, exist_ok=True)
    peers = set(args.peers.split(","))
    files = corpus_files(args.corpus)

    info = {"files": len(files), "peers": {}}
    audio = {}
    t0 = time.perf_counter()
    for rel in files:
        audio[rel] = load_16k(os.path.join(args.corpus, rel))
    audio_seconds = sum(d for _, d in audio.values())
    info["audio_seconds"] = round(audio_seconds, 2)
    info["load_seconds"] = round(time.perf_counter() - t0, 2)

    if "webrtc" in peers:
        import webrtcvad
        for mode in range(4):
            t0 = time.perf_counter()
            lines = []
            for rel in files:
                x, dur = audio[rel]
                vad = webrtcvad.Vad(mode)  # fresh per file: the VAD adapts its noise model as it goes
                lines += to_segments(rel, webrtc_decisions(vad, x), 0.03, dur)
            elapsed = time.perf_counter() - t0
            name = f"webrtc-mode{mode}"
            write(os.path.join(out, name + ".jsonl"), lines)
            info["peers"][name] = {"package": f"webrtcvad-wheels {md.version('webrtcvad-wheels')}",
                                   "settings": f"aggressiveness {mode}, 30 ms frames, raw decisions",
                                   "seconds": round(elapsed, 2), "realtime_factor": round(audio_seconds / elapsed)}
            print(f"run_peers: {name}: {elapsed:.1f} s", file=sys.stderr)

    if "silero" in peers:
        model = SileroOnnx(silero_model_path())
        t0 = time.perf_counter()
        probs = {rel: model.probabilities(audio[rel][0]) for rel in files}
        elapsed = time.perf_counter() - t0
        raw, ts = [], []
        for rel in files:
            x, dur = audio[rel]
            raw += to_segments(rel, [p >= 0.5 for p in probs[rel]], 512 / SR, dur)
            ts += intervals_to_segments(rel, [(a / SR, b / SR) for a, b in silero_timestamps(probs[rel], len(x))], dur)
        write(os.path.join(out, "silero.jsonl"), ts)
        write(os.path.join(out, "silero-raw.jsonl"), raw)
        import onnxruntime
        common = {"package": f"silero-vad {md.version('silero-vad')} (silero_vad.onnx) on onnxruntime "
                             f"{onnxruntime.__version__}, 1 thread",
                  "seconds": round(elapsed, 2), "realtime_factor": round(audio_seconds / elapsed)}
        info["peers"]["silero"] = {**common, "settings": "get_speech_timestamps defaults: threshold 0.5, "
                                   "neg 0.35, min speech 250 ms, min silence 100 ms, pad 30 ms"}
        info["peers"]["silero-raw"] = {**common, "settings": "per 32 ms chunk: probability >= 0.5"}
        print(f"run_peers: silero: {elapsed:.1f} s", file=sys.stderr)

    with open(os.path.join(out, "peers.json"), "w", encoding="utf-8") as f:
        json.dump(info, f, indent=1)
        f.write("\n")


def write(path, lines):
    with open(path, "w", encoding="utf-8") as f:
        for s in lines:
            f.write(json.dumps(s) + "\n")


if __name__ == "__main__":
    main()
