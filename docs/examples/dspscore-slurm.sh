#!/usr/bin/env bash
# One shard of a dspscore run as a Slurm job-array task. Submit the whole run (N tasks, then a
# merge job that waits for them) with dspscore-slurm-submit.sh, or by hand:
#
#   sbatch --array=0-15 --export=ALL,SHARDS=16,CORPUS=/data/corpus,OUT=/data/scores dspscore-slurm.sh
#
# Each task scores the files whose path hashes to its shard (--shard i/N: disjoint, covering,
# independent of listing order), appending whole records to OUT/shard-i-of-N.jsonl.partial and
# renaming it at the end. A task that is preempted or killed and requeued resumes: --resume keeps
# the ok records already written and scores only the rest. Failed files are records too
# (status "error"), so --max-failures is set high: a bad file must not fail the task (the merge
# and the report show them).
#SBATCH --job-name=dspscore
#SBATCH --array=0-15
#SBATCH --cpus-per-task=8
#SBATCH --mem=2G
#SBATCH --time=08:00:00
#SBATCH --requeue
#SBATCH --output=dspscore-%A_%a.log
set -euo pipefail

shards="${SHARDS:-16}"
corpus="${CORPUS:?set CORPUS to the corpus directory}"
out="${OUT:?set OUT to the output directory}"
index="${SLURM_ARRAY_TASK_ID:?run as a Slurm array task}"
mkdir -p "$out"

dspscore --shard "$index/$shards" \
    --jobs "${SLURM_CPUS_PER_TASK:-1}" \
    --format jsonl \
    --output "$out/shard-$index-of-$shards.jsonl" --resume \
    --max-failures 1000000000 \
    "$corpus"
