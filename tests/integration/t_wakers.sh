#!/bin/bash
# --wakers: a thread woken through a condition variable shows the waker's
# function after the "--" separator with _[w] frames; wakeups from a timer
# interrupt keep only the interrupt's kernel path. And a hot/cold run
# (--off-cpu --on-cpu) puts both kinds in one file, each after its header,
# every count in nanoseconds.
. "$(dirname "$0")/lib.sh"

# -v: the waker-miss counters are read from the full table (0 is not printed by default)
"$HOTCOLD" record -v --off-cpu --wakers -o "$TMP/w.folded" -- "$WL/wakeup" 200 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && ok "exit 0" || { bad "exit $rc: $(cat "$TMP/err")"; finish; }
waits=$(awk '/;wait_for_token;.*\[futex\]/ { t += $NF } END { printf "%.0f\n", t }' "$TMP/w.folded")
woken=$(awk '/;wait_for_token;.*\[futex\];--;.*;wake_the_waiter_\[w\]/ { t += $NF } END { printf "%.0f\n", t }' "$TMP/w.folded")
p=$(pct "$woken" "$waits")
# the first blocks may end before the loader published the tables (FP walks)
awk -v p="$p" 'BEGIN { exit !(p >= 95) }' && ok "wake_the_waiter_[w] in $p% of the waiter's futex time ($waits ns)" ||
	bad "wake_the_waiter_[w] in only $p% of $waits ns: $(grep wait_for_token "$TMP/w.folded" | head -2)"
# the waker's identity tops its frames: the main thread (tid = pid) woke it
pid=$(awk -F';' '/;wake_the_waiter_\[w\]/ { print $NF }' "$TMP/w.folded" | sed -n 's/^\[waker wakeup-\([0-9]*\) pid \([0-9]*\)\]_\[w\] [0-9]*$/\1 \2/p' | sort -u)
[ "$(wc -l <<<"$pid")" -eq 1 ] && [ "$(cut -d' ' -f1 <<<"$pid")" = "$(cut -d' ' -f2 <<<"$pid")" ] &&
	ok "waker frames end with its thread name, tid and pid: [waker wakeup-${pid% *} pid ${pid#* }]" ||
	bad "waker identity frame: '$pid'"
# every long block without its waker's stacks is counted, by cause
grep -q 'long blocks without waker stacks: no wakeup seen' "$TMP/err" &&
	grep -q 'waker stacks evicted before their block' "$TMP/err" &&
	ok "waker misses counted by cause: $(grep -o '[0-9]* long blocks without[^,]*' "$TMP/err")" ||
	bad "no waker miss counters in: $(grep -E '^(sched|lost):' "$TMP/err")"
irq_user=$(awk '/\[sleep\];--;.*asm_sysvec_apic_timer_interrupt_\[k\]_\[w\];/ { t += $NF } END { printf "%.0f\n", t }' "$TMP/w.folded")
[ "$irq_user" -eq 0 ] && ok "timer-interrupt wakeups end at the interrupt entry" ||
	bad "$irq_user ns of interrupt wakers carry the interrupted task's frames"
grep -q 'bpf_prog_' "$TMP/w.folded" && bad "BPF program frames in waker stacks" || ok "no BPF frames in waker stacks"

"$HOTCOLD" record -v --off-cpu --on-cpu -F 999 -o "$TMP/hc.folded" -- "$WL/split" 1 "$TMP/t" 2>"$TMP/err"
# the on-CPU section, from its header to the next one, in CPU nanoseconds
# (a file holding wait time says nanoseconds; on-CPU alone, samples x period)
on=$(awk '/^# hotcold folded/ { on = / kind=oncpu /; m = 1
		if (/ unit=samples /) { split($0, a, "period_ns="); m = a[2] + 0 }; next }
	on && /^split;/ { t += $NF * m } END { printf "%.0f\n", t }' "$TMP/hc.folded")
# ~1 s of CPU at 999 Hz: ~1000 samples x 1001001 ns each, and the steal the
# ticks kept in it (docs/record.md), taken off
k=$(steal_kept_ms "$TMP/err")
awk -v t="$on" -v k="$k" 'BEGIN { t -= k * 1e6; exit !(t > 700000000 && t < 1300000000) }' &&
	ok "hot/cold: on-CPU part is $on ns for ~1 s of CPU ($k ms of steal kept)" ||
	bad "hot/cold: on-CPU part $on ns, $k ms of steal kept: $(grep '^#' "$TMP/hc.folded")"
if grep -q '^# hotcold folded v1 kind=offcpu unit=nanoseconds' "$TMP/hc.folded"; then
	grep -q '^# hotcold folded v1 kind=oncpu unit=nanoseconds period_ns=1001001' "$TMP/hc.folded" &&
		ok "hot/cold: on-CPU and off-CPU sections, both in nanoseconds" ||
		bad "hot/cold: on-CPU section not in nanoseconds: $(grep '^#' "$TMP/hc.folded")"
fi
grep -q 'folded, nanoseconds' "$TMP/err" && ok "hot/cold unit is nanoseconds" || bad "unit not stated"
finish
