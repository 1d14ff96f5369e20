#!/bin/bash
# Generate the bash completion from the built binary's option tables, so the
# lists cannot drift from the parser: usage: gen-completion.sh BIN IN OUT
# Commands: the indented words under "commands:" in `hotcold --help`.
# Options, those whose value is a path, and the values of choice options:
# `hotcold __options CMD complete`.
set -euo pipefail
bin=$1 in=$2 out=$3
cmds=$("$bin" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
[ -n "$cmds" ] || { echo "gen-completion: no commands in '$bin --help'" >&2; exit 1; }
{
	echo "_hotcold_commands=\"$(echo $cmds)\""
	for c in $cmds; do
		lists=$("$bin" __options "$c" complete)
		opts=$(sed -n 's/^opts //p' <<<"$lists")
		paths=$(sed -n 's/^paths *//p' <<<"$lists")
		choices=$(sed -n 's/^choices *//p' <<<"$lists")
		[ -n "$opts" ] || { echo "gen-completion: no options for '$c'" >&2; exit 1; }
		echo "_hotcold_opts_${c//-/_}=\"$opts\""
		echo "_hotcold_paths_${c//-/_}=\"$paths\""
		echo "_hotcold_choices_${c//-/_}=\"$choices\""
	done
	cat "$in"
} >"$out.tmp"
mv "$out.tmp" "$out"
