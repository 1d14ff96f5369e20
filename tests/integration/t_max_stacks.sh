#!/bin/bash
# --max-stacks 10 keeps the heaviest stacks and the exact total (about 4 s):
# the split workload (spin_alpha 60%, spin_beta 25%, recurse 15% over 5
# depths, each function over several leaf addresses: dozens of raw stacks)
# is recorded twice at once, with --max-stacks 10 and without.
#  - limited: the file's total equals the samples recorded (nothing dropped),
#    with one "[other stacks]" line holding the rest, counted on stderr;
#  - unlimited (the control): no "[other stacks]", total = samples too;
#  - the heaviest are kept: spin_alpha's and spin_beta's shares of the
#    limited file agree with the unlimited file's within 10 points. Both runs
#    sample the same process, each share a binomial estimate over N >= 300
#    samples: sd <= sqrt(.25/300) = 2.9 points each, 4.1 for the difference;
#    10 points is about 2.5 sd (the rare miss: an evicted leaf address).
. "$(dirname "$0")/lib.sh"

"$WL/split" 4 "$TMP/truth" &
wl=$!
cleanup_hooks+=("kill $wl 2>/dev/null")
sleep 0.3
"$HOTCOLD" record -p $wl -F 999 -d 3 --max-stacks 10 -o "$TMP/m10.folded" 2>"$TMP/m10.err" &
lim=$!
"$HOTCOLD" record -p $wl -F 999 -d 3 -o "$TMP/all.folded" 2>"$TMP/all.err"
wait $lim
# "[other stacks] N", or "[other stacks];[reason] N" for wait kinds
other_of() { awk '/^\[other stacks\][ ;]/ { t += $NF } END { print t + 0 }' "$1"; }
samples() { sed -n 's/^hotcold: \([0-9]*\) on-CPU samples.*/\1/p' "$1"; }
n10=$(samples "$TMP/m10.err")
nall=$(samples "$TMP/all.err")
t10=$(folded_total "$TMP/m10.folded")
tall=$(folded_total "$TMP/all.folded")
[ "${n10:-0}" -ge 300 ] && [ "$t10" = "$n10" ] &&
	ok "--max-stacks 10: file total $t10 = $n10 samples recorded" ||
	bad "--max-stacks 10: file total $t10, samples '$n10' (want equal, >= 300)"
other=$(other_of "$TMP/m10.folded")
# stack lines, not the "# hotcold folded" header: at most the 10 raw stacks
# kept (each one line, or fewer once stacks that differ only in addresses
# are named alike) plus the one [other stacks] line. (It counted the header
# too, so it passed only when two kept raw stacks happened to share a name.)
lines=$(grep -vc '^# hotcold folded' "$TMP/m10.folded")
merged=$(grep -o '[0-9]* stacks over the aggregation limit' "$TMP/m10.err" | cut -d' ' -f1)
[ "$other" -gt 0 ] && [ "$lines" -le 11 ] && [ "${merged:-0}" -gt 0 ] &&
	ok "[other stacks] holds $other samples of $merged merged stacks; $lines lines" ||
	bad "other '$other', lines $lines, merged '$merged'"
[ "$tall" = "$nall" ] && [ "$(other_of "$TMP/all.folded")" = 0 ] &&
	ok "control without a limit: total $tall = $nall samples, no [other stacks]" ||
	bad "control: total $tall, samples $nall"
for f in spin_alpha spin_beta; do
	a=$(pct "$(folded_with_frame "$TMP/m10.folded" $f)" "$t10")
	b=$(pct "$(folded_with_frame "$TMP/all.folded" $f)" "$tall")
	within "$a" "$b" 10 && ok "$f kept: $a% with the limit, $b% without" ||
		bad "$f: $a% with the limit, $b% without (more than 10 points apart)"
done
finish
