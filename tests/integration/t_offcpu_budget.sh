#!/bin/bash
# The system-wide budget of short-block samples (a token bucket per CPU,
# README "Off-CPU sampling"), made to bite: at 50 samples a second per CPU
# the fsync thread (~40 us blocks, ~500 quanta of 1 ms a second) is put off
# about 9 times in 10. The budget must cost no time: the thread's blocked
# total stays within t_offcpu's bound of the workload's own truth (wall -
# CPU - run_delay; 2%, and below, the machine's steal), and the deferred
# quanta ride on later samples, so wait_fsync still carries >= 95% of it
# (what stays stackless is the rest since the last sample: at 50 a second
# with bursts of 100 ms, tens of ms of about a second). The negative
# control is t_offcpu: at the default budget the same thread is never put
# off there.
. "$(dirname "$0")/lib.sh"

mkdir -p /var/tmp/hotcold-it && fsdir=$(mktemp -d /var/tmp/hotcold-it/fsync.XXXXXX)
cleanup_hooks+=("rm -rf '$fsdir'")
# The budget bites only if the fsync thread's blocks are short. Under the
# default --min-block (50 us) a ~40 us fsync is short only on a quiet host:
# stealing the CPU, they last past it and each gets a stack of its own (CI
# run 9 of session 14: 189 short blocks, 7,368 long, 53% of the thread's
# time stolen; session 16's run 6: 378-1,207 short in three tries, the
# budget never bit). So --min-block 1ms, the agent's default, as the
# quantum part below uses: 25x the fsync's length, and the host's stops of
# this VM (~100 ms) still make only the blocks they fall in long. A run
# with no sample put off tests nothing: said and repeated, at most 3 times.
for try in 1 2 3; do
	st0=$(steal_ms)
	HOTCOLD_OFFCPU_SAMPLE_RATE=50 "$HOTCOLD" record -v --off-cpu --min-block 1ms --per-thread \
		-o "$TMP/out.folded" -- \
		"$WL/blockers" 2 "$fsdir" "$TMP/truth" 2>"$TMP/err"
	rc=$?
	n=$(awk '/^  sched .* short-block samples put off/ { print $3 }' "$TMP/err")
	[ $rc -ne 0 ] || [ "${n:-0}" -gt 0 ] && break
	echo "[Note: try $try: no short-block sample put off, $(( $(steal_ms) - st0 )) ms stolen meanwhile: $(grep -o '[0-9]* short blocks' "$TMP/err" | head -1); again]"
done
grep -E '^(hotcold|sched|lost):' "$TMP/err" | tail -n 4
[ $rc -eq 0 ] && ok "exit 0" || { bad "exit $rc"; finish; }
[ "${n:-0}" -gt 0 ] && ok "the budget bit: $n short-block samples put off" ||
	bad "the budget never bit: '${n:-}' samples put off"

read -r name tid reason ns calls rd steal rdlife < <(grep '^fsync ' "$TMP/truth")
root="fsync-$tid"
sum() { awk -v r="$root" -v re="$1" '{ split($0, fr, ";"); if (fr[1] == r && $0 ~ re) t += $NF } END { printf "%.0f\n", t }' "$TMP/out.folded"; }
cw=$(sum ';\[cpu wait\] [0-9]+$')
all=$(( $(folded_with_root "$TMP/out.folded" "$root") - cw ))
unseen=$(sum ', end not traced\] [0-9]+$')
with=$(awk -v r="$root" '{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, fr, ";")
	if (fr[1] != r || fr[k] != "[fsync]") next
	for (i = 1; i <= k; i++) if (fr[i] == "wait_fsync") { t += n; break } } END { printf "%.0f\n", t }' "$TMP/out.folded")
dev=$(awk -v a="$all" -v b="$ns" 'BEGIN { printf "%.2f", b ? 100 * (a - b) / b : 100 }')
low=$(awk -v b="$ns" -v s="$steal" 'BEGIN { printf "%.2f", 2 + (b ? 100 * s / b : 0) }')
awk -v d="$dev" -v l="$low" 'BEGIN { exit !(d >= -l && d <= 2) }' &&
	ok "$root: $all ns off-CPU vs $ns ns measured ($dev%, tolerance -$low% +2%, $calls calls)" ||
	bad "$root: $all ns off-CPU vs $ns ns measured ($dev%, tolerance -$low% +2%, $calls calls)"
p=$(pct "$with" "$((all - unseen))")
[ $((unseen * 2)) -lt "$all" ] && awk -v p="$p" 'BEGIN { exit !(p >= 95) }' &&
	ok "$root: wait_fsync carries $p% of its blocked time ($unseen ns whose switch-in was not traced)" ||
	bad "$root: wait_fsync carries $p% of its blocked time ($unseen ns whose switch-in was not traced)"

# --- the quantum (--block-quantum; the agent's default is 10 ms): one stack
# per Q of a thread's short-block time. shortblocks parks in sigsuspend,
# then blocks N times in nanosleep(20 us) (~70 us each with the timer
# slack: short under --min-block 1ms, as in the agent), then pause()s: T,
# its nanosleep time, is in its truth file.
# Systematic sampling takes floor(T/Q) stacks (the rest below Q is flushed
# stackless at the stop), so the samples scale as 1/Q while the time stays:
# at most T/Q + 1 sampled records, plus the two long blocks (sigsuspend,
# pause) and one whose stack was still pending; at least half of T/Q (a
# block ending while the previous sample waits for its stack at sys_exit
# adds its time to that one: 0-3 % of samples here). A nanosleep that took
# 1 ms or more (the host stealing the CPU: CI run 8 of session 14, 81
# records for T/Q = 74, the same test's fsync part measuring 19 % of its
# time stolen) is a long block under --min-block 1ms, with a stack of its
# own and its time out of T's short part: the workload counts those calls
# (L, their time TL), so at most (T - TL)/Q + L + 4. It times a call on the
# wall (the block and its wait for a CPU after it), so L counts at least
# every long block: the bound can only loosen by it, never tighten. Such a
# call may have blocked under 1 ms, the rest a wait for a CPU: its block is
# then in the short blocks' time, up to 1 ms each: ceil(L x 1 ms / Q) more.
quantum_run() {	# Q (ms)
	"$WL/shortblocks" 10000 "$TMP/qtruth.$1" &
	local pid=$! hc
	cleanup_hooks+=("kill $pid 2>/dev/null")
	"$HOTCOLD" record -v --off-cpu --min-block 1ms --block-quantum "$1ms" -p $pid -d 3 -o "$TMP/q$1.folded" \
		2>"$TMP/q$1.err" &
	hc=$!
	for _ in $(seq 100); do grep -q 'Ctrl-C to stop' "$TMP/q$1.err" 2>/dev/null && break; sleep 0.05; done
	sleep 0.2
	kill -USR1 $pid
	wait $hc
	kill $pid 2>/dev/null
}
for q in 1 10; do
	quantum_run $q
	read -r qn qns < "$TMP/qtruth.$q" || { bad "Q=$q ms: the workload did not finish its blocks"; continue; }
	read -r nl tl < <(awk '$1 == "long" { print $2, $3 }' "$TMP/qtruth.$q")
	rd=$(awk '$1 == "run_delay" { print $2 }' "$TMP/qtruth.$q")
	span=$(awk '$1 == "wall" { print $2 }' "$TMP/qtruth.$q")
	nl=${nl:-0} tl=${tl:-0} rd=${rd:-0} span=${span:-0}
	recs=$(awk '/^  sched .* blocks with stacks$/ { print $3 }' "$TMP/q$q.err")
	# its short blocks' time: every line but the two long blocks' and the stop's
	got=$(awk '!/sigsuspend|pause/ { t += $NF } END { printf "%.0f", t }' "$TMP/q$q.folded")
	want=$(((qns - tl) / (q * 1000000)))
	# Compared as t_offcpu does: without the waits for a CPU on either
	# side. The workload's wall - CPU holds every run-queue wait, after
	# preemptions too, which are no block (the runq kind's, not recorded
	# here); the profile's [cpu wait] after wakeups is in its run_delay.
	# Session 16, fresh-clone run 3, beside a loaded machine: -7.58% (60 ms
	# of 800) with the preemption waits in the truth.
	cw=$(awk '/\[cpu wait\] [0-9]+$/ { t += $NF } END { printf "%.0f", t }' "$TMP/q$q.folded")
	got=$((got - cw))
	qoff=$((qns - rd))
	dev=$(awk -v a="$got" -v b="$qoff" 'BEGIN { printf "%.2f", b ? 100 * (a - b) / b : 100 }')
	# A call L counts (>= 1 ms on the wall) may have blocked under 1 ms and
	# waited for a CPU the rest: a short block to the profile, its time out
	# of T - TL here. Each adds at most 1 ms / Q to the short blocks' share
	# (session 16, beside a test run: 82 long calls, 778 records against
	# the old bound's 765).
	lq=$(((nl * 1000000 + q * 1000000 - 1) / (q * 1000000)))
	[ "${recs:-0}" -le $((want + nl + lq + 4)) ] && [ "${recs:-0}" -ge $((want / 2)) ] &&
		ok "Q=$q ms: ${recs:-0} blocks with stacks for (T - TL)/Q = $want + L = $nl ($qn blocks, $qns ns, $nl of them >= 1 ms)" ||
		bad "Q=$q ms: ${recs:-0} blocks with stacks, (T - TL)/Q = $want, L = $nl ($qn blocks, $qns ns, $nl of them >= 1 ms: $tl ns)"
	# the time is kept whatever Q: t_offcpu's bound (2 %; the CPU wait is in the truth too)
	awk -v d="$dev" 'BEGIN { exit !(d >= -2 && d <= 2) }' &&
		ok "Q=$q ms: $got ns off-CPU vs $qoff ns measured ($dev%; CPU waits out: $cw ns in the profile, $rd ns in the workload's run_delay)" ||
		bad "Q=$q ms: $got ns off-CPU vs $qoff ns measured ($dev%; CPU waits out: $cw ns in the profile, $rd ns in the workload's run_delay; the loop took $span ns of the 3 s recording): $(grep -v 'sigsuspend\|pause' "$TMP/q$q.folded" | head -3)"
done
finish
