#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench/split_periodic.sh — on-CPU shares of a fixed-period workload, hotcold
# (dithered) next to hotcold --no-dither and perf record, side by side.
#
# Each round starts tests/workloads/split -P PERIOD_NS -t 2 (spin_alpha,
# spin_beta, recurse for 63/27/10% of every period of CLOCK_MONOTONIC, no
# jitter; it writes its measured CPU split) and attaches all three
# profilers to it at once, so they see the same run:
#
#   hotcold            hotcold record -F HZ -p PID
#   hotcold-nodither   hotcold record -F HZ -p PID --no-dither (fixed period)
#   perf               perf record -F HZ -g -p PID (per-thread events)
#
# Printed per period, tool and round: the error of each function's share
# (profile minus the workload's own measurement, percentage points), and
# the samples. Shares are over the samples in any of the three functions.
# Periods: 10 ms (a game loop, a 100 Hz tick) and 1e9/(99*19) ns (a fixed 99
# Hz and 19 Hz interval is a whole number of periods).
#
# Run it under the bench lock: flock /tmp/hotcold-bench.lock bench/split_periodic.sh
# usage: bench/split_periodic.sh [--hotcold PATH] [--rounds N] [--seconds S] [--freq HZ]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HOTCOLD=$ROOT/.output/hotcold
SPLIT=$ROOT/.output/workloads/split
ROUNDS=3
SECS=8
HZ=99
PERIODS="10000000 531632"

while (($#)); do
	case $1 in
	--hotcold) HOTCOLD=${2:?}; shift 2 ;;
	--rounds) ROUNDS=${2:?}; shift 2 ;;
	--seconds) SECS=${2:?}; shift 2 ;;
	--freq) HZ=${2:?}; shift 2 ;;
	*) echo "usage: $0 [--hotcold PATH] [--rounds N] [--seconds S] [--freq HZ]" >&2; exit 2 ;;
	esac
done
[[ -x $HOTCOLD && -x $SPLIT ]] || { echo "build first: make all workloads" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf not on PATH (apt-get install linux-perf)" >&2; exit 1; }
TMP=$(mktemp -d /tmp/hotcold-splitp.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# "fn count" lines for the root-'split' stacks of a folded file, plus "all N"
fold_shares() {
	awk '{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, fr, ";")
		if (fr[1] != "split") next
		for (i = 1; i <= k; i++)
			if (fr[i] == "spin_alpha" || fr[i] == "spin_beta" || fr[i] == "recurse") {
				c[fr[i]] += n; all += n; break
			}
	} END { for (f in c) print f, c[f]; print "all", all + 0 }' "$1"
}

# the same from perf script: one block per sample, frames one a line
perf_shares() {
	perf script -i "$1" -F comm,ip,sym 2>/dev/null | awk '
		NF == 0 { flush(); next }
		/^\t/ { if (hit == "" && ($2 == "spin_alpha" || $2 == "spin_beta" || $2 == "recurse")) hit = $2; next }
		{ flush(); comm = $1; hit = "" }
		function flush() { if (comm == "split" && hit != "") { c[hit]++; all++ } comm = ""; hit = "" }
		END { flush(); for (f in c) print f, c[f]; print "all", all + 0 }'
}

# "err_alpha err_beta err_recurse n" of shares file $1 against truth $2
errors() {
	awk -v T="$2" 'BEGIN { while ((getline l < T) > 0) { split(l, x, " "); w[x[1]] = x[2] } }
		{ c[$1] = $2 } END {
			if (!c["all"]) { print "- - - 0"; exit }
			printf "%+.1f %+.1f %+.1f %d\n", 100 * c["spin_alpha"] / c["all"] - w["spin_alpha"],
				100 * c["spin_beta"] / c["all"] - w["spin_beta"],
				100 * c["recurse"] / c["all"] - w["recurse"], c["all"] }' "$1"
}

echo "## Fixed-period split workload: ${HZ} Hz, $ROUNDS rounds × $SECS s CPU × 2 threads, $(uname -r), load $(cut -d' ' -f1 /proc/loadavg)"
for period in $PERIODS; do
	echo
	echo "Period $period ns. Error of each share (pp): spin_alpha / spin_beta / recurse, samples"
	echo
	echo "| round | truth % | hotcold | hotcold --no-dither | perf record -F $HZ -p |"
	echo "| --- | --- | --- | --- | --- |"
	for r in $(seq "$ROUNDS"); do
		"$SPLIT" -P "$period" -t 2 "$SECS" "$TMP/truth" &
		wl=$!
		sleep 0.3
		"$HOTCOLD" record -q -F "$HZ" -p $wl -o "$TMP/d.folded" 2>/dev/null &
		h1=$!
		"$HOTCOLD" record -q -F "$HZ" --no-dither -p $wl -o "$TMP/n.folded" 2>/dev/null &
		h2=$!
		perf record -q -F "$HZ" -g -p $wl -o "$TMP/p.data" >/dev/null 2>&1 &
		h3=$!
		wait $wl
		wait $h1 $h2 || true
		kill -INT $h3 2>/dev/null || true
		wait $h3 || true
		fold_shares "$TMP/d.folded" > "$TMP/d.s"
		fold_shares "$TMP/n.folded" > "$TMP/n.s"
		perf_shares "$TMP/p.data" > "$TMP/p.s"
		truth=$(awk '$1 != "cpu_seconds" { printf "%s%.1f", (NR > 1 ? "/" : ""), $2 }' "$TMP/truth")
		row="| $r | $truth"
		for f in d n p; do
			row="$row | $(errors "$TMP/$f.s" "$TMP/truth" | awk '{ printf "%s / %s / %s, %d", $1, $2, $3, $4 }')"
		done
		echo "$row |"
	done
done
