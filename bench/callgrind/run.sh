#!/bin/sh
# Instructions of the core step at p = 1 against its floor, the normal
# draws, counted by valgrind's callgrind (immune to the machine's load,
# unlike the timings of exchange's BenchmarkStep): the inclusive
# instructions of (*Sampler).Step, and of the hand-written steps of
# BenchmarkStepByHand, over those of drawNormals on the same b.N (6 normals
# a step). Run from the repository root:
#
#	sh bench/callgrind/run.sh
set -eu
command -v valgrind >/dev/null || { echo "skipped: valgrind is not installed (Debian: valgrind)"; exit 0; }
dir=${TMPDIR:-/tmp}/fresgld-callgrind
mkdir -p "$dir"
go test -c -o "$dir/exchange.test" ./exchange
largest() { # the largest inclusive count of a line naming function $1
  grep -E "$1( \[|\$)" "$dir/annotated" | grep -v '=>' | awk '{gsub(",", "", $1); print $1}' | sort -n | tail -1
}
count() { # count BENCH FUNCTION: inclusive instructions of FUNCTION and of drawNormals
  GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$dir/out" \
    "$dir/exchange.test" -test.run '^$' -test.bench "$1" -test.benchtime 100000x >/dev/null 2>&1
  callgrind_annotate --inclusive=yes "$dir/out" >"$dir/annotated"
  s=$(largest "$2")
  f=$(largest 'exchange.drawNormals')
  echo "$s $f"
}
# 'Step/p=1' also runs 'Step/p=1/concurrent' (a sub-benchmark's name
# levels match separately): the sequential counts are the difference.
set -- $(count '^BenchmarkStep$/^p=1$' 'exchange.\(\*Sampler\).Step') $(count '^BenchmarkStep$/^p=1$/concurrent' 'exchange.\(\*Sampler\).Step')
echo "BenchmarkStep/p=1: (*Sampler).Step $(($1 - $3)) instructions, floor $(($2 - $4)): $(echo "scale=2; ($1 - $3) / ($2 - $4)" | bc)x the floor"
# stepByHand's own count includes its call of drawNormals.
for v in arithmetic estimator; do
  set -- $(count "^BenchmarkStepByHand\$/^$v\$" 'exchange.stepByHand')
  echo "BenchmarkStepByHand/$v: $(($1 - $2)) instructions, floor $2: $(echo "scale=2; ($1 - $2) / $2" | bc)x the floor"
done
