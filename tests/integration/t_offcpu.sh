#!/bin/bash
# --off-cpu on threads that block in known ways: each thread's blocked total
# (its stacks but [cpu wait]) is within 2% of the blocked time the workload
# measured over its own blocking loop (wall - thread CPU time - run_delay
# from schedstat), its [cpu wait] no more than that run_delay (which also
# holds waits after preemptions), >= 95% of its stack-carrying time
# has the expected reason, and >= 99% of that names the application function
# that made the call (CFI through glibc, which has no frame pointers: the
# command is held at its entry point until its unwind tables are published,
# so no block is walked before them; see docs/record.md, Start-up of -- CMD).
. "$(dirname "$0")/lib.sh"

# Both ways of taking a long block's user stack: BPF task work where the
# kernel has it (6.18+), and the sys_exit program older kernels fall back to.
check_mode() {
mode=$1
mkdir -p /var/tmp/hotcold-it && fsdir=$(mktemp -d /var/tmp/hotcold-it/fsync.XXXXXX)
cleanup_hooks+=("rm -rf '$fsdir'")
if [ "$mode" = sys_exit ]; then
	HOTCOLD_NO_TASK_WORK=1 "$HOTCOLD" record -v --off-cpu --per-thread -o "$TMP/out.folded" -- \
		"$WL/blockers" 3 "$fsdir" "$TMP/truth" 2>"$TMP/err"
else
	"$HOTCOLD" record -v --off-cpu --per-thread -o "$TMP/out.folded" -- \
		"$WL/blockers" 3 "$fsdir" "$TMP/truth" 2>"$TMP/err"
fi
rc=$?
grep -E '^(hotcold|sched|lost|unwind):' "$TMP/err" | tail -n 6
[ $rc -eq 0 ] && ok "$mode: exit 0" || { bad "$mode: exit $rc"; finish; }
grep -q 'folded, nanoseconds' "$TMP/err" && ok "unit stated: nanoseconds" || bad "no unit in summary"
# the control of t_offcpu_budget: one fsync thread stays within the default budget
grep -q ' 0 short-block samples put off' "$TMP/err" && ok "$mode: no short-block sample put off" ||
	bad "$mode: short-block samples put off: $(grep 'samples put off' "$TMP/err")"
head -1 "$TMP/out.folded" | grep -q '^# hotcold folded v1 kind=offcpu unit=nanoseconds' &&
	ok "header: kind=offcpu unit=nanoseconds" || bad "header: $(head -1 "$TMP/out.folded")"
want_how=$([ "$mode" = sys_exit ] && echo "at sys_exit" || echo "by task work")
if grep -q "user stacks of long blocks taken $want_how" "$TMP/err"; then
	ok "$mode: user stacks taken $want_how"
elif [ "$mode" = task_work ] && grep -q "no BPF task work in this kernel" "$TMP/err"; then
	echo "[Note: $mode: this kernel has no BPF task work; only the sys_exit path is tested]"
	return
else
	bad "$mode: user stacks not taken $want_how"
fi

while read -r name tid reason ns calls rd steal rdlife; do
	root="$name-$tid"
	want=$ns
	cw=$(awk -v r="$root" '{ split($0, fr, ";"); if (fr[1] == r && $0 ~ /;\[cpu wait\] [0-9]+$/) t += $NF } END { printf "%.0f\n", t }' "$TMP/out.folded")
	all=$(( $(folded_with_root "$TMP/out.folded" "$root") - cw ))
	got=$(awk -v r="$root" -v why="[$reason]" '{
		n = $NF; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, fr, ";")
		if (fr[1] == r && fr[k] == why) t += n } END { printf "%.0f\n", t }' "$TMP/out.folded")
	short=$(awk -v r="$root" '{ split($0, fr, ";"); if (fr[1] == r && $0 ~ /\[short blocks\] [0-9]+$/) t += $NF } END { printf "%.0f\n", t }' "$TMP/out.folded")
	# blocks whose switch-in the kernel did not trace (it gave the thread
	# the CPU from a task whose switches it hides: README, Off-CPU): their
	# time is in $all, exact, but no stack could be taken; the stack shares
	# below are of the blocks that could have one, and this share is shown
	unseen=$(awk -v r="$root" '{ split($0, fr, ";"); if (fr[1] == r && $0 ~ /, end not traced\] [0-9]+$/) t += $NF } END { printf "%.0f\n", t }' "$TMP/out.folded")
	dev=$(awk -v a="$all" -v b="$want" 'BEGIN { printf "%.2f", b ? 100 * (a - b) / b : 100 }')
	# Blocks are timed by the run queue's clock, updated by the scheduler
	# just before the switch: the same clock the kernel charges CPU time
	# and run_delay with, so a block is neither over- nor under-counted by
	# the switch itself (folded lines are whole nanoseconds: no rounding).
	# So 2%, as the issue asks, either way; and
	# below, the host's steal time while the thread ran, which the truth
	# counts as blocked and hotcold as nothing (blockers.c): at most the
	# machine's steal over the run (measured, in 10 ms ticks).
	tol=2.00
	low=$(awk -v b="$want" -v s="$steal" 'BEGIN { printf "%.2f", 2 + (b ? 100 * s / b : 0) }')
	# [cpu wait] is computed from the same clock and sched_info as the
	# kernel's run_delay, wakeup by wakeup: at most the thread's whole-life
	# run_delay (it includes the wait from creation to the first run, before
	# the measured loop), plus 20 us of a wait being counted as it ended
	[ "$cw" -le $((rdlife + 20000)) ] && ok "$root: [cpu wait] $cw ns <= life run_delay $rdlife ns" ||
		bad "$root: [cpu wait] $cw ns > life run_delay $rdlife ns (loop: $rd ns)"
	if awk -v d="$dev" -v t="$tol" -v l="$low" 'BEGIN { exit !(d >= -l && d <= t) }'; then
		ok "$root: $all ns off-CPU vs $want ns measured ($dev%, tolerance -$low% +$tol%, $calls calls)"
	else
		bad "$root: $all ns off-CPU vs $want ns measured ($dev%, tolerance -$low% +$tol%, $calls calls)"
	fi
	# the shares below mean something only if most blocks were seen whole
	[ $((unseen * 2)) -lt "$all" ] && ok "$root: $unseen ns of $all ns in blocks whose switch-in was not traced" ||
		bad "$root: $unseen ns of $all ns in blocks whose switch-in was not traced"
	p=$(pct "$got" "$((all - short - unseen))")
	awk -v p="$p" 'BEGIN { exit !(p >= 95) }' && ok "$root: $p% of its stacked time is [$reason]" ||
		bad "$root: only $p% of its stacked time is [$reason]"
	fn=$(case $reason in futex) echo wait_futex;; poll) echo wait_epoll;;
		fsync) echo wait_fsync;; sleep) echo wait_sleep;; esac)
	with=$(awk -v r="$root" -v why="[$reason]" -v f="$fn" '{
		n = $NF; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, fr, ";")
		if (fr[1] != r || fr[k] != why) next
		for (i = 1; i <= k; i++) if (fr[i] == f) { t += n; break } } END { printf "%.0f\n", t }' "$TMP/out.folded")
	p=$(pct "$with" "$got")
	awk -v p="$p" 'BEGIN { exit !(p >= 99) }' && ok "$root: $fn in $p% of its [$reason] time" ||
		bad "$root: $fn in only $p% of its [$reason] time"
	# short blocks are sampled onto stacks: all but the rest below one
	# quantum (1 ms) is on one, however short the blocks (fsync on a fast disk)
	p=$(pct "$with" "$((all - unseen))")
	awk -v p="$p" 'BEGIN { exit !(p >= 95) }' && ok "$root: $fn carries $p% of all its blocked time ($short ns stackless; $unseen ns more whose switch-in was not traced)" ||
		bad "$root: $fn carries only $p% of all its blocked time ($short ns stackless; $unseen ns more whose switch-in was not traced)"
done < "$TMP/truth"
}

check_mode task_work
check_mode sys_exit
finish
