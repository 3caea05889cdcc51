#!/bin/sh
# Times a `fresgld logistic` run (the default, or the flags given) on synthetic data of N rows × p
# features (default 10⁶ × 100, 752 MB of CSV), as BENCHMARKS.md quotes it:
# CPU and wall time, peak memory against the data's size in float64, the
# load of the machine before and after, and the run's own rule notes and
# warnings. Run from the repository root:
#
#	sh bench/scale/run.sh [N] [p] [extra flags for fresgld logistic...]
#
# Files go to ${TMPDIR:-/tmp}/fresgld-scale (the CSV is kept between runs).
set -eu
N=${1:-1000000}
P=${2:-100}
if [ $# -ge 2 ]; then shift 2; else shift $#; fi
dir=${TMPDIR:-/tmp}/fresgld-scale
mkdir -p "$dir"
csv=$dir/data-$N-$P.csv
[ -s "$csv" ] || go run ./bench/gencsv -n "$N" -p "$P" > "$csv"
go build -o "$dir/fresgld" ./cmd/fresgld
echo "load before: $(uptime)"
/usr/bin/time -v "$dir/fresgld" logistic --data "$csv" --label y --out "$dir/out" "$@" > "$dir/stdout" 2> "$dir/stderr" || { cat "$dir/stderr"; exit 1; }
echo "load after:  $(uptime)"
grep -v '^	' "$dir/stderr"
head -1 "$dir/stdout"
grep -E '^(clamped|swap acceptance|total cost)' "$dir/stdout"
sort -k8 -n "$dir/stdout" | awk 'NF == 10 && $8 ~ /^[0-9]+$/' | head -1 | awk '{print "smallest bulk ESS (4 chains): " $1 " " $8}'
sort -k10 -rn "$dir/stdout" | awk 'NF == 10 && $10 ~ /^[0-9.]+$/' | head -1 | awk '{print "largest R-hat: " $1 " " $10}'
grep -E 'User time|System time|Elapsed|Maximum resident' "$dir/stderr"
rss=$(awk '/Maximum resident/ {print $6}' "$dir/stderr")
awk -v rss="$rss" -v n="$N" -v p="$P" 'BEGIN { d = n * (p + 1) * 8; printf "peak RSS %.0f MB = %.3f × the data in float64 (%d × %d × 8 B = %.0f MB)\n", rss * 1024 / 1e6, rss * 1024 / d, n, p + 1, d / 1e6 }'
python3 -c "import json,sys; s=json.load(open(sys.argv[1])); [print(k + ':', s.get(k)) for k in ('step_rule', 'batch_rule', 'run_length_rule')]" "$dir/out/summary.json" 2>/dev/null || true
