#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench/cfi_builds.sh — the CFI walk's BPF cost per on-CPU sample of several
# hotcold builds, side by side in one run, rounds alternating the builds:
# what a change to the walker costs (session 14: %rbx tracked).
# Each arm: tests/workloads/deep at depth 9 (14 frames with libc's and the
# vdso's, all walked by CFI), `record --unwind cfi -p -F 999` for 4 s;
# ns/sample = oncpu_sample's run time over the samples it took (BPF
# statistics; every tick of every task runs it, so a busy machine adds
# noise to all arms alike: compare medians of one run, never across runs).
#   flock /tmp/hotcold-bench.lock bench/cfi_builds.sh [--rounds N] BUILD_DIR...
# BUILD_DIR: a tree's output directory (its hotcold binary inside), e.g. a
# worktree of the commit before: git worktree add /tmp/old REV && make -C /tmp/old
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BPFTOOL=$(command -v bpftool || echo /usr/sbin/bpftool)
ROUNDS=3
[ "${1:-}" = --rounds ] && { ROUNDS=$2; shift 2; }
[ $# -ge 1 ] || { echo "usage: $0 [--rounds N] BUILD_DIR..." >&2; exit 2; }
for b in "$@"; do [ -x "$b/hotcold" ] || { echo "$0: no $b/hotcold" >&2; exit 2; }; done
TMP=$(mktemp -d /tmp/hotcold-bench-cfib.XXXXXX)
log() { echo "[cfi_builds] $*" >&2; }
. bench/lib.sh
WL="" REC=""
cleanup() {
	[ -n "$REC" ] && stop_tool "$REC"
	[ -n "$WL" ] && kill "$WL" 2>/dev/null && wait "$WL" 2>/dev/null
	stats_release
	sysctl -q kernel.bpf_stats_enabled=0
	rm -rf "$TMP"
}
trap cleanup EXIT
[ -x .output/workloads/deep ] || make -s workloads
sysctl -q kernel.bpf_stats_enabled=1
stats_hold

# one arm: BUILD_DIR -> "ns_per_sample samples frames_per_sample"
arm() {
	local snap n fr
	.output/workloads/deep 9 30 & WL=$!
	sleep 0.5
	"$1/hotcold" record -v --unwind cfi -p "$WL" -F 999 -o "$TMP/x.folded" 2>"$TMP/x.err" &
	REC=$!
	sleep 4
	snap=$(prog_snapshot "$(pid_prog_ids "$REC")" | awk '$2 == "oncpu_sample" { print $3 }')
	kill -INT "$REC"; wait "$REC"; REC=""
	kill "$WL" 2>/dev/null; wait "$WL" 2>/dev/null; WL=""
	n=$(sed -n 's/^hotcold: \([0-9]*\) on-CPU samples.*/\1/p' "$TMP/x.err")
	fr=$(awk '{ n = $NF; k = split($0, f, ";"); fr += k * n; s += n } END { printf "%.1f", s ? fr / s : 0 }' "$TMP/x.folded")
	awk -v s="${snap:-0}" -v n="${n:-0}" -v f="$fr" 'BEGIN { printf "%.0f %d %s\n", n ? s / n : 0, n, f }'
}

BUILDS=("$@")
for ((r = 1; r <= ROUNDS; r++)); do
	for i in "${!BUILDS[@]}"; do
		read -r ns n fr < <(arm "${BUILDS[$i]}")
		echo "$i $ns $fr" >>"$TMP/raw"
		echo "[cfi_builds] round $r ${BUILDS[$i]}: $ns ns/sample ($n samples, $fr frames/sample)" >&2
	done
done
for i in "${!BUILDS[@]}"; do
	x=$(awk -v i="$i" '$1 == i { print $2 }' "$TMP/raw" | stats)
	fr=$(awk -v i="$i" '$1 == i { print $3 }' "$TMP/raw" | stats | cut -d' ' -f1)
	awk -v b="${BUILDS[$i]}" -v s="$x" -v f="$fr" 'BEGIN { split(s, a, " ");
		printf "%s: median %.0f ns/sample (min %.0f, max %.0f, n %d), %.1f frames/sample\n",
			b, a[1], a[2], a[3], a[4], f }'
done
