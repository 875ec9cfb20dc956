#!/usr/bin/env bash
# Generate the scene corpus (if missing), score it with dspscore, evaluate one split.
#   scripts/scene/run-eval.sh [small|full] [dev|test]
# Corpus: .build-scene-small (small) or .build-scene (full) at the repository root, or $SCENE_DIR.
# Tools: $PYTHON (default .venv-scene/bin/python, else python3), $DSPSCORE (default .build/release/dspscore),
# $JOBS (default 2), $SCORE_ARGS (more dspscore options, e.g. --no-looped-backgrounds). Results: $RESULTS
# (default <corpus>/results).
set -euo pipefail
scale=${1:-small}
split=${2:-dev}
case $scale in small) dir=.build-scene-small ;; full) dir=.build-scene ;; *) echo "scale: small|full" >&2; exit 2 ;; esac
case $split in dev|test) ;; *) echo "split: dev|test" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=${SCENE_DIR:-$repo/$dir}
py=${PYTHON:-$repo/.venv-scene/bin/python}
[ -x "$py" ] || py=python3
dspscore=${DSPSCORE:-$repo/.build/release/dspscore}
jobs=${JOBS:-2}

if [ ! -f "$out/truth.jsonl" ]; then
  "$py" "$here/make_scene_corpus.py" --out "$out" --scale "$scale" --jobs "$jobs"
fi
grep -q "\"scale\": \"$scale\"" "$out/manifest.json" || { echo "$out holds another scale; remove it or set SCENE_DIR" >&2; exit 1; }
res=${RESULTS:-$out/results}
mkdir -p "$res"
rm -f "$res/records.jsonl" "$res/timeline.jsonl" "$res/records.jsonl.partial"
# shellcheck disable=SC2086  # SCORE_ARGS: extra dspscore options, word-split on purpose
"$dspscore" score "$out" ${SCORE_ARGS:-} --format jsonl --output "$res/records.jsonl" --timeline "$res/timeline.jsonl" --jobs "$jobs"
"$py" "$here/evaluate.py" --corpus "$out" --records "$res/records.jsonl" --timeline "$res/timeline.jsonl" \
  --split "$split" --markdown "$res/eval-$split.md"
echo "tables written to $res/eval-$split.md" >&2
