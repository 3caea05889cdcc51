#!/bin/sh
# Extracts what bench/posteriordb reads from a bare git copy of
# github.com/stan-dev/posteriordb into DIR: the posteriors, the Stan
# models, the data and the reference draws (not the raw data, mnist's
# among them, which the study does not read). A file whose object the
# copy lacks (a large one left out of a snapshot) is skipped, saying so;
# the study then records that posterior's reference as absent. DIR/COMMIT
# holds the commit extracted.
#
#   sh bench/posteriordb/extract.sh DIR [GIT_DIR [COMMIT]]
#
# GIT_DIR defaults to /work/.mirror/stan-dev+posteriordb/repo (where this
# machine's mirror puts it), COMMIT to HEAD. Any posteriordb checkout
# (git clone https://github.com/stan-dev/posteriordb) serves as DIR too.
set -eu
dir=${1:?usage: extract.sh DIR [GIT_DIR [COMMIT]]}
git_dir=${2:-/work/.mirror/stan-dev+posteriordb/repo}
commit=${3:-HEAD}
rev=$(git --git-dir="$git_dir" rev-parse "$commit^{commit}")
mkdir -p "$dir"
skipped=0
git --git-dir="$git_dir" ls-tree -r "$rev" -- \
  posterior_database/posteriors posterior_database/models/stan \
  posterior_database/data/data posterior_database/reference_posteriors/draws |
  while read -r _ type obj path; do
    [ "$type" = blob ] || continue
    mkdir -p "$dir/$(dirname "$path")"
    if ! git --git-dir="$git_dir" cat-file blob "$obj" >"$dir/$path" 2>/dev/null; then
      rm -f "$dir/$path"
      echo "skipped $path: its object is not in $git_dir" >&2
    fi
  done
echo "$rev" >"$dir/COMMIT"
echo "posteriordb $rev extracted into $dir: $(ls "$dir/posterior_database/posteriors" | wc -l) posteriors, $(ls "$dir/posterior_database/reference_posteriors/draws/draws" | wc -l) reference draws"
