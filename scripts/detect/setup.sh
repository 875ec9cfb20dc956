#!/usr/bin/env bash
# scripts/detect/setup.sh: the Debian packages and the Python venv (.venv-detect) that the
# detection material needs (issue #23). Idempotent; apt-get needs root (or sudo).
#
# Debian main only. A package that is missing only removes its sources from the catalogue (the
# same seed then gives different material; manifest.json records the versions).
set -euo pipefail
ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
apt_pkgs=(
  # speech: TTS engines and voices
  espeak-ng flite festival festvox-kallpc16k festvox-kdlpc16k festvox-us-slt-hts festvox-czech-dita
  festvox-czech-krb festvox-czech-machac festvox-czech-ph festvox-ca-ona-hts festvox-suopuhe-lj
  festvox-suopuhe-mv festvox-italp16k festvox-itapc16k festvox-ru
  # speech: recordings
  ktuberling-data klettres-data hedgewars-data alsa-utils warzone2100-data supertux-data
  # music: synthesiser, SoundFonts, recorded music
  fluidsynth fluid-soundfont-gm timgm6mb-soundfont musescore-general-soundfont-lossless opl3-soundfont
  csound-soundfont avldrums.lv2-soundfont hyperrogue-music warzone2100-music nexuiz-music ufoai-music
  singularity-music asc-music drascula-music colobot-common-sounds lincity-ng-data scorched3d-data
  neverball-data megaglest-data extremetuxracer-data frozen-bubble-data
  # noises: recorded effects and ambiences
  sound-theme-freedesktop oxygen-sounds gnome-audio pingus-data tuxpaint-data
  bzflag-data boswars-data openarena-data
  # noises heard only by the train-only classes of make_detect_corpus.py --train-effects
  chromium-bsu-data tecnoballz-data lbreakout2-data pinball-data minetest-data btanks-data enigma-data
  # music heard only by the train-only classes of make_detect_corpus.py --train-music (and the
  # music folders of pinball-data, btanks-data and enigma-data above)
  a7xpg-data zaz-data pangzero powermanga-data lordsawar-data
  # codecs
  sox libsox-fmt-all lame opus-tools
)
missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=()
  [[ $(id -u) -eq 0 ]] || sudo=(sudo)
  echo "detect/setup: apt-get install ${missing[*]}" >&2
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  # the 8 kHz festvox-kal/kdl packages replace the 16 kHz ones that scripts/scene expects
  for p in festvox-kallpc8k festvox-kdlpc8k; do
    ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
      echo "detect/setup: warning: $p is installed; scripts/scene and this generator expect the 16 kHz voice" >&2
  done
fi
if [[ ! -x .venv-detect/bin/python ]]; then
  python3 -m venv .venv-detect
fi
.venv-detect/bin/pip install -q --disable-pip-version-check -r scripts/detect/requirements.txt
.venv-detect/bin/pip install -q --disable-pip-version-check --no-deps silero-vad==6.2.3 pyannote.audio==4.0.7
# --train: PyTorch for train_recurrent.py (PyPI's build, about 5 GB with its CUDA libraries,
# which the CPU training never loads).
if [[ ${1:-} == --train ]]; then
  .venv-detect/bin/pip install -q --disable-pip-version-check -r scripts/detect/requirements-train.txt
fi
echo "detect/setup: ok" >&2
