#!/usr/bin/env bash
# scripts/eval/setup.sh: install what the evaluation corpus and the peer VADs need (issue #4).
#
#   Debian packages: espeak-ng, flite (speech), alsa-utils (its real spoken recordings in
#                    /usr/share/sounds/alsa), fluidsynth + fluid-soundfont-gm (music), sox +
#                    libsox-fmt-base, flac (conversion, TestAudio subset).
#   PyPI:            numpy, soundfile (I/O), webrtcvad-wheels (WebRTC VAD), onnxruntime and
#                    silero-vad installed with --no-deps: silero-vad declares torch as a
#                    dependency (gigabytes with its GPU wheels) but ships its ONNX model, which
#                    run_peers.py runs with onnxruntime + numpy following the package's own
#                    OnnxWrapper streaming logic; torch is never imported.
# Idempotent: installs only what is missing. Needs root (or sudo) for apt-get.
set -euo pipefail

apt_pkgs=(espeak-ng flite fluidsynth fluid-soundfont-gm sox libsox-fmt-base flac alsa-utils)
python3 -m pip --version >/dev/null 2>&1 || apt_pkgs+=(python3-pip)
missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=()
  [[ $(id -u) -eq 0 ]] || sudo=(sudo)
  echo "eval/setup: apt-get install ${missing[*]}" >&2
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# Debian's own python3 refuses system-wide pip installs (PEP 668): retry with the override.
pip_install() {
  python3 -m pip install -q --disable-pip-version-check "$@" ||
    python3 -m pip install -q --disable-pip-version-check --break-system-packages "$@"
}
need_pip=()
python3 -c 'import numpy' 2>/dev/null || need_pip+=(numpy)
python3 -c 'import soundfile' 2>/dev/null || need_pip+=(soundfile)
python3 -c 'import webrtcvad' 2>/dev/null || need_pip+=(webrtcvad-wheels)
python3 -c 'import onnxruntime' 2>/dev/null || need_pip+=(onnxruntime)
if ((${#need_pip[@]})); then
  echo "eval/setup: pip install ${need_pip[*]}" >&2
  pip_install "${need_pip[@]}"
fi
if ! python3 -c 'import importlib.util as u, sys; sys.exit(0 if u.find_spec("silero_vad") else 1)'; then
  echo "eval/setup: pip install --no-deps silero-vad (its ONNX model; torch not installed)" >&2
  pip_install --no-deps silero-vad
fi
# pytest is optional: the scorer's tests also run with python3 -m unittest.
python3 - <<'EOF'
import importlib.metadata as m, importlib.util as u, os
spec = u.find_spec("silero_vad")
model = os.path.join(os.path.dirname(spec.origin), "data", "silero_vad.onnx")
assert os.path.isfile(model), f"silero_vad.onnx not found at {model}"
for p in ("numpy", "soundfile", "webrtcvad-wheels", "onnxruntime", "silero-vad"):
    print(f"eval/setup: {p} {m.version(p)}")
EOF
for t in espeak-ng flite fluidsynth sox; do command -v "$t" >/dev/null || { echo "eval/setup: $t missing" >&2; exit 1; }; done
echo "eval/setup: ok" >&2
