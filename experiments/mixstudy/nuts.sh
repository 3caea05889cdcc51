#!/bin/sh
# Runs rstan's NUTS (nuts.R) on every data set of the study, seeds 1-3,
# each run timed as a whole process (user + system CPU seconds, GNU time)
# into OUT/<data>-<seed>.csv{,.info,.time}. The model is compiled once
# first (rstan's auto_write keeps mixture.rds beside mixture.stan), so the
# timed runs load it.
#   sh nuts.sh OUT
set -e
here=$(dirname "$0")
out=$1
mkdir -p "$out"
Rscript -e 'suppressPackageStartupMessages(library(rstan)); if (!file.exists(rstan_options("boost_lib")) && file.exists("/usr/include/boost/version.hpp")) rstan_options(boost_lib = "/usr/include"); rstan_options(auto_write = TRUE); invisible(stan_model(commandArgs(TRUE)[1]))' "$here/mixture.stan"
for d in faithful:eruptions geyser:duration precip:precip; do
  name=${d%%:*}; col=${d#*:}
  for s in 1 2 3; do
    # A run already begun is left (a study resumed after a stop, or
    # runs shared between two of these loops; delete OUT/<data>-<seed>.time
    # to rerun one).
    [ -e "$out/$name-$s.time" ] && continue
    /usr/bin/time -f '%U %S %e' -o "$out/$name-$s.time" Rscript "$here/nuts.R" "$here/data/$name.csv" "$col" 4 1 "$s" "$out/$name-$s.csv" || echo "$name seed $s failed"
  done
done
