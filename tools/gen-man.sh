#!/bin/bash
# The OPTIONS section of each man/hotcold-CMD.1 comes from CMD's option table
# (`hotcold __options CMD man`), so the page cannot drift from the parser and
# --help. The rest of the page is written by hand.
# usage: gen-man.sh BIN [--check] PAGE...   --check: change nothing, list the
# pages whose OPTIONS differ from the table (exit 1 if any).
set -euo pipefail
bin=$1; shift
check=0
[ "${1:-}" = --check ] && { check=1; shift; }
stale=
for page in "$@"; do
	cmd=$(basename "$page" .1); cmd=${cmd#hotcold-}
	[ "$cmd" = hotcold ] && continue
	opts=$("$bin" __options "$cmd" man)
	# replace the lines between ".SH OPTIONS" and the next ".SH"
	new=$(OPTS="$opts" awk '
		/^\.SH / { if (skip) skip = 0 }
		/^\.SH OPTIONS/ { print; print ".\\\" generated from the option table by tools/gen-man.sh (make man)"; print ENVIRON["OPTS"]; skip = 1; next }
		!skip { print }' "$page")
	grep -q '^\.SH OPTIONS' "$page" || { echo "gen-man: $page has no .SH OPTIONS" >&2; exit 1; }
	if [ "$new" != "$(cat "$page")" ]; then
		if [ $check = 1 ]; then stale+=" $page"; else printf '%s\n' "$new" >"$page"; echo "  MAN      $page"; fi
	fi
done
if [ -n "$stale" ]; then
	echo "gen-man: OPTIONS out of date (run 'make man'):$stale" >&2
	exit 1
fi
