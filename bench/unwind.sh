#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench/unwind.sh — what does CFI unwinding (issue 3) cost, and how much
# kernel memory do its tables take?
#
# 1. BPF cost per sample. Two copies of tests/workloads/nofp/glibc_calls.c in
#    its fixed-depth mode (one CPU-bound thread each, so both CPUs of a 2-CPU
#    box are busy with targets) are profiled with
#       hotcold record -p A,B --unwind=MODE -e cpu-clock -F HZ
#    for MODE in cfi, fp; stack depth 11 (stage_deep10) and 45 (stage_deep:
#    _start ... main, stage_deep, deep_01..deep_40, leaf_burn); the workload
#    built without frame pointers (gcc -O2 -fomit-frame-pointer) and with them
#    (-fno-omit-frame-pointer). With run-time stats on (kernel.bpf_stats_enabled=1
#    and a held BPF_ENABLE_STATS fd, since other benchmarks flip the sysctl), the deltas of
#    run_time_ns and run_cnt of hotcold's `oncpu_sample` program over a window
#    that starts 1 s after attach give ns per invocation. Invocations include
#    the timer ticks of other tasks and of idle CPUs (filtered out in a few
#    instructions), so the script also reads the program's own count of
#    records emitted (HC_STAT_SAMPLES in oncpu_stats) over the same window and
#    reports run_time / emitted: an upper bound per target sample, which
#    charges all BPF time to the samples actually walked and sent. A baseline
#    arm per round records two sleeping processes the same way: all its
#    invocations are filtered out, which gives the cost F of a filtered
#    invocation, and the estimate per emitted sample
#    (run_time - (run_cnt - emitted) * F) / emitted. With dithering a target
#    thread's event ticks ~8 times per sample and the ticks that do not
#    sample it cost more than F; so from the program's own count of the
#    ticks it filtered out (oncpu_dither_cpu.filtered: idle CPUs, other
#    tasks) the cost per sample, (run_time - filtered * F) / emitted, charges
#    the targets' ticks to their samples and only the others' at F, whatever
#    else runs on the machine. Medians over the clean
#    rounds (see --clean-max) are reported; the order of the arms rotates
#    each round. The program and its maps are found through hotcold's fdinfo.
# 2. Table memory of one process linking libc + libstdc++ (a small C++
#    program built here with g++), and of a C process for comparison: the
#    "unwind: N tables built (peak R rows, X MiB ...)" line, next to what the
#    kernel charges (bpftool: bytes_memlock of the row arrays, found as the
#    inner maps of hotcold's unwind_objs, and of unwind_objs and unwind_procs
#    themselves).
# 3. Sharing: process A (the C workload) is recorded alone, then together
#    with a second process of the same binary, with the FP build of it (another
#    file, same libc), with the C++ program, and with all of them. Each
#    addition must add exactly as many tables as it maps objects (dev:inode,
#    or the vdso) that A does not: libc, ld.so and the vdso get one table
#    each, however many processes map them. (A difference, not a total, so
#    the tables hotcold preloads for the runtime libraries it maps itself
#    cancel out.)
# 4. Loader cost under process churn: a shell running 20 compiles (~0.4 s
#    each) one after the other (new gcc, cc1 and as processes each time, as on a build
#    machine) recorded with --unwind=cfi at 99 Hz: hotcold's own CPU (-v
#    "loader cpu" line, whole life), tables built, their build time and the
#    tables reused from the idle cache. With --before, both binaries
#    alternate; medians over --rounds.
#
# Markdown on stdout, progress on stderr. Needs root, gcc, g++, bpftool, jq, python3.
# An arm during which other tasks (hotcold included) used more than
# --clean-max of all CPUs is re-run up to --retries times (the last attempt
# is kept); the table counts only clean rounds when an arm has any.
#
# usage: bench/unwind.sh [--rounds N] [--seconds S] [--freq HZ] [--hotcold PATH]
#                        [--clean-max SHARE] [--retries N] [--only cost|tables|churn] [--keep]
#                        [--before PATH] [--depth 10|40] [--build nofp|fp] [--nodither]
#        bench/unwind.sh --from DIR/cost [--rounds N --seconds S ...]   (reprint part 1 of a --keep run)
#
# --before PATH: another hotcold binary (say, the previous commit's) measured
# as a third mode, "cfi-before", in the same rounds and on the same workloads
# as --unwind=cfi: a before/after comparison side by side. A binary from
# before dithering (e.g. session 3's 0bff0ad, where 4.3 us at depth 46 was
# measured) emits every tick in either arm: the ratio to it in the same
# rounds is what says whether today's code is within that figure, whatever
# the machine's speed that day.
# --depth 10|40, --build nofp|fp: only those cost arms (a shorter run: one
# depth and one build take a quarter of the time).
# --nodither: also the arms cfi-nodither and fp-nodither (and with --before
# cfi-before-nodither; record --no-dither:
# the fixed period, every tick of a target emits a sample, as when session 3
# measured 4.3 us at depth 46, before issue 16's dithering put ~8 ticks under
# each sample): the walk's cost per sample apart from the dithering's.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HOTCOLD=$ROOT/hotcold
BEFORE=""	# --before: a second hotcold binary, measured as mode cfi-before
ROUNDS=3
SECS=4
HZ=999
KEEP=0
ONLY=""		# cost | tables | churn: run one part only
DEPTHS="10 40"	# --depth: the cost arms' stage depths
BUILDS="nofp fp"	# --build: the cost arms' workload builds
FROM=""		# a cost file kept by --keep: print part 1 from it, measure nothing
NODITHER=0	# --nodither: add the cfi-nodither and fp-nodither arms
CLEAN_MAX=0.25		# other tasks' share of all CPUs above which an arm is re-run
RETRIES=2
BPFTOOL=$(command -v bpftool || echo /usr/sbin/bpftool)

usage() {
	sed -n '3,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
}
die() { echo "unwind.sh: $*" >&2; exit 1; }
log() { echo "[unwind] $*" >&2; }

while [[ $# -gt 0 ]]; do
	case $1 in
	--rounds) ROUNDS=${2:?}; shift 2 ;;
	--seconds) SECS=${2:?}; shift 2 ;;
	--freq) HZ=${2:?}; shift 2 ;;
	--hotcold) HOTCOLD=${2:?}; shift 2 ;;
	--before) BEFORE=${2:?}; shift 2 ;;
	--clean-max) CLEAN_MAX=${2:?}; shift 2 ;;
	--retries) RETRIES=${2:?}; shift 2 ;;
	--only) ONLY=${2:?}; shift 2 ;;
	--depth) DEPTHS=${2:?}; shift 2 ;;
	--build) BUILDS=${2:?}; shift 2 ;;
	--from) FROM=${2:?}; shift 2 ;;
	--keep) KEEP=1; shift ;;
	--nodither) NODITHER=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[[ -z $ONLY || $ONLY == cost || $ONLY == tables || $ONLY == churn ]] ||
	die "--only takes cost, tables or churn"
[[ $ROUNDS =~ ^[1-9][0-9]*$ && $SECS =~ ^[1-9][0-9]*$ && $HZ =~ ^[1-9][0-9]*$ ]] ||
	die "--rounds, --seconds and --freq take positive integers"
[[ $(id -u) == 0 ]] || die "needs root"
for t in gcc g++ jq python3 "$BPFTOOL" "$HOTCOLD" ${BEFORE:+"$BEFORE"}; do
	command -v "$t" >/dev/null || die "'$t' not found"
done

TMP=$(mktemp -d /tmp/hc-bench-unwind.XXXXXX)
PREV_BPF_STATS=$(sysctl -n kernel.bpf_stats_enabled)
PIDS=()
HOLDER_PID=""
cleanup() {
	[[ -z $HOLDER_PID ]] || kill "$HOLDER_PID" 2>/dev/null || true
	for p in "${PIDS[@]+"${PIDS[@]}"}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	sysctl -qw kernel.bpf_stats_enabled="$PREV_BPF_STATS" || true
	if ((KEEP)); then log "kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- workloads -------------------------------------------------------------------
SRC=$ROOT/tests/workloads/nofp/glibc_calls.c
mkdir -p "$TMP/nofp" "$TMP/fp"
gcc -O2 -g -pthread -fomit-frame-pointer "$SRC" -o "$TMP/nofp/glibc_calls"
gcc -O2 -g -pthread -fno-omit-frame-pointer "$SRC" -o "$TMP/fp/glibc_calls"
cat >"$TMP/cxx.cpp" <<'EOF'
// libc + libstdc++ (+ libm, libgcc_s): spins sorting strings for argv[1] seconds.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char **argv)
{
	auto end = std::chrono::steady_clock::now() +
		   std::chrono::milliseconds(argc > 1 ? std::atoi(argv[1]) * 1000 : 5000);
	std::vector<std::string> v;
	unsigned long n = 0;

	while (std::chrono::steady_clock::now() < end) {
		v.clear();
		for (int i = 0; i < 1000; i++)
			v.push_back(std::to_string((i * 7919) % 1000));
		std::sort(v.begin(), v.end(), [](const std::string &a, const std::string &b) {
			return a.size() == b.size() ? a < b : a.size() < b.size();
		});
		n += v.front().size();
	}
	std::cout << n << std::endl;
	return 0;
}
EOF
g++ -O2 -g "$TMP/cxx.cpp" -o "$TMP/cxx"

# ---- helpers ---------------------------------------------------------------------
# start CMD...: run in the background, remember its pid in LAST
start() { "$@" >/dev/null 2>&1 & LAST=$!; PIDS+=("$LAST"); }

# our_prog HOTCOLD_PID: id of the oncpu_sample program that process holds (its
# fdinfo names it: Debian's bpftool does not list the processes of a program,
# and other hotcold instances may be running)
our_prog() {
	local id
	for id in $(awk '/^prog_id:/ { print $2 }' /proc/"$1"/fdinfo/* 2>/dev/null | sort -un); do
		[[ $("$BPFTOOL" prog show id "$id" -j 2>/dev/null | jq -r .name) == oncpu_sample ]] &&
			{ echo "$id"; return 0; }
	done
	return 0
}

# percpu_u64 MAP_ID OFFSET: the u64 at OFFSET of a one-slot per-CPU map, all CPUs
# summed (empty if the value is shorter)
percpu_u64() {
	local t="" h
	for h in $("$BPFTOOL" map dump id "$1" -j 2>/dev/null | jq -r --argjson o "$2" 'if type == "array" then
			.[0].values[].value | select(length >= $o + 8) | .[$o:$o + 8] |
			map(ltrimstr("0x")) | reverse | join("") else empty end'); do
		t=$((${t:-0} + 16#$h))
	done
	echo "$t"
}

# emitted STATS_MAP_ID: records emitted so far (HC_STAT_SAMPLES, u64 at offset 0)
emitted() { percpu_u64 "$1" 0; }

# filtered DITHER_MAP_ID: ticks of idle CPUs and other tasks so far
# (oncpu_dither_cpu.filtered, offset 40; empty for a binary without it)
filtered() { if [[ -n $1 ]]; then percpu_u64 "$1" 40; fi; }

# prog_map PROG_ID NAME: id of the program's map called NAME
prog_map() {
	local m
	for m in $("$BPFTOOL" prog show id "$1" -j | jq '.map_ids[]'); do
		[[ $("$BPFTOOL" map show id "$m" -j | jq -r .name) == "$2" ]] && { echo "$m"; return; }
	done
}

prog_stats() {
	"$BPFTOOL" prog show id "$1" -j 2>/dev/null | jq -r '"\(.run_time_ns // 0) \(.run_cnt // 0)"'
}

# cpu_ticks PID...: utime + stime of the processes (all threads), in clock ticks
cpu_ticks() {
	local t=0 p
	for p in "$@"; do
		t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0)))
	done
	echo "$t"
}

now_ns() { date +%s%N; }

# busy_ticks: clock ticks all CPUs spent not idle (user+nice+system+irq+softirq+steal)
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }

# wait_prog HOTCOLD_PID ERR_FILE: prints the program id once attached (or nothing)
wait_prog() {
	local id="" i
	for i in $(seq 200); do
		kill -0 "$1" 2>/dev/null || return 0
		if grep -q '^hotcold: recording' "$2" 2>/dev/null; then
			id=$(our_prog "$1")
			[[ -n $id ]] && { echo "$id"; return 0; }
		fi
		sleep 0.05
	done
}

# user_depth FOLDED: mean number of user frames of the workload's samples in leaf_burn
user_depth() {
	awk '/;leaf_burn/ && /^glibc_calls;/ {
		n = $NF; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, f, ";"); u = 0
		for (i = 2; i <= k; i++) if (f[i] !~ /_\[k\]$/) u++
		s += u * n; c += n
	} END { if (c) printf "%.1f", s / c; else print "-" }' "$1"
}

# ---- 1. BPF cost per sample ------------------------------------------------------
TICK=$(getconf CLK_TCK)
NCPU=$(nproc)
BEFORE_NODITHER=0	# does the --before binary take --no-dither?
# grep reads all of the help, not -q: under pipefail a grep -q that exits at the
# match can SIGPIPE the binary still writing it (141), and the check then
# failed at random, so cfi-before-nodither was sometimes dithered
[[ -z $BEFORE ]] || ! "$BEFORE" record --help 2>&1 | grep -e '--no-dither' >/dev/null || BEFORE_NODITHER=1
ARMS=()
for build in $BUILDS; do
	for depth in $DEPTHS; do
		for mode in cfi ${BEFORE:+cfi-before} fp; do ARMS+=("$build:$depth:$mode"); done
		((NODITHER)) && ARMS+=("$build:$depth:cfi-nodither"
			${BEFORE:+"$build:$depth:cfi-before-nodither"} "$build:$depth:fp-nodither")
	done
done

# one_arm ROUND BUILD DEPTH MODE: appends
# "arm round ns_per_inv emitted_share ns_per_emitted depth stops others filtered_per_emitted"
# to $TMP/cost (the last -1 if the binary does not count filtered ticks); returns 1 if there
# is no data
one_arm() {
	local r=$1 build=$2 depth=$3 mode=$4 base a b hc id sm dm t0 c0 e0 t1 c1 e1 n0 n1 b0 b1 w0 w1 others
	local f0 f1
	local bin=$HOTCOLD umode=${mode%-nodither} extra=()
	[[ $mode != *-nodither ]] || extra=(--no-dither)
	[[ $umode != cfi-before ]] || { bin=$BEFORE; umode=cfi; }
	# a binary from before dithering (issue 16) has no --no-dither: it always emits every tick
	[[ $bin != "$BEFORE" || $BEFORE_NODITHER == 1 ]] || extra=()
	base=$TMP/cost.$build.$depth.$mode.r$r
	start "$TMP/$build/glibc_calls" $(((SECS + 8) * 1000)) "$TMP" "$depth"; a=$LAST
	start "$TMP/$build/glibc_calls" $(((SECS + 8) * 1000)) "$TMP" "$depth"; b=$LAST
	"$bin" record -p "$a,$b" --unwind="$umode" "${extra[@]+"${extra[@]}"}" -e cpu-clock -F "$HZ" -d $((SECS + 6)) \
		-o "$base.folded" 2>"$base.err" &
	hc=$!
	id=$(wait_prog "$hc" "$base.err")
	sm=${id:+$(prog_map "$id" oncpu_stats)}
	dm=${id:+$(prog_map "$id" oncpu_dither_cp)}	# names are cut at 15 characters
	if [[ -z $id || -z $sm ]]; then
		log "$build depth $depth --unwind=$mode: no oncpu_sample program; stderr:"
		tail -5 "$base.err" >&2
		wait "$hc" || true
		return 1
	fi
	sleep 1
	# set again: another benchmark may have "restored" it meanwhile (the held fd covers that too)
	sysctl -qw kernel.bpf_stats_enabled=1
	read -r t0 c0 < <(prog_stats "$id"); e0=$(emitted "$sm"); f0=$(filtered "$dm")
	w0=$(cpu_ticks "$a" "$b"); b0=$(busy_ticks); n0=$(now_ns)
	sleep "$SECS"
	read -r t1 c1 < <(prog_stats "$id"); e1=$(emitted "$sm"); f1=$(filtered "$dm")
	w1=$(cpu_ticks "$a" "$b"); b1=$(busy_ticks); n1=$(now_ns)
	# -d is a safety net: stop now (the profile is still written), then the workloads
	kill -INT "$hc" 2>/dev/null || true
	wait "$hc" || log "$build depth $depth --unwind=$mode: hotcold exited $?"
	kill "$a" "$b" 2>/dev/null || true
	wait "$a" "$b" 2>/dev/null || true
	if [[ ( -z $HOLDER_PID && $(sysctl -n kernel.bpf_stats_enabled) != 1 ) ||
	      $((c1 - c0)) -le 0 || $((e1 - e0)) -le 0 ]]; then
		log "$build depth $depth --unwind=$mode: no run-time stats over the window (stats turned off by another benchmark?)"
		return 1
	fi
	# everything but the targets, as a share of all CPUs over the window (hotcold included)
	others=$(awk -v w=$((w1 - w0)) -v bz=$((b1 - b0)) -v tk="$TICK" -v dt=$((n1 - n0)) \
		-v nc="$NCPU" 'BEGIN { o = (bz - w) / (dt / 1e9 * nc * tk); if (o < 0) o = 0; printf "%.2f", o }')
	if [[ ${LAST_TRY:-1} == 0 ]] && awk -v o="$others" -v m="$CLEAN_MAX" 'BEGIN { exit !(o > m) }'; then
		log "$build depth $depth --unwind=$mode: other tasks used $others of the CPUs; again"
		sleep 5
		return 1
	fi
	awk -v arm="$build:$depth:$mode" -v r="$r" -v dt=$((t1 - t0)) -v dc=$((c1 - c0)) \
		-v de=$((e1 - e0)) -v o="$others" -v d="$(user_depth "$base.folded")" \
		-v df="$([[ -n $f0 && -n $f1 ]] && echo $((f1 - f0)) || echo -1)" \
		-v stop="$(grep -o '[0-9]* walks ended[^,]*' "$base.err" | awk '{ t += $1 } END { print t + 0 }')" \
		'BEGIN { printf "%s %s %.0f %.3f %.0f %s %s %s %.3f\n", arm, r, dt / dc, de / dc, dt / de, d, stop, o,
			df < 0 ? -1 : df / de }' \
		>>"$TMP/cost"
}

# base_arm ROUND: ns per filtered invocation, targets asleep; appends "base round ns" to $TMP/cost
base_arm() {
	local r=$1 base=$TMP/cost.base.r$1 a b hc id t0 c0 t1 c1
	start sleep $((SECS + 8)); a=$LAST
	start sleep $((SECS + 8)); b=$LAST
	"$HOTCOLD" record -p "$a,$b" --unwind=cfi -e cpu-clock -F "$HZ" -d $((SECS + 6)) \
		-o "$base.folded" 2>"$base.err" &
	hc=$!
	id=$(wait_prog "$hc" "$base.err")
	[[ -n $id ]] || { wait "$hc" || true; return 1; }
	sleep 1
	sysctl -qw kernel.bpf_stats_enabled=1
	read -r t0 c0 < <(prog_stats "$id")
	sleep "$SECS"
	read -r t1 c1 < <(prog_stats "$id")
	kill -INT "$hc" 2>/dev/null || true
	wait "$hc" || true
	kill "$a" "$b" 2>/dev/null || true
	wait "$a" "$b" 2>/dev/null || true
	[[ $((c1 - c0)) -gt 0 ]] || return 1
	echo "base $r $(((t1 - t0) / (c1 - c0)))" >>"$TMP/cost"
}

# print_cost COST_FILE: the markdown table of part 1. Per arm, only the rounds
# during which other tasks used at most CLEAN_MAX of the CPUs ("clean") count,
# unless there are none.
print_cost() {
	local F arm build depth mode
	F=$(awk '$1 == "base" { print $3 }' "$1" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print 0 }')
	echo "## BPF cost per sample ($HZ Hz cpu-clock, $NCPU CPUs, ${SECS} s windows, $ROUNDS rounds)"
	echo
	echo "kernel.bpf_stats_enabled=1 while measuring (was $PREV_BPF_STATS, restored). Two workload"
	echo "processes, one busy thread each. A round counts as clean when other tasks (hotcold"
	echo "included) used at most $CLEAN_MAX of all CPUs; medians are over the clean rounds."
	echo "A filtered invocation (targets asleep) costs F = $F ns (median). \"net of F\" takes F off"
	echo "for every invocation that emitted nothing, a target's ticks between its samples"
	echo "included; \"per sample\" only for the ticks the program counted as filtered (idle CPUs,"
	echo "other tasks: oncpu_dither_cpu.filtered), so a target's ticks are charged to its samples"
	echo "whole, and the figure does not depend on how busy the rest of the machine is."
	echo
	echo "| workload build | user frames per sample | --unwind | clean rounds | ns / invocation | samples emitted / invocations | ns / emitted sample, upper bound: median (min..max) | ns / emitted sample, net of F | ns per sample: median (min..max) | walks ended early |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	for arm in "${ARMS[@]}"; do
		IFS=: read -r build depth mode <<<"$arm"
		awk -v a="$arm" -v cm="$CLEAN_MAX" '$1 == a { n++; if ($8 <= cm) { c++; print } ; l[n] = $0 }
			END { if (!c) for (i = 1; i <= n; i++) print l[i] }' "$1" | sort -k5 -n |
		awk -v b="$build" -v m="$mode" -v F="$F" -v cm="$CLEAN_MAX" -v all="$ROUNDS" '
		{ ns[NR] = $3; sh[NR] = $4; ub[NR] = $5; d[NR] = $6; st[NR] = $7; if ($8 <= cm) c++
		  # per sample: the counted filtered ticks at F each taken off; -1: not counted
		  if ($9 == "" || $9 < 0) nps = -1; else { ps[++nps] = $5 - $9 * F } }
		END {
			bn = b == "nofp" ? "no frame pointers" : "frame pointers"
			if (!NR) { printf "| %s | - | %s | 0 of %s | (no data) | | | | | |\n", bn, m, all; exit }
			k = int((NR + 1) / 2)
			# net of filtered invocations: (ns - (1 - share) * F) / share
			net = (ns[k] - (1 - sh[k]) * F) / sh[k]
			per = "-"
			if (nps > 0) {
				for (i = 2; i <= nps; i++)
					for (j = i; j > 1 && ps[j - 1] > ps[j]; j--) { t = ps[j]; ps[j] = ps[j - 1]; ps[j - 1] = t }
				per = sprintf("%.0f (%.0f..%.0f)", ps[int((nps + 1) / 2)], ps[1], ps[nps])
			}
			printf "| %s | %s | %s | %d of %s | %s | %s | %s (%s..%s) | %.0f | %s | %s |\n", bn, d[k], m,
				c, all, ns[k], sh[k], ub[k], ub[1], ub[NR], net, per, st[k]
		}'
	done
	echo
}

if [[ -n $FROM ]]; then
	print_cost "$FROM"
	exit 0
fi

# hold_stats: keep run-time stats on with a BPF_ENABLE_STATS fd (until killed),
# whatever other benchmarks do to the global sysctl (as bench/sched.sh does)
hold_stats() {
	python3 -c '
import ctypes, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
attr = ctypes.create_string_buffer(128)   # union bpf_attr: enable_stats.type = BPF_STATS_RUN_TIME (0)
fd = libc.syscall(321, 32, attr, 128)     # SYS_bpf (x86-64), BPF_ENABLE_STATS
if fd < 0:
    sys.exit("BPF_ENABLE_STATS failed: errno %d" % ctypes.get_errno())
print("held", flush=True)
signal.pause()' >"$TMP/holder.out" 2>"$TMP/holder.err" &
	HOLDER_PID=$!
	for _ in $(seq 100); do
		grep -q held "$TMP/holder.out" 2>/dev/null && return 0
		kill -0 "$HOLDER_PID" 2>/dev/null || break
		sleep 0.05
	done
	log "no BPF_ENABLE_STATS fd ($(cat "$TMP/holder.err" 2>/dev/null)): relying on the sysctl"
	HOLDER_PID=""
}

if [[ -z $ONLY || $ONLY == cost ]]; then
sysctl -qw kernel.bpf_stats_enabled=1
hold_stats
: >"$TMP/cost"
for r in $(seq "$ROUNDS"); do
	log "round $r/$ROUNDS: baseline (targets asleep: every invocation filtered out)"
	base_arm "$r" || base_arm "$r" || log "round $r: no baseline"
	# rotate the order every round so no arm always runs first
	n=${#ARMS[@]}
	for i in $(seq 0 $((n - 1))); do
		IFS=: read -r build depth mode <<<"${ARMS[$(((i + r) % n))]}"
		log "round $r/$ROUNDS: $build build, depth $depth, --unwind=$mode"
		for try in $(seq 0 "$RETRIES"); do
			LAST_TRY=$((try == RETRIES))
			one_arm "$r" "$build" "$depth" "$mode" && break
			((try < RETRIES)) || log "round $r: $build depth $depth --unwind=$mode: no data"
		done
	done
done
sysctl -qw kernel.bpf_stats_enabled="$PREV_BPF_STATS"
[[ -z $HOLDER_PID ]] || { kill "$HOLDER_PID" 2>/dev/null; wait "$HOLDER_PID" 2>/dev/null || true; HOLDER_PID=""; }

print_cost "$TMP/cost"
echo
fi

# ---- 2. table memory -------------------------------------------------------------
# kernel_mem HOTCOLD_PID: "rows_bytes maps_bytes tables": bytes_memlock of the row
# arrays (inner maps of unwind_objs), of unwind_objs + unwind_procs, and how
# many row arrays there are. The maps are found through the process's fdinfo.
kernel_mem() {
	local m objs="" procs="" rows=0 n=0 inner
	for m in $(awk '/^map_id:/ { print $2 }' /proc/"$1"/fdinfo/* 2>/dev/null | sort -un); do
		case $("$BPFTOOL" map show id "$m" -j 2>/dev/null | jq -r .name) in
		unwind_objs) objs=$m ;;
		unwind_procs) procs=$m ;;
		esac
	done
	[[ -n $objs && -n $procs ]] || { echo "0 0 0"; return; }
	for inner in $("$BPFTOOL" map dump id "$objs" -j | jq -r '.[] | .value |
			map(ltrimstr("0x")) | reverse | join("")'); do
		rows=$((rows + $("$BPFTOOL" map show id $((16#$inner)) -j | jq '.bytes_memlock // 0')))
		n=$((n + 1))
	done
	echo "$rows $(( $("$BPFTOOL" map show id "$objs" -j | jq '.bytes_memlock // 0') +
		$("$BPFTOOL" map show id "$procs" -j | jq '.bytes_memlock // 0') )) $n"
}

# objects PID...: the distinct executable objects (dev:inode, or [vdso]) the processes map
objects() {
	local p
	for p in "$@"; do
		awk '$2 ~ /x/ && ($5 != 0 || $6 == "[vdso]") { print ($5 != 0 ? $4 ":" $5 : $6) }' "/proc/$p/maps"
	done | sort -u
}

# runtime_objects HOTCOLD_PID: the objects (dev:inode) whose tables hotcold preloads
# because it maps them itself (src/unwind/tables.c: is_runtime_object()): a process
# that maps one adds no table for it, though A does not map it (libm for the C++ program)
runtime_objects() {
	awk '$2 ~ /x/ && $5 != 0 { n = $6; sub(/.*\//, "", n)
		if (n ~ /^(libc\.so|ld-linux|libm\.so|libstdc\+\+\.so|libgcc_s\.so)/) print $4 ":" $5 }' \
		"/proc/$1/maps" 2>/dev/null | sort -u
}

# record_tables NAME PID...: records the processes with --unwind=cfi for about 2 s; prints
# "tables rows MiB kernel_rows_bytes kernel_maps_bytes kernel_tables" (-v: the tables line is
# a debug line since the summary became one line)
record_tables() {
	local name=$1 hc i km="0 0 0"; shift
	local pids; pids=$(IFS=,; echo "$*")
	"$HOTCOLD" record -v -p "$pids" --unwind=cfi -e cpu-clock -F "$HZ" -d 30 \
		-o "$TMP/mem.$name.folded" 2>"$TMP/mem.$name.err" &
	hc=$!
	[[ -n $(wait_prog "$hc" "$TMP/mem.$name.err") ]] &&
		{ sleep 1; km=$(kernel_mem "$hc"); runtime_objects "$hc" >>"$TMP/hc_runtime"; }
	sleep 1
	kill -INT "$hc" 2>/dev/null || true
	wait "$hc" || true
	sed -n 's/^unwind: \([0-9]*\) tables built (peak \([0-9]*\) rows, \([0-9.]*\) MiB.*/\1 \2 \3/p' \
		"$TMP/mem.$name.err" | awk -v k="$km" '{ print $1, $2, $3, k }'
}

if [[ -z $ONLY || $ONLY == tables ]]; then
mib() { awk -v b="$1" 'BEGIN { printf "%.2f MiB", b / 1048576 }'; }
LONG=150000	# ms: the workloads outlive all the recordings (killed after them; 6 starts took > 60 s under load)

start "$TMP/nofp/glibc_calls" $LONG "$TMP" 40; A=$LAST
start "$TMP/nofp/glibc_calls" $LONG "$TMP" 40; B=$LAST
start "$TMP/fp/glibc_calls" $LONG "$TMP" 40; F=$LAST
start "$TMP/cxx" $((LONG / 1000)); X=$LAST
sleep 0.3
x_libs=$(awk '$2 ~ /x/ && $6 ~ /\// { n = $6; sub(/.*\//, "", n); print n }' "/proc/$X/maps" | sort -u | paste -sd' ')

read -r a_t a_r a_m a_kr a_km a_kn < <(record_tables a "$A") || die "recording a failed"
read -r x_t x_r x_m x_kr x_km x_kn < <(record_tables x "$X") || die "recording x failed"
read -r ab_t ab_r ab_m _ _ _ < <(record_tables ab "$A" "$B") || die "recording ab failed"
read -r af_t af_r af_m _ _ _ < <(record_tables af "$A" "$F") || die "recording af failed"
read -r ax_t ax_r ax_m _ _ _ < <(record_tables ax "$A" "$X") || die "recording ax failed"
read -r all_t all_r all_m _ _ _ < <(record_tables all "$A" "$B" "$F" "$X") || die "recording all failed"
# tables A's recording already had: A's objects and hotcold's preloaded ones
sort -u <(objects "$A") "$TMP/hc_runtime" >"$TMP/had"
new_f=$(comm -13 "$TMP/had" <(objects "$F") | wc -l)
new_x=$(comm -13 "$TMP/had" <(objects "$X") | wc -l)
new_all=$(comm -13 "$TMP/had" <(objects "$A" "$B" "$F" "$X") | wc -l)
a_objs=$(objects "$A" | wc -l)
x_objs=$(objects "$X" | wc -l)
kill "$A" "$B" "$F" "$X" 2>/dev/null || true
wait "$A" "$B" "$F" "$X" 2>/dev/null || true

echo "## Table memory (--unwind=cfi, one process recorded with -p)"
echo
echo "| process | executable objects it maps (vdso included) | tables built | rows | hotcold's figure (tree nodes x 384 B + 8 KiB per process) | kernel: row arrays (bytes_memlock) | kernel: unwind_objs + unwind_procs |"
echo "|---|---|---|---|---|---|---|"
printf '| C, no frame pointers (glibc_calls) | %s | %s | %s | %s MiB | %s in %s arrays | %s |\n' \
	"$a_objs" "$a_t" "$a_r" "$a_m" "$(mib "$a_kr")" "$a_kn" "$(mib "$a_km")"
printf '| C++ (%s) | %s | %s | %s | %s MiB | %s in %s arrays | %s |\n' "$x_libs" \
	"$x_objs" "$x_t" "$x_r" "$x_m" "$(mib "$x_kr")" "$x_kn" "$(mib "$x_km")"
echo
echo "## Sharing (one recording of several processes, -p A,B,...)"
echo
echo "Adding a process to a recording must add tables only for the objects no process recorded so far maps"
echo "and hotcold did not preload (the runtime libraries it maps itself: $(sort -u "$TMP/hc_runtime" | wc -l) here)."
echo
echo "| recorded | tables built | added to A's | objects not mapped by A nor preloaded | shared as expected? | rows (peak) | MiB |"
echo "|---|---|---|---|---|---|---|"
verify_delta() { [[ $1 == "$2" ]] && echo "yes" || echo "**no**"; }
printf '| A: glibc_calls (no-FP build) | %s | | | | %s | %s |\n' "$a_t" "$a_r" "$a_m"
printf '| A + B (a second process of the same binary) | %s | %s | 0 | %s | %s | %s |\n' \
	"$ab_t" $((ab_t - a_t)) "$(verify_delta $((ab_t - a_t)) 0)" "$ab_r" "$ab_m"
printf '| A + F (glibc_calls, FP build: another file, same libc) | %s | %s | %s | %s | %s | %s |\n' \
	"$af_t" $((af_t - a_t)) "$new_f" "$(verify_delta $((af_t - a_t)) "$new_f")" "$af_r" "$af_m"
printf '| A + X (the C++ program) | %s | %s | %s | %s | %s | %s |\n' \
	"$ax_t" $((ax_t - a_t)) "$new_x" "$(verify_delta $((ax_t - a_t)) "$new_x")" "$ax_r" "$ax_m"
printf '| A + B + F + X | %s | %s | %s | %s | %s | %s |\n' \
	"$all_t" $((all_t - a_t)) "$new_all" "$(verify_delta $((all_t - a_t)) "$new_all")" "$all_r" "$all_m"
echo
echo "(Tables kept per process instead would be $((2 * a_t)) for A + B and $((3 * a_t + x_t)) for A + B + F + X.)"
echo
fi

# ---- 4. loader cost under process churn ------------------------------------------
[[ -z $ONLY || $ONLY == churn ]] || exit 0
CHURN_N=20
# 150 small functions: cc1 runs ~0.4 s, long enough to be sampled and need tables
for i in $(seq 150); do
	echo "int f$i(int *a, int n) { int s = 0; for (int j = 0; j < n; j++) s += a[j] * $i + (s >> 3); return s; }"
done >"$TMP/churn.c"

# churn_run BIN: records a shell running CHURN_N compiles one after the other
# (gcc, cc1, as: new processes of the same large binaries, as on a build
# machine) with --unwind=cfi at 99 Hz; prints "loader_cpu_s tables_built build_ms reused peak_mib"
churn_run() {
	"$1" record -v -F 99 --unwind=cfi -o "$TMP/churn.folded" -- sh -c \
		"i=0; while [ \$i -lt $CHURN_N ]; do gcc -O2 -c '$TMP/churn.c' -o '$TMP/churn.o'; i=\$((i + 1)); done" \
		>/dev/null 2>"$TMP/churn.err" || true
	awk '/^hotcold: loader cpu/ { cpu = $4 + $8 }
	     /^unwind: [0-9]+ tables built/ {
		t = $2; ms = $0; sub(/.*; /, "", ms); sub(/ ms\).*/, "", ms)
		r = 0; if (match($0, /[0-9]+ reused/)) r = substr($0, RSTART, RLENGTH - 7)
		mib = $0; sub(/ MiB of kernel memory.*/, "", mib); sub(/.*rows, /, "", mib)
	     }
	     END { printf "%.3f %s %s %s %s\n", cpu, t, ms, r, mib }' "$TMP/churn.err"
}

: >"$TMP/churn"
for r in $(seq "$ROUNDS"); do
	for which in after ${BEFORE:+before}; do
		bin=$HOTCOLD
		[[ $which == after ]] || bin=$BEFORE
		log "churn round $r/$ROUNDS: $which"
		echo "$which $(churn_run "$bin")" >>"$TMP/churn"
	done
done
echo "## Loader cost under process churn ($CHURN_N x gcc -c, one after the other, under hotcold record -v -F 99 --unwind=cfi -- sh -c ...; $ROUNDS rounds)"
echo
echo "| hotcold | loader CPU s (-v, whole life): median (min..max) | tables built | table build ms | tables reused while idle | peak MiB of tables |"
echo "|---|---|---|---|---|---|"
for which in after ${BEFORE:+before}; do
	awk -v w="$which" '$1 == w' "$TMP/churn" | sort -k2 -n | awk -v w="$which" -v b="${BEFORE:-}" '
		{ c[NR] = $2; t[NR] = $3; ms[NR] = $4; ru[NR] = $5; mb[NR] = $6 }
		END {
			if (!NR) exit
			k = int((NR + 1) / 2)
			printf "| %s | %s (%s..%s) | %s | %s | %s | %s |\n", w == "after" ? "this build" : "--before " b,
				c[k], c[1], c[NR], t[k], ms[k], ru[k], mb[k]
		}'
done
