#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench/agent_churn.sh — issue 12's churn case, measured over N starts.
# Each start: `agent --interval 2 --off-cpu --runq` system-wide while short
# programs from 8 fresh binaries, /bin/true storms and a context-switch-heavy
# pair (1-byte pipe copies) run (tests/integration/agent_lib.sh churn_start),
# for RUN_S seconds, then SIGTERM. Per start: complete intervals, those longer
# than 2.2 s (10% late), the longest, gaps, the partial interval written,
# seconds from SIGTERM to exit; a start passes with every interval on time,
# at least (RUN_S - 3) / 2 of them (start-up takes < 3 s), the partial one
# written and an exit within 1 s.
# usage: sudo [HOTCOLD=BIN] bench/agent_churn.sh [STARTS=10] [RUN_S=12]
set -uo pipefail
cd "$(dirname "$0")/.."
N=${1:-10}
RUN=${2:-12}
HOTCOLD=${HOTCOLD:-./.output/hotcold}
WL=$(dirname "$(realpath "$HOTCOLD")")/workloads
[ "$(id -u)" = 0 ] || { echo "bench/agent_churn.sh: needs root" >&2; exit 1; }
TMP=$(mktemp -d /tmp/hotcold-churn.XXXXXX)
. tests/integration/agent_lib.sh
trap 'churn_stop; rm -rf "$TMP"' EXIT
pass=0
echo "| start | intervals | late (>2.2 s) | longest ms | gaps | partial | SIGTERM -> exit s | agent CPU s | max RSS MiB |"
echo "|---|---|---|---|---|---|---|---|---|"
for i in $(seq 1 "$N"); do
	d=$TMP/h$i
	churn_start "$TMP/bin" 8 $((RUN + 2))
	"$HOTCOLD" agent -o "$d" --interval 2 --off-cpu --runq 2>"$TMP/err$i" &
	a=$!
	sleep "$RUN"
	ru=$(awk '{ printf "%.2f", ($14 + $15) / 100 }' /proc/$a/stat 2>/dev/null)
	hwm=$(awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' /proc/$a/status 2>/dev/null)
	t=$(term_wait $a 3)
	churn_stop
	read -r full late mx gaps part < <(index_check "$d/index.jsonl" 2000 2>/dev/null || echo "0 0 0 0 0")
	echo "| $i | $full | $late | $mx | $gaps | $part | $t | ${ru:-?} | ${hwm:-?} |"
	if [ "$late" = 0 ] && [ "$full" -ge $(((RUN - 3) / 2)) ] && [ "$part" = 1 ] && [ "$t" != timeout ] &&
		awk -v t="$t" 'BEGIN { exit !(t <= 1.0) }'; then
		pass=$((pass + 1))
	else
		tail -5 "$TMP/err$i" | sed 's/^/    /'
	fi
done
echo
echo "$pass of $N starts: every interval on time, partial interval written, exit within 1 s of SIGTERM (load: $(cut -d' ' -f1-3 /proc/loadavg))"
[ "$pass" = "$N" ]
