#!/usr/bin/env bash
# Submits one bt-arena tournament to Slurm as N shards and a merge:
#
#   scripts/slurm/submit.sh N RUN BT_ARENA TOURNAMENT_FLAGS...
#
# e.g. scripts/slurm/submit.sh 16 /shared/runs/new-vs-base "$(command -v bt-arena)" \
#        --engine cmd=/shared/bin/new name=new --engine cmd=/shared/bin/base name=base \
#        --each tc=60+0.6 --rounds 20000 --sprt elo0=0,elo1=2
#
# An array job of N tasks (--array=0-(N-1)) runs shard.sbatch, each task one shard into
# RUN/shard-K; a merge job (merge.sbatch) depends on it (--dependency=afterok) and writes the
# merged RUN/games.csv, games.pgn and summary.json. RUN must be on a filesystem every node
# shares (NFS); the job logs go to RUN/slurm-ARRAYJOB_K.out and RUN/slurm-merge-JOB.out.
# Each shard gets CPUS_PER_SHARD CPUs (default 1; give the tournament as many with
# --concurrency). Other sbatch options (a partition, a time limit) can be set with SBATCH_*
# environment variables, e.g. SBATCH_PARTITION=cpu SBATCH_TIMELIMIT=2-00:00:00.
#
# Prints `array job ID` and `merge job ID` lines; `scontrol show job ID` follows a job.
#
# A tune (`bt-arena tune --shard`) is submitted the same way after the word `tune`:
#
#   scripts/slurm/submit.sh tune N RUN BT_ARENA TUNE_FLAGS...
#
# e.g. scripts/slurm/submit.sh tune 8 /shared/runs/eval-tune "$(command -v bt-arena)" \
#        --engine cmd=/shared/bin/bt-search nodes=2000 --params /shared/weights.txt \
#        --iterations 2000
#
# Each task of the array runs tune-shard.sbatch (shard K plays the iterations i with
# (i - 1) mod N = K, each from θ after every shard's finished iterations); the dependent job
# (tune-report.sbatch, printed as `merge job ID`) writes the whole tune's RUN/report.html,
# summary.json, tuned-options.txt and tuned-params.txt, and its log prints θ.
#
# A datagen run (`bt-arena datagen --shard`, with --games) after the word `datagen`:
#
#   scripts/slurm/submit.sh datagen N RUN BT_ARENA DATAGEN_FLAGS...
#
# Each task runs datagen-shard.sbatch (shard K plays the games g with (g - 1) mod N = K); the
# dependent job (datagen-merge.sbatch) writes RUN/positions.bin and RUN/games.dat from every
# shard's games in game-id order, the bytes one machine would have written.
#
# A run of workers (`bt-arena tournament --worker`, elastic) after the word `workers`:
#
#   scripts/slurm/submit.sh workers W RUN BT_ARENA TOURNAMENT_FLAGS...
#
# Each of the W tasks runs worker.sbatch: a worker claiming game pairs from RUN until every
# pair is recorded or the SPRT decides. W need not divide anything, and submitting again with
# the same flags adds W more workers to the run (and another merge job). The merge job writes
# RUN/games.csv, games.pgn, summary.json and report.html once the tasks have ended, however
# they ended (a worker killed or pre-empted leaves its pairs to the others); its exit code is
# the run's verdict (5 when games are missing).
#
# A tune of workers (`bt-arena tune --worker`) after the word `tune-workers`:
#
#   scripts/slurm/submit.sh tune-workers W RUN BT_ARENA TUNE_FLAGS...
#
# Each task claims the tune's iterations; the dependent job writes the whole tune's report
# and tuned values (tune-report.sbatch) once every task has ended. `datagen-workers` does the
# same for a datagen run (with --games), its last job writing RUN/positions.bin and
# RUN/games.dat from every worker's games (datagen-merge.sbatch).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
shard_script=shard.sbatch
merge_script=merge.sbatch
dependency=afterok
command=tournament
if [ "${1:-}" = tune ]; then
  shift
  shard_script=tune-shard.sbatch
  merge_script=tune-report.sbatch
elif [ "${1:-}" = datagen ]; then
  shift
  shard_script=datagen-shard.sbatch
  merge_script=datagen-merge.sbatch
elif [ "${1:-}" = workers ] || [ "${1:-}" = tune-workers ] || [ "${1:-}" = datagen-workers ]; then
  # A worker's death (pre-emption, scancel, a node lost) leaves the run to the others: the
  # merge job runs once every task has ended, however.
  dependency=afterany
  if [ "$1" = tune-workers ]; then
    command=tune
    merge_script=tune-report.sbatch
  elif [ "$1" = datagen-workers ]; then
    command=datagen
    merge_script=datagen-merge.sbatch
  fi
  shift
  shard_script=worker.sbatch
fi
if [ $# -lt 3 ]; then
  echo "usage: $0 [tune|datagen|workers|tune-workers|datagen-workers] N RUN BT_ARENA TOURNAMENT_TUNE_OR_DATAGEN_FLAGS..." >&2
  exit 3
fi
shards=$1
run="$(realpath -m "$2")"
bt_arena="$(realpath "$3")"
shift 3
case $shards in
  '' | *[!0-9]* | 0) echo "submit.sh: N must be a positive whole number, not '$shards'" >&2; exit 3 ;;
esac
mkdir -p "$run"
if [ "$shard_script" = worker.sbatch ]; then
  set -- "$command" "$@"
fi
array="$(sbatch --parsable --array="0-$((shards - 1))" --cpus-per-task="${CPUS_PER_SHARD:-1}" \
  --output="$run/slurm-%A_%a.out" \
  "$here/$shard_script" "$bt_arena" "$run" "$@")"
array="${array%%;*}"
merge="$(sbatch --parsable --dependency="$dependency:$array" --kill-on-invalid-dep=yes \
  --output="$run/slurm-merge-%j.out" "$here/$merge_script" "$bt_arena" "$run")"
merge="${merge%%;*}"
echo "array job $array"
echo "merge job $merge"
