#!/bin/bash
# Blocked time apart from CPU wait, on a saturated machine: a busy loop on
# every CPU, and the blockers workload's threads in SCHED_OTHER, so that each
# wakeup waits for a CPU. Per thread, the stacks but [cpu wait] (blocked:
# switch-out to wakeup) are within 2% of the workload's own truth over its
# loop, wall - CPU - run_delay (schedstat); [cpu wait] (wakeup to switch-in)
# is no more than that run_delay, and most of it for the threads that run for
# microseconds per call (they are rarely preempted: their run_delay is waits
# after wakeups). The 5 ms sleeper shows calls x 5 ms plus its timer slack as
# blocked, not the CPU wait on top. A block whose switch-in the kernel did
# not trace (README: Switch-ins not traced) is timed from sched_info at the
# thread's next switch-out: before, such blocks were lost whole (-1% to -2.2%
# in steps of one block here; the official CI's failure).
. "$(dirname "$0")/lib.sh"

ncpu=$(nproc)
for _ in $(seq "$ncpu"); do
	bash -c 'while :; do :; done' &
	cleanup_hooks+=("kill $! 2>/dev/null")
done
mkdir -p /var/tmp/hotcold-it && fsdir=$(mktemp -d /var/tmp/hotcold-it/fsync.XXXXXX)
cleanup_hooks+=("rm -rf '$fsdir'")
slack_ns=$(awk '/^TimerSlackNs/ { print $2 }' /proc/self/status 2>/dev/null)
slack_ns=${slack_ns:-50000}

HOTCOLD_BLOCKERS_CFS=1 "$HOTCOLD" record -v --off-cpu --per-thread -o "$TMP/out.folded" -- \
	"$WL/blockers" 2 "$fsdir" "$TMP/truth" 2>"$TMP/err"
rc=$?
grep -E '^(hotcold|sched|lost):' "$TMP/err" | tail -n 4
[ $rc -eq 0 ] && ok "exit 0 with $ncpu busy loops" || { bad "exit $rc"; finish; }

cw_all=0 rd_all=0
while read -r name tid reason ns calls rd steal rdlife; do
	root="$name-$tid"
	# folded weights are nanoseconds; compared here in microseconds
	cwns=$(awk -v r="$root" '{ split($0, fr, ";"); if (fr[1] == r && $0 ~ /;\[cpu wait\] [0-9]+$/) t += $NF } END { printf "%.0f\n", t }' "$TMP/out.folded")
	blk=$(( ($(folded_with_root "$TMP/out.folded" "$root") - cwns) / 1000 )) cw=$((cwns / 1000))
	want=$((ns / 1000)) rdus=$((rd / 1000))
	# 2% (the issue's bound); the us truncation here is < 1 us a thread; below,
	# also the host's steal while the thread ran (t_offcpu says why)
	dev=$(awk -v a="$blk" -v b="$want" 'BEGIN { printf "%.2f", b ? 100 * (a - b) / b : 100 }')
	low=$(awk -v b="$want" -v s="$steal" 'BEGIN { printf "%.2f", 2 + (b ? 100 * s / 1000 / b : 0) }')
	# what the old switch-out -> switch-in timing would have said
	old=$(awk -v a="$blk" -v c="$cw" -v b="$want" 'BEGIN { printf "%.1f", b ? 100 * (a + c - b) / b : 0 }')
	awk -v d="$dev" -v l="$low" 'BEGIN { exit !(d >= -l && d <= 2) }' &&
		ok "$root: blocked $blk us vs $want us (wall - CPU - run_delay; $dev%; with the CPU wait it would read +$old%)" ||
		bad "$root: blocked $blk us vs $want us (wall - CPU - run_delay; $dev%)"
	# at most the thread's whole-life run_delay (t_offcpu says why)
	[ "$cw" -le $((rdlife / 1000 + 20)) ] && ok "$root: [cpu wait] $cw us <= life run_delay $((rdlife / 1000)) us" ||
		bad "$root: [cpu wait] $cw us > life run_delay $((rdlife / 1000)) us (loop: $rdus us)"
	if [ "$reason" != fsync ]; then
		cw_all=$((cw_all + cw)) rd_all=$((rd_all + rdus))
	fi
	if [ "$reason" = sleep ]; then
		# nanosleep(5 ms) sleeps at least 5 ms and at most its timer slack
		# later, plus the timer interrupt's latency: a guest's comes late
		# by tens of us (13 us a call beyond the slack measured here,
		# saturated); 100 us bounds it, far below the ~5 ms a call of CPU
		# wait that must not be counted (the old timing read +95% here).
		# And a host that deschedules the vCPU when the timer is due
		# delivers it that much later: at most the machine's steal over
		# the run (all CPUs, measured by blockers)
		lo=$((calls * 5000)) hi=$((calls * (5000 + slack_ns / 1000 + 100) + steal / 1000))
		[ "$blk" -ge $((lo * 99 / 100)) ] && [ "$blk" -le "$hi" ] &&
			ok "$root: $calls calls x 5 ms: blocked $blk us in [$lo, $hi] (timer slack $slack_ns ns)" ||
			bad "$root: $calls calls x 5 ms: blocked $blk us not in [$lo, $hi] (timer slack $slack_ns ns, steal $((steal / 1000)) us)"
	fi
done < "$TMP/truth"
# a saturated machine: the wakeups did wait, and most of that wait is [cpu wait]
p=$(pct "$cw_all" "$rd_all")
[ "$rd_all" -gt 1000 ] && awk -v p="$p" 'BEGIN { exit !(p >= 50) }' &&
	ok "[cpu wait] $cw_all us = $p% of the sleepers' run_delay $rd_all us" ||
	bad "[cpu wait] $cw_all us = $p% of the sleepers' run_delay $rd_all us"
finish
