#!/bin/sh
# The default plan's bias against a long exact reference on the same
# posterior: preconditioned MALA (exact in law) on full-data gradients,
# 4 chains × 2500 draws, thin 11, against the plan of fresgld logistic
# (analysis.NewLogConcave, control variates at large N) over 40 chains,
# so that both sides' Monte Carlo error is small beside the 5% sd goal.
# About 40 CPU minutes at N = 10⁵, p = 100. Run from the repository root:
#
#	go run ./bench/gencsv -n 100000 -p 100 > /tmp/d1e5.csv
#	sh bench/ess/accuracy.sh --data /tmp/d1e5.csv --label y
set -eu
dir=${TMPDIR:-/tmp}/fresgld-accuracy
mkdir -p "$dir/ref" "$dir/plan"
go build -o "$dir/ess" ./bench/ess
"$dir/ess" "$@" --mala --draws 2500 --thin 11 --chains 4 --out "$dir/ref"
"$dir/ess" "$@" --plan --chains 40 --out "$dir/plan"
python3 - "$dir" <<'PY'
import json, math, sys
d = sys.argv[1]
ref, run = json.load(open(d + "/ref/fresgld.json")), json.load(open(d + "/plan/fresgld.json"))
z = [abs(a - b) / math.hypot(c, e) for a, b, c, e in zip(run["Mean"], ref["Mean"], run["MCSE"], ref["MCSE"])]
m = [abs(a - b) / s for a, b, s in zip(run["Mean"], ref["Mean"], ref["SD"])]
sd = [a / b - 1 for a, b in zip(run["SD"], ref["SD"])]
print("plan against MALA, %d coefficients (bulk ESS: MALA %.0f, plan %.0f)" % (len(z), ref["MinESS"], run["MinESS"]))
print("largest |mean - mean_MALA| / sd_MALA %.4f (largest combined-MCSE z %.2f)" % (max(m), max(z)))
print("sd / sd_MALA - 1: mean %+.4f, median %+.4f, largest |.| %.4f" % (sum(sd) / len(sd), sorted(sd)[len(sd) // 2], max(abs(x) for x in sd)))
PY
