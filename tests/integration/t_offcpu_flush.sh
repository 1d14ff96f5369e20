#!/bin/bash
# Short blocks and run-queue waits are counted in BPF task storage and moved
# to the shared maps in batches of 64; a thread's last partial batch reaches
# the output through the iterator run at stop. Here a thread makes 40 short
# blocks (fewer than a batch) and then sleeps for good while the recording
# is still running:
# - record --off-cpu: all 40 short blocks counted, their time (sampled
#   onto stacks by the quantum, the rest below it as [short blocks], and
#   [cpu wait]) within 10% (+ 2 us per block) of the thread's own wall - CPU
#   time over them; the part left below the quantum (< 1 ms) is flushed;
# - runqlat -L: exactly one wait per time it got the CPU (schedstat's
#   pcount) but the first (its first switch-out sets the baseline), and a
#   total no larger than schedstat's run_delay growth (t_runqlat checks
#   totals on threads it sees from their start).
. "$(dirname "$0")/lib.sh"

# start the workload parked, record it with "$@", release it, wait for the tool
run_parked() {
	"$WL/shortblocks" 40 "$TMP/truth" &
	pid=$!
	cleanup_hooks+=("kill $pid 2>/dev/null")
	: > "$TMP/err"
	"$HOTCOLD" "$@" -p $pid -d 2 2>"$TMP/err" >"$TMP/out" &
	hc=$!
	for _ in $(seq 100); do grep -q 'Ctrl-C to stop' "$TMP/err" 2>/dev/null && break; sleep 0.05; done
	sleep 0.2
	read -r _ rd0 pc0 < /proc/$pid/task/$pid/schedstat
	kill -USR1 $pid
	wait $hc
	rc=$?
	read -r _ rd1 pc1 < /proc/$pid/task/$pid/schedstat
	kill $pid 2>/dev/null
	grep -E '^(hotcold|sched):' "$TMP/err"
}

rm -f "$TMP/truth"
run_parked record --off-cpu --min-block 100000 -o "$TMP/out.folded"
[ $rc -eq 0 ] && ok "record: exit 0" || { bad "record: exit $rc"; finish; }
[ -s "$TMP/truth" ] || { bad "workload did not finish its blocks"; finish; }
read -r n ns < "$TMP/truth"
blocks=$(sed -n 's/.* in \([0-9]*\) short blocks.*/\1/p' "$TMP/err" | tail -1)
[ "${blocks:-0}" -ge "$n" ] && ok "$blocks short blocks counted (the thread blocked $n times)" ||
	bad "${blocks:-0} short blocks counted, the thread blocked $n times"
# its wait for SIGUSR1 began before the recording and its pause() goes on
# after it: marked, and not part of the measured blocks
# (and the [cpu wait] after that first wakeup: the same stack with [cpu wait]
# as its leaf, before the workload's own clock starts; ms under load)
got=$(awk '/^#/ { next }
	{ line = $0; sub(/ [0-9]+$/, "", line); pre = line; sub(/;[^;]*$/, "", pre) }
	/(blocked at start|still blocked|blocked throughout)\] [0-9]+$/ { skip[pre] = 1; next }
	{ w[NR] = $NF; p[NR] = pre; cw[NR] = line ~ /;\[cpu wait\]$/ }
	END { for (i in w) if (!(cw[i] && (p[i] in skip))) t += w[i]; printf "%.0f\n", t }' "$TMP/out.folded")
grep -q 'blocked at start\] [0-9]*$' "$TMP/out.folded" && grep -q 'still blocked\] [0-9]*$' "$TMP/out.folded" &&
	ok "its wait before the start and its pause() at the stop are marked" ||
	bad "no [.., blocked at start] or [.., still blocked] frame: $(cut -c1-300 "$TMP/out.folded")"
rest=$(awk '$0 ~ /\[short blocks\] [0-9]+$/ { t += $NF } END { printf "%.0f\n", t }' "$TMP/out.folded")
want=$ns
awk -v g="$got" -v w="$want" -v n="$n" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= 0.10 * w + 2000 * n) }' &&
	ok "short blocks: $got ns vs $want ns measured" || bad "short blocks: $got ns vs $want ns measured"
# what is left below the 1 ms quantum at the stop comes only from the flush iterator
[ "$rest" -gt 0 ] && [ "$rest" -le 1000000 ] && ok "[short blocks] (below a quantum, flushed at stop): $rest ns" ||
	bad "[short blocks] $rest ns: want the flushed rest, 0 < rest <= 1 ms"

run_parked runqlat -L
[ $rc -eq 0 ] && ok "runqlat: exit 0" || { bad "runqlat: exit $rc"; finish; }
line=$(grep "^tid $pid " "$TMP/out")
waits=$(sed -n 's/.*: \([0-9]*\) waits, total \([0-9.]*\) ms.*/\1/p' <<<"$line")
ms=$(sed -n 's/.*: \([0-9]*\) waits, total \([0-9.]*\) ms.*/\2/p' <<<"$line")
arrivals=$((pc1 - pc0))
[ "${waits:-0}" -eq $((arrivals - 1)) ] && [ "$arrivals" -ge 40 ] &&
	ok "runqlat: $waits waits for $arrivals runs on a CPU" ||
	bad "runqlat: ${waits:-none} waits for $arrivals runs on a CPU (want $((arrivals - 1)))"
want_ms=$(awk -v a=$rd0 -v b=$rd1 'BEGIN { printf "%.3f", (b - a) / 1e6 }')
# the first wait, not counted, can be most of it: never more than schedstat
awk -v g="${ms:-0}" -v w="$want_ms" 'BEGIN { exit !(g >= 0 && g <= w + 0.01) }' &&
	ok "runqlat: $ms ms waiting, schedstat $want_ms ms including the uncounted first wait" ||
	bad "runqlat: ${ms:-none} ms waiting vs schedstat $want_ms ms"
finish
