#!/bin/sh
# Refreshes docs/report/*.png: for each command's default run (the README's
# quick-start commands; for sample, the protocol example's Python model on
# the breast-cancer data), the top of its report.html as headless Chromium
# draws it 1280 pixels wide, and docs/report/README.md, which names each
# screenshot's command and verdict.
#
#   docs/report/refresh.sh           the default runs (seconds each)
#   docs/report/refresh.sh --small   shorter runs, each screenshot labelled "small run"
#
# Needs go, python3 and chromium on PATH. Run from anywhere in the checkout.
set -eu
cd "$(dirname "$0")/../.."
small=0
if [ "${1:-}" = --small ]; then small=1; fi
command -v chromium >/dev/null || { echo "refresh.sh: chromium not on PATH" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$work/fresgld
go build -o "$bin" ./cmd/fresgld

# The protocol example as README and docs/model-protocol.md run it: the
# Python model reads data/wdbc.csv and standardises the features it is given.
model="python3 examples/protocol/logistic.py data/wdbc.csv mean_radius,mean_texture,mean_smoothness,mean_concave_points"
# The same model, made to fail: it writes an error and is killed 2 s in,
# after the plan's set-up, during the sampling (the default run takes about
# 4 s wall).
dying="( sleep 2; echo 'MemoryError: the model ran out of memory (a deliberate failure, for this screenshot)' >&2; kill -9 \$\$ ) & exec $model"

index=docs/report/README.md
{
	echo "# What report.html looks like"
	echo
	echo "The top of each command's report.html, drawn by headless Chromium 1280 pixels wide,"
	echo "refreshed by \`docs/report/refresh.sh$( [ $small = 1 ] && echo ' --small')\` on $(date -u +%Y-%m-%d)."
	echo "\`sample\` runs the protocol example's Python model on the breast-cancer data; \`sample-failed\`"
	echo "runs the same model made to die 2 s in."
	if [ $small = 1 ]; then
		echo "The runs marked **small run** draw fewer samples than the defaults (the flags say how many) and"
		echo "say so at the top of their screenshot: they show the page, and are not results."
	fi
	echo
} > "$index"

# shot NAME SMALL-FLAGS ARGS...: runs fresgld ARGS (plus SMALL-FLAGS under
# --small), screenshots its report, and adds its line to the index.
shot() {
	name=$1 extra=$2
	shift 2
	[ $small = 1 ] || extra=""
	status=0
	# shellcheck disable=SC2086
	"$bin" "$@" $extra --out "$work/$name" --quiet >"$work/$name.out" 2>&1 || status=$?
	shown=""
	# shellcheck disable=SC2086
	for a in "$@" $extra; do
		case $a in
		*" "*) shown="$shown '$a'" ;;
		*) shown="$shown $a" ;;
		esac
	done
	shown=$(printf '%s' "$shown" | sed "s|$work/||g")
	page=$work/$name/report.html
	if ! [ -f "$page" ]; then
		echo "- $name: \`fresgld$shown\` wrote no report.html (exit status $status)" >>"$index"
		echo "$name: exit $status, no report.html:" >&2
		tail -5 "$work/$name.out" >&2
		return 0
	fi
	label=""
	if [ -n "$extra" ]; then
		# The screenshot says it is of a small run.
		label=" **small run**"
		sed "s|<body>|<body><p style=\"background:#222;color:#fff;padding:0.4em 0.8em\">Small run for this screenshot: $extra</p>|" "$page" >"$work/$name.html"
		page=$work/$name.html
	fi
	profile=$(mktemp -d)
	chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --user-data-dir="$profile" --hide-scrollbars \
		--window-size=1280,1800 --screenshot="docs/report/$name.png" "file://$page" >/dev/null 2>&1
	rm -rf "$profile"
	verdict=$(grep -o '<p id="verdict"[^>]*><b>[^<]*</b>' "$work/$name/report.html" | sed 's/.*<b>//; s/<\/b>//')
	echo "- [\`$name.png\`]($name.png)$label: \`fresgld$shown\` (exit status $status) — $verdict" >>"$index"
	echo "$name: exit $status, $verdict" >&2
}

shot gmm "" gmm
shot logistic "" logistic --data data/wdbc.csv --label benign
shot regress "--keep 500 --burn 5000 --thin 500" regress --data data/diabetes.csv --label progression --exact
shot sample "--keep 200 --burn 200 --thin 10" sample --model-cmd "$model"
shot sample-failed "" sample --model-cmd "$dying"
