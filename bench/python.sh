#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench/python.sh — what Python frames cost per sample (issue 20): a
# pure-Python loop under a 30-deep Python stack (bench/workloads/pydeep.py:
# <module>, main, 28 x level, spin), recorded with `record -p -F 999`, with
# Python frames (the default) and without (HOTCOLD_PYTHON=0, the same
# walk of native frames). BPF run time of oncpu_sample from BPF statistics,
# divided by the samples it took; the difference of the two arms is the
# Python walk's cost per sample (thread-state lookup + 30 frames), noisy on
# a busy machine (every tick of every task runs the program); the walk also
# times itself in BPF (python_stats, `record -v`), the direct number.
#   flock /tmp/hotcold-bench.lock bench/python.sh [--rounds N] [--python PATH]
set -u
cd "$(dirname "$0")/.."
HOTCOLD=$(realpath .output/hotcold)
BPFTOOL=$(command -v bpftool || echo /usr/sbin/bpftool)
PY=/usr/bin/python3.11
ROUNDS=3
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=$2; shift 2 ;;
	--python) PY=$2; shift 2 ;;
	*) echo "usage: $0 [--rounds N] [--python PATH]" >&2; exit 2 ;;
	esac
done
ROOT=$(pwd)
TMP=$(mktemp -d /tmp/hotcold-bench-python.XXXXXX)
log() { echo "[python] $*" >&2; }
. bench/lib.sh
WL=""; REC=""
cleanup() {
	[ -n "$REC" ] && stop_tool "$REC"
	[ -n "$WL" ] && kill "$WL" 2>/dev/null && wait "$WL" 2>/dev/null
	stats_release
	sysctl -q kernel.bpf_stats_enabled=0
	rm -rf "$TMP"
}
trap cleanup EXIT
sysctl -q kernel.bpf_stats_enabled=1
stats_hold

# one round: ARM (python|native) -> "ns_per_sample samples ticks python_frames"
round() {
	local arm=$1 ids snap samples
	"$PY" bench/workloads/pydeep.py 8 28 & WL=$!
	sleep 0.5
	if [ "$arm" = native ]; then
		HOTCOLD_PYTHON=0 "$HOTCOLD" record -v -p "$WL" -F 999 -o "$TMP/$arm.folded" 2>"$TMP/$arm.err" &
	else
		"$HOTCOLD" record -v -p "$WL" -F 999 -o "$TMP/$arm.folded" 2>"$TMP/$arm.err" &
	fi
	REC=$!
	sleep 5
	ids=$(pid_prog_ids "$REC")
	snap=$(prog_snapshot "$ids" | awk '$2 == "oncpu_sample" { print $3, $4 }')
	kill -INT "$REC"; wait "$REC"; REC=""
	kill "$WL" 2>/dev/null; wait "$WL" 2>/dev/null; WL=""
	samples=$(sed -n 's/^hotcold: \([0-9]*\) on-CPU samples.*/\1/p' "$TMP/$arm.err")
	local deep=$(grep -c 'level (.*level (.*level (' "$TMP/$arm.folded")
	local walk=$(sed -n 's/^python: \([0-9]*\) ns per walk in BPF.*/\1/p' "$TMP/$arm.err")
	awk -v s="$snap" -v n="$samples" -v d="$deep" -v w="${walk:-0}" 'BEGIN { split(s, a, " ");
		printf "%.0f %d %d %d %d\n", a[1] / n, n, a[2], d, w }'
}

for ((r = 1; r <= ROUNDS; r++)); do
	for arm in native python; do
		set -- $(round $arm)
		log "round $r $arm: $1 ns of BPF per sample ($2 samples, $3 program runs, $4 stacks with level frames; Python walk $5 ns)"
		echo "$arm $1" >>"$TMP/raw"
		[ "$arm" = python ] && echo "walk $5" >>"$TMP/raw"
	done
done
grep -E 'python:' "$TMP/python.err" | sed 's/^/[python] last python arm: /' >&2
for arm in native python; do
	awk -v a=$arm '$1 == a { print $2 }' "$TMP/raw" | stats | awk -v a=$arm '{ printf "%-7s median %.0f ns/sample (min %.0f, max %.0f, n %d)\n", a, $1, $2, $3, $4 }'
done
awk '$1 == "walk" { print $2 }' "$TMP/raw" | stats | awk '{ printf "Python walk alone (timed in BPF): median %.0f ns per sample (min %.0f, max %.0f, n %d)\n", $1, $2, $3, $4 }'
echo "python - native per sample, median of each:"
nat=$(awk '$1 == "native" { print $2 }' "$TMP/raw" | stats | cut -d' ' -f1)
pyv=$(awk '$1 == "python" { print $2 }' "$TMP/raw" | stats | cut -d' ' -f1)
awk -v n="$nat" -v p="$pyv" 'BEGIN { printf "  %.0f ns (%.2f us)\n", p - n, (p - n) / 1000 }'
