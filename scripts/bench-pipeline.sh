#!/usr/bin/env bash
# The front-end benchmark beside its peer, in one invocation, on the same audio: SpeechDSP's
# SpeechFrontEnd (`dspbench run pipeline`) and python-soxr HQ + WebRTC VAD
# (scripts/bench-pipeline-peers.py), both fed 1024-frame pushes of TestAudio speech looped to about
# a minute, at 48 kHz mono and 44.1 kHz stereo. Prints × real time (= real-time streams per core)
# for each and the ratio SpeechDSP ÷ peer.
#
#   scripts/bench-pipeline.sh            # REPETITIONS=5 LOOPS=10 by default
# Needs: a release dspbench (built if missing), sox, python3 with soxr, webrtcvad-wheels, numpy
# (pip install soxr webrtcvad-wheels numpy).
set -euo pipefail
cd "$(dirname "$0")/.."
REPETITIONS=${REPETITIONS:-5}
LOOPS=${LOOPS:-10}
DSPBENCH=${DSPBENCH:-.build/release/dspbench}
[ -x "$DSPBENCH" ] || swift build -c release --product dspbench >&2
python3 -c "import soxr, webrtcvad, numpy" 2>/dev/null || { echo "needs: pip install soxr webrtcvad-wheels numpy" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sox TestAudio/speech_en-us_48k.flac -e floating-point -b 32 "$tmp/48000-mono.wav" repeat $((LOOPS - 1))
sox TestAudio/speech_2ch_en-us_de_44k1.flac -e floating-point -b 32 "$tmp/44100-stereo.wav" repeat $((LOOPS - 1))
for input in 48000-mono 44100-stereo; do
  echo "== $input: SpeechDSP front end" >&2
  "$DSPBENCH" run pipeline --input "$tmp/$input.wav" --repetitions "$REPETITIONS" --json --quiet > "$tmp/$input-ours.json"
  echo "== $input: python-soxr HQ + webrtcvad" >&2
  python3 scripts/bench-pipeline-peers.py --wav "$tmp/$input.wav" --repetitions "$REPETITIONS" > "$tmp/$input-peer.json"
done

python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
print(f"{'input':<14} {'SpeechDSP ×RT':>14} {'peer ×RT':>10} {'ours÷peer':>10}  allocs/push  (peer: python-soxr HQ + webrtcvad, 1024-frame pushes)")
for name in ["48000-mono", "44100-stereo"]:
    ours = json.load(open(f"{tmp}/{name}-ours.json"))
    peer = json.load(open(f"{tmp}/{name}-peer.json"))
    kernel = next(k for k in ours["kernels"] if k["group"] == name and k["is_speechdsp"])
    allocs = kernel.get("allocations_per_frame")
    print(f"{name:<14} {kernel['x_realtime']:>14.0f} {peer['x_realtime']:>10.0f} {kernel['x_realtime'] / peer['x_realtime']:>10.2f}  {allocs if allocs is not None else 'n/a':>11}")
m = ours["machine"]
print(f"machine: {m.get('cpu_model')}, {m.get('logical_cores')} logical cores; SpeechDSP {ours['library']['version']} ({ours['build_configuration']}); "
      f"{ours['settings']['repetitions']} repetitions, median CPU time; audio {peer['audio_seconds_per_pass']:.1f} s per pass")
PY
