#!/bin/sh
# fresgld (bench/ess) against Stan's NUTS (bench/ess/nuts.R) on the same
# posterior, the two run in turn. Both sides count CPU seconds of whole
# work: fresgld's whole process with --default (its model processes
# included), NUTS's whole sampling() call (warmup and sampling; compilation
# apart), and only the coefficients' ESS. Prints the ratio of smallest bulk
# ESS per CPU-s, every coefficient's mean compared within 3 combined MCSE,
# and the sds; for --model regress the largest |inclusion − exact| of each
# at its CPU time. Without Rscript and rstan the NUTS side is skipped,
# saying so; with SKIP_NUTS=1 too (N = 10⁶: about two CPU-hours).
# NUTS_ITER=k runs NUTS for k iterations a chain, half warmup (default
# 2000, Stan's), to compare at equal CPU time; NUTS_SEED=s its seed. Run from
# the repository root:
#
#	sh bench/ess/run.sh --default --data FILE --label y   # fresgld logistic with its defaults, whole process timed
#	sh bench/ess/run.sh --default --model regress          # fresgld regress --exact on data/diabetes.csv
#	sh bench/ess/run.sh --default --model sample           # fresgld sample on examples/protocol/logistic.py, wdbc
#	sh bench/ess/run.sh [flags for bench/ess, e.g. --plan, or --batch 100 --eta 0.1]
set -eu
dir=${TMPDIR:-/tmp}/fresgld-ess
mkdir -p "$dir"
rm -f "$dir/nuts.json" "$dir/fresgld.json"
kind=logistic
prev=
for a in "$@"; do
  if [ "$prev" = --model ] && [ "$a" = regress ]; then kind=regress; fi
  case "$a" in --model=regress) kind=regress ;; esac
  prev=$a
done
if [ "${1:-}" = "--default" ]; then
  shift
  go build -o "$dir/fresgld" ./cmd/fresgld
  set -- --command "$dir/fresgld" "$@"
fi
go run ./bench/ess --out "$dir" "$@"
if [ "${SKIP_NUTS:-0}" = 1 ]; then
  echo "NUTS side skipped: SKIP_NUTS=1"
  exit 0
fi
if ! Rscript -e 'library(rstan); library(posterior)' >/dev/null 2>&1; then
  echo "NUTS side skipped: Rscript with rstan and posterior is not installed (Debian: r-cran-rstan r-cran-posterior)"
  exit 0
fi
# R's messages go to a log, shown when the NUTS side fails: a model that
# does not compile (no g++, no Boost) says so there.
if ! Rscript bench/ess/nuts.R "$dir" "$kind" "${NUTS_ITER:-2000}" "${NUTS_SEED:-1}" >"$dir/nuts.log" 2>&1; then
  echo "NUTS side failed: Rscript bench/ess/nuts.R exited non-zero; the end of its output ($dir/nuts.log):" >&2
  tail -n 20 "$dir/nuts.log" >&2
  echo "if it could not compile the Stan model: rstan needs g++, make and Boost's headers (Debian: apt-get install g++ make libboost-dev); SKIP_NUTS=1 skips the NUTS side" >&2
  exit 1
fi
grep "^NUTS" "$dir/nuts.log"
python3 - "$dir" "$kind" <<'PY'
import json, math, sys
d, kind = sys.argv[1], sys.argv[2]
f, n = json.load(open(d + "/fresgld.json")), json.load(open(d + "/nuts.json"))
ours, theirs = f["MinESS"] / f["CPUSeconds"], n["MinESS"] / n["CPUSeconds"]
z = max(abs(a - b) / math.hypot(c, e) for a, b, c, e in zip(f["Mean"], n["Mean"], f["MCSE"], n["MCSE"]))
sd = max(abs(a / b - 1) for a, b in zip(f["SD"], n["SD"]))
print("ratio of bulk ESS per CPU-s, fresgld / NUTS (whole sampling()): %.2f (fresgld's setup included: %.2f); largest mean difference %.2f combined MCSE; largest |sd / sd_NUTS - 1| %.3f" % (ours / theirs, f["MinESS"] / (f["CPUSeconds"] + f["SetupSeconds"]) / theirs, z, sd))
if kind == "regress":
    print("largest |inclusion - exact|: fresgld %.4f at %.2f CPU s, NUTS %.4f at %.2f CPU s" % (f["InclusionErr"], f["CPUSeconds"], n["InclusionErr"], n["CPUSeconds"]))
PY
