#!/usr/bin/env bash
# Checks docs/examples (the cluster recipes of docs/cluster.md): syntax, and that the commands
# they run work — on TestAudio, here, in 3 shards:
#   - bash -n on the shell scripts, a Python parse of the Spark and Dask scripts (which
#     scripts/check-cluster-engines.sh runs on real local engines);
#   - YAML: PyYAML's safe_load_all when installed, else a small structural check;
#   - the Slurm task script, run as array tasks 0..2 of 3 (SLURM_ARRAY_TASK_ID set by hand), and
#     the Kubernetes container command (taken from the YAML, /corpus and /scores mapped to
#     TestAudio and a temp dir, JOB_COMPLETION_INDEX set by hand), then the merge command of
#     each: the merged records must equal an unsharded run;
#   - the GNU parallel / Spark streaming form (--files-from -) gives one record per path.
#
#   scripts/check-cluster-examples.sh [path/to/dspscore]     (default .build/release/dspscore)
set -euo pipefail
cd "$(dirname "$0")/.."
dspscore="$(realpath "${1:-.build/release/dspscore}")"
examples=docs/examples
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
ln -s "$dspscore" "$work/bin/dspscore"
export PATH="$work/bin:$PATH"

for script in "$examples"/*.sh; do bash -n "$script"; done
for script in "$examples"/*.py; do python3 -c "import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])" "$script"; done
for yaml in "$examples"/*.yaml; do
    if python3 -c "import yaml" 2>/dev/null; then
        python3 -c 'import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
assert docs and all("apiVersion" in d and "kind" in d for d in docs), sys.argv[1]' "$yaml"
    else  # no PyYAML: no tabs, every document has apiVersion and kind
        ! grep -q $'\t' "$yaml"
        test "$(grep -c '^apiVersion:' "$yaml")" -eq "$(grep -c '^kind:' "$yaml")"
    fi
done

dspscore --format jsonl TestAudio > "$work/whole.jsonl" 2>/dev/null

# Slurm: the task script as array tasks 0..2 of 3, then the submit script's merge command.
for i in 0 1 2; do
    SLURM_ARRAY_TASK_ID=$i SLURM_CPUS_PER_TASK=2 SHARDS=3 CORPUS=TestAudio OUT="$work/slurm" \
        bash "$examples/dspscore-slurm.sh" 2>/dev/null
done
dspscore merge "$work"/slurm/shard-{0,1,2}-of-3.jsonl | cmp - "$work/whole.jsonl"
grep -q 'dspscore merge$shard_files' "$examples/dspscore-slurm-submit.sh"
echo "slurm example: 3 shards merge to the unsharded run"

# Kubernetes: the container command of the Indexed Job, and the merge Job's command.
if python3 -c "import yaml" 2>/dev/null; then
    command_of() {  # the first container's args[0] of the Job named $2 in $1
        python3 -c 'import sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d and d["kind"] == "Job" and d["metadata"]["name"] == sys.argv[2]:
        c = d["spec"]["template"]["spec"]["containers"][0]
        print(c["args"][0])' "$1" "$2"
    }
    mkdir -p "$work/k8s"
    job=$(command_of "$examples/dspscore-k8s-job.yaml" dspscore | sed "s#/corpus#TestAudio#g; s#/scores#$work/k8s#g")
    for i in 0 1 2; do JOB_COMPLETION_INDEX=$i SHARDS=3 sh -c "$job" 2>/dev/null; done
    merge=$(command_of "$examples/dspscore-k8s-merge.yaml" dspscore-merge | sed "s#/scores#$work/k8s#g")
    SHARDS=3 sh -c "$merge" 2>/dev/null
    cmp "$work/k8s/all.jsonl" "$work/whole.jsonl"
    grep -q '<svg' "$work/k8s/report.html"
    echo "kubernetes example: 3 indexed pods' shards merge to the unsharded run; report written"
fi

# Streaming (GNU parallel --pipe, Spark RDD.pipe): one record per path, in order.
ls TestAudio/*.wav > "$work/paths.txt"
dspscore --files-from - --format jsonl --max-failures 1000000000 < "$work/paths.txt" 2>/dev/null > "$work/stream.jsonl"
test "$(wc -l < "$work/stream.jsonl")" -eq "$(wc -l < "$work/paths.txt")"
python3 -c 'import json, sys
paths = [l.strip() for l in open(sys.argv[1])]
records = [json.loads(l)["audio_filepath"] for l in open(sys.argv[2])]
assert records == paths, "streaming output is not in input order"' "$work/paths.txt" "$work/stream.jsonl"
# A failed file is a record, and one JSON error line on stderr (a Spark or Dask task's log).
printf '%s\n' /nonexistent/missing.wav TestAudio/MANIFEST.md \
    | dspscore --files-from - --format jsonl --max-failures 2 --log-level warning 2> "$work/stream.err" > "$work/bad.jsonl"
test "$(grep -c '"status":"error"' "$work/bad.jsonl")" -eq 2
test "$(grep -c '^{"ts":.*"level":"error","label":"dspscore"' "$work/stream.err")" -eq 2
test "$(wc -l < "$work/stream.err")" -eq 2
echo "streaming example: one record per path, in order; one error line per failed file"
echo "docs/examples: ok"
