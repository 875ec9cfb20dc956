#!/usr/bin/env bash
# Sets up the Python yardstick: a virtualenv (default .build-yardstick/venv in the repository,
# git-ignored; override with YARDSTICK_VENV) with requirements.txt, plus silero-vad without its
# dependencies (its torch import is never used: score_corpus.py loads the packaged ONNX model
# with onnxruntime). Also the Debian tools compare.sh needs: sox, espeak-ng, time (GNU, for
# peak RSS), util-linux (taskset). Re-running is cheap: installed pieces are kept.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"  # root, venv

need=()
command -v sox >/dev/null || need+=(sox)
command -v espeak-ng >/dev/null || need+=(espeak-ng)
[ -x /usr/bin/time ] || need+=(time)
command -v taskset >/dev/null || need+=(util-linux)
python3 -c "import venv, ensurepip" 2>/dev/null || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}"
fi

if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$here/requirements.txt"
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps silero-vad==6.2.3
"$venv/bin/python" - <<'PY'
import importlib.util, os
import numpy, onnxruntime, pyloudnorm, soundfile, soxr, webrtcvad  # noqa: F401
spec = importlib.util.find_spec("silero_vad")
model = os.path.join(spec.submodule_search_locations[0], "data", "silero_vad.onnx")
assert os.path.exists(model), model
print("yardstick ready:", os.path.dirname(os.path.dirname(numpy.__file__)))
PY
echo "$venv"
