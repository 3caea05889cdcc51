#!/bin/sh
# Runs fresgld mixture's default on every data set of the study, seeds
# 1-3, each timed as a whole process (user + system CPU seconds, GNU
# time) into OUT/<data>-<seed>{/,.time}; ARGS, if any, are added to
# every run (--keep 4000).
#   sh default.sh FRESGLD OUT [ARGS...]
set -e
here=$(dirname "$0")
bin=$1
out=$2
shift 2
mkdir -p "$out"
for d in faithful:eruptions geyser:duration precip:precip; do
  name=${d%%:*}; col=${d#*:}
  for s in 1 2 3; do
    /usr/bin/time -f '%U %S %e' -o "$out/$name-$s.time" "$bin" mixture --data "$here/data/$name.csv" --column "$col" --seed "$s" --out "$out/$name-$s" --overwrite --quiet "$@" > "$out/$name-$s.out" 2>&1 || true
  done
done
