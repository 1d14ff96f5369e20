#!/bin/bash
# -p on a process that exits mid-run: recording stops when it exits (well
# before -d), and its samples are still named (symbols captured while alive).
. "$(dirname "$0")/lib.sh"

"$WL/split" 4 "$TMP/truth" &
pid=$!
cleanup_hooks+=("kill $pid 2>/dev/null")
"$HOTCOLD" record -p $pid -F 499 -d 20 -o "$TMP/out.folded" 2>"$TMP/err" &
hc=$!
wait $pid
exited=$(date +%s.%N)
wait $hc
rc=$?
end=$(date +%s.%N)
cat "$TMP/err"
[ $rc -eq 0 ] && ok "exit 0" || bad "exit $rc"
# the drain loop checks targets every 100 ms; allow for a loaded machine
el=$(awk -v a=$exited -v b=$end 'BEGIN { printf "%.2f", b - a }')
awk -v e=$el 'BEGIN { exit !(e < 2) }' && ok "stopped ${el}s after the target exited (not at -d 20)" ||
	bad "stopped ${el}s after the target exited"
total=$(folded_total "$TMP/out.folded")
alpha=$(folded_with_frame "$TMP/out.folded" spin_alpha)
[ "$total" -ge 800 ] && ok "$total samples" || bad "only $total samples"
p=$(pct "$alpha" "$total")
awk -v p="$p" 'BEGIN { exit !(p > 40) }' && ok "spin_alpha named in $p% of samples" ||
	bad "spin_alpha named in only $p% of samples"
unk=$(awk '{ n = $NF; if ($0 ~ /split\+0x|\[unknown\]/) t += n } END { printf "%.0f\n", t }' "$TMP/out.folded")
p=$(pct "$unk" "$total")
awk -v p="$p" 'BEGIN { exit !(p < 1) }' && ok "$p% of samples with unnamed workload frames" ||
	bad "$p% of samples have unnamed frames"
# only the target's samples
others=$(awk '{ split($0, fr, ";"); if (fr[1] != "split") t += $NF } END { printf "%.0f\n", t }' "$TMP/out.folded")
[ "$others" -eq 0 ] && ok "no samples from other processes" || bad "$others samples from other processes"
finish
