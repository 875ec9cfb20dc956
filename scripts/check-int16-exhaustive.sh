#!/usr/bin/env bash
# Checks Float32 -> Int16 conversion on all 2^32 Float32 bit patterns (vector kernel and scalar
# path) against a plain Double reference. Release build; about a minute on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
SPEECHDSP_EXHAUSTIVE=1 swift test -c release --filter int16ConversionExhaustive
