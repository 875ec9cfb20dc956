#!/usr/bin/env bash
# dspscore with file names that are not UTF-8, through every way in and out: arguments,
# directories, --files-from (a file and standard input), --manifest (its own output, carried
# into the new records), --output
# with --resume, merge, --timeline and --rttm. Usage: scripts/test-path-bytes.sh [DSPSCORE]
set -euo pipefail
cd "$(dirname "$0")/.."
DSPSCORE=${1:-.build/release/dspscore}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/in"
# Names as raw bytes: latin-1 é, 0xFF, a lone continuation byte, a cut two-byte sequence, and
# the NFC and NFD spellings of one UTF-8 name (two files).
names=("caf$(printf '\xe9').wav" "$(printf '\xff').wav" "x$(printf '\x80')y.wav" "a$(printf '\xc3').wav" \
       "caf$(printf '\xc3\xa9').wav" "cafe$(printf '\xcc\x81').wav")
for name in "${names[@]}"; do cp TestAudio/silence_16k.wav "$work/in/$name"; done
n=${#names[@]}
fail() { echo "test-path-bytes: $1" >&2; exit 1; }
oks() { grep -c '"status":"ok"' "$1" || true; }

"$DSPSCORE" --format jsonl "$work/in" > "$work/dir.jsonl" 2>/dev/null
test "$(oks "$work/dir.jsonl")" -eq "$n" || fail "directory: $(oks "$work/dir.jsonl") of $n ok"
"$DSPSCORE" --format jsonl "${names[@]/#/$work/in/}" > "$work/args.jsonl" 2>/dev/null
cmp <(LC_ALL=C sort "$work/args.jsonl") <(LC_ALL=C sort "$work/dir.jsonl") || fail "arguments differ from the directory walk"
printf '%s\n' "${names[@]/#/$work/in/}" | LC_ALL=C sort > "$work/list.txt"
"$DSPSCORE" --format jsonl --files-from "$work/list.txt" > "$work/list.jsonl" 2>/dev/null
test "$(oks "$work/list.jsonl")" -eq "$n" || fail "--files-from FILE"
"$DSPSCORE" --format jsonl --files-from - < "$work/list.txt" > "$work/stdin.jsonl" 2>/dev/null
cmp "$work/stdin.jsonl" "$work/list.jsonl" || fail "--files-from - differs from --files-from FILE"
cmp <(LC_ALL=C sort "$work/list.jsonl") <(LC_ALL=C sort "$work/dir.jsonl") || fail "--files-from differs from the directory walk"
"$DSPSCORE" --format jsonl --manifest "$work/dir.jsonl" > "$work/manifest.jsonl" 2>/dev/null
# Each record carries its manifest line (the earlier record, verbatim) and the segment its
# duration names (the whole file); without them it is the earlier record, path bytes included.
python3 - "$work/manifest.jsonl" "$work/dir.jsonl" <<'PY' || fail "--manifest of its own output differs"
import json, sys
again = [json.loads(line) for line in open(sys.argv[1], "rb")]
first = [json.loads(line) for line in open(sys.argv[2], "rb")]
assert len(again) == len(first)
for record, earlier in zip(again, first):
    assert record.pop("manifest") == earlier
    assert record.pop("segment")["start_frame"] == 0
    assert record == earlier
PY
# --resume: two records kept, the rest scored; the result equals the full run.
head -2 "$work/dir.jsonl" > "$work/out.jsonl.partial"
"$DSPSCORE" --format jsonl --output "$work/out.jsonl" --resume "$work/in" 2> "$work/resume.log"
grep -q "resuming: 2 files" "$work/resume.log" || fail "--resume did not recognise the kept records"
cmp "$work/out.jsonl" "$work/dir.jsonl" || fail "--resume differs from a full run"
# merge: shards add up to the full run.
for i in 0 1 2; do "$DSPSCORE" --shard $i/3 --format jsonl "$work/in" > "$work/shard$i.jsonl" 2>/dev/null; done
"$DSPSCORE" merge "$work"/shard{0,1,2}.jsonl | cmp - "$work/dir.jsonl" || fail "merged shards differ from a full run"
# Timelines and RTTM name every file; RTTM lines keep their ten fields.
"$DSPSCORE" --format jsonl --timeline "$work/t.jsonl" --rttm "$work/r.rttm" TestAudio/speech_en-us_16k.wav "$work/in" > /dev/null 2>&1
test "$(python3 -c 'import json,sys; print(len({json.loads(l)["audio_filepath"] for l in open(sys.argv[1])}))' "$work/t.jsonl")" -eq $((n + 1)) \
    || fail "--timeline does not name every file"
awk 'NF != 10 { exit 1 }' "$work/r.rttm" || fail "an RTTM line without ten fields"
echo "test-path-bytes: ok ($n files)"
