#!/bin/bash
# Generate the bash completion from the built binary's own --help, so the
# option lists cannot drift from the parser's: usage: gen-completion.sh BIN IN OUT
# Commands: the indented words under "commands:" in `hotcold --help`.
# Options: in each `hotcold CMD --help` line that starts with an option, the
# leading words up to the description (two spaces, or a word that is neither
# an option, a METAVAR nor a|b|c choice); every -x/--long among them.
set -euo pipefail
bin=$1 in=$2 out=$3
cmds=$("$bin" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
[ -n "$cmds" ] || { echo "gen-completion: no commands in '$bin --help'" >&2; exit 1; }
{
	echo "_hotcold_commands=\"$(echo $cmds)\""
	for c in $cmds; do
		opts=$("$bin" "$c" --help | awk '
			/^ +-/ {
				sub(/^ +/, "")
				n = split($0, w, " ")
				if (index($0, "  ")) n = split(substr($0, 1, index($0, "  ") - 1), w, " ")
				for (i = 1; i <= n; i++) {
					t = w[i]
					if (t ~ /^-/) { sub(/,$/, "", t); sub(/=.*/, "", t); print t; continue }
					if (t ~ /^[A-Z]/ || t ~ /\|/) continue
					break
				}
			}' | sort -u)
		[ -n "$opts" ] || { echo "gen-completion: no options in '$bin $c --help'" >&2; exit 1; }
		echo "_hotcold_opts_${c//-/_}=\"$(echo $opts)\""
	done
	cat "$in"
} >"$out.tmp"
mv "$out.tmp" "$out"
