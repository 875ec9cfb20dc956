#!/usr/bin/env bash
# Submits a sharded dspscore run to Slurm: an array of SHARDS tasks (dspscore-slurm.sh), then a
# job that runs only when every task succeeded, merging the shards (validating them: a missing
# or duplicated record fails the merge) and writing the HTML report.
#
#   CORPUS=/data/corpus OUT=/data/scores SHARDS=16 ./dspscore-slurm-submit.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
shards="${SHARDS:-16}"
: "${CORPUS:?set CORPUS}" "${OUT:?set OUT}"
export SHARDS="$shards" CORPUS OUT

array=$(sbatch --parsable --array="0-$((shards - 1))" --export=ALL "$here/dspscore-slurm.sh")
echo "scoring: job array $array ($shards shards)"

# The shard list is spelled out here: --wrap runs under /bin/sh, which has no brace expansion.
shard_files=""
for i in $(seq 0 $((shards - 1))); do shard_files+=" $(printf '%q' "$OUT/shard-$i-of-$shards.jsonl")"; done
all=$(printf '%q' "$OUT/all.jsonl")
report=$(printf '%q' "$OUT/report.html")
merge=$(sbatch --parsable --dependency="afterok:$array" --job-name=dspscore-merge \
    --cpus-per-task=1 --mem=4G --time=01:00:00 --output="dspscore-merge-%j.log" \
    --wrap "set -eu; dspscore merge$shard_files > $all; dspscore report $all --output $report")
echo "merge + report: job $merge (after $array)"
