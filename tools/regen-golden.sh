#!/bin/sh
# Rewrite the expected outputs in tests/golden/ from the current binary: the
# only way golden files change. Review the diff before committing it.
# Usage: tools/regen-golden.sh [HOTCOLD] (default ./hotcold).
set -eu
cd "$(dirname "$0")/.."
HC=${1:-./hotcold}
case $HC in /*) ;; *) HC=$PWD/$HC ;; esac
[ -x "$HC" ] || { echo "regen-golden: '$HC' not built (make)" >&2; exit 1; }
. tests/golden/cases.sh
golden_list | while read -r c kind; do
	out=tests/golden/$c.$kind
	golden_run "$c" "$kind" >"$out.tmp" 2>/dev/null || {
		echo "regen-golden: $c $kind failed (exit $?)" >&2
		rm -f "$out.tmp"
		exit 1
	}
	mv "$out.tmp" "$out"
	echo "regen-golden: $out"
done
