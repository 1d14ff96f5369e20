#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench/counters_switch.sh — what the per-process counters cost per context
# switch: `hotcold stat -a --per-process` runs bpf/counters.bpf.c's
# sched_switch program on every switch of the machine (so do `record
# --counters` and `agent --counters`, always on). Load: `perf bench sched
# pipe` (two tasks ping-ponging, ~60-70k switches/s here). Per arm and
# round: the program's run time per invocation (kernel.bpf_stats_enabled,
# over 2 s) and the switches per second. Arms alternate; run alone.
#   flock /tmp/hotcold-bench.lock bench/counters_switch.sh [--rounds N] HOTCOLD [OTHER...]
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/lib.sh"
ROUNDS=3
[ "${1:-}" = --rounds ] && { ROUNDS=$2; shift 2; }
[ $# -ge 1 ] || { echo "usage: $0 [--rounds N] HOTCOLD [OTHER...]" >&2; exit 2; }
command -v perf >/dev/null || { echo "$0: needs perf (linux-perf)" >&2; exit 1; }
BPFTOOL=$(command -v bpftool || echo /usr/sbin/bpftool)
PREV=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -qw kernel.bpf_stats_enabled=$PREV; pkill -f "perf bench sched pipe" 2>/dev/null' EXIT

prog_run() {	# $1: prog id -> "run_time_ns run_cnt"
	"$BPFTOOL" prog show id "$1" | grep -o 'run_time_ns [0-9]* run_cnt [0-9]*' | awk '{ print $2, $4 }'
}

one() {	# $1: hotcold; prints one table row
	local pb h id t0 c0 t1 c1
	sysctl -qw kernel.bpf_stats_enabled=1
	perf bench sched pipe -l 1000000000 >/dev/null 2>&1 &
	pb=$!
	"$1" stat -a --per-process -d 5 >/dev/null 2>&1 &
	h=$!
	sleep 1.5
	id=$("$BPFTOOL" prog show | awk -F: '/ counters_switch/ { print $1; exit }')
	if [ -z "$id" ]; then
		echo "| $1 | no counters_switch program |"
	else
		read -r t0 c0 < <(prog_run "$id")
		sleep 2
		read -r t1 c1 < <(prog_run "$id")
		echo "| $1 | $(((t1 - t0) / (c1 - c0))) | $(((c1 - c0) / 2)) |"
	fi
	wait "$h"
	kill "$pb" 2>/dev/null
	pkill -f "perf bench sched pipe" 2>/dev/null	# its forked tasks
	wait "$pb" 2>/dev/null
}

echo "| binary | ns per switch (counters_switch) | switches/s |"
echo "|---|---:|---:|"
alternate counters_switch "$ROUNDS" one "$@"
