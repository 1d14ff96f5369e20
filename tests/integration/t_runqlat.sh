#!/bin/bash
# hotcold runqlat -L on more runnable threads than CPUs: each thread's total
# run-queue wait agrees with the kernel's own schedstat run_delay within 5%;
# record --runq gives [runq] stacks that name the spinning function.
. "$(dirname "$0")/lib.sh"

"$HOTCOLD" runqlat -L -o "$TMP/hist.txt" -- "$WL/runq" 3 3 "$TMP/truth" 2>"$TMP/err"
rc=$?
cat "$TMP/err"
[ $rc -eq 0 ] && ok "exit 0" || { bad "exit $rc"; finish; }
grep -q 'p99 <' "$TMP/hist.txt" && grep -q 'distribution' "$TMP/hist.txt" &&
	ok "histograms with percentiles written" || bad "no histogram: $(head -3 "$TMP/hist.txt")"
while read -r tid want; do
	got=$(awk -v t="$tid" '$1 == "tid" && $2 == t { for (i = 1; i <= NF; i++) if ($i == "total") print $(i + 1) * 1000000 }' "$TMP/hist.txt")
	[ -n "$got" ] || { bad "tid $tid: no histogram"; continue; }
	dev=$(awk -v a="$got" -v b="$want" 'BEGIN { printf "%.2f", b ? 100 * (a - b) / b : 100 }')
	awk -v d="$dev" 'BEGIN { exit !(d >= -5 && d <= 5) }' &&
		ok "tid $tid: $(awk -v g="$got" 'BEGIN { printf "%.1f", g / 1e6 }') ms waiting vs schedstat $(awk -v w="$want" 'BEGIN { printf "%.1f", w / 1e6 }') ms ($dev%)" ||
		bad "tid $tid: $got ns vs schedstat $want ns ($dev%)"
done < "$TMP/truth"

"$HOTCOLD" record --runq -o "$TMP/runq.folded" -- "$WL/runq" 2 1 "$TMP/truth2" 2>"$TMP/err"
total=$(folded_total "$TMP/runq.folded")
spin=$(awk '/;spin;.*\[runq\] [0-9]+$|;spin;\[runq\] [0-9]+$/ { t += $NF } END { printf "%.0f\n", t }' "$TMP/runq.folded")
p=$(pct "$spin" "$total")
[ "$total" -gt 0 ] && awk -v p="$p" 'BEGIN { exit !(p >= 90) }' &&
	ok "record --runq: $total ns of [runq] stacks, $p% through spin" ||
	bad "record --runq: $total ns, $p% through spin: $(head -3 "$TMP/runq.folded")"
finish
