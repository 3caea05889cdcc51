#!/bin/sh
# Bulk ESS per CPU-second of fresgld's preconditioned chains (bench/ess)
# against Stan's NUTS (bench/ess/nuts.R) on the same posterior, the two run
# in turn, and the ratio; every coefficient's mean compared within 3
# combined MCSE. Without Rscript and rstan the NUTS side is skipped, saying
# so. Run from the repository root:
#
#	sh bench/ess/run.sh [flags for bench/ess, e.g. --data FILE --label y --batch 100]
set -eu
dir=${TMPDIR:-/tmp}/fresgld-ess
go run ./bench/ess --out "$dir" "$@"
if ! Rscript -e 'library(rstan); library(posterior)' >/dev/null 2>&1; then
  echo "NUTS side skipped: Rscript with rstan and posterior is not installed (Debian: r-cran-rstan r-cran-posterior)"
  exit 0
fi
Rscript bench/ess/nuts.R "$dir" 2>/dev/null | grep "^NUTS"
python3 - "$dir" <<'PY'
import json, math, sys
d = sys.argv[1]
f, n = json.load(open(d + "/fresgld.json")), json.load(open(d + "/nuts.json"))
ours, theirs = f["MinESS"] / f["CPUSeconds"], n["MinESS"] / n["SampleSeconds"]
z = max(abs(a - b) / math.hypot(c, e) for a, b, c, e in zip(f["Mean"], n["Mean"], f["MCSE"], n["MCSE"]))
sd = max(abs(a / b - 1) for a, b in zip(f["SD"], n["SD"]))
print("ratio of bulk ESS per CPU-s, fresgld / NUTS sampling: %.2f (fresgld's mode and Hessian included: %.2f); largest mean difference %.2f combined MCSE; largest |sd / sd_NUTS - 1| %.3f" % (ours / theirs, f["MinESS"] / (f["CPUSeconds"] + f["SetupSeconds"]) / theirs, z, sd))
PY
