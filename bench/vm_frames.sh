#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench/vm_frames.sh — what Java and JavaScript frames cost per sample
# (issue 31): BPF run time of oncpu_sample per sample, and frames per
# sample, side by side in one run, rounds alternating the arms:
#   jvm     tests/workloads/java/HotCold.java under Debian's JDK 17, no
#           flags, its main thread in JIT-compiled alpha/beta: the CFI walk
#           goes through the Java frames (compiled, interpreted, the call
#           stub) into JavaMain and start_thread (~13 frames);
#   jvm-off the same with HOTCOLD_HOTSPOT=0: the walk ends at the first
#           Java frame (what the walk cost before the JVM walk);
#   node    tests/workloads/node/hotcold.js under `node`, no flags: frame-
#           pointer steps through V8's frames, each JavaScript frame's
#           SharedFunctionInfo read (3 reads a frame);
#   node-off the same with HOTCOLD_V8=0 (the same walk, no reads);
#   native  tests/workloads/deep.c at a depth that gives about as many
#           frames, all by CFI (no frame pointers in glibc): the native
#           walk at the same depth;
#   edges   tests/workloads/java/Prologue.java: half of the samples of its
#           non-inlined callee are in its prologue or epilogue, stepped by
#           the code's bytes (abi/hotspot.h);
#   jvm@other, edges@other (with --other BIN): those two with another
#           hotcold build, side by side (BIN's workloads are this tree's).
# Each arm: `record -p -F 999` for 5 s; ns/sample = the program's run time
# over the samples it took (BPF statistics; every tick of every task on the
# CPUs runs it, so a busy machine adds noise to all arms alike); frames per
# sample from the folded output (the JVM's own threads included).
#   flock /tmp/hotcold-bench.lock bench/vm_frames.sh [--rounds N] [--other BIN]
set -u
cd "$(dirname "$0")/.."
HOTCOLD=$(realpath .output/hotcold)
BPFTOOL=$(command -v bpftool || echo /usr/sbin/bpftool)
ROUNDS=3
DEPTH=${DEPTH:-9}	# deep's recursion: + main, libc's two start frames, _start, the vdso leaf
OTHER=""
ARMS="native jvm jvm-off node node-off edges"
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=$2; shift 2 ;;
	--other) OTHER=$(realpath "$2"); ARMS="$ARMS jvm@other edges@other"; shift 2 ;;
	*) echo "usage: $0 [--rounds N] [--other BIN]" >&2; exit 2 ;;
	esac
done
ROOT=$(pwd)
TMP=$(mktemp -d /tmp/hotcold-bench-vm.XXXXXX)
log() { echo "[vm_frames] $*" >&2; }
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
command -v java >/dev/null && command -v javac >/dev/null || { log "no java/javac"; exit 1; }
command -v node >/dev/null || { log "no node"; exit 1; }
[ -x .output/workloads/deep ] || make -s workloads
javac -d "$TMP" tests/workloads/java/HotCold.java tests/workloads/java/Prologue.java || exit 1
sysctl -q kernel.bpf_stats_enabled=1
stats_hold

# frames per sample of a folded file (every line: frames;... count)
frames_per_sample() {
	awk '{ n = $NF; k = split($0, f, ";"); fr += k * n; s += n } END { printf "%.1f", s ? fr / s : 0 }' "$1"
}

# one round: ARM -> "ns_per_sample samples frames_per_sample"
round() {
	local arm=$1 snap samples env=() bin=$HOTCOLD
	case $arm in
	*@other) bin=$OTHER ;;
	esac
	case ${arm%@other} in
	edges)
		java -cp "$TMP" Prologue 60 >"$TMP/wl.out" 2>&1 & WL=$!
		for _ in $(seq 1 100); do grep -q '^ready' "$TMP/wl.out" && break; sleep 0.1; done
		;;
	jvm | jvm-off)
		java -cp "$TMP" HotCold 2 60 "$TMP/truth" "$TMP/stop.$arm" >"$TMP/wl.out" 2>&1 & WL=$!
		for _ in $(seq 1 100); do grep -q '^ready' "$TMP/wl.out" && break; sleep 0.1; done
		;;
	node | node-off)
		node tests/workloads/node/hotcold.js 2 60 "$TMP/truth" "$TMP/stop.$arm" >"$TMP/wl.out" 2>&1 & WL=$!
		for _ in $(seq 1 100); do grep -q '^ready' "$TMP/wl.out" && break; sleep 0.1; done
		;;
	native)
		.output/workloads/deep "$DEPTH" 30 & WL=$!
		sleep 0.5
		;;
	esac
	[ "$arm" = jvm-off ] && env=(HOTCOLD_HOTSPOT=0)
	[ "$arm" = node-off ] && env=(HOTCOLD_V8=0)
	env "${env[@]}" "$bin" record -v -p "$WL" -F 999 -o "$TMP/$arm.folded" 2>"$TMP/$arm.err" &
	REC=$!
	sleep 5
	snap=$(prog_snapshot "$(pid_prog_ids "$REC")" | awk '$2 == "oncpu_sample" { print $3, $4 }')
	kill -INT "$REC"; wait "$REC"; REC=""
	kill "$WL" 2>/dev/null; wait "$WL" 2>/dev/null; WL=""
	samples=$(sed -n 's/^hotcold: \([0-9]*\) on-CPU samples.*/\1/p' "$TMP/$arm.err")
	awk -v s="$snap" -v n="${samples:-0}" -v f="$(frames_per_sample "$TMP/$arm.folded")" \
		'BEGIN { split(s, a, " "); printf "%.0f %d %s\n", n ? a[1] / n : 0, n, f }'
}

for ((r = 1; r <= ROUNDS; r++)); do
	for arm in $ARMS; do
		set -- $(round $arm)
		log "round $r $arm: $1 ns of BPF per sample ($2 samples, $3 frames per sample)"
		echo "$arm $1 $3" >>"$TMP/raw"
	done
done
grep -E 'Java frames walked' "$TMP/jvm.err" | sed 's/^/[vm_frames] last jvm arm: /' >&2
grep -E 'JavaScript frames found' "$TMP/node.err" | sed 's/^/[vm_frames] last node arm: /' >&2
grep -E 'Java leaves in a prologue|prologue' "$TMP/edges.err" | sed 's/^/[vm_frames] last edges arm: /' >&2
for arm in $ARMS; do
	ns=$(awk -v a=$arm '$1 == a { print $2 }' "$TMP/raw" | stats)
	fr=$(awk -v a=$arm '$1 == a { print $3 }' "$TMP/raw" | stats | cut -d' ' -f1)
	awk -v a=$arm -v s="$ns" -v f="$fr" 'BEGIN { split(s, x, " ");
		printf "%-8s median %.0f ns/sample (min %.0f, max %.0f, n %d), %.1f frames/sample, %.0f ns/frame\n",
			a, x[1], x[2], x[3], x[4], f, f ? x[1] / f : 0 }'
done
