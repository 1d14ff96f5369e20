#!/bin/bash
# Short blocks are summed in BPF task storage and moved out in batches; a
# thread's last partial batch reaches the output through the iterator run
# at stop. Here a thread makes 40 short blocks (fewer than a batch) and then
# spins without blocking until the recording stops: all 40 must be counted,
# and their time must be within 10% (+ 2 us per block for the switch
# overlap) of the thread's own wall - CPU time over them.
. "$(dirname "$0")/lib.sh"

"$WL/shortblocks" 40 "$TMP/truth" &
pid=$!
cleanup_hooks+=("kill $pid 2>/dev/null")
"$HOTCOLD" record --off-cpu --min-block 100000 -p $pid -d 2 -o "$TMP/out.folded" 2>"$TMP/err" &
hc=$!
# attached once the banner is out; then start the blocks
for _ in $(seq 100); do grep -q 'Ctrl-C to stop' "$TMP/err" 2>/dev/null && break; sleep 0.05; done
sleep 0.2
kill -USR1 $pid
wait $hc
rc=$?
cat "$TMP/err"
[ $rc -eq 0 ] && ok "exit 0" || { bad "exit $rc"; finish; }
[ -s "$TMP/truth" ] || { bad "workload did not finish its blocks"; finish; }
read -r n ns < "$TMP/truth"
blocks=$(sed -n 's/.* in \([0-9]*\) short blocks.*/\1/p' "$TMP/err" | tail -1)
[ "${blocks:-0}" -ge "$n" ] && ok "$blocks short blocks counted (the thread made $n)" ||
	bad "${blocks:-0} short blocks counted, the thread made $n"
got=$(awk '$0 ~ /\[short blocks\] [0-9]+$/ { t += $NF } END { print t + 0 }' "$TMP/out.folded")
want=$((ns / 1000))
awk -v g="$got" -v w="$want" -v n="$n" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= 0.10 * w + 2 * n) }' &&
	ok "[short blocks] $got us vs $want us measured" || bad "[short blocks] $got us vs $want us measured"
finish
