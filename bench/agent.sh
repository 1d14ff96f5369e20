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
# Side by side: HOTCOLD="old/hotcold new/hotcold" runs one agent per binary at
# the same time under the same workload, so a busy shared machine loads them
# alike (each also sees the other as one more process). BPF rows are per
# agent: each has its own programs.
#
# AGENT_EXTRA_<i>: more flags for the i-th binary only (from 0), e.g. the same
# binary twice with AGENT_EXTRA_1='--push URL' compares pushing with not.
#
# usage: sudo bench/agent.sh [DURATION_S (default 180)] [INTERVAL_S (default 30)]
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${1:-180}
IV=${2:-30}
read -r -a BINS <<< "${HOTCOLD:-./.output/hotcold}"
TMP=$(mktemp -d /tmp/hotcold-bench-agent.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$TMP"; }
trap cleanup EXIT
[ "$(id -u)" = 0 ] || { echo "bench/agent.sh: needs root" >&2; exit 1; }
[ -x "${BINS[0]}" ] || make -s

nice -n 10 bash -c 'while :; do :; done' & pids+=($!)
python3 -c 'import time
while True: time.sleep(0.01)' & pids+=($!)
bash -c 'while :; do /bin/true; sleep 0.1; done' & pids+=($!)

FLAGS=${AGENT_FLAGS---off-cpu --runq}
ags=()
for i in "${!BINS[@]}"; do
	port=$((20000 + RANDOM % 20000))
	echo "$port" > "$TMP/port.$i"
	extra=AGENT_EXTRA_$i
	"${BINS[$i]}" agent -o "$TMP/hist.$i" --interval "${IV}s" -F 19 $FLAGS ${!extra-} --bpf-stats \
		--http 127.0.0.1:$port 2>"$TMP/agent.$i.err" &
	ags+=($!)
	pids+=($!)
done
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
# the end of every agent's first interval
for i in "${!BINS[@]}"; do
	until grep -q 'agent: interval 1:' "$TMP/agent.$i.err"; do sleep 0.5; done
done
t0=$(date +%s.%N)
c0=(); for a in "${ags[@]}"; do c0+=($(ticks "$a")); done
sleep $((DUR - IV))
t1=$(date +%s.%N)
c1=(); for a in "${ags[@]}"; do c1+=($(ticks "$a")); done
for i in "${!BINS[@]}"; do
	a=${ags[$i]}
	awk '/VmRSS/ { print $2 }' /proc/$a/status > "$TMP/rss.$i"
	awk '/VmHWM/ { print $2 }' /proc/$a/status > "$TMP/hwm.$i"
	curl -s "http://127.0.0.1:$(cat "$TMP/port.$i")/metrics" > "$TMP/metrics.$i"
done
for a in "${ags[@]}"; do kill -TERM "$a"; done
for a in "${ags[@]}"; do wait "$a" || true; done

echo "## Agent (issue 8)"
echo
echo "\`AGENT_FLAGS='$FLAGS' bench/agent.sh $DUR $IV\`: agent -F 19 $FLAGS system-wide, ${IV} s intervals, $(nproc) CPUs, $(uname -r);"
echo "mixed workload (nice-10 CPU burner, 100 Hz sleeper, 10 short processes/s) plus whatever else ran."
echo
echo "| binary | agent CPU after the first interval (% of one core, $((DUR - IV)) s; target <= 0.2) | RSS at the end / peak (MiB; target <= 25) | intervals |"
echo "|---|---|---|---|"
for i in "${!BINS[@]}"; do
	cpu=$(awk -v a="${c0[$i]}" -v b="${c1[$i]}" -v t0="$t0" -v t1="$t1" -v hz="$hz" \
		'BEGIN { printf "%.3f", 100 * (b - a) / hz / (t1 - t0) }')
	rss=$(awk '{ printf "%.1f", $1 / 1024 }' "$TMP/rss.$i")
	hwm=$(awk '{ printf "%.1f", $1 / 1024 }' "$TMP/hwm.$i")
	extra=AGENT_EXTRA_$i
	echo "| ${BINS[$i]} ${!extra-} | $cpu | $rss / $hwm | $(grep -c 'agent: interval' "$TMP/agent.$i.err") |"
done
echo
for i in "${!BINS[@]}"; do
	echo "BPF cost per program (kernel.bpf_stats_enabled), ${BINS[$i]}:"
	echo
	echo "| program | runs | ns/run | CPU % of one core |"
	echo "|---|---|---|---|"
	awk -v dur="$DUR" '
	/^hotcold_bpf_run_time_seconds_total\{/ { split($1, a, "\""); t[a[2]] = $2 }
	/^hotcold_bpf_run_count_total\{/ { split($1, a, "\""); n[a[2]] = $2 }
	END { for (p in n) if (n[p] > 0) printf "| %s | %d | %.0f | %.3f |\n", p, n[p], 1e9 * t[p] / n[p], 100 * t[p] / dur }
	' "$TMP/metrics.$i" | sort
	echo
done
for i in "${!BINS[@]}"; do
	echo "${BINS[$i]}:"
	{ grep 'lost_total{' "$TMP/metrics.$i" | awk '$NF > 0'
	  grep -E 'events_total\{collector="(unwind|loader)"|write_seconds_total|symbolizer_objects(_evicted_total)? |symbolizer_processes ' \
		"$TMP/metrics.$i"; } | sed 's/^/    /' || true
done
