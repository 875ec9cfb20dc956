#!/usr/bin/env bash
# scripts/detect/run_detect_eval.sh: peers and SpeechDSP on one split of the detection material
# (issue #23), scored into the issue's target table.
#
#   scripts/detect/run_detect_eval.sh [small|full] [val|train]
#   scripts/detect/run_detect_eval.sh full test --final     # the report, once the models are chosen
#
#   (a) generates .build-detect-<scale>/ with make_detect_corpus.py if its manifest is missing
#       or incomplete (resumable);
#   (b) runs the peers on the split (run_peers_detect.py: WebRTC VAD modes 0-3, Silero VAD);
#   (c) runs SpeechDSP: dspscore --timeline over the split's files, if a release binary exists
#       ($DSPSCORE, default .build/release/dspscore; it is copied first so a rebuild during the run
#       cannot change it, and never built here);
#   (d) scores every timeline with score_detect.py into DIR/results/<split>/summary.md (+ .json);
#   (e) on val, also the music probe (music_probe.py: val's music-only files rendered twelve ways,
#       written once to DIR/results/music-probe): SpeechDSP and Silero VAD over it, their false
#       alarms per rendering and per music kind in DIR/results/val/music-probe.md.
#
# The test split is refused without --final: it is scored only for the final report of a model
# whose every setting was chosen on val (issue #23), never to choose.
# Env: PYTHON (default .venv-detect/bin/python), DSPSCORE, DETECT_DIR (default .build-detect-<scale>).
set -euo pipefail
ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
scale=${1:-small}
split=${2:-val}
final=${3:-}
case $split in
  val | train) ;;
  test) [[ $final == --final ]] || { echo "run_detect_eval: the test split is for the final report: add --final" >&2; exit 2; } ;;
  *) echo "run_detect_eval: split must be val, train or test --final" >&2; exit 2 ;;
esac
PYTHON=${PYTHON:-.venv-detect/bin/python}
DIR=${DETECT_DIR:-.build-detect-$scale}
OUT=$DIR/results/$split
log() { echo "run_detect_eval: $*" >&2; }

if [[ ! -f $DIR/manifest.json ]] || ! grep -q '"complete": true' "$DIR/manifest.json"; then
  log "generating $DIR ($scale)"
  nice -n 19 "$PYTHON" scripts/detect/make_detect_corpus.py --out "$DIR" --scale "$scale"
fi
mkdir -p "$OUT"
nice -n 19 "$PYTHON" scripts/detect/run_peers_detect.py --corpus "$DIR" --split "$split" --out "$OUT"
systems=(silero="$OUT/silero.jsonl" silero-raw="$OUT/silero-raw.jsonl" webrtc-mode3="$OUT/webrtc-mode3.jsonl"
         webrtc-mode2="$OUT/webrtc-mode2.jsonl" webrtc-mode1="$OUT/webrtc-mode1.jsonl" webrtc-mode0="$OUT/webrtc-mode0.jsonl")

DSPSCORE=${DSPSCORE:-.build/release/dspscore}
if [[ -x $DSPSCORE ]]; then
  bin=$(mktemp -d)/dspscore
  cp "$DSPSCORE" "$bin"
  log "SpeechDSP: $DSPSCORE (sha256 $(sha256sum "$bin" | cut -c1-16)) over the $split files"
  "$PYTHON" -c 'import json,sys; [print(json.loads(l)["audio_filepath"]) for l in open(sys.argv[1]) if json.loads(l)["split"] == sys.argv[2]]' \
    "$DIR/manifest.jsonl" "$split" > "$OUT/files.txt"
  rm -f "$OUT/speechdsp.jsonl"
  start=$(date +%s.%N)
  (cd "$DIR" && nice -n 19 "$bin" score --files-from "results/$split/files.txt" --format jsonl --jobs 1 \
     --analyses speech,music,speakers --timeline "results/$split/speechdsp.jsonl" > "results/$split/speechdsp-records.jsonl")
  end=$(date +%s.%N)
  "$PYTHON" -c "import sys; print(f'run_detect_eval: SpeechDSP: {float(sys.argv[2]) - float(sys.argv[1]):.1f} s')" "$start" "$end" >&2
  sha256sum "$bin" | cut -d' ' -f1 > "$OUT/speechdsp.sha256"
  systems=(speechdsp="$OUT/speechdsp.jsonl" "${systems[@]}")
else
  log "SpeechDSP skipped: no $DSPSCORE"
fi
"$PYTHON" scripts/detect/score_detect.py "$OUT/labels.jsonl" --root "$DIR" "${systems[@]}" --detail \
  --markdown "$OUT/summary.md" --json "$OUT/summary.json"
log "wrote $OUT/summary.md"

if [[ $split == val ]]; then
  PROBE=$DIR/results/music-probe
  if [[ ! -f $PROBE/labels.jsonl ]]; then
    nice -n 19 "$PYTHON" scripts/detect/music_probe.py --corpus "$DIR" --out "$PROBE" >&2
  fi
  (cd "$PROBE" && ls p | sed 's#^#p/#' > files.txt)
  nice -n 19 "$PYTHON" scripts/detect/run_peers_detect.py --corpus "$PROBE" --split val --out "$PROBE/peers" --peers silero
  probe=(silero="$PROBE/peers/silero.jsonl")
  if [[ -n ${bin:-} ]]; then
    (cd "$PROBE" && nice -n 19 "$bin" score --files-from files.txt --format jsonl --jobs 1 \
       --analyses speech,music,speakers --timeline speechdsp.jsonl > speechdsp-records.jsonl)
    probe=(speechdsp="$PROBE/speechdsp.jsonl" "${probe[@]}")
  fi
  "$PYTHON" scripts/detect/music_probe.py --summary "$PROBE" "${probe[@]}" > "$OUT/music-probe.md"
  log "wrote $OUT/music-probe.md"
fi
