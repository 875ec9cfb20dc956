#!/usr/bin/env bash
# Runs the Spark and Dask recipes of docs/cluster.md for real, here — docs/examples/dspscore-spark.py
# on a local Spark (local[2,2]: 2 executor threads, 2 attempts a task) through RDD.pipe, and
# docs/examples/dspscore-dask.py on a local dask.distributed cluster (2 worker processes) — and
# checks that their outputs merge to the unsharded run, byte for byte:
#
#   1. (not with --short) TestAudio/ in 3 partitions: `dspscore merge` of the part files (and `merge --order` with
#      the path list, which also checks that every path has a record) = `dspscore --format jsonl
#      TestAudio`.
#   2. Faults: the same paths plus a missing file and a file that is not audio (error records),
#      and a dspscore whose first process dies after one record (exit 3), as a task killed in
#      mid-partition: the stage retries the partition, and the merged records = an unsharded
#      `dspscore --files-from` run over the same list; without the error records, = run 1's.
#      For Dask the list also names a file whose name is not UTF-8 (latin-1), passed as bytes.
#   3. (not with --short) The same fault with no retry allowed: the run must fail (exit non-zero),
#      not write a short result.
#   4. (not with --short) A larger set: 300 files (TestAudio's 30, linked from 10 directories)
#      in 8 partitions = `dspscore --format jsonl` over that tree.
#
# Tools: a venv, .venv-cluster, with the pinned versions of scripts/cluster/requirements-*.txt
# (created here; pip downloads them, nothing downloads when the examples run); Spark needs a
# Java 17+ runtime (Debian's openjdk-17-jre-headless is installed here when java is missing and
# we are root). Spark and Dask listen on 127.0.0.1 only.
#
#   scripts/check-cluster-engines.sh [--short] [--engines dask,spark] [path/to/dspscore]
#       (default: both engines, the full form, .build/release/dspscore)
set -euo pipefail
cd "$(dirname "$0")/.."
short=0
engines=dask,spark
while [ $# -gt 0 ]; do
    case $1 in
        --short) short=1; shift ;;
        --engines) engines=$2; shift 2 ;;
        -*) echo "usage: $0 [--short] [--engines dask,spark] [dspscore]" >&2; exit 2 ;;
        *) break ;;
    esac
done
dspscore="$(realpath "${1:-.build/release/dspscore}")"
test -x "$dspscore"
has() { [[ ",$engines," == *",$1,"* ]]; }
for engine in ${engines//,/ }; do
    case $engine in dask|spark) ;; *) echo "unknown engine '$engine' (dask, spark)" >&2; exit 2 ;; esac
done
start=$(date +%s.%N)
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f} s')" "$1" "$(date +%s.%N)"; }
step() { echo "--- $1 ($(elapsed "$start"))"; }

# --- tools
venv=.venv-cluster
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
t=$(date +%s.%N)
if has dask; then "$venv/bin/pip" install -q --disable-pip-version-check -r scripts/cluster/requirements-dask.txt; fi
if has spark; then
    if ! command -v java > /dev/null; then
        if [ "$(id -u)" -ne 0 ]; then echo "spark needs java (apt-get install openjdk-17-jre-headless)" >&2; exit 1; fi
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openjdk-17-jre-headless >&2
    fi
    "$venv/bin/pip" install -q --disable-pip-version-check -r scripts/cluster/requirements-spark.txt
fi
echo "tools: $engines in $venv ($(elapsed "$t"))"
py="$venv/bin/python"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SPARK_LOCAL_IP=127.0.0.1 PYSPARK_PYTHON="$PWD/$py" PYSPARK_DRIVER_PYTHON="$PWD/$py"
export PYSPARK_SUBMIT_ARGS="--conf spark.ui.enabled=false --conf spark.ui.showConsoleProgress=false --conf spark.driver.bindAddress=127.0.0.1 --conf spark.driver.host=127.0.0.1 pyspark-shell"

# The files a directory run scores (AudioFileDiscovery.defaultExtensions), listed by find.
list_audio() {
    find -L "$1" -type f \( -iname '*.wav' -o -iname '*.wave' -o -iname '*.flac' -o -iname '*.ogg' \
        -o -iname '*.oga' -o -iname '*.opus' -o -iname '*.aif' -o -iname '*.aiff' -o -iname '*.aifc' \
        -o -iname '*.w64' -o -iname '*.rf64' -o -iname '*.caf' -o -iname '*.au' -o -iname '*.snd' \
        -o -iname '*.mp3' \) | LC_ALL=C sort
}
# A dspscore whose first process (across all tasks) scores one path and exits 3; `calls` counts processes.
flaky() {
    cat > "$work/flaky-$1" <<EOF
#!/bin/sh
echo >> "$work/calls-$1"
if mkdir "$work/failed-once-$1" 2>/dev/null; then
    head -n 1 | "$dspscore" "\$@"
    exit 3
fi
exec "$dspscore" "\$@"
EOF
    chmod +x "$work/flaky-$1"
    echo "$work/flaky-$1"
}
# run ENGINE OUT PATHS PARTITIONS DSPSCORE [EXTRA...]: the example, its log in OUT.log.
run() {
    local engine=$1 out=$2 paths=$3 parts=$4 exe=$5; shift 5
    local t; t=$(date +%s.%N)
    case $engine in
        spark) "$py" docs/examples/dspscore-spark.py --master "${MASTER:-local[2,2]}" --partitions "$parts" \
                   --dspscore "$exe" "$@" "$paths" "$out" > "$out.log" 2>&1 ;;
        dask)  local size; size=$(stat -c %s "$paths")
               "$py" docs/examples/dspscore-dask.py --workers 2 --retries "${RETRIES:-1}" \
                   --blocksize $(( size / parts )) --dspscore "$exe" "$@" "$paths" "$out" > "$out.log" 2>&1 ;;
    esac || { local rc=$?; echo "$engine run $out failed (exit $rc); its log:" >&2; tail -30 "$out.log" >&2; return $rc; }
    echo "  $engine $(basename "$out"): $(tail -1 "$out.log") ($(elapsed "$t"))"
}
parts() { if [ -d "$1" ] && ls "$1" | grep -q '^part-'; then ls "$1"/part-*; fi; }

step "unsharded runs"
"$dspscore" --format jsonl TestAudio > "$work/whole.jsonl" 2> /dev/null
list_audio TestAudio > "$work/paths.txt"
test "$(wc -l < "$work/paths.txt")" -eq "$(wc -l < "$work/whole.jsonl")"
cp "$work/paths.txt" "$work/faults.txt"
printf '%s\n' /nonexistent/missing.wav TestAudio/MANIFEST.md >> "$work/faults.txt"
cp "$work/faults.txt" "$work/faults-bytes.txt"
first=$(head -1 "$work/paths.txt")
latin1=$(printf "$work/caf\xe9.wav")
ln -s "$PWD/$first" "$latin1"
printf '%s\n' "$latin1" >> "$work/faults-bytes.txt"
for list in faults faults-bytes; do
    "$dspscore" --files-from "$work/$list.txt" --format jsonl --max-failures 2 > "$work/$list-whole.jsonl" 2> /dev/null
done

for engine in dask spark; do
    has $engine || continue
    if [ $short -eq 0 ]; then  # the faults run below covers this too (its ok records = TestAudio's)
        step "$engine: TestAudio in 3 partitions"
        run $engine "$work/$engine-plain" "$work/paths.txt" 3 "$dspscore"
        test "$(parts "$work/$engine-plain" | wc -l)" -eq 3
        "$dspscore" merge $(parts "$work/$engine-plain") | cmp - "$work/whole.jsonl"
        "$dspscore" merge --order "$work/paths.txt" $(parts "$work/$engine-plain") | cmp - "$work/whole.jsonl"
        echo "  merged = dspscore --format jsonl TestAudio"
    fi

    step "$engine: faults (2 bad files, first dspscore process dies after 1 record)"
    list=faults; [ $engine = dask ] && list=faults-bytes
    run $engine "$work/$engine-faults" "$work/$list.txt" 3 "$(flaky $engine)"
    test -d "$work/failed-once-$engine"
    test "$(wc -l < "$work/calls-$engine")" -eq 4  # 3 partitions + the retried one
    "$dspscore" merge --order "$work/$list.txt" $(parts "$work/$engine-faults") | cmp - "$work/$list-whole.jsonl"
    "$dspscore" merge $(parts "$work/$engine-faults") | grep -v '"status":"error"' | grep -v -F '"audio_filepath":"'"$work" \
        | cmp - "$work/whole.jsonl"
    grep -q '"failed": 2' "$work/$engine-faults.log"
    # dspscore's stderr reached the task's log: one JSON error line per failed file
    test "$(grep -c '^{"ts":.*"level":"error","label":"dspscore"' "$work/$engine-faults.log")" -eq 2
    echo "  the partition was retried; merged = dspscore --files-from $list.txt; ok records = TestAudio's"

    if [ $short -eq 0 ]; then
        step "$engine: the same fault with no retry fails the run"
        rm -rf "$work/failed-once-$engine" "$work/calls-$engine"
        if MASTER='local[2]' RETRIES=0 run $engine "$work/$engine-noretry" "$work/paths.txt" 3 "$(flaky $engine)" 2> /dev/null; then
            echo "$engine: a partition whose dspscore exited 3 did not fail the run" >&2; exit 1
        fi
        test ! -e "$work/$engine-noretry/_SUCCESS"
        grep -q -E 'PIPE_FUNCTION_EXITED|CalledProcessError.*returned non-zero exit status 3' "$work/$engine-noretry.log"
        echo "  failed (exit non-zero), as it must"
    fi
done

if [ $short -eq 0 ]; then
    step "a larger set: TestAudio linked from 10 directories (300 files), 8 partitions"
    for d in $(seq -w 0 9); do
        mkdir -p "$work/large/d$d"
        for f in $(list_audio TestAudio); do ln -s "$PWD/$f" "$work/large/d$d/$(basename "$f")"; done
    done
    t=$(date +%s.%N)
    "$dspscore" --format jsonl "$work/large" > "$work/large-whole.jsonl" 2> /dev/null
    echo "  unsharded: $(wc -l < "$work/large-whole.jsonl") records ($(elapsed "$t"))"
    list_audio "$work/large" > "$work/large.txt"
    for engine in dask spark; do
        has $engine || continue
        run $engine "$work/$engine-large" "$work/large.txt" 8 "$dspscore"
        "$dspscore" merge --order "$work/large.txt" $(parts "$work/$engine-large") > "$work/$engine-large-ordered.jsonl"
        "$dspscore" merge $(parts "$work/$engine-large") | cmp - "$work/large-whole.jsonl"
        echo "  $engine: merged = dspscore --format jsonl over the tree"
    done
fi
echo "cluster engines ($engines$([ $short -eq 1 ] && echo ', short')): ok ($(elapsed "$start"))"
