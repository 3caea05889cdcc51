#!/bin/sh
# Bulk ESS per CPU-second of fresgld (bench/ess) against Stan's NUTS
# (bench/ess/nuts.R) on the same posterior, the two run in turn, and the
# ratio; every coefficient's mean compared within 3 combined MCSE, and the
# sds. Without Rscript and rstan the NUTS side is skipped, saying so; with
# SKIP_NUTS=1 too (N = 10⁶: about two CPU-hours). Run from the repository
# root:
#
#	sh bench/ess/run.sh --default --data FILE --label y   # fresgld logistic with its defaults, whole process timed
#	sh bench/ess/run.sh [flags for bench/ess, e.g. --plan, or --batch 100 --eta 0.1]
set -eu
dir=${TMPDIR:-/tmp}/fresgld-ess
mkdir -p "$dir"
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
if ! Rscript bench/ess/nuts.R "$dir" >"$dir/nuts.log" 2>&1; then
  echo "NUTS side failed: Rscript bench/ess/nuts.R exited non-zero; the end of its output ($dir/nuts.log):" >&2
  tail -n 20 "$dir/nuts.log" >&2
  echo "if it could not compile the Stan model: rstan needs g++, make and Boost's headers (Debian: apt-get install g++ make libboost-dev); SKIP_NUTS=1 skips the NUTS side" >&2
  exit 1
fi
grep "^NUTS" "$dir/nuts.log"
python3 - "$dir" <<'PY'
import json, math, sys
d = sys.argv[1]
f, n = json.load(open(d + "/fresgld.json")), json.load(open(d + "/nuts.json"))
ours, theirs = f["MinESS"] / f["CPUSeconds"], n["MinESS"] / n["SampleSeconds"]
z = max(abs(a - b) / math.hypot(c, e) for a, b, c, e in zip(f["Mean"], n["Mean"], f["MCSE"], n["MCSE"]))
sd = max(abs(a / b - 1) for a, b in zip(f["SD"], n["SD"]))
print("ratio of bulk ESS per CPU-s, fresgld / NUTS sampling: %.2f (fresgld's setup included: %.2f); largest mean difference %.2f combined MCSE; largest |sd / sd_NUTS - 1| %.3f" % (ours / theirs, f["MinESS"] / (f["CPUSeconds"] + f["SetupSeconds"]) / theirs, z, sd))
PY
