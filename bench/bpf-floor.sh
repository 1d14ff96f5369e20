#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench/bpf-floor.sh — what does a perf_event BPF program cost on THIS
# machine before it does anything useful? A context for oncpu.sh's
# ns/sample: the same bpftrace profile probe with bodies of growing cost
# (a per-CPU count, + comm, user stack only, kernel stack only, both + comm),
# each run while bench/workloads/spin keeps every CPU busy, with
# kernel.bpf_stats_enabled=1; prints run_time_ns / run_cnt per body.
#
# usage: bench/bpf-floor.sh [--reps N] [--seconds D] [--freq HZ]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPS=3
DUR=4
HZ=99
while [[ $# -gt 0 ]]; do
	case $1 in
	--reps) REPS=${2:?}; shift 2 ;;
	--seconds) DUR=${2:?}; shift 2 ;;
	--freq) HZ=${2:?}; shift 2 ;;
	-h|--help) sed -n '3,12p' "$0"; exit 0 ;;
	*) echo "usage: $0 [--reps N] [--seconds D] [--freq HZ]" >&2; exit 2 ;;
	esac
done
[[ $REPS =~ ^[1-9][0-9]*$ ]] || { echo "bpf-floor.sh: --reps must be a positive integer" >&2; exit 2; }
[[ $EUID -eq 0 ]] || { echo "bpf-floor.sh: needs root" >&2; exit 1; }
for t in bpftrace bpftool jq cc; do
	command -v "$t" >/dev/null 2>&1 || { echo "bpf-floor.sh: $t not found" >&2; exit 1; }
done

TMP=$(mktemp -d /tmp/hotcold-bpf-floor.XXXXXX)
PREV=$(sysctl -n kernel.bpf_stats_enabled)
BT_PID=""
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	if [[ -n $BT_PID ]]; then
		kill -INT "$BT_PID" 2>/dev/null || true
		wait "$BT_PID" 2>/dev/null || true
	fi
	sysctl -qw kernel.bpf_stats_enabled="$PREV" || true
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

WL=$ROOT/bench/.build/spin
if [[ ! -x $WL || $ROOT/bench/workloads/spin.c -nt $WL ]]; then
	mkdir -p "$ROOT/bench/.build"
	cc -O2 -g -fno-omit-frame-pointer -Wall -Wextra -pthread -o "$WL.tmp" "$ROOT/bench/workloads/spin.c"
	mv "$WL.tmp" "$WL"
fi

BPFTOOL=$(command -v bpftool)
stats() { # "run_time_ns run_cnt" of prog ID
	"$BPFTOOL" prog show id "$1" -j | jq -r '"\(.run_time_ns // 0) \(.run_cnt // 0)"'
}

echo "| bpftrace body (profile:hz:$HZ, all CPUs busy) | ns/sample median | min–max | reps |"
echo "| --- | ---: | ---: | ---: |"
for body in '@ = count();' '@[comm] = count();' '@[ustack] = count();' \
	    '@[kstack] = count();' '@[kstack, ustack, comm] = count();'; do
	: >"$TMP/ns"
	for ((i = 1; i <= REPS; i++)); do
		"$BPFTOOL" prog show -j | jq -r '.[].id' >"$TMP/before"
		bpftrace -e "profile:hz:$HZ { $body }" >"$TMP/bt.out" 2>&1 &
		BT_PID=$!
		id=""
		for ((w = 0; w < 600; w++)); do
			kill -0 "$BT_PID" 2>/dev/null || { cat "$TMP/bt.out" >&2; exit 1; }
			if grep -q Attaching "$TMP/bt.out"; then
				id=$("$BPFTOOL" prog show -j | jq -r '.[] | select(.type == "perf_event") | .id' |
					grep -vxF -f "$TMP/before" | head -n1 || true)
				[[ -n $id ]] && break
			fi
			sleep 0.05
		done
		[[ -n $id ]] || { echo "bpf-floor.sh: bpftrace did not attach" >&2; exit 1; }
		sleep 0.5
		# machine-wide switch: someone else may have restored it meanwhile
		sysctl -qw kernel.bpf_stats_enabled=1
		read -r t0 c0 < <(stats "$id")
		"$WL" "$DUR" >/dev/null 2>&1
		read -r t1 c1 < <(stats "$id")
		on=$(sysctl -n kernel.bpf_stats_enabled)
		kill -INT "$BT_PID"
		wait "$BT_PID" || true
		BT_PID=""
		if [[ $on != 1 ]]; then
			echo "[bpf-floor] $body rep $i: kernel.bpf_stats_enabled was switched off meanwhile; rep dropped" >&2
		elif ((c1 > c0)); then
			echo $(((t1 - t0) / (c1 - c0))) >>"$TMP/ns"
			echo "[bpf-floor] $body rep $i: $(tail -n1 "$TMP/ns") ns over $((c1 - c0)) samples" >&2
		fi
	done
	sort -n "$TMP/ns" | awk -v b="$body" '{v[NR] = $1} END {
		if (NR == 0) { printf "| `%s` | – | – | 0 |\n", b; exit }
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "| `%s` | %.0f | %d–%d | %d |\n", b, m, v[1], v[NR], NR }'
done
