#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench/oncpu.sh — what does on-CPU sampling cost a CPU-bound workload?
#
# Side by side in one run, in alternating arms, ROUNDS rounds (the order of
# the arms rotates every round, so no arm always runs first or last):
#
#   base      the workload alone
#   aa        the workload alone again (A/A: the machine's noise floor)
#   hotcold   under `hotcold record -a -F HZ` (its default user unwinding)
#   hotcold-nodither  the same with `--no-dither` (a fixed sampling period,
#             as before dithering: the cost of the extra ticks), if the binary
#             has --no-dither
#   hotcold-fp  the same with `--unwind fp` (frame pointers only), if the
#             binary has --unwind
#   perf      under `perf record -F HZ -a -g`
#   bpftrace  under `bpftrace -e 'profile:hz:HZ { @[kstack, ustack, comm] = count(); }'`
#
# The workload (bench/workloads/spin.c) runs one thread per online CPU for
# SECONDS and reports iterations per second of wall time and per second of its
# own CPU time. Each profiler is started, waited for until it is attached,
# the workload runs, then the profiler gets SIGINT and is waited for. Every
# arm's throughput is divided by the same round's `base`.
#
# Also measured, over the window from "profiler attached" to "workload done":
#   - BPF run time per sample (statistics on for the whole run through a
#     BPF_ENABLE_STATS fd held by bench/workloads/statshold.c, which does
#     not disturb anyone else measuring on the machine; if that fails,
#     kernel.bpf_stats_enabled=1 from the first BPF arm, restored at exit;
#     run_time_ns and run_cnt of the
#     perf_event programs the profiler process holds — hotcold's
#     `oncpu_sample`, bpftrace's profile program — deltas over the workload
#     only);
#   - the profiler process's own CPU (sum of /proc/PID/task/*/schedstat, as
#     % of one core) and peak RSS (VmHWM); for hotcold also its `-v` line
#     (whole life, including start-up and symbolization at the end).
#
# The hotcold binary is copied once at the start, so a rebuild during the
# run cannot change what is measured. On a shared machine, arms during which
# other tasks used more than --clean-max % of the CPUs are re-run (within a
# time budget) and every table says how busy the rest of the machine was;
# --nice runs the workload and the profilers at a higher priority than the
# rest (both alike, so the profiler still competes with the workload as it
# would on a quiet machine).
#
# Progress goes to stderr, the markdown tables to stdout. Needs root.
#
# usage: bench/oncpu.sh [--rounds N] [--seconds D] [--hotcold PATH] [--freq HZ]
#                       [--arms LIST] [--nice N] [--clean-max PCT] [--retries N]
#                       [--keep]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
ROUNDS=7
DUR=5
HZ=99
HOTCOLD=$ROOT/hotcold
ARMS_ARG=base,aa,hotcold,hotcold-fp,perf,bpftrace
NICE=0
KEEP=0
CLEAN_MAX=3		# % of the machine used by others for a ratio to count as clean
RETRIES=2		# re-runs of an arm during which others used > CLEAN_MAX %
RETRY_BUDGET=150	# seconds spent on re-runs, at most (keeps a run < 10 min)
SETTLE=0.5		# after a profiler says it is attached
GAP=1			# between arms: let the previous one's exit work finish
READY_TIMEOUT=30	# seconds for a profiler to attach
STOP_TIMEOUT=30		# seconds for a profiler to exit after SIGINT (repeated at 10 s)

usage() {
	cat <<EOF
usage: $0 [options]
  --rounds N       rounds, each running every arm once (default $ROUNDS, minimum 5)
  --seconds D      workload duration per arm, seconds (default $DUR)
  --hotcold PATH   hotcold binary (default $ROOT/hotcold)
  --freq HZ        sampling frequency for all profilers (default $HZ)
  --arms LIST      comma-separated subset of: base,aa,hotcold,hotcold-nodither,hotcold-fp,perf,
                   bpftrace (default $ARMS_ARG; base is always run)
  --nice N         give the workload and every profiler (alike) priority N over
                   the rest of the machine (e.g. -20 on a machine others use;
                   default $NICE): with sched autogroups, the run moves to a new
                   session whose autogroup gets nice N (nice alone would not
                   reach across sessions); else nice -n N
  --clean-max PCT  a ratio is "clean" when, during both its arm and that round's
                   baseline, other tasks used <= PCT % of all CPUs (default $CLEAN_MAX)
  --retries N      re-run an arm up to N times while others used > --clean-max
                   % of the CPUs during it (default $RETRIES; the last attempt is
                   kept; at most ${RETRY_BUDGET}s in all are spent on re-runs)
  --keep           keep the temporary directory (profiles, logs, raw data)
Markdown tables on stdout, progress on stderr. Needs root.
EOF
}

die() { echo "oncpu.sh: $*" >&2; exit 1; }
log() { echo "[oncpu] $*" >&2; }

ORIG_ARGS=("$@")
while [[ $# -gt 0 ]]; do
	case $1 in
	--rounds)  ROUNDS=${2:?}; shift 2 ;;
	--seconds) DUR=${2:?}; shift 2 ;;
	--hotcold) HOTCOLD=${2:?}; shift 2 ;;
	--freq)    HZ=${2:?}; shift 2 ;;
	--arms)    ARMS_ARG=${2:?}; shift 2 ;;
	--clean-max) CLEAN_MAX=${2:?}; shift 2 ;;
	--retries) RETRIES=${2:?}; shift 2 ;;
	--nice)    NICE=${2:?}; shift 2 ;;
	--keep)    KEEP=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -ge 5 ]] || die "--rounds must be an integer >= 5"
[[ $DUR =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--seconds must be a positive number"
[[ $HZ =~ ^[1-9][0-9]*$ ]] || die "--freq must be a positive integer"
[[ $NICE =~ ^-?[0-9]+$ && $NICE -ge -20 && $NICE -le 19 ]] || die "--nice must be an integer in -20..19"
[[ $RETRIES =~ ^[0-9]+$ ]] || die "--retries must be a non-negative integer"
[[ $CLEAN_MAX =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--clean-max must be a number"
[[ $EUID -eq 0 ]] || die "needs root (BPF, system-wide perf events, sysctl)"
[[ $HOTCOLD == /* ]] || HOTCOLD=$PWD/$HOTCOLD

# --nice with autogroups: nice only weighs tasks within one session's
# autogroup, and each session competes as one. Run ourselves in a new session
# and set that autogroup's nice; the workload and profilers inside it keep
# nice 0, so they compete with each other as on a quiet machine.
AUTOGROUP=0
if ((NICE != 0)) && [[ $(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || echo 0) == 1 ]]; then
	AUTOGROUP=1
	if [[ -z ${ONCPU_NEW_SESSION:-} ]]; then
		ONCPU_NEW_SESSION=1 setsid --wait "$0" "${ORIG_ARGS[@]}" &
		child=$!
		trap 'kill -INT "$child" 2>/dev/null || true' INT
		trap 'kill -TERM "$child" 2>/dev/null || true' TERM
		rc=0
		wait "$child" || rc=$?
		while kill -0 "$child" 2>/dev/null; do rc=0; wait "$child" || rc=$?; done
		exit "$rc"
	fi
	echo "$NICE" >/proc/$$/autogroup || die "cannot set this session's autogroup nice to $NICE"
fi

# ---- arms ---------------------------------------------------------------
ARMS=(base)
IFS=, read -r -a want <<<"$ARMS_ARG"
for a in "${want[@]}"; do
	case $a in
	base) ;;
	aa) ARMS+=(aa) ;;
	hotcold|hotcold-fp|hotcold-nodither)
		[[ -x $HOTCOLD ]] || die "hotcold binary '$HOTCOLD' not found or not executable (run make, pass --hotcold PATH, or leave hotcold out of --arms)"
		if [[ $a == hotcold-fp ]] && ! "$HOTCOLD" record --help 2>&1 | grep -q -- '--unwind'; then
			log "SKIP arm hotcold-fp: $HOTCOLD has no --unwind option (it unwinds with frame pointers only: see arm hotcold)"
			continue
		fi
		if [[ $a == hotcold-nodither ]] && ! "$HOTCOLD" record --help 2>&1 | grep -q -- '--no-dither'; then
			log "SKIP arm hotcold-nodither: $HOTCOLD has no --no-dither option (it samples at a fixed period: see arm hotcold)"
			continue
		fi
		ARMS+=("$a") ;;
	perf)
		if command -v perf >/dev/null 2>&1; then ARMS+=(perf)
		else log "SKIP arm perf: 'perf' not on PATH (Debian: apt-get install linux-perf)"; fi ;;
	bpftrace)
		if command -v bpftrace >/dev/null 2>&1; then ARMS+=(bpftrace)
		else log "SKIP arm bpftrace: 'bpftrace' not on PATH (Debian: apt-get install bpftrace)"; fi ;;
	*) die "unknown arm '$a'" ;;
	esac
done
NARMS=${#ARMS[@]}
needs_bpftool=0
for a in "${ARMS[@]}"; do [[ $a == hotcold* || $a == bpftrace ]] && needs_bpftool=1; done
BPFTOOL=$(command -v bpftool || echo /usr/sbin/bpftool)
if ((needs_bpftool)); then
	[[ -x $BPFTOOL ]] || die "bpftool not found (needed to read BPF run-time stats)"
	command -v jq >/dev/null 2>&1 || die "jq not found (needed to parse bpftool -j)"
fi

# ---- state, cleanup ---------------------------------------------------------
TMP=$(mktemp -d /tmp/hotcold-bench.XXXXXX)
RAW=$TMP/raw.tsv		# round  arm  key  value
: >"$RAW"
PREV_BPF_STATS=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo "")
STATS_MODE=""		# fd (statshold) or sysctl
STATS_PID=""
SYSCTL_SET=0		# we wrote kernel.bpf_stats_enabled: restore it at exit
PROF_PID=""
WL_PID=""
NICE_CMD=()
if ((NICE != 0 && !AUTOGROUP)); then NICE_CMD=(nice -n "$NICE"); fi

cleanup() {
	local rc=$? i
	trap - EXIT INT TERM
	if [[ -n $WL_PID ]] && kill -0 "$WL_PID" 2>/dev/null; then
		kill -KILL "$WL_PID" 2>/dev/null || true
		wait "$WL_PID" 2>/dev/null || true
	fi
	if [[ -n $PROF_PID ]] && kill -0 "$PROF_PID" 2>/dev/null; then
		log "cleanup: stopping profiler pid $PROF_PID"
		kill -INT "$PROF_PID" 2>/dev/null || true
		for ((i = 0; i < 50; i++)); do
			kill -0 "$PROF_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$PROF_PID" 2>/dev/null || true
		wait "$PROF_PID" 2>/dev/null || true
	fi
	if [[ -n $STATS_PID ]]; then
		kill -TERM "$STATS_PID" 2>/dev/null || true
		wait "$STATS_PID" 2>/dev/null || true
	fi
	if ((SYSCTL_SET)) && [[ -n $PREV_BPF_STATS ]]; then
		sysctl -qw kernel.bpf_stats_enabled="$PREV_BPF_STATS" || true
	fi
	if ((KEEP)); then
		log "kept $TMP"
	else
		rm -rf "$TMP"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- the hotcold binary under test: one copy for the whole run --------------
HOTCOLD_SRC=$HOTCOLD
HOTCOLD_ID=""
for a in "${ARMS[@]}"; do
	if [[ $a == hotcold* ]]; then
		hotcold_snapshot
		break
	fi
done

# ---- workload and helpers ----------------------------------------------------------
build spin
WL=$BUILD/spin

# BPF run-time statistics: a held BPF_ENABLE_STATS fd, else the sysctl.
if ((needs_bpftool)); then
	build statshold
	"$BUILD/statshold" >"$TMP/statshold.out" 2>"$TMP/statshold.err" &
	STATS_PID=$!
	for ((i = 0; i < 50; i++)); do
		if grep -q '^ok' "$TMP/statshold.out"; then STATS_MODE=fd; break; fi
		kill -0 "$STATS_PID" 2>/dev/null || break
		sleep 0.1
	done
	if [[ $STATS_MODE != fd ]]; then
		log "statshold failed ($(cat "$TMP/statshold.err")); falling back to the kernel.bpf_stats_enabled sysctl"
		kill -TERM "$STATS_PID" 2>/dev/null || true
		wait "$STATS_PID" 2>/dev/null || true
		STATS_PID=""
		STATS_MODE=sysctl
	fi
fi

# run_workload ROUND ARM: run it, record ops_s and ops_cpu_s, set OPS.
# (Functions set globals rather than print: a $(...) subshell would hide
# PROF_PID and WL_PID from the cleanup trap.)
OPS=""
# Also records, from /proc/stat over the workload's run, how much of the
# machine went to anything but the workload (other_pct: busy time minus the
# workload's own CPU time, profiler included) and how much was idle or
# stolen (idle_pct: a CPU-bound workload should leave ~0 idle; a
# hypervisor that takes a vCPU away without reporting steal shows up here).
run_workload() {
	local r=$1 arm=$2 out=$TMP/r$1.$2.spin s0 s1 t0 t1
	s0=$(head -n1 /proc/stat); t0=$(now_ns)
	"${NICE_CMD[@]}" "$WL" "$DUR" >"$out" 2>"$out.err" &
	WL_PID=$!
	wait "$WL_PID" || die "workload failed in round $r arm $arm: $(cat "$out.err")"
	WL_PID=""
	s1=$(head -n1 /proc/stat); t1=$(now_ns)
	local ops cpu cpu_s
	read -r ops cpu cpu_s <"$out"
	rec "$r" "$arm" ops_s "$ops"
	rec "$r" "$arm" ops_cpu_s "$cpu"
	# cpu user nice system idle iowait irq softirq steal ... (USER_HZ ticks)
	awk -v a="$s0" -v b="$s1" -v w="$cpu_s" -v hz="$(getconf CLK_TCK)" \
	    -v wall=$((t1 - t0)) -v n="$NCPU" 'BEGIN {
		split(a, x); split(b, y)
		busy = 0; for (i = 2; i <= 8; i++) if (i != 5 && i != 6) busy += y[i] - x[i]
		idle = (y[5] - x[5]) + (y[6] - x[6]) + (y[9] - x[9])
		cap = wall / 1e9 * n
		printf "other_pct %.2f\nidle_pct %.2f\n", 100 * (busy / hz - w) / cap, 100 * idle / hz / cap
	}' | while read -r k v; do rec "$r" "$arm" "$k" "$v"; done
	OPS=$ops
}

rec() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$RAW"; }
# drop ROUND ARM: forget an attempt that is being re-run.
drop() {
	awk -F'\t' -v r="$1" -v a="$2" '!($1 == r && $2 == a)' "$RAW" >"$RAW.tmp"
	mv "$RAW.tmp" "$RAW"
	rm -f "$TMP/r$1.$2".*
}

# ---- measurement helpers ------------------------------------------------------

# Sum of on-CPU ns of every thread of PID (schedstat field 1: ns resolution,
# unlike utime/stime's clock ticks).

vm_hwm_kib() { awk '/^VmHWM:/ {print $2}' /proc/"$1"/status 2>/dev/null || echo 0; }

# owned_perf_progs PID [NAME]: "id name" of the perf_event BPF programs PID
# holds a file descriptor to (fdinfo prog_type 7), optionally only those
# named NAME. By owner rather than by name alone: others may be running
# their own hotcold or bpftrace on the same machine.
owned_perf_progs() {
	local pid=$1 name=${2:-} id pname
	awk '/^prog_type:/ {t = $2} /^prog_id:/ {if (t == 7) print $2; t = ""}' \
		/proc/"$pid"/fdinfo/* 2>/dev/null | sort -un |
		while read -r id; do
			pname=$("$BPFTOOL" prog show id "$id" -j 2>/dev/null | jq -r '.name // "?"') || continue
			if [[ -z $name || $pname == "$name" ]]; then echo "$id $pname"; fi
		done
}

# prog_stats IDS...: "run_time_ns run_cnt" summed over the programs.
prog_stats() {
	local id t=0 c=0 a b
	for id in "$@"; do
		read -r a b < <("$BPFTOOL" prog show id "$id" -j 2>/dev/null |
			jq -r '"\(.run_time_ns // 0) \(.run_cnt // 0)"') || { a=0; b=0; }
		t=$((t + a)); c=$((c + b))
	done
	echo "$t $c"
}

# With the sysctl fallback: kernel.bpf_stats_enabled is machine-wide, so it
# is switched on before each BPF arm and restored only once, at exit, so
# that toggling it per arm does not switch off someone else's measurement;
# an arm during which it was found off (someone else restored it) gets no
# BPF cost. With statshold's fd, statistics stay on whatever others do.
bpf_stats_on() {
	if [[ $STATS_MODE == sysctl && -n $PREV_BPF_STATS && $(sysctl -n kernel.bpf_stats_enabled) != 1 ]]; then
		sysctl -qw kernel.bpf_stats_enabled=1
		SYSCTL_SET=1
	fi
}
bpf_stats_still_on() {
	if [[ $STATS_MODE == fd ]]; then kill -0 "$STATS_PID" 2>/dev/null; return; fi
	[[ $(sysctl -n kernel.bpf_stats_enabled 2>/dev/null) == 1 ]]
}

# wait_ready ARM PID BASE: until the profiler is attached, or fail.
wait_ready() {
	local arm=$1 pid=$2 base=$3 t0 ncpu
	ncpu=$(nproc)
	t0=$(date +%s)
	while :; do
		kill -0 "$pid" 2>/dev/null || return 1
		case $arm in
		hotcold*)
			grep -q '^hotcold: recording' "$base.err" 2>/dev/null && return 0 ;;
		perf)
			(($(perf_fds "$pid") >= ncpu)) && return 0 ;;
		bpftrace)
			# "Attaching N probes..." is printed before attaching: also
			# wait for its perf_event program and one perf event per CPU.
			if grep -qs 'Attaching' "$base.out" "$base.err" &&
			   [[ -n $(owned_perf_progs "$pid") ]] &&
			   (($(perf_fds "$pid") >= ncpu)); then
				return 0
			fi ;;
		esac
		(($(date +%s) - t0 < READY_TIMEOUT)) || return 2
		sleep 0.05
	done
}

# run_profiled ROUND ARM: sets OPS ("" if the profiler failed to attach).
run_profiled() {
	local r=$1 arm=$2 base=$TMP/r$1.$2
	local ids=() t_ready c_ready t_end c_end bs0="" bs1="" rc=0
	local -a cmd
	case $arm in
	hotcold|hotcold-fp|hotcold-nodither)
		# -d is only a safety net: the run is stopped with SIGINT.
		cmd=("$HOTCOLD" record -a -F "$HZ" -d "$(awk -v d="$DUR" 'BEGIN{print int(d) + 300}')" -v -o "$base.folded")
		if [[ $arm == hotcold-fp ]]; then cmd+=(--unwind fp); fi
		if [[ $arm == hotcold-nodither ]]; then cmd+=(--no-dither); fi ;;
	perf)
		cmd=(perf record -F "$HZ" -a -g -o "$base.perf.data") ;;
	bpftrace)
		cmd=(bpftrace -e "profile:hz:$HZ { @[kstack, ustack, comm] = count(); }") ;;
	esac
	if [[ $arm != perf ]]; then bpf_stats_on; fi

	"${NICE_CMD[@]}" "${cmd[@]}" >"$base.out" 2>"$base.err" &
	PROF_PID=$!
	local t_start; t_start=$(now_ns)
	if ! wait_ready "$arm" "$PROF_PID" "$base"; then
		log "round $r: $arm did not attach within ${READY_TIMEOUT}s or exited; its stderr:"
		tail -n 20 "$base.err" >&2 || true
		kill -INT "$PROF_PID" 2>/dev/null || true
		wait "$PROF_PID" 2>/dev/null || true
		PROF_PID=""
		rec "$r" "$arm" failed 1
		OPS=""
		return 0
	fi
	sleep "$SETTLE"
	local progs=""
	case $arm in
	hotcold*) progs=$(owned_perf_progs "$PROF_PID" oncpu_sample) ;;
	bpftrace) progs=$(owned_perf_progs "$PROF_PID") ;;
	esac
	if [[ -n $progs ]]; then
		mapfile -t ids < <(awk '{print $1}' <<<"$progs")
		rec "$r" "$arm" bpf_prog "$(awk '{printf "%s%s (id %s)", (NR > 1 ? ", " : ""), $2, $1}' <<<"$progs")"
	fi
	if [[ $arm != perf && ${#ids[@]} -eq 0 ]]; then
		log "round $r: $arm: holds no perf_event BPF program$([[ $arm == hotcold* ]] && echo " named oncpu_sample"); no BPF cost for this round"
	fi
	if ((${#ids[@]})); then bs0=$(prog_stats "${ids[@]}"); fi
	t_ready=$(now_ns); c_ready=$(cpu_ns "$PROF_PID")

	run_workload "$r" "$arm"

	t_end=$(now_ns); c_end=$(cpu_ns "$PROF_PID")
	if ((${#ids[@]})); then bs1=$(prog_stats "${ids[@]}"); fi
	rec "$r" "$arm" hwm_kib "$(vm_hwm_kib "$PROF_PID")"
	rec "$r" "$arm" rss_parts "$(awk '/^Rss(Anon|File|Shmem):/ {printf "%s%s %.1f MiB", (n++ ? ", " : ""), $1, $2 / 1024}' /proc/"$PROF_PID"/status 2>/dev/null || true)"
	rec "$r" "$arm" cpu_pct "$(awk -v c=$((c_end - c_ready)) -v t=$((t_end - t_ready)) 'BEGIN{printf "%.4f", 100 * c / t}')"
	if ((${#ids[@]})) && ! bpf_stats_still_on; then
		log "round $r: $arm: BPF statistics were switched off during the arm ($STATS_MODE; by someone else?); no BPF cost for this round"
		ids=()
	fi
	if ((${#ids[@]})); then
		local rt0 rc0 rt1 rc1
		read -r rt0 rc0 <<<"$bs0"; read -r rt1 rc1 <<<"$bs1"
		rec "$r" "$arm" bpf_cnt $((rc1 - rc0))
		rec "$r" "$arm" bpf_rate "$(awk -v c=$((rc1 - rc0)) -v t=$((t_end - t_ready)) 'BEGIN{printf "%.1f", c / (t / 1e9)}')"
		if ((rc1 - rc0 > 0)); then rec "$r" "$arm" bpf_ns "$(awk -v t=$((rt1 - rt0)) -v c=$((rc1 - rc0)) 'BEGIN{printf "%.1f", t / c}')"; fi
	fi

	local t_int; t_int=$(now_ns)
	kill -INT "$PROF_PID"
	wait_exit "$PROF_PID" || rc=$?
	local t_exit; t_exit=$(now_ns)
	PROF_PID=""
	rec "$r" "$arm" exit "$rc"
	rec "$r" "$arm" stop_s "$(awk -v t=$((t_exit - t_int)) 'BEGIN{printf "%.2f", t / 1e9}')"
	# 130 = 128 + SIGINT: perf re-raises the signal it was stopped with.
	if ((rc != 0 && rc != 130)); then
		log "round $r: $arm exited with status $rc; stderr tail:"
		tail -n 5 "$base.err" >&2 || true
	fi

	if [[ $arm == hotcold* ]]; then
		# hotcold: loader cpu X s user + Y s sys, max RSS N KiB
		local vline
		vline=$(grep -m1 'loader cpu' "$base.err" || true)
		if [[ -n $vline ]]; then
			awk -v life=$((t_exit - t_start)) '{
				for (i = 1; i <= NF; i++) {
					if ($(i+1) == "s" && $(i+2) == "user") u = $i
					if ($(i+1) == "s" && $(i+2) == "sys")  s = $i
					if ($i == "RSS") r = $(i+1)
				}
				printf "life_cpu_pct %.4f\nmaxrss_kib %d\n", 100 * (u + s) / (life / 1e9), r
			}' <<<"$vline" | while read -r k v; do rec "$r" "$arm" "$k" "$v"; done
		fi
		local sline
		# "hotcold: N samples in M stacks" or "hotcold: N on-CPU samples; ..."
		sline=$(grep -Eo '^hotcold: [0-9]+ (on-CPU )?samples' "$base.err" | tail -n1 || true)
		if [[ -n $sline ]]; then rec "$r" "$arm" samples "$(awk '{print $2}' <<<"$sline")"; fi
		sline=$(grep -E '^unwind: [0-9]+ tables built' "$base.err" | tail -n1 || true)
		if [[ -n $sline ]]; then rec "$r" "$arm" unwind_line "$sline"; fi
		sline=$(grep -Eo 'oncpu: [0-9]+ lost' "$base.err" | tail -n1 || true)
		if [[ -n $sline ]]; then rec "$r" "$arm" lost "$(awk '{print $2}' <<<"$sline")"; fi
	fi
	return 0
}

# wait_exit PID: wait up to STOP_TIMEOUT, then SIGKILL. Returns the exit status.
wait_exit() {
	local pid=$1 i
	for ((i = 0; i < STOP_TIMEOUT * 10; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		# bpftrace has been seen to miss a SIGINT: say it again once
		if ((i == 100)); then
			log "pid $pid still running 10 s after SIGINT: SIGINT again"
			kill -INT "$pid" 2>/dev/null || true
		fi
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		log "pid $pid did not exit ${STOP_TIMEOUT}s after SIGINT: SIGKILL"
		kill -KILL "$pid" 2>/dev/null || true
	fi
	local rc=0
	wait "$pid" || rc=$?
	return "$rc"
}

# ---- run ------------------------------------------------------------------------
NCPU=$(nproc)
log "machine: $NCPU CPUs, kernel $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
log "arms: ${ARMS[*]}; $ROUNDS rounds x ${DUR}s at ${HZ} Hz; temp dir $TMP"
if [[ -n $HOTCOLD_ID ]]; then log "hotcold: $HOTCOLD_SRC ($HOTCOLD_ID), copied to $HOTCOLD"; fi
if ((AUTOGROUP)); then log "workload and profilers run in a new session, autogroup $(cat /proc/$$/autogroup)"
elif ((NICE != 0)); then log "workload and profilers run under nice -n $NICE"; fi
log "warm-up: workload 1 s"
"$WL" 1 >/dev/null 2>&1
T_BEGIN=$(date +%s)
RETRY_SPENT=0

for ((r = 1; r <= ROUNDS; r++)); do
	order=()
	for ((i = 0; i < NARMS; i++)); do order+=("${ARMS[(i + r - 1) % NARMS]}"); done
	log "round $r/$ROUNDS: order ${order[*]}"
	rec "$r" - order "${order[*]}"
	for arm in "${order[@]}"; do
		attempt=0
		while :; do
			t_att=$(date +%s)
			case $arm in
			base|aa) run_workload "$r" "$arm" ;;
			*) run_profiled "$r" "$arm" ;;
			esac
			other=$(awk -F'\t' -v r="$r" -v a="$arm" '$1 == r && $2 == a && $3 == "other_pct" {print $4}' "$RAW")
			log "  $arm: $(awk -v o="$OPS" 'BEGIN{if (o == "") print "failed"; else printf "%.1f M ops/s", o / 1e6}'), others used ${other:-?} % of the CPUs"
			sleep "$GAP"
			if ((attempt > 0)); then RETRY_SPENT=$((RETRY_SPENT + $(date +%s) - t_att)); fi
			if [[ -n $other ]] && ((attempt < RETRIES && RETRY_SPENT < RETRY_BUDGET)) &&
			   awk -v o="$other" -v m="$CLEAN_MAX" 'BEGIN{exit !(o > m)}'; then
				attempt=$((attempt + 1))
				log "  $arm: re-running (retry $attempt/$RETRIES): others used more than $CLEAN_MAX %"
				drop "$r" "$arm"
				continue
			fi
			break
		done
		rec "$r" "$arm" retries "$attempt"
	done
done
T_END=$(date +%s)
log "done in $((T_END - T_BEGIN)) s"
NRETRY=$(awk -F'\t' '$3 == "retries" {s += $4} END {print s + 0}' "$RAW")

# ---- report ---------------------------------------------------------------------
have() { for a in "${ARMS[@]}"; do [[ $a == "$1" ]] && return 0; done; return 1; }
# stats: values on stdin -> "median min max n" (empty input -> "- - - 0")
# vals ARM KEY: the per-round values
vals() { awk -F'\t' -v a="$1" -v k="$2" '$2 == a && $3 == k {print $4}' "$RAW"; }
# ratios ARM KEY [CLEAN_MAX]: per-round value / same round's base value;
# with CLEAN_MAX, only rounds where others used <= CLEAN_MAX % of the machine
# during both the arm and the baseline.
ratios() {
	awk -F'\t' -v a="$1" -v k="$2" -v cm="${3:-}" '
		$3 == k && $2 == "base" {b[$1] = $4}
		$3 == k && $2 == a {x[$1] = $4}
		$3 == "other_pct" && $2 == "base" {ob[$1] = $4}
		$3 == "other_pct" && $2 == a {ox[$1] = $4}
		END {for (r in x) if (r in b && b[r] > 0) {
			if (cm != "" && (ob[r] + 0 > cm + 0 || ox[r] + 0 > cm + 0)) continue
			printf "%.6f\n", x[r] / b[r]
		}}' "$RAW"
}
label() {
	case $1 in
	base) echo "baseline (alone)" ;;
	aa) echo "A/A (alone again)" ;;
	hotcold) echo "hotcold record -a -F $HZ" ;;
	hotcold-fp) echo "hotcold record -a -F $HZ --unwind fp" ;;
	hotcold-nodither) echo "hotcold record -a -F $HZ --no-dither" ;;
	perf) echo "perf record -F $HZ -a -g" ;;
	bpftrace) echo "bpftrace profile:hz:$HZ" ;;
	esac
}

echo "## On-CPU sampling overhead: $NCPU CPUs, $(uname -r), $ROUNDS rounds × ${DUR} s, ${HZ} Hz"
echo
if [[ -n $HOTCOLD_ID ]]; then echo "hotcold: \`$HOTCOLD_SRC\` ($HOTCOLD_ID)."; echo; fi
if ((AUTOGROUP)); then echo "Workload and profilers ran in their own session, its autogroup at nice $NICE (\`--nice $NICE\`), both at nice 0 within it."; echo
elif ((NICE != 0)); then echo "Workload and profilers ran under \`nice -n $NICE\`."; echo; fi
echo "Workload: \`bench/workloads/spin.c\`, $NCPU threads (one per online CPU). Ratio = arm ÷ baseline of the same round; median and min–max over rounds."
echo
echo "| arm | M ops/s median | throughput ratio median | min–max | rounds | clean rounds: ratio median | min–max | n | ops per CPU-s ratio median | min–max |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for arm in "${ARMS[@]}"; do
	s_ops=$(vals "$arm" ops_s | stats)
	s_cl=$(ratios "$arm" ops_s "$CLEAN_MAX" | stats)
	printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$(label "$arm")" \
		"$(awk '{printf "%.1f", $1 / 1e6}' <<<"$s_ops")" \
		"$(fmt %.4f "$(ratios "$arm" ops_s | stats)")" \
		"$(awk '{print $4}' <<<"$s_ops")" \
		"$(fmt %.4f "$s_cl")" "$(awk '{print $4}' <<<"$s_cl")" \
		"$(fmt %.4f "$(ratios "$arm" ops_cpu_s | stats)")"
done
echo
echo "Arms re-run because others used > ${CLEAN_MAX} % of the CPUs during them: $NRETRY (up to $RETRIES per arm; the last attempt counts)."
echo
echo "Clean rounds: others (anything but the workload, the profiler included) used ≤ ${CLEAN_MAX} % of all CPUs during both the arm and that round's baseline (see the second per-round table). Ops per CPU-s: the workload's iterations per second of its own CPU time, all rounds; it keeps in-context costs (the sampling interrupt and its BPF program are charged to the interrupted task) and drops time others took."

worst() { awk '{d = $1 - 1; if (d < 0) d = -d; if (d > m) m = d} END {if (NR) printf "%.4f", m; else print "–"}'; }
if have aa; then
	echo
	echo "Noise floor: the A/A arm (the same workload alone twice) differs from its baseline by up to $(ratios aa ops_s | worst) (|1 − ratio|, worst round; clean rounds only: $(ratios aa ops_s "$CLEAN_MAX" | worst); ops per CPU-s: $(ratios aa ops_cpu_s | worst))."
fi
echo
echo "Per round (throughput ratio vs that round's baseline; order = run order):"
echo
hdr="| round | order"; sep="| ---: | ---"
for arm in "${ARMS[@]}"; do [[ $arm == base ]] && continue; hdr+=" | $arm"; sep+=" | ---:"; done
echo "$hdr |"; echo "$sep |"
for ((r = 1; r <= ROUNDS; r++)); do
	line="| $r | $(awk -F'\t' -v r=$r '$1 == r && $3 == "order" {print $4}' "$RAW")"
	b=$(awk -F'\t' -v r=$r '$1 == r && $2 == "base" && $3 == "ops_s" {print $4}' "$RAW")
	for arm in "${ARMS[@]}"; do
		[[ $arm == base ]] && continue
		x=$(awk -F'\t' -v r=$r -v a="$arm" '$1 == r && $2 == a && $3 == "ops_s" {print $4}' "$RAW")
		if [[ -n $x && -n $b ]]; then line+=" | $(awk -v x="$x" -v b="$b" 'BEGIN{printf "%.4f", x / b}')"
		else line+=" | failed"; fi
	done
	echo "$line |"
done
echo
echo "Per round, the rest of the machine during each arm's workload: CPU used by anything but the workload (profiler included) / idle + steal, in % of all CPUs (from /proc/stat, 1/$(getconf CLK_TCK) s resolution):"
echo
hdr="| round"; sep="| ---:"
for arm in "${ARMS[@]}"; do hdr+=" | $arm"; sep+=" | ---:"; done
echo "$hdr |"; echo "$sep |"
for ((r = 1; r <= ROUNDS; r++)); do
	line="| $r"
	for arm in "${ARMS[@]}"; do
		line+=" | $(awk -F'\t' -v r=$r -v a="$arm" '$1 == r && $2 == a && $3 == "other_pct" {o = $4}
			$1 == r && $2 == a && $3 == "idle_pct" {i = $4} END {print (o == "" ? "–" : o " / " i)}' "$RAW")"
	done
	echo "$line |"
done

if have hotcold || have hotcold-fp || have hotcold-nodither || have bpftrace; then
	echo
	if [[ $STATS_MODE == fd ]]; then how="statistics on through a BPF_ENABLE_STATS fd held for the run"
	else how="kernel.bpf_stats_enabled=1, restored at exit"; fi
	echo "BPF program run time per sample ($how; deltas of run_time_ns / run_cnt over the workload window, all samples of the machine, not only the workload's):"
	echo
	echo "| program | ns/sample median | min–max | samples/s (all CPUs) median | ≈ % of each CPU | rounds |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: |"
	for arm in hotcold hotcold-nodither hotcold-fp bpftrace; do
		have "$arm" || continue
		s=$(vals "$arm" bpf_ns | stats)
		rate=$(vals "$arm" bpf_rate | stats | awk '{print $1}')
		pname=$(vals "$arm" bpf_prog | head -n1 | sed 's/ (id [0-9]*)//g')
		printf '| %s | %s | %.0f | %s | %s |\n' "$(label "$arm"): \`${pname:-?}\`" "$(fmt %.0f "$s")" \
			"$rate" "$(awk -v ns="${s%% *}" -v r="$rate" -v n="$NCPU" 'BEGIN{printf "%.4f", 100 * ns * r / n / 1e9}')" \
			"$(awk '{print $4}' <<<"$s")"
	done
	echo
	echo "(≈ % of each CPU = ns/sample × samples/s ÷ CPUs: the BPF program's share of the sampled CPUs. It leaves out the perf-event and interrupt machinery around it.)"
fi

profs=()
for a in hotcold hotcold-nodither hotcold-fp perf bpftrace; do if have "$a"; then profs+=("$a"); fi; done
if ((${#profs[@]})); then
	echo
	echo "Profiler process cost, from attached to workload done (schedstat of all its threads; VmHWM):"
	echo
	echo "| profiler | CPU % of one core median | min–max | peak RSS MiB median | min–max | exit after SIGINT, s median |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: |"
	for arm in "${profs[@]}"; do
		printf '| %s | %s | %s | %s |\n' "$(label "$arm")" \
			"$(fmt %.3f "$(vals "$arm" cpu_pct | stats)")" \
			"$(fmt %.1f "$(vals "$arm" hwm_kib | awk '{print $1 / 1024}' | stats)")" \
			"$(vals "$arm" stop_s | stats | awk '{printf "%.2f", $1}')"
	done
	for hc in hotcold hotcold-nodither hotcold-fp; do
		have "$hc" || continue
		echo
		echo "\`$(label "$hc")\`:"
		echo
		s=$(vals "$hc" life_cpu_pct | stats)
		if [[ $(awk '{print $4}' <<<"$s") != 0 ]]; then
			echo "- \`-v\` line (whole life: start-up, recording, symbolization, writing): CPU $(fmt %.3f "$s" | sed 's/ | / % of one core, min–max /') %; max RSS $(fmt %.1f "$(vals "$hc" maxrss_kib | awk '{print $1 / 1024}' | stats)" | sed 's/ | / MiB, min–max /') MiB."
		fi
		parts=$(vals "$hc" unwind_line | tail -n1)
		if [[ -n $parts ]]; then echo "- its CFI summary (last round): \`$parts\`."; fi
		parts=$(vals "$hc" rss_parts | tail -n1)
		if [[ -n $parts ]]; then echo "- RSS just before SIGINT (last round): $parts."; fi
		s=$(vals "$hc" samples | stats)
		if [[ $(awk '{print $4}' <<<"$s") != 0 ]]; then
			echo "- samples written per run: median $(awk '{printf "%.0f", $1}' <<<"$s"); ring-full losses (sum over runs): $(vals "$hc" lost | awk '{s += $1} END {print s + 0}')."
		fi
	done
fi
fails=$(awk -F'\t' '$3 == "failed"' "$RAW" | wc -l)
((fails == 0)) || { echo; echo "**$fails profiler arm run(s) failed to attach; see stderr.**"; }
if ((KEEP)); then echo; echo "Raw data: \`$RAW\`"; fi
