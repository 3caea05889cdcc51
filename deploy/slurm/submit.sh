#!/usr/bin/env bash
# Run fresgld chains as a Slurm job array, one chain per task, then pool
# them with a dependent merge job.
#
#   deploy/slurm/submit.sh [options] -- COMMAND [FLAGS...]
#
#   COMMAND FLAGS   a sampling command and its flags, e.g.
#                   logistic --data /shared/wdbc.csv --label benign --seed 7
#                   (not --out, --chain or --chains: the script sets them)
#   --out DIR       output directory on a file system every node sees (required)
#   --chains N      chains, one array task each (default 4)
#   --resumable     tasks are requeued on preemption or node failure
#                   (sbatch --requeue) and a task that finds its own
#                   checkpoint (DIR/chain-<c>.ckpt) resumes from it
#                   (fresgld resume DIR --chain c) instead of starting over
#   --fresgld PATH  the fresgld binary the nodes run (default: fresgld on PATH)
#   --sbatch ARGS   extra sbatch options for both jobs, e.g. "--partition=short"
#
# Chain c draws from its own seeded streams whatever the task's node, so the
# merged table (DIR/merged/summary.txt) equals the table of one process
# running all N chains, byte for byte. It prints the two job ids.
set -euo pipefail

chains=4 out="" resumable=0 fresgld=fresgld extra=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --chains) chains=$2; shift 2 ;;
    --resumable) resumable=1; shift ;;
    --fresgld) fresgld=$2; shift 2 ;;
    --sbatch) extra=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "submit.sh: unknown option $1 (the command's own flags go after --)" >&2; exit 2 ;;
  esac
done
if [ -z "$out" ] || [ $# -eq 0 ]; then
  echo "usage: submit.sh --out DIR [--chains N] [--resumable] [--fresgld PATH] [--sbatch ARGS] -- COMMAND [FLAGS...]" >&2
  exit 2
fi
case "$chains" in ''|*[!0-9]*|0) echo "submit.sh: --chains $chains: want a whole number ≥ 1" >&2; exit 2 ;; esac
for a in "$@"; do
  case "$a" in --out|--out=*|--chain|--chain=*|--chains|--chains=*)
    echo "submit.sh: $a: the script sets --out, --chain and --chains itself" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
fresgld=$(command -v "$fresgld" || echo "$fresgld")

# The task's command line, quoted for the shell that runs it on the node.
cmdline=$(printf '%q ' "$fresgld" "$@")
task='c=$SLURM_ARRAY_TASK_ID; '
if [ "$resumable" = 1 ]; then
  # A requeued task finds the checkpoint its SIGTERM left (or the last
  # periodic one, after a node failure) and continues from it.
  task+="if [ -f $(printf %q "$out")/chain-\$c.ckpt ]; then exec $(printf '%q ' "$fresgld") resume $(printf %q "$out") --chain \$c; fi; "
  requeue=--requeue
else
  requeue=--no-requeue
fi
# A requeued task without a checkpoint (killed before its first) starts
# its chain afresh over what it wrote: fresgld refuses to replace a run
# of its own without --overwrite, which a first run is not given.
task+='ow=; if [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ]; then ow=--overwrite; fi; '
task+="exec $cmdline --chain \$c --out $(printf %q "$out") \$ow"

# shellcheck disable=SC2086 # $extra is a list of sbatch options
array=$(sbatch --parsable $extra $requeue --job-name=fresgld-chains --array=1-"$chains" \
  --open-mode=append --output="$out/slurm-%A_%a.out" --wrap="$task")
array=${array%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable $extra --job-name=fresgld-merge --dependency=afterok:"$array" \
  --output="$out/slurm-merge-%j.out" \
  --wrap="exec $(printf '%q ' "$fresgld") merge --out $(printf %q "$out/merged") $(printf %q "$out")")
merge=${merge%%;*}
echo "array job $array ($chains chains), merge job $merge: the table will be in $out/merged/summary.txt"
