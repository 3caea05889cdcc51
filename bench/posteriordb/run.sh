#!/bin/sh
# The posteriordb study at this repository's HEAD, reproducibly: fresgld
# and the study are built from a clean export of the commit (not the
# working tree, which others may be editing), posteriordb is extracted
# from the mirror once (extract.sh; PDB=DIR for a checkout of your own),
# and the study runs with the flags given (main.go's: --posteriors,
# --seeds, --out, --timeout, --skip-nuts, --skip-fresgld, --resume; a later --pdb wins).
# Run from anywhere in the repository:
#
#   sh bench/posteriordb/run.sh --posteriors 'eight_schools|kidiq' --seeds 2
#   sh bench/posteriordb/run.sh                      # every posterior: hours
#
# It prints the table and writes out/posteriordb/results.{md,json} (or
# --out's), with every run's log and draws beside.
set -eu
root=$(git rev-parse --show-toplevel)
commit=$(git -C "$root" rev-parse --short HEAD)
work=${TMPDIR:-/tmp}/fresgld-posteriordb
src=$work/src-$commit
if [ ! -d "$src" ]; then
  rm -rf "$src.tmp"
  mkdir -p "$src.tmp"
  git -C "$root" archive HEAD | tar -x -C "$src.tmp"
  mv "$src.tmp" "$src"
fi
pdb=${PDB:-$work/pdb}
if [ ! -d "$pdb/posterior_database" ]; then
  sh "$root/bench/posteriordb/extract.sh" "$pdb"
fi
(cd "$src" && go build -o "$work/fresgld-$commit" ./cmd/fresgld && go build -o "$work/posteriordb-$commit" ./bench/posteriordb)
cd "$root"
exec "$work/posteriordb-$commit" --pdb "$pdb" --fresgld "$work/fresgld-$commit" --commit "$commit" "$@"
