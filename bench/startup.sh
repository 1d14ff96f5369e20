#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench/startup.sh — how soon does `record -a` sample, and how long does
# its loop thread stall building unwind tables (issue 15)?
#
# Per round, with compile churn running (a shell compiling
# tests/workloads/split.c with gcc -O2 in a loop, started before hotcold, so
# there are new processes and big objects, cc1, to build tables for):
#   hotcold record -a -d SECONDS -F 99 -v
# bpftrace (tracepoints, by comm "hotcold") timestamps:
#   exec       the sched_process_exec of hotcold
#   attach     its first perf_event_open (the events are opened before the
#              BPF program is loaded: not yet sampling)
#   link       its first bpf(BPF_LINK_CREATE): the sampling program attached
#   first      its first openat of /proc/PID/maps for another PID: the first
#              sample read from the ring (its process is registered)
# and from hotcold's own summary: table build time in all and on the loop
# thread ("in line": for the --before binary, all of it).
# Medians over --rounds; the arms alternate. Markdown on stdout.
# Run it under the bench lock:  flock /tmp/hotcold-bench.lock bench/startup.sh
#
# usage: bench/startup.sh [--rounds N] [--seconds S] [--hotcold PATH] [--before PATH]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=5 SECS=2 HC=$PWD/.output/hotcold BEFORE=
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=$2; shift 2;;
	--seconds) SECS=$2; shift 2;;
	--hotcold) HC=$(realpath "$2"); shift 2;;
	--before) BEFORE=$(realpath "$2"); shift 2;;
	*) echo "usage: $0 [--rounds N] [--seconds S] [--hotcold PATH] [--before PATH]" >&2; exit 2;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "startup.sh: needs root" >&2; exit 1; }
W=$(mktemp -d /tmp/hc-startup.XXXXXX)
CHURN= BT=
# every step on its own: under set -e a failed kill or wait must not skip the rest
cleanup() {
	if [ -n "$CHURN" ]; then kill "$CHURN" 2>/dev/null || true; wait "$CHURN" 2>/dev/null || true; fi
	if [ -n "$BT" ]; then kill "$BT" 2>/dev/null || true; wait "$BT" 2>/dev/null || true; fi
	rm -rf "$W"
}
trap cleanup EXIT
trap "exit 1" INT TERM

# compile churn: new gcc/cc1/as processes all the time
( while :; do gcc -O2 -c tests/workloads/split.c -o "$W/churn.o" 2>/dev/null; done ) &
CHURN=$!

bpftrace -e '
tracepoint:sched:sched_process_exec /comm == "hotcold"/ { printf("exec %d %lld\n", pid, nsecs); }
tracepoint:syscalls:sys_enter_perf_event_open /comm == "hotcold"/ { printf("pe %d %lld\n", pid, nsecs); }
tracepoint:syscalls:sys_enter_bpf /comm == "hotcold" && args->cmd == 28/ { printf("link %d %lld\n", pid, nsecs); }
tracepoint:syscalls:sys_enter_openat /comm == "hotcold"/ {
	printf("open %d %lld %s\n", pid, nsecs, str(args->filename)); }' >"$W/bt.log" 2>&1 &
BT=$!
for i in $(seq 100); do grep -q Attaching "$W/bt.log" 2>/dev/null && break; sleep 0.1; done
sleep 0.5

arms=(after)
[ -n "$BEFORE" ] && arms=(before after)
: >"$W/res"
for r in $(seq "$ROUNDS"); do
	for arm in "${arms[@]}"; do
		bin=$HC; [ "$arm" = before ] && bin=$BEFORE
		echo "round $r $arm" >&2
		mark=$(wc -l <"$W/bt.log")
		# by pid: other users' hotcold processes show in the trace too
		"$bin" record -a -d "$SECS" -F 99 -v -o "$W/out.folded" 2>"$W/err" &
		pid=$!
		wait "$pid" || true
		sleep 0.3
		tail -n +$((mark + 1)) "$W/bt.log" >"$W/round.log"
		# build ms: total, and on the loop thread (all of it before the builder existed)
		tot=$(sed -n 's/^unwind: [0-9]* tables built (.*; \([0-9]*\) ms).*/\1/p' "$W/err")
		inl=$(sed -n 's/.*builder thread (\([0-9]*\) ms in line).*/\1/p' "$W/err")
		q=$(sed -n 's/^unwind: \([0-9]*\) tables built on the builder.*/\1/p' "$W/err")
		awk -v arm="$arm" -v tot="${tot:-0}" -v inl="${inl:-${tot:-0}}" -v q="${q:-0}" -v p="$pid" '
			$1 == "exec" && $2 == p && !e { e = $3 }
			$1 == "pe" && $2 == p && !a { a = $3 }
			$1 == "link" && $2 == p && !l { l = $3 }
			$1 == "open" && $2 == p && !f && $4 ~ /^\/proc\/[0-9]+\/maps$/ &&
				$4 != "/proc/" p "/maps" { f = $3 }
			END {
				# bpftrace drops events under load: a round without its exec or link is left out
				if (!e || !a || !l || !f) { print "incomplete round: " arm > "/dev/stderr"; exit }
				printf "%s %.1f %.1f %.1f %s %s %s\n", arm, (a - e) / 1e6, (l - e) / 1e6,
				       (f - e) / 1e6, tot, inl, q }
		' "$W/round.log" >>"$W/res"
	done
done

med() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "### record -a start-up under compile churn ($ROUNDS rounds, medians; load $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "| binary | exec -> events opened (ms) | exec -> sampling program attached (ms) | exec -> first sample read (ms) | table builds (ms) | of which on the loop thread (ms) | built on the builder thread |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for arm in "${arms[@]}"; do
	row="| $arm"
	for c in 2 3 4 5 6 7; do
		row="$row | $(awk -v a="$arm" -v c="$c" '$1 == a { print $c }' "$W/res" | med)"
	done
	echo "$row |"
done
echo
echo "raw (arm open_ms attach_ms first_ms build_ms loop_ms queued):"
sed 's/^/    /' "$W/res"
