#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench/agent.sh — what does the always-on agent cost? (issue 8's targets:
# agent process CPU <= 0.2% of one core after the first interval, RSS <= 25 MB)
#
# The agent runs with its defaults for production (-F 19) plus --off-cpu and
# --runq (AGENT_FLAGS to change), system-wide, --bpf-stats, under a mixed
# workload for DURATION:
#   - one CPU burner (a shell busy loop) at nice 10,
#   - a sleeper waking 100 times a second (off-CPU blocks, wakeups),
#   - 10 short-lived processes per second (/bin/true: exec, exit, new maps).
# Agent CPU = utime + stime from /proc/PID/stat between the end of the first
# interval and the end; RSS = VmRSS at the end (and VmHWM). BPF cost per
# program comes from the agent's /metrics (run_time / run_count).
#
# usage: sudo bench/agent.sh [DURATION_S (default 180)] [INTERVAL_S (default 30)]
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${1:-180}
IV=${2:-30}
BIN=./.output/hotcold
PORT=$((20000 + RANDOM % 20000))
TMP=$(mktemp -d /tmp/hotcold-bench-agent.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$TMP"; }
trap cleanup EXIT
[ "$(id -u)" = 0 ] || { echo "bench/agent.sh: needs root" >&2; exit 1; }
[ -x "$BIN" ] || make -s

nice -n 10 bash -c 'while :; do :; done' & pids+=($!)
python3 -c 'import time
while True: time.sleep(0.01)' & pids+=($!)
bash -c 'while :; do /bin/true; sleep 0.1; done' & pids+=($!)

FLAGS=${AGENT_FLAGS---off-cpu --runq}
"$BIN" agent -o "$TMP/hist" --interval "${IV}s" -F 19 $FLAGS --bpf-stats \
	--http 127.0.0.1:$PORT 2>"$TMP/agent.err" &
ag=$!
pids+=($ag)
ticks() { awk '{ print $14 + $15 }' "/proc/$ag/stat"; }
hz=$(getconf CLK_TCK)
# the end of the first interval
until grep -q 'agent: interval 1:' "$TMP/agent.err"; do sleep 0.5; done
t0=$(date +%s.%N); c0=$(ticks)
sleep $((DUR - IV))
t1=$(date +%s.%N); c1=$(ticks)
rss=$(awk '/VmRSS/ { print $2 }' /proc/$ag/status)
hwm=$(awk '/VmHWM/ { print $2 }' /proc/$ag/status)
curl -s "http://127.0.0.1:$PORT/metrics" > "$TMP/metrics"
kill -TERM $ag; wait $ag || true

cpu=$(awk -v a="$c0" -v b="$c1" -v t0="$t0" -v t1="$t1" -v hz="$hz" \
	'BEGIN { printf "%.3f", 100 * (b - a) / hz / (t1 - t0) }')
echo "## Agent (issue 8)"
echo
echo "\`AGENT_FLAGS='$FLAGS' bench/agent.sh $DUR $IV\`: agent -F 19 $FLAGS system-wide, ${IV} s intervals, $(nproc) CPUs, $(uname -r);"
echo "mixed workload (nice-10 CPU burner, 100 Hz sleeper, 10 short processes/s) plus whatever else ran."
echo
echo "| metric | value | target |"
echo "|---|---|---|"
echo "| agent CPU after the first interval (% of one core, $((DUR - IV)) s) | $cpu | <= 0.2 |"
echo "| agent RSS at the end / peak (MiB) | $(awk -v k="$rss" 'BEGIN{printf "%.1f", k/1024}') / $(awk -v k="$hwm" 'BEGIN{printf "%.1f", k/1024}') | <= 25 |"
echo "| intervals written | $(grep -c 'agent: interval' "$TMP/agent.err") | |"
echo
echo "BPF cost per program (kernel.bpf_stats_enabled):"
echo
echo "| program | runs | ns/run | CPU % of one core |"
echo "|---|---|---|---|"
awk -v dur="$DUR" '
/^hotcold_bpf_run_time_seconds_total\{/ { split($1, a, "\""); t[a[2]] = $2 }
/^hotcold_bpf_run_count_total\{/ { split($1, a, "\""); n[a[2]] = $2 }
END { for (p in n) if (n[p] > 0) printf "| %s | %d | %.0f | %.3f |\n", p, n[p], 1e9 * t[p] / n[p], 100 * t[p] / dur }
' "$TMP/metrics" | sort
echo
grep 'lost_total' "$TMP/metrics" | awk '$NF > 0' | sed 's/^/    /' || true
