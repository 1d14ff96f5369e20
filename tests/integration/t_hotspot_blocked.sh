#!/bin/bash
# Java threads blocked for the whole recording, their stacks walked through
# their Java frames from another task: a stock JDK 17 runs
# tests/workloads/java/Blocked.java, its main thread ("hc-sleeper") asleep
# in Blocked.sleepHere() and a thread "hc-parked" waiting in
# Blocked.waitHere(), each under a JIT-compiled Blocked.outer(). Neither
# wakes while `record --off-cpu` runs, so each block is walked at the stop
# by the sleepable iterator, which reads the thread's memory with
# bpf_copy_from_user_task(): the walker stops for every range it needs (the
# stack, the code heap's segment map, a code blob's head) and is resumed
# once it is read. Of each thread's off-CPU time, at least 95% must be
# under a stack that names its method and the caller below it (main:
# Blocked.sleepHere and JavaMain; hc-parked: Blocked.waitHere and
# java.lang.Thread.run); before, such walks ended at the first Java frame
# (java.lang.Thread.sleep's native wrapper, Object.wait's). The rest: none
# expected (both blocks outlast the recording). Needs bpf_task_from_pid
# (6.2+): on older kernels the iterator keeps the pc, as it says.
. "$(dirname "$0")/lib.sh"
java_run Blocked
pid=$JPID
"$HOTCOLD" record -v --off-cpu -p $pid -d 2 --per-thread -o "$TMP/off.folded" 2>"$TMP/off.err"
rc=$?
[ $rc -eq 0 ] && ok "record exit 0" || bad "record exit $rc: $(tail -3 "$TMP/off.err")"
grep -q 'no bpf_task_from_pid' "$TMP/off.err" && skip "this kernel cannot walk another task's stack"
# $1 root pattern (awk regex on the thread's root), $2 $3 frames that must both be there:
# "total named" ns
under() {
	awk -v r="$1" -v a="$2" -v b="$3" '{
		split($0, fr, ";"); if (fr[1] !~ r) next
		t += $NF; if (index($0, ";" a) && index($0, ";" b)) n += $NF
	} END { printf "%d %d\n", t, n }' "$TMP/off.folded"
}
# check WHAT ROOT A B
check() {
	local tot n
	read -r tot n <<<"$(under "$2" "$3" "$4")"
	if [ "$tot" -ge 1500000000 ] && awk -v n="$n" -v t="$tot" 'BEGIN { exit !(n >= 0.95 * t) }'; then
		ok "$1: $(pct "$n" "$tot")% of its $((tot / 1000000)) ms blocked under $3 and ${4%%_*}"
	else
		bad "$1: $n of its $tot ns blocked under $3 and $4 (want >= 95% of >= 1.5 s)"
		awk -v r="$2" '{ split($0, fr, ";"); if (fr[1] ~ r) print }' "$TMP/off.folded" |
			sort -t' ' -k2 -nr | head -3 | cut -c1-700
		grep -E '^  offcpu +(degraded|lost) +[1-9]' "$TMP/off.err" | sed 's/^ */[Note: /; s/$/]/'
	fi
}
check "the main thread (hc-sleeper)" '^hc-sleeper-[0-9]+$' 'Blocked.sleepHere_[j]' 'JavaMain'
check "hc-parked" '^hc-parked-[0-9]+$' 'Blocked.waitHere_[j]' 'java.lang.Thread.run_[j]'
kill $pid 2>/dev/null
finish
