#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench/bpf-floor.sh — what does a perf_event BPF program cost on THIS
# machine before it does anything useful? Context for oncpu.sh's ns/sample:
# the same bpftrace profile probe with bodies of growing cost (a per-CPU
# count, + comm, user stack only, kernel stack only, both + comm), each run
# while bench/workloads/spin keeps every CPU busy, with BPF run-time
# statistics on (a BPF_ENABLE_STATS fd held by bench/workloads/statshold);
# prints run_time_ns / run_cnt per body, median over --reps runs.
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
die() { echo "bpf-floor.sh: $*" >&2; exit 1; }
[[ $REPS =~ ^[1-9][0-9]*$ ]] || die "--reps must be a positive integer"
[[ $DUR =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--seconds must be a positive number"
[[ $HZ =~ ^[1-9][0-9]*$ ]] || die "--freq must be a positive integer"
[[ $EUID -eq 0 ]] || die "needs root"
for t in bpftrace bpftool jq cc; do
	command -v "$t" >/dev/null 2>&1 || die "$t not found"
done
BPFTOOL=$(command -v bpftool)

TMP=$(mktemp -d /tmp/hotcold-bpf-floor.XXXXXX)
BT_PID=""
STATS_PID=""
# stop PID: SIGINT, up to 20 s, then SIGKILL (bpftrace sometimes misses a
# SIGINT that arrives while it is still attaching).
stop() {
	local pid=$1 i
	kill -INT "$pid" 2>/dev/null || true
	for ((i = 0; i < 200; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	if [[ -n $BT_PID ]]; then stop "$BT_PID"; fi
	if [[ -n $STATS_PID ]]; then
		kill -TERM "$STATS_PID" 2>/dev/null || true
		wait "$STATS_PID" 2>/dev/null || true
	fi
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$ROOT/bench/.build"
for w in spin statshold; do
	src=$ROOT/bench/workloads/$w.c bin=$ROOT/bench/.build/$w
	if [[ ! -x $bin || $src -nt $bin ]]; then
		cc -O2 -g -fno-omit-frame-pointer -Wall -Wextra -pthread -o "$bin.tmp.$$" "$src"
		mv "$bin.tmp.$$" "$bin"
	fi
done
WL=$ROOT/bench/.build/spin

"$ROOT/bench/.build/statshold" >"$TMP/statshold.out" &
STATS_PID=$!
for ((i = 0; i < 50; i++)); do
	grep -q '^ok' "$TMP/statshold.out" && break
	kill -0 "$STATS_PID" 2>/dev/null || die "statshold failed"
	sleep 0.1
done
grep -q '^ok' "$TMP/statshold.out" || die "statshold did not start"

# owned_prog PID: id of the perf_event program PID holds (fdinfo prog_type 7)
owned_prog() {
	awk '/^prog_type:/ {t = $2} /^prog_id:/ {if (t == 7) print $2; t = ""}' \
		/proc/"$1"/fdinfo/* 2>/dev/null | sort -un | head -n1
}
stats() { # "run_time_ns run_cnt" of prog ID
	"$BPFTOOL" prog show id "$1" -j | jq -r '"\(.run_time_ns // 0) \(.run_cnt // 0)"'
}

echo "| bpftrace body (profile:hz:$HZ, all CPUs busy) | ns/sample median | min–max | reps |"
echo "| --- | ---: | ---: | ---: |"
for body in '@ = count();' '@[comm] = count();' '@[ustack] = count();' \
	    '@[kstack] = count();' '@[kstack, ustack, comm] = count();'; do
	: >"$TMP/ns"
	for ((i = 1; i <= REPS; i++)); do
		bpftrace -e "profile:hz:$HZ { $body }" >"$TMP/bt.out" 2>&1 &
		BT_PID=$!
		id=""
		for ((w = 0; w < 600; w++)); do
			kill -0 "$BT_PID" 2>/dev/null || { cat "$TMP/bt.out" >&2; die "bpftrace exited"; }
			if grep -q Attaching "$TMP/bt.out"; then
				id=$(owned_prog "$BT_PID")
				[[ -n $id ]] && break
			fi
			sleep 0.05
		done
		[[ -n $id ]] || die "bpftrace did not attach within 30 s"
		sleep 0.5
		read -r t0 c0 < <(stats "$id")
		"$WL" "$DUR" >/dev/null 2>&1
		read -r t1 c1 < <(stats "$id")
		stop "$BT_PID"
		BT_PID=""
		if ((c1 > c0)); then
			echo $(((t1 - t0) / (c1 - c0))) >>"$TMP/ns"
			echo "[bpf-floor] $body rep $i: $(tail -n1 "$TMP/ns") ns over $((c1 - c0)) samples" >&2
		else
			echo "[bpf-floor] $body rep $i: no samples counted; rep dropped" >&2
		fi
	done
	sort -n "$TMP/ns" | awk -v b="$body" '{v[NR] = $1} END {
		if (NR == 0) { printf "| `%s` | – | – | 0 |\n", b; exit }
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "| `%s` | %.0f | %d–%d | %d |\n", b, m, v[1], v[NR], NR }'
done
