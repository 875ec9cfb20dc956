#!/usr/bin/env bash
# scripts/eval/run_eval.sh: the whole evaluation of issue #4 in one command.
#
#   scripts/eval/setup.sh && scripts/eval/run_eval.sh [--remake]
#
#   (a) makes corpus/ with scripts/eval/make_corpus.py if corpus/labels.jsonl is missing
#       (--remake: always);
#   (b) runs SpeechDSP's detectors: .build/release/dspscore --format jsonl --timeline
#       corpus/results/speechdsp.jsonl corpus/ (builds the release dspscore if it is missing; set
#       DSPSCORE=path to use another binary). Skipped, with a message, while dspscore has no
#       --timeline option;
#   (c) runs the peers (scripts/eval/run_peers.py: WebRTC VAD modes 0-3, Silero VAD);
#   (d) scores every timeline with scripts/eval/score.py into corpus/results/summary.md and
#       corpus/results/summary.json (and prints the issue's targets, PASS/FAIL per system).
set -euo pipefail
ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
EVAL=scripts/eval
CORPUS=corpus
RESULTS=$CORPUS/results
log() { echo "run_eval: $*" >&2; }

remake=0
case ${1-} in
  "") ;;
  --remake) remake=1 ;;
  -h | --help) sed -n '2,14s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
  *) echo "usage: $0 [--remake]" >&2; exit 2 ;;
esac

# (a) corpus
if ((remake)) || [[ ! -f $CORPUS/labels.jsonl ]]; then
  log "making $CORPUS/"
  rm -rf -- "${CORPUS:?}"/*/ "$CORPUS/labels.jsonl" "$CORPUS/manifest.jsonl"
  python3 $EVAL/make_corpus.py --out "$CORPUS"
fi
mkdir -p "$RESULTS"

# (b) SpeechDSP
systems=()
DSPSCORE=${DSPSCORE:-.build/release/dspscore}
if [[ ! -x $DSPSCORE && $DSPSCORE == .build/release/dspscore ]]; then
  log "building the release dspscore"
  swift build -c release --product dspscore >&2 || log "release build failed"
fi
# (help text captured first: grep -q closing the pipe early would fail the pipeline under pipefail)
help=$({ "$DSPSCORE" --help; "$DSPSCORE" score --help; } 2>/dev/null || true)
if [[ -x $DSPSCORE ]] && grep -q -- --timeline <<<"$help"; then
  log "SpeechDSP: $DSPSCORE --timeline over $CORPUS/"
  rm -f "$RESULTS/speechdsp.jsonl"
  start=$(date +%s.%N)
  "$DSPSCORE" --format jsonl --timeline "$RESULTS/speechdsp.jsonl" "$CORPUS/" > "$RESULTS/speechdsp-records.jsonl"
  end=$(date +%s.%N)
  python3 -c "import sys; print(f'run_eval: SpeechDSP: {float(sys.argv[2]) - float(sys.argv[1]):.1f} s (dspscore, all analyses)')" "$start" "$end" >&2
  systems+=("speechdsp=$RESULTS/speechdsp.jsonl")
else
  log "SpeechDSP skipped: $DSPSCORE missing or without --timeline"
fi

# (c) peers
python3 $EVAL/run_peers.py --corpus "$CORPUS" --out "$RESULTS"
for s in silero silero-raw webrtc-mode3 webrtc-mode2 webrtc-mode1 webrtc-mode0; do
  systems+=("$s=$RESULTS/$s.jsonl")
done

# (d) scores
python3 $EVAL/score.py "$CORPUS/labels.jsonl" "${systems[@]}" --detail --worst 10 \
  --markdown "$RESULTS/summary.md" --json "$RESULTS/summary.json" --check-targets
log "wrote $RESULTS/summary.md and $RESULTS/summary.json"
