#!/bin/bash
# CFI from .debug_frame: a program built without unwind tables and without
# frame pointers (-fno-asynchronous-unwind-tables -fomit-frame-pointer, as
# some C daemons and embedded builds are) has its CFI only in .debug_frame.
# Its 20-deep recursion must unwind completely (>= 95% of samples with all
# 20 descend frames and main):
#   1. with .debug_frame in the binary itself;
#   2. stripped, with the debug file found by .gnu_debuglink next to it;
#   3. negative control: stripped, the debug file removed: the walk has
#      neither CFI nor frame pointers, so (almost) no sample is complete.
. "$(dirname "$0")/lib.sh"

src=$(dirname "$0")/../workloads/deep.c
d=$TMP/df
mkdir -p "$d"
cc -O2 -g -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables \
	-o "$d/deep" "$src" || { bad "cannot build the workload"; finish; }
readelf -S "$d/deep" | grep -q '\.debug_frame' || { bad "no .debug_frame in the build"; finish; }
objcopy --only-keep-debug "$d/deep" "$d/deep.debug" &&
	objcopy --strip-debug --add-gnu-debuglink="$d/deep.debug" "$d/deep" "$d/deep.stripped" ||
	{ bad "objcopy failed"; finish; }

complete_pct() { # FOLDED: % of samples with main and 20 descend frames in a row
	awk '{ n = $NF; t += n; line = $0; sub(/ [0-9]+$/, "", line)
		k = split(line, f, ";")
		for (i = 1; i <= k; i++) {
			if (f[i] != "main")
				continue
			for (j = i + 1; j <= k && f[j] == "descend"; j++)
				;
			if (j - i - 1 >= 20)
				c += n
			break
		} }
		END { if (t) printf "%.1f %d", 100 * c / t, t; else print "0 0" }' "$1"
}

run() { # NAME BINARY
	"$HOTCOLD" record -v --unwind=cfi --user-only -F 499 -o "$TMP/$1.folded" -- "$2" 20 2 \
		2>"$TMP/$1.err"
	rc=$?
	[ $rc -eq 0 ] || bad "$1: exit $rc"
	grep '^unwind:' "$TMP/$1.err"
	read -r pct total < <(complete_pct "$TMP/$1.folded")
}

run own "$d/deep"
awk -v p="$pct" 'BEGIN { exit !(p >= 95) }' && ok "own .debug_frame: $pct% of $total samples complete" ||
	bad "own .debug_frame: $pct% of $total samples complete"

run split "$d/deep.stripped"
awk -v p="$pct" 'BEGIN { exit !(p >= 95) }' && ok "debug file's .debug_frame: $pct% of $total samples complete" ||
	bad "debug file's .debug_frame: $pct% of $total samples complete"
grep -q 'unwind:.* [1-9][0-9]* from debug files' "$TMP/split.err" &&
	ok "the table came from the debug file" || bad "no table from a debug file in the summary"

rm -f "$d/deep.debug"
run nodebug "$d/deep.stripped"
awk -v p="$pct" 'BEGIN { exit !(p <= 5) }' && ok "control, no CFI: only $pct% of $total samples complete" ||
	bad "control, no CFI: $pct% of $total samples complete (the check cannot fail?)"
finish
