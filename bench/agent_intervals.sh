#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench/agent_intervals.sh — how long the agent's intervals really last
# (issue 12: each within 10% of --interval), under extra CPU load: RUNS runs
# each of tests/integration/t_real_servers.sh and t_agent_churn.sh (phase A),
# each run next to two `yes >/dev/null` loops and under the bench lock (one
# run holds it, < 2 min, so other benchmarks interleave). Prints per test the
# complete intervals' lengths: count, min, median, max, how many over +10%,
# and the tests' own verdicts.
#   bench/agent_intervals.sh [RUNS=5] [HOTCOLD=.output/hotcold]
set -uo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
BIN=$(realpath "${2:-.output/hotcold}")
[ "$(id -u)" = 0 ] || { echo "bench/agent_intervals.sh: needs root" >&2; exit 1; }
OUT=$(mktemp -d /tmp/hotcold-intervals.XXXXXX)

for t in t_real_servers t_agent_churn; do
	for r in $(seq "$RUNS"); do
		flock /tmp/hotcold-bench.lock bash -c '
			yes >/dev/null & y1=$!; yes >/dev/null & y2=$!
			trap "kill $y1 $y2 2>/dev/null" EXIT
			echo "[load] $(cut -d" " -f1-3 /proc/loadavg)"
			tests/integration/run.sh "$1" "$2"' _ "$BIN" "$t" >"$OUT/$t.$r.log" 2>&1
		echo "$t run $r: $(grep -cE '^\[Failed' "$OUT/$t.$r.log") failed checks," \
			"load $(awk '/^\[load\]/ { print $2, $3, $4 }' "$OUT/$t.$r.log")"
		grep -E '^\[Failed' "$OUT/$t.$r.log" | head -3
	done
	cat "$OUT/$t".*.log | /usr/bin/python3 -c '
import re, statistics, sys
v = []
for l in sys.stdin:
    m = re.search(r"interval lengths \(ms, complete ones\): (.*)", l)
    if m:
        v += [int(x) for x in m.group(1).split()]
if v:
    print("%s: %d intervals, min %d, median %d, max %d ms; %d over 2200" % (sys.argv[1],
          len(v), min(v), statistics.median(v), max(v), sum(x > 2200 for x in v)))
' "$t"
done
echo "logs: $OUT"
