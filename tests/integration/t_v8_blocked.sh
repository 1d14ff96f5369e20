#!/bin/bash
# A JavaScript thread blocked for the whole recording, its stack walked
# through its JavaScript frames from another task: node runs
# tests/workloads/node/blocked.js, its main thread waiting in sleepHere()
# (Atomics.wait, never notified) under outer(). The block outlasts
# `record --off-cpu`, so it is walked at the stop by the sleepable
# iterator, which reads the thread's memory with bpf_copy_from_user_task():
# the walk stops for each word of a frame it needs (context and function
# slots, the function's SharedFunctionInfo and its name word) and for each
# stack window, and is resumed once it is read. At least 95% of the main
# thread's off-CPU time must be under a stack that names sleepHere and
# reaches node::Start (before, such a stack kept its JavaScript frames'
# pcs: no function named). Needs bpf_task_from_pid (6.2+).
. "$(dirname "$0")/lib.sh"
command -v node >/dev/null || skip "no node"
[ "$(uname -m)" = x86_64 ] || skip "x86-64 only"

: >"$TMP/wl"
node "$(dirname "$0")/../workloads/node/blocked.js" >"$TMP/wl" 2>&1 &
pid=$!
cleanup_hooks+=("kill $pid 2>/dev/null")
wait_log '^ready' 30 "$TMP/wl" || { bad "the workload never got ready: $(head -3 "$TMP/wl")"; finish; }
sleep 0.2	# from the write to the wait
"$HOTCOLD" record -v --off-cpu -p $pid -d 2 --per-thread -o "$TMP/off.folded" 2>"$TMP/off.err"
rc=$?
[ $rc -eq 0 ] && ok "record exit 0" || bad "record exit $rc: $(tail -3 "$TMP/off.err")"
grep -q 'no bpf_task_from_pid' "$TMP/off.err" && skip "this kernel cannot walk another task's stack"
# the main thread: its tid is the pid; "total named" ns
read -r tot n <<<"$(awk -v r="node-$pid" '{
	split($0, fr, ";"); if (fr[1] != r) next
	t += $NF; if ($0 ~ /;sleepHere( \([^;]*\))?_\[j\];/ && index($0, ";node::Start(int, char**);")) n += $NF
} END { printf "%d %d\n", t, n }' "$TMP/off.folded")"
if [ "$tot" -ge 1500000000 ] && awk -v n="$n" -v t="$tot" 'BEGIN { exit !(n >= 0.95 * t) }'; then
	ok "the main thread: $(pct "$n" "$tot")% of its $((tot / 1000000)) ms blocked under sleepHere and node::Start"
else
	bad "the main thread: $n of its $tot ns blocked under sleepHere and node::Start (want >= 95% of >= 1.5 s)"
	grep "^node-$pid;" "$TMP/off.folded" | sort -t' ' -k2 -nr | head -3 | cut -c1-900
fi
kill $pid 2>/dev/null
finish
