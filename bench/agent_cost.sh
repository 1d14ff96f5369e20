#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench/agent_cost.sh — where the agent's CPU and memory go under real
# servers (issue 29), two binaries side by side in one run: PostgreSQL +
# pgbench (4 clients, fsync on) and nginx + wrk (16 connections) on loopback,
# the agent system-wide with the production flags (-F 19 --off-cpu --runq,
# AGENT_FLAGS to change). Per arm and round, the same load for SECONDS:
#   start-up: the agent's CPU until it says "writing every" (BPF loading,
#     kallsyms, the unwind tables of every running binary);
#   the window: SECONDS of the load after WARM s of it (the load's own
#     programs are new to the agent: their unwind tables are built in the
#     warm-up, as a long-running agent has them): its CPU (utime + stime, %
#     of one core) in all and by thread (hotcold-tables, -procs: unwind
#     tables; -write: encoding and storing intervals; hotcold: the loop),
#     ring records decoded per second, the off-CPU blocks' among them, and
#     tables built (/metrics), RSS at the
#     end and its peak (VmHWM), the end's RSS split into anonymous and
#     file-backed (smaps_rollup).
# Arms alternate their order every round, so a drifting machine load falls
# on both; off phases before and after give the servers' own throughput.
#   flock /tmp/hotcold-bench.lock bench/agent_cost.sh [--before BIN] \
#       [--rounds N] [--seconds S] [--warm S] [--interval S] [--perf DIR] [--no-http]
# The agents serve /metrics (--http) for the record counts; --no-http leaves
# the web view off, as by default (its library alone is ~2.7 MiB resident),
# and the count columns 0. --before BIN: the other arm (needs HOTCOLD_NO_TASK_WORK=1 on a kernel
# that refuses task work: set BEFORE_ENV). --perf DIR: also `perf record` the
# agent's threads during the warm-up and the window (cpu-clock, 499 Hz, DWARF
# call graphs: hotcold is built without frame pointers), one perf.data per
# arm and round.
set -uo pipefail
cd "$(dirname "$0")/.."
HOTCOLD=${HOTCOLD:-./.output/hotcold}
BEFORE=
BEFORE_ENV=${BEFORE_ENV:-HOTCOLD_NO_TASK_WORK=1}
ROUNDS=3
SECS=30
WARM=10
IV=10
PERFDIR=
NOHTTP=
FLAGS=${AGENT_FLAGS---off-cpu --runq}
while [ $# -gt 0 ]; do
	case $1 in
	--before) BEFORE=$2; shift ;;
	--rounds) ROUNDS=$2; shift ;;
	--seconds) SECS=$2; shift ;;
	--interval) IV=$2; shift ;;
	--warm) WARM=$2; shift ;;
	--perf) PERFDIR=$2; shift ;;
	--no-http) NOHTTP=1 ;;
	*) echo "bench/agent_cost.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
. bench/servers.sh
servers_begin agent_cost
sleep 1
hz=$(getconf CLK_TCK)
[ -n "$PERFDIR" ] && mkdir -p "$PERFDIR"

# load TAG [SECONDS]: pgbench and wrk; prints "tps req/s"
load() {
	local secs=${2:-$SECS}
	"${PGRUN[@]}" /usr/bin/pgbench -c 4 -j 2 -T "$secs" -h "$PG/sock" -p $PORT postgres \
		>"$TMP/pgbench.$1" 2>&1 &
	local l1=$!
	/usr/bin/wrk -t 2 -c 16 -d "${secs}s" http://127.0.0.1:$((PORT + 1))/ >"$TMP/wrk.$1" 2>&1 &
	local l2=$!
	wait $l1 $l2
	printf '%s %s\n' \
		"$(awk '/^tps = / { printf "%.0f", $3; exit }' "$TMP/pgbench.$1")" \
		"$(awk '/^Requests\/sec:/ { printf "%.0f", $2 }' "$TMP/wrk.$1")"
}

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# per-thread CPU ticks: "comm ticks" per line, threads of one name summed
thread_ticks() {
	for t in /proc/$1/task/*; do
		printf '%s %s\n' "$(cat "$t/comm")" "$(awk '{ print $14 + $15 }' "$t/stat")"
	done 2>/dev/null | awk '{ n[$1] += $2 } END { for (k in n) print k, n[k] }'
}
# /metrics through bash's /dev/tcp: a curl here would be a new program in the
# window, whose libraries' unwind tables the agent would build
metric() {	# PORT WHAT: the sum of hotcold_events_total{...what="WHAT"}
	local r
	[ -n "$NOHTTP" ] && { echo 0; return; }
	exec 3<>"/dev/tcp/127.0.0.1/$1" || { echo 0; return; }
	printf 'GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
	r=$(cat <&3)
	exec 3<&-
	awk -v w="what=\"$2\"" 'index($0, "hotcold_events_total{") == 1 && index($0, w) { n += $NF }
		END { printf "%.0f", n }' <<<"$r"
}

# arm NAME BIN TAG: one agent run under the load; appends a row to $TMP/rows
arm() {
	local name=$1 bin=$2 tag=$3 hport=$((PORT + 10 + RANDOM % 1000)) env=()
	[ "$name" = before ] && read -r -a env <<<"$BEFORE_ENV"
	rm -rf "$TMP/hist.$tag"
	local http=(--http 127.0.0.1:$hport)
	[ -n "$NOHTTP" ] && http=()
	env "${env[@]+"${env[@]}"}" "$bin" agent -o "$TMP/hist.$tag" --interval "${IV}s" -F 19 $FLAGS \
		"${http[@]}" 2>"$TMP/agent.$tag.err" &
	local ag=$! t0 t1 c0 c1 r0 r1 b0 b1 k0 k1 pf=
	until grep -q 'agent: writing every' "$TMP/agent.$tag.err" 2>/dev/null; do
		kill -0 $ag 2>/dev/null || { cat "$TMP/agent.$tag.err" >&2; return 1; }
		sleep 0.2
	done
	local start_cpu
	start_cpu=$(awk -v c="$(cpu_ticks $ag)" -v hz=$hz 'BEGIN { printf "%.2f", c / hz }')
	# the load's own programs (pgbench, wrk) are new to the agent: their
	# tables are built during a warm-up of WARM s, as a long-running agent
	# has them; the window is what the agent costs once they are known
	[ -n "$PERFDIR" ] && { perf record -q -e cpu-clock -F 499 --call-graph dwarf,16384 -p $ag \
		-o "$PERFDIR/$tag.perf.data" -- sleep $((WARM + SECS)) >/dev/null 2>&1 & pf=$!; }
	load "$tag" $((WARM + SECS)) >"$TMP/load.$tag" &
	local ld=$!
	sleep "$WARM"
	thread_ticks $ag >"$TMP/th0.$tag"
	c0=$(cpu_ticks $ag); r0=$(metric $hport records_decoded); b0=$(metric $hport tables_built)
	k0=$(metric $hport blocks_with_stacks)
	t0=$(date +%s.%N)
	sleep "$SECS"
	c1=$(cpu_ticks $ag); r1=$(metric $hport records_decoded); b1=$(metric $hport tables_built)
	k1=$(metric $hport blocks_with_stacks)
	t1=$(date +%s.%N)
	thread_ticks $ag >"$TMP/th1.$tag"
	wait $ld
	read -r tps rps <"$TMP/load.$tag"
	[ -n "$pf" ] && wait $pf
	local rss hwm anon file thr
	rss=$(awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' /proc/$ag/status)
	hwm=$(awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' /proc/$ag/status)
	anon=$(awk '/^Anonymous:/ { printf "%.1f", $2 / 1024 }' /proc/$ag/smaps_rollup)
	file=$(awk '/^Rss:/ { r = $2 } /^Anonymous:/ { a = $2 } END { printf "%.1f", (r - a) / 1024 }' \
		/proc/$ag/smaps_rollup)
	# each thread's share of the window's CPU (% of one core)
	thr=$(awk -v hz=$hz -v dt="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
		'NR == FNR { c0[$1] = $2; next } { d = ($2 - c0[$1]) / hz / dt * 100
			if (d >= 0.01) printf "%s%s %.2f", n++ ? ", " : "", $1, d }' \
		"$TMP/th0.$tag" "$TMP/th1.$tag")
	kill -TERM $ag
	wait $ag
	awk -v n="$name" -v r="$tag" -v a="$c0" -v b="$c1" -v hz=$hz -v t0="$t0" -v t1="$t1" \
		-v r0="$r0" -v r1="$r1" -v b0="$b0" -v b1="$b1" -v k0="$k0" -v k1="$k1" \
		-v s="$start_cpu" -v rss="$rss" \
		-v hwm="$hwm" -v an="$anon" -v fi="$file" -v thr="$thr" -v tps="$tps" -v rps="$rps" \
		'BEGIN { printf "| %s | %s | %s | %.2f | %s | %.0f (%.0f off-CPU) | %d | %s / %s | %s / %s | %s / %s |\n",
			n, r, s, (b - a) / hz / (t1 - t0) * 100, thr, (r1 - r0) / (t1 - t0),
			(k1 - k0) / (t1 - t0), b1 - b0,
			rss, hwm, an, fi, tps, rps }' >>"$TMP/rows"
	grep -E 'stalled|not named|left out|refused' "$TMP/agent.$tag.err" | sed "s/^/    $tag: /" >>"$TMP/notes"
	[ -n "$PERFDIR" ] && cp "$TMP/agent.$tag.err" "$PERFDIR/$tag.agent.err"
}

read -r off_tps off_rps < <(load off1)
for r in $(seq 1 "$ROUNDS"); do
	if [ -z "$BEFORE" ]; then
		arm new "$HOTCOLD" "new.$r"
	elif [ $((r % 2)) = 1 ]; then
		arm new "$HOTCOLD" "new.$r"; arm before "$BEFORE" "before.$r"
	else
		arm before "$BEFORE" "before.$r"; arm new "$HOTCOLD" "new.$r"
	fi
done
read -r off2_tps off2_rps < <(load off2)

echo "| arm | run | start-up CPU (s) | CPU in the window (% of one core) | by thread | ring records/s (of them off-CPU blocks) | tables built in the window | RSS end / peak (MiB) | end: anonymous / file (MiB) | pgbench tps / wrk req/s |"
echo "|---|---|---|---|---|---|---|---|---|---|"
cat "$TMP/rows"
echo
echo "no agent: $off_tps tps / $off_rps req/s before, $off2_tps / $off2_rps after; $SECS s per run, ${IV} s intervals, flags -F 19 $FLAGS; load average $(cut -d' ' -f1-3 /proc/loadavg)"
[ -s "$TMP/notes" ] && { echo "agent lines:"; cat "$TMP/notes"; }
true
