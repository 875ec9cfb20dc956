#!/usr/bin/env bash
# dspscore (comparable work) and the Python WebRTC pipeline, alternated round by round on core 0,
# so that each round's ratio compares two runs made seconds apart on the same machine state.
#
#   scripts/yardstick/pairs.sh                       # 10 rounds on corpus/yardstick/short
#   ROUNDS=20 SET=long scripts/yardstick/pairs.sh
#   OLD=/tmp/dspscore-before scripts/yardstick/pairs.sh   # a second dspscore in the same rounds
#
# Needs the corpus and venv of compare.sh (run it, or scripts/yardstick/setup.sh and compare.sh
# once). Per round it runs, pinned to core 0 (taskset -c 0, --jobs 1, one BLAS/OpenMP thread):
# [OLD dspscore,] dspscore --analyses levels,loudness,speech, score_corpus.py --vad webrtc; and
# records CPU time (user + system) and wall time. Every run must score every file ok.
# Prints each round and then, for Python ÷ dspscore (and OLD ÷ dspscore): the median of the
# per-round ratios, their range, and the ratio of the smallest CPU times ("best against best").
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"  # root, corpus, venv, python; one thread per numeric library
set_name="${SET:-short}"
rounds="${ROUNDS:-10}"
old="${OLD:-}"

[ -x "$python" ] || { echo "no yardstick venv at $venv: run scripts/yardstick/setup.sh" >&2; exit 1; }
[ -d "$corpus/$set_name" ] || { echo "no corpus at $corpus/$set_name: run scripts/yardstick/compare.sh once" >&2; exit 1; }
(cd "$root" && swift build -c release --product dspscore >/dev/null)
new="$root/.build/release/dspscore"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
files=$(ls "$corpus/$set_name" | wc -l)
cat "$corpus/$set_name"/* > /dev/null  # page cache warm

tools=(new py)
[ -n "$old" ] && tools=(old new py)
# one TOOL: runs it once on core 0; prints "CPU WALL".
one() {
    local cmd
    case $1 in
        new) cmd=("$new" --jobs 1 --format jsonl --analyses levels,loudness,speech "$corpus/$set_name") ;;
        old) cmd=("$old" --jobs 1 --format jsonl --analyses levels,loudness,speech "$corpus/$set_name") ;;
        py) cmd=("$python" "$here/score_corpus.py" --vad webrtc "$corpus/$set_name") ;;
    esac
    /usr/bin/time -f "%U %S %e" -o "$work/time" taskset -c 0 "${cmd[@]}" > "$work/$1.jsonl" 2> "$work/$1.err" || true
    local ok
    ok=$(grep -c '"status": *"ok"' "$work/$1.jsonl" || true)
    [ "$ok" -eq "$files" ] || { echo "$1: $ok of $files files ok (see $work/$1.err)" >&2; trap - EXIT; exit 1; }
    awk '{ printf "%.3f %.3f\n", $1 + $2, $3 }' "$work/time"
}
echo "round ${tools[*]} (CPU s, user + system; load average)"
: > "$work/rounds"
for r in $(seq 1 "$rounds"); do
    line="$r"
    for tool in "${tools[@]}"; do
        read -r c w < <(one "$tool")
        line="$line $c"
    done
    echo "$line $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$work/rounds"
done
summary() {  # summary LABEL COLUMN_NUMERATOR COLUMN_DENOMINATOR
    awk -v a="$2" -v b="$3" -v label="$1" '
        { r[NR] = $a / $b; if (NR == 1 || $a < ma) ma = $a; if (NR == 1 || $b < mb) mb = $b }
        END {
            n = NR; for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
            median = n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
            printf "%s: median %.2f×, range %.2f–%.2f× over %d rounds; best against best %.2f×\n", label, median, r[1], r[n], n, ma / mb
        }' "$work/rounds"
}
if [ -n "$old" ]; then
    summary "Python ÷ dspscore" 4 3
    summary "Python ÷ OLD" 4 2
    summary "OLD ÷ dspscore" 2 3
else
    summary "Python ÷ dspscore" 3 2
fi
