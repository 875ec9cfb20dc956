#!/usr/bin/env bash
# Installs the system packages SpeechDSP needs (Debian/Ubuntu), when missing.
# Library: libfftw3-dev, libsndfile1-dev, zlib1g-dev (gzipped manifests), pkg-config. Tests also use the peer libraries as
# differential oracles (libsoxr, libebur128), SoX + numpy for goldens, and the reference
# encoders flac and oggenc for the file round-trip tests (which skip without them); the benchmarks
# compare against libsamplerate and speexdsp too. python3-venv: the Python wheel's venvs
# (scripts/build-wheel.sh, scripts/test-python.sh).
set -euo pipefail
packages=(pkg-config libfftw3-dev libsndfile1-dev zlib1g-dev sox libsox-fmt-base
          libsoxr-dev libsamplerate0-dev libspeexdsp-dev libebur128-dev flac vorbis-tools python3-venv)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "installing: ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
