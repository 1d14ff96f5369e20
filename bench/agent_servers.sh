#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench/agent_servers.sh — the agent's cost next to real servers (issue 12),
# side by side with the agent off, in one run: PostgreSQL + pgbench (4
# clients, fsync on), nginx + wrk (16 connections), Redis + redis-benchmark
# (16 clients), all at once on loopback (tests/integration/pg_lib.sh and
# servers_lib.sh start them). Three phases of the same load, SECONDS each:
#   off, on, off again: the servers' throughput with the agent is compared
#   with the mean of the two without, so a shared machine's load drifting
#   during the run shows as the two "off" rows differing;
#   on:  `agent -F 19 --off-cpu --runq` (AGENT_FLAGS to change; the
#        production defaults of bench/agent.sh), its first interval written
#        before the load starts, so start-up (BPF loading, kallsyms) is not
#        counted.
# Per phase: pgbench tps, wrk requests/s, Redis commands/s (INFO stats), and
# with the agent its CPU (utime + stime over the phase, % of one core), RSS
# at the end and its peak (VmHWM). Run under the bench lock:
#   flock /tmp/hotcold-bench.lock bench/agent_servers.sh [SECONDS=30] [INTERVAL_S=10]
set -uo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-30}
IV=${2:-10}
HOTCOLD=${HOTCOLD:-./.output/hotcold}
FLAGS=${AGENT_FLAGS---off-cpu --runq}
. bench/servers.sh
servers_begin agent_servers
redis_start $((PORT + 2))
sleep 1

redis_cmds() {
	/usr/bin/redis-cli -h 127.0.0.1 -p $((PORT + 2)) INFO stats |
		awk -F: '/^total_commands_processed/ { print $2 + 0 }'
}

# load PHASE: the three loads for SECS; prints "tps req/s cmds/s"
load() {
	local r0 r1
	r0=$(redis_cmds)
	"${PGRUN[@]}" /usr/bin/pgbench -c 4 -j 2 -T "$SECS" -h "$PG/sock" -p $PORT postgres \
		>"$TMP/pgbench.$1" 2>&1 &
	local l1=$!
	/usr/bin/wrk -t 2 -c 16 -d "${SECS}s" http://127.0.0.1:$((PORT + 1))/ >"$TMP/wrk.$1" 2>&1 &
	local l2=$!
	timeout "$SECS" /usr/bin/redis-benchmark -h 127.0.0.1 -p $((PORT + 2)) -q -l -c 16 \
		-t set,get >/dev/null 2>&1 &
	local l3=$!
	wait $l1 $l2 $l3
	r1=$(redis_cmds)
	printf '%s %s %s\n' \
		"$(awk '/^tps = / { printf "%.0f", $3; exit }' "$TMP/pgbench.$1")" \
		"$(awk '/^Requests\/sec:/ { printf "%.0f", $2 }' "$TMP/wrk.$1")" \
		"$(( (r1 - r0) / SECS ))"
}

read -r off_tps off_rps off_cps < <(load off)

"$HOTCOLD" agent -o "$TMP/hist" --interval "${IV}s" -F 19 $FLAGS 2>"$TMP/agent.err" &
ag=$!
cleanup_hooks+=("kill -TERM $ag 2>/dev/null; wait $ag 2>/dev/null")
until grep -q 'agent: interval 1:' "$TMP/agent.err" 2>/dev/null; do
	kill -0 $ag 2>/dev/null || { cat "$TMP/agent.err" >&2; exit 1; }
	sleep 0.5
done
hz=$(getconf CLK_TCK)
c0=$(awk '{ print $14 + $15 }' /proc/$ag/stat)
t0=$(date +%s.%N)
read -r on_tps on_rps on_cps < <(load on)
c1=$(awk '{ print $14 + $15 }' /proc/$ag/stat)
t1=$(date +%s.%N)
rss=$(awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' /proc/$ag/status)
hwm=$(awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' /proc/$ag/status)
cpu=$(awk -v a="$c0" -v b="$c1" -v hz="$hz" -v t0="$t0" -v t1="$t1" \
	'BEGIN { printf "%.2f", (b - a) / hz / (t1 - t0) * 100 }')
kill -TERM $ag
wait $ag
read -r off2_tps off2_rps off2_cps < <(load off2)

# pct OFF1 OFF2 ON: ON against the mean of the two phases without the agent
pct() { awk -v a="$1" -v c="$2" -v b="$3" 'BEGIN { m = (a + c) / 2; if (m > 0) printf "%+.1f%%", (b - m) / m * 100; else print "?" }'; }
echo "| phase | pgbench tps | wrk req/s | Redis cmds/s | agent CPU (% of one core) | agent RSS end / peak (MiB) |"
echo "|---|---|---|---|---|---|"
echo "| agent off | $off_tps | $off_rps | $off_cps | | |"
echo "| agent on ($FLAGS, -F 19, ${IV} s intervals) | $on_tps ($(pct "$off_tps" "$off2_tps" "$on_tps")) | $on_rps ($(pct "$off_rps" "$off2_rps" "$on_rps")) | $on_cps ($(pct "$off_cps" "$off2_cps" "$on_cps")) | $cpu | $rss / $hwm |"
echo "| agent off again | $off2_tps | $off2_rps | $off2_cps | | |"
echo
echo "$SECS s per phase; load average $(cut -d' ' -f1-3 /proc/loadavg); intervals written: $(grep -c . "$TMP/hist/index.jsonl")"
grep -E 'stalled|not named' "$TMP/agent.err" | head -3
true
