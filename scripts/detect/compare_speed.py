#!/usr/bin/env python3
"""SpeechDSP's detector beside Silero VAD and WebRTC VAD on one file, in one run (issue #23's
speed target: the detection stack >= 3000x real time on one core).

    compare_speed.py --in FILE [--dspbench .build/release/dspbench] [--repeats 10] [--rounds 3]

Each round times, one after the other on the calling thread (pin the process with `taskset -c N`
so that all three share one core):

  speechdsp   `dspbench detect --in FILE --repeats R --json`: the AcousticDetector with voice
              activity, music and several speakers, 1024-sample pushes, the best of R passes
              (thread CPU time, measured inside dspbench)
  silero      Silero VAD's ONNX model (PyPI silero-vad) on onnxruntime with one thread, 512-sample
              chunks with their 64-sample context and recurrent state (scripts/eval/run_peers.py's
              SileroOnnx): the best of R passes, thread CPU time
  webrtc      WebRTC VAD mode 3 (PyPI webrtcvad-wheels), 30 ms frames: the best of R passes

and prints audio seconds per CPU second (x real time = streams per core) per system and round,
then the median over rounds and SpeechDSP / peer. The file is read once (16 kHz mono; another
rate is brought to 16 kHz with sox as in run_peers.py); the reading is not timed.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "eval"))
import run_peers as rp  # noqa: E402


def best_cpu(fn, repeats):
    """The least thread CPU time of `repeats` calls of fn."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.thread_time()
        fn()
        best = min(best, time.thread_time() - t0)
    return best


def speechdsp(dspbench, path, repeats):
    out = subprocess.run([dspbench, "detect", "--in", path, "--repeats", str(repeats), "--json", "--quiet"],
                         check=True, capture_output=True, text=True).stdout
    r = json.loads(out)
    return r["duration_seconds"] / r["cpu_seconds"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--in", dest="path", required=True)
    ap.add_argument("--dspbench", default=os.path.join(HERE, "..", "..", ".build", "release", "dspbench"))
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)

    x, seconds = rp.load_16k(args.path)
    silero = rp.SileroOnnx(rp.silero_model_path())
    import webrtcvad

    systems = {
        "speechdsp": lambda: speechdsp(args.dspbench, args.path, args.repeats),
        "silero": lambda: seconds / best_cpu(lambda: silero.probabilities(x), args.repeats),
        "webrtc-mode3": lambda: seconds / best_cpu(lambda: rp.webrtc_decisions(webrtcvad.Vad(3), x), args.repeats),
    }
    runs = {name: [] for name in systems}
    print(f"{args.path}: {seconds:.2f} s of audio; best of {args.repeats} passes per round, "
          f"x real time (audio seconds per CPU second)")
    for r in range(args.rounds):
        for name, run in systems.items():
            runs[name].append(run())
        print(f"round {r + 1}: " + ", ".join(f"{n} {v[-1]:.0f}x" for n, v in runs.items()))
    med = {n: statistics.median(v) for n, v in runs.items()}
    print("median: " + ", ".join(f"{n} {v:.0f}x" for n, v in med.items()))
    for n in med:
        if n != "speechdsp":
            print(f"speechdsp / {n}: {med['speechdsp'] / med[n]:.1f}")


if __name__ == "__main__":
    main()
