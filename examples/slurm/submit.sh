#!/bin/bash
# Submits N shards as a job array and the merge as a job that starts once every shard succeeded.
#   TASKS=jsonl:/shared/quiz.jsonl MODEL=openai/gpt-4o-mini RUNS=/shared/runs/quiz ./submit.sh 4
# Prints the two job ids (array, merge). The environment is passed to the jobs (sbatch --export=ALL).
set -euo pipefail
shards=${1:-4}
here=$(cd "$(dirname "$0")" && pwd)
export SHARDS=$shards
array=$(sbatch --parsable --array=0-$((shards - 1)) "$here/shards.sbatch")
array=${array%%;*}  # "ID;CLUSTER" on a federated Slurm
merge=$(sbatch --parsable --dependency=afterok:"$array" --kill-on-invalid-dep=yes "$here/merge.sbatch")
echo "$array ${merge%%;*}"
