#!/bin/sh
# The default regress run (the plan) on the shipped data: for each data set
# and seed, the CPU seconds of the whole process (user + sys, /usr/bin/time
# or the shell's times), the largest |inclusion − exact| over the
# coefficients with its MCSE, and what the plan chose; then the mean error
# and CPU over the seeds. With --spike-scan it also runs US crime under
# sharper spikes s0, where the barrier between inclusion patterns grows:
# the modes the search finds, the barrier (nats, on the exact energy,
# along the segments between the modes), the one-level τ_int of the Gibbs
# kernel and the sampler the plan picked.
#
#   sh bench/plan/regress.sh [--seeds N] [--spike-scan]
set -eu
cd "$(dirname "$0")/../.."
seeds=5
scan=no
while [ $# -gt 0 ]; do
  case $1 in
    --seeds) seeds=$2; shift 2 ;;
    --spike-scan) scan=yes; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/fresgld" ./cmd/fresgld

# run NAME ARGS...: one run; prints a row.
run() {
  name=$1; shift
  /usr/bin/time -f "%U %S" -o "$tmp/time" "$tmp/fresgld" regress --exact --out "$tmp/out" "$@" >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }
  python3 - "$tmp/out/summary.json" "$tmp/time" "$name" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
u, k = map(float, open(sys.argv[2]).read().split()[-2:])
d, p = s["distance_to_exact"], s["plan"]
print(f'{sys.argv[3]:<28} {u + k:6.2f} {d["max_inclusion_error"]:8.4f} {d["max_inclusion_error_mcse"] or float("nan"):7.4f} {p["algorithm"]:<38} {p["modes"]:5d} {p["barrier_nats"]:7.2f} {p["levels"]:6d} {p["iat_steps"]:8.1f} {p.get("one_level_iat_steps", p["iat_steps"]):8.1f}')
PY
}

header() {
  printf '%-28s %6s %8s %7s %-38s %5s %7s %6s %8s %8s\n' run cpu_s incl_err mcse sampler modes barrier levels iat iat_one
}

header
for d in "diabetes progression" "uscrime y"; do
  set -- $d
  for s in $(seq 1 "$seeds"); do
    run "$1 seed $s" --data "data/$1.csv" --label "$2" --seed "$s"
  done
done | tee "$tmp/rows"
python3 - "$tmp/rows" <<'PY'
import sys, statistics as st
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    rows.setdefault(f[0], []).append((float(f[3]), float(f[4])))
for d, r in rows.items():
    cpu, err = [x[0] for x in r], [x[1] for x in r]
    se = st.stdev(err) / len(err) ** 0.5 if len(err) > 1 else float("nan")
    print(f"{d}: {len(r)} seeds, CPU {st.mean(cpu):.2f} s (max {max(cpu):.2f}), largest inclusion error {st.mean(err):.4f} ± {se:.4f} (mean ± se over seeds)")
PY
if [ "$scan" = yes ]; then
  echo
  header
  for s0 in 0.02 0.01 0.005 0.002 0.001; do
    run "uscrime s0 $s0" --data data/uscrime.csv --label y --spike-sd "$s0"
  done
fi
