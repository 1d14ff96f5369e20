#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench/sched.sh — what do off-CPU and run-queue tracing cost a workload that
# does nothing but context-switch? (issue 4's targets)
#
# Workload: bench/workloads/pingpong.c — two threads bounce a one-byte token
# through a pair of pipes, both pinned to ONE CPU (--cpu, default the last),
# ≈ 2 context switches per round trip, for SECONDS; it prints round trips per
# second. It is started paused (-w): its threads exist and are parked, the
# tool attaches with -p PID, the script waits until the tool is attached, and
# only then releases the timed phase (SIGUSR1). After the timed phase the
# workload waits for a second SIGUSR1, so a tool that stops when its target
# exits can still be read (BPF stats) and is stopped by SIGINT first.
#
# Arms, side by side in one run, ROUNDS rounds, the order rotated every round:
#
#   base            the workload alone
#   aa              the workload alone again (A/A: the noise floor)
#   offcpu          hotcold record --off-cpu -p PID            (target >= 0.90)
#   offcpu-min0     hotcold record --off-cpu --min-block 0 -p PID (every block
#                   gets its stacks: the documented expensive mode)
#   runqlat         hotcold runqlat -p PID                     (target >= 0.90)
#   perf            perf record -e sched:sched_switch -g -p PID (reference)
#   bcc-offcputime  offcputime-bpfcc -p PID  (bpfcc-tools; needs kprobes and
#   bcc-runqlat     runqlat-bpfcc -p PID      kernel headers: preflighted, and
#                                              skipped with the reason if they
#                                              cannot run here)
#   bt-offcpu       bpftrace stand-in for offcputime: user + kernel stack at
#                   every switch-out of the target, time summed per stack at
#                   switch-in (tracepoints only)
#   bt-runqlat      bpftrace stand-in for runqlat -p (runqlat.bt filtered to
#                   the target's threads, preemption counted as a wait)
#   floor-switch    (not run by default) empty tp_btf program on sched_switch
#   floor-both      (not run by default) empty tp_btf programs on sched_switch
#                   and sys_exit: the hooks of `record --off-cpu` with no work
#                   in them (bench/workloads/tpfloor*.c; needs clang, libbpf)
#
# Every arm's round trips/s is divided by the same round's `base`. The
# throughput rounds run with kernel.bpf_stats_enabled as found (normally 0:
# what a user gets). Then a stats pass runs `base` and every BPF arm
# --stats-runs times with kernel.bpf_stats_enabled=1 and reports, per BPF
# program the tool holds (prog ids from /proc/TOOL/fdinfo), run_time_ns /
# run_cnt over the timed phase (read just before the tool is stopped),
# events per round trip and BPF ns per round trip. The sysctl is restored on
# any exit. hotcold runs with -v; its "loader cpu ... max RSS" line is kept.
#
# Also per arm: CPU used on the workload's CPU by anything but the workload
# (from /proc/stat, the tool's user-space process included; BPF programs run
# in the workload's context and count as the workload's) — a ratio from a
# round where that exceeds --clean-max % is not "clean".
#
# tracefs is mounted on /sys/kernel/tracing if perf/bpftrace arms need it and
# it is not, and unmounted at exit. Progress on stderr, markdown on stdout.
# Needs root. A full default run takes about 7-8 minutes.
#
# usage: bench/sched.sh [--rounds N] [--seconds D] [--hotcold PATH] [--arms LIST]
#                       [--cpu N] [--fifo PRIO] [--nice N] [--stats-runs N]
#                       [--clean-max PCT] [--keep]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
ROUNDS=7
DUR=5
HOTCOLD=$ROOT/hotcold
ALL_ARMS=base,aa,offcpu,offcpu-min0,runqlat,perf,bcc-offcputime,bcc-runqlat,bt-offcpu,bt-runqlat
ARMS_ARG=$ALL_ARMS
EXTRA_ARMS=floor-switch,floor-both
CPU=""
NICE=0
FIFO=0			# > 0: the workload runs SCHED_FIFO at this priority
STATS_RUNS=1
CLEAN_MAX=5		# % of the workload's CPU used by others for a round to be clean
KEEP=0
SETTLE=0.5		# after a tool says it is attached
GAP=0.5			# between arms
READY_TIMEOUT=30	# seconds for a tool to attach
STOP_TIMEOUT=120	# seconds for a tool to exit after SIGINT

usage() {
	cat <<EOF
usage: $0 [options]
  --rounds N       rounds, each running every arm once (default $ROUNDS, minimum 5)
  --seconds D      timed phase of the workload per arm, seconds (default $DUR)
  --hotcold PATH   hotcold binary (default $ROOT/hotcold; copied once at start)
  --arms LIST      comma-separated subset of:
                   $ALL_ARMS,
                   $EXTRA_ARMS
                   (default: all but the floor arms; base is always run)
  --cpu N          the CPU both workload threads are pinned to (default: the last online)
  --fifo PRIO      run the workload SCHED_FIFO at PRIO (chrt -f): other CFS tasks
                   then get at most the fair server's 5 % of its CPU; every switch
                   becomes a voluntary block (no wakeup preemption between the
                   two threads). Default: normal CFS (SCHED_OTHER)
  --nice N         run the workload and every tool under nice -n N (default $NICE;
                   e.g. -20 on a machine others are loading)
  --stats-runs N   runs per BPF arm in the bpf_stats pass (default $STATS_RUNS, 0 = no pass)
  --clean-max PCT  a round is clean when others used <= PCT % of the workload's CPU
                   during both the arm and the baseline (default $CLEAN_MAX)
  --keep           keep the temporary directory (tool outputs, logs, raw data)
Markdown on stdout, progress on stderr. Needs root.
EOF
}

die() { echo "sched.sh: $*" >&2; exit 1; }
log() { echo "[sched] $*" >&2; }

while [[ $# -gt 0 ]]; do
	case $1 in
	--rounds) ROUNDS=${2:?}; shift 2 ;;
	--seconds) DUR=${2:?}; shift 2 ;;
	--hotcold) HOTCOLD=${2:?}; shift 2 ;;
	--arms) ARMS_ARG=${2:?}; shift 2 ;;
	--cpu) CPU=${2:?}; shift 2 ;;
	--nice) NICE=${2:?}; shift 2 ;;
	--fifo) FIFO=${2:?}; shift 2 ;;
	--stats-runs) STATS_RUNS=${2:?}; shift 2 ;;
	--clean-max) CLEAN_MAX=${2:?}; shift 2 ;;
	--keep) KEEP=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -ge 5 ]] || die "--rounds must be an integer >= 5"
if ! [[ $DUR =~ ^[0-9]+([.][0-9]+)?$ ]] || ! awk -v d="$DUR" 'BEGIN{exit !(d > 0)}'; then
	die "--seconds must be a positive number"
fi
[[ $NICE =~ ^-?[0-9]+$ && $NICE -ge -20 && $NICE -le 19 ]] || die "--nice must be an integer in -20..19"
[[ $STATS_RUNS =~ ^[0-9]+$ ]] || die "--stats-runs must be a non-negative integer"
[[ $CLEAN_MAX =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--clean-max must be a number"
NCPU=$(nproc)
[[ -z $CPU ]] && CPU=$((NCPU - 1))
if ! [[ $CPU =~ ^[0-9]+$ ]] || ! grep -q "^cpu$CPU " /proc/stat; then die "--cpu $CPU is not an online CPU"; fi
[[ $EUID -eq 0 ]] || die "needs root (BPF, perf -p on any task, sysctl, mount)"
[[ $HOTCOLD == /* ]] || HOTCOLD=$PWD/$HOTCOLD
for t in bpftool jq cc awk; do command -v "$t" >/dev/null 2>&1 || die "$t not found"; done
BPFTOOL=$(command -v bpftool)

# ---- state, cleanup -----------------------------------------------------------
TMP=$(mktemp -d /tmp/hotcold-sched.XXXXXX)
RAW=$TMP/raw.tsv		# pass  round  arm  key  value
: >"$RAW"
PREV_BPF_STATS=$(sysctl -n kernel.bpf_stats_enabled)
STATS_TOUCHED=0
MOUNTED_TRACEFS=0
WL_PID=""
TOOL_PID=""
NICE_CMD=()
((NICE == 0)) || NICE_CMD=(nice -n "$NICE")
[[ $FIFO =~ ^[0-9]+$ && $FIFO -le 99 ]] || die "--fifo must be an integer in 1..99"
WL_CMD=("${NICE_CMD[@]}")
((FIFO == 0)) || WL_CMD=(chrt -f "$FIFO")

trap bench_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- arms: which can run here -------------------------------------------------------
declare -A SKIP=()		# arm -> reason
ARMS=(base)
IFS=, read -r -a want <<<"$ARMS_ARG"
BCC_OFFCPU=$(command -v offcputime-bpfcc || echo /usr/sbin/offcputime-bpfcc)
BCC_RUNQLAT=$(command -v runqlat-bpfcc || echo /usr/sbin/runqlat-bpfcc)

# bcc_preflight TOOL ARGS...: run it for 1 s against this shell; "" if it worked, else why not.
bcc_preflight() {
	local out=$TMP/preflight.$RANDOM rc=0 why
	timeout 60 "$@" >"$out" 2>"$out.err" </dev/null || rc=$?
	((rc == 0)) && return 0
	why=$(grep -m1 -E 'chdir\(|No such file|cannot attach|Failed to attach|kprobe|Exception' "$out.err" ||
		tail -n1 "$out.err")
	echo "exit $rc: ${why:-no message}"
}
kernel_facts() {
	local f=""
	[[ -d /lib/modules/$(uname -r)/build ]] || f+="no kernel headers (/lib/modules/$(uname -r)/build missing)"
	[[ -e /sys/kernel/kheaders.tar.xz ]] || f+="${f:+, }no /sys/kernel/kheaders.tar.xz (CONFIG_IKHEADERS)"
	[[ -d /sys/bus/event_source/devices/kprobe ]] || f+="${f:+, }no kprobe PMU (/sys/bus/event_source/devices/kprobe)"
	echo "$f"
}

# tracefs: perf, bpftrace and bcc resolve tracepoints through it.
needs_tracefs=0
for a in "${want[@]}"; do [[ $a == perf || $a == bt-* || $a == bcc-* ]] && needs_tracefs=1; done
if ((needs_tracefs)) && [[ ! -e /sys/kernel/tracing/events/sched/sched_switch ]]; then
	mount -t tracefs nodev /sys/kernel/tracing || die "cannot mount tracefs on /sys/kernel/tracing"
	MOUNTED_TRACEFS=1
	log "mounted tracefs on /sys/kernel/tracing (unmounted at exit)"
fi

for a in "${want[@]}"; do
	case $a in
	base) ;;
	aa) ARMS+=(aa) ;;
	offcpu | offcpu-min0 | runqlat)
		[[ -x $HOTCOLD ]] || die "hotcold binary '$HOTCOLD' not found (run make, or pass --hotcold PATH, or leave hotcold arms out of --arms)"
		if [[ $a == runqlat ]] && ! "$HOTCOLD" runqlat --help >/dev/null 2>&1; then
			SKIP[$a]="$HOTCOLD has no runqlat subcommand"
			continue
		fi
		ARMS+=("$a") ;;
	perf)
		if command -v perf >/dev/null 2>&1; then ARMS+=(perf)
		else SKIP[$a]="'perf' not on PATH (Debian: apt-get install linux-perf)"; fi ;;
	bt-offcpu | bt-runqlat)
		if command -v bpftrace >/dev/null 2>&1; then ARMS+=("$a")
		else SKIP[$a]="'bpftrace' not on PATH (Debian: apt-get install bpftrace)"; fi ;;
	bcc-offcputime | bcc-runqlat)
		tool=$BCC_OFFCPU; [[ $a == bcc-runqlat ]] && tool=$BCC_RUNQLAT
		if [[ ! -x $tool ]]; then
			SKIP[$a]="$(basename "$tool") not installed (Debian: apt-get install bpfcc-tools)"
			continue
		fi
		log "preflight: $(basename "$tool") -p $$ (1 s)"
		if [[ $a == bcc-offcputime ]]; then why=$(bcc_preflight "$tool" -p $$ 1)
		else why=$(bcc_preflight "$tool" -p $$ 1 1); fi
		if [[ -n $why ]]; then
			facts=$(kernel_facts)
			SKIP[$a]="\`$(basename "$tool") -p PID\` fails on this kernel: $why${facts:+; $facts}"
		else
			ARMS+=("$a")
		fi ;;
	floor-switch | floor-both)
		if command -v clang >/dev/null 2>&1 && pkg-config --exists libbpf 2>/dev/null; then ARMS+=("$a")
		else SKIP[$a]="needs clang and libbpf-dev to build bench/workloads/tpfloor"; fi ;;
	*) die "unknown arm '$a' (known: $ALL_ARMS,$EXTRA_ARMS)" ;;
	esac
done
for a in "${!SKIP[@]}"; do log "SKIP arm $a: ${SKIP[$a]}"; done
NARMS=${#ARMS[@]}
is_bpf_arm() { [[ $1 == offcpu* || $1 == runqlat || $1 == bt-* || $1 == bcc-* || $1 == floor-* ]]; }

# ---- the binaries under test ------------------------------------------------------------
HOTCOLD_SRC=$HOTCOLD
HOTCOLD_ID=""
for a in "${ARMS[@]}"; do
	if [[ $a == offcpu* || $a == runqlat ]]; then
		hotcold_snapshot
		break
	fi
done
build pingpong
WL=$BUILD/pingpong
FLOOR=$BUILD/tpfloor
if have floor-switch || have floor-both; then
	if [[ ! -x $FLOOR || ! -f $FLOOR.bpf.o || $ROOT/bench/workloads/tpfloor.c -nt $FLOOR ||
	      $ROOT/bench/workloads/tpfloor.bpf.c -nt $FLOOR.bpf.o ]]; then
		mkdir -p "$BUILD"
		log "building $FLOOR"
		clang -g -O2 --target=bpf -D__TARGET_ARCH_x86 -I"$ROOT/vmlinux/x86" -Wall \
			-c "$ROOT/bench/workloads/tpfloor.bpf.c" -o "$FLOOR.bpf.o"
		# shellcheck disable=SC2046 # pkg-config flags are words
		cc -O2 -Wall -Wextra -o "$FLOOR" "$ROOT/bench/workloads/tpfloor.c" $(pkg-config --cflags --libs libbpf)
	fi
fi

# ---- helpers ------------------------------------------------------------------------------
# BPF programs a process holds (program fds and link fds both name a prog_id).
# prog_snapshot IDS(comma list) -> lines "id name run_time_ns run_cnt"
# foreign_progs MY_IDS: tracing-type BPF programs loaded by anyone else (other
# engineers' profilers, tests): on a sched hook they run in the workload's
# context and slow it down where /proc/stat cannot tell.
foreign_progs() {
	"$BPFTOOL" prog show -j 2>/dev/null | jq -r --arg ids "$1" '
		($ids | split(",") | map(select(. != "") | tonumber)) as $mine |
		.[] | select(.type | test("^(tracing|tracepoint|raw_tracepoint|perf_event|kprobe)$")) |
		select(.id as $i | $mine | index($i) | not) | "\(.id):\(.name)"'
}
prog_fds() { find /proc/"$1"/fd -lname 'anon_inode:bpf-prog' 2>/dev/null | wc -l; }
cpu_line() { grep "^cpu$CPU " /proc/stat; }

# bpftrace programs, generated for the target's pid and thread ids.
bt_offcpu_prog() { # PID
	cat <<EOF
tracepoint:sched:sched_switch
{
	if (pid == $1) {
		@start[tid] = nsecs;
		@ks[tid] = kstack;
		@us[tid] = ustack;
	}
	\$s = @start[args->next_pid];
	if (\$s) {
		@off[@ks[args->next_pid], @us[args->next_pid], args->next_comm] = sum(nsecs - \$s);
		delete(@start[args->next_pid]);
	}
}
END { clear(@start); clear(@ks); clear(@us); }
EOF
}
bt_runqlat_prog() { # PID TIDS...
	local pid=$1 cond="" t
	shift
	for t in "$@"; do cond+="${cond:+ || }args->pid == $t"; done
	cat <<EOF
tracepoint:sched:sched_wakeup, tracepoint:sched:sched_wakeup_new
/$cond/
{
	@qtime[args->pid] = nsecs;
}
tracepoint:sched:sched_switch
{
	if (pid == $pid && (args->prev_state & 0xff) == 0) {
		@qtime[args->prev_pid] = nsecs;
	}
	\$ns = @qtime[args->next_pid];
	if (\$ns) {
		@usecs = hist((nsecs - \$ns) / 1000);
		delete(@qtime[args->next_pid]);
	}
}
END { clear(@qtime); }
EOF
}

label() { # the command as run (PID = the workload)
	case $1 in
	base) echo "baseline: pingpong alone" ;;
	aa) echo "A/A: pingpong alone again" ;;
	offcpu) echo "hotcold record --off-cpu -p PID" ;;
	offcpu-min0) echo "hotcold record --off-cpu --min-block 0 -p PID" ;;
	runqlat) echo "hotcold runqlat -p PID" ;;
	perf) echo "perf record --no-buildid -e sched:sched_switch -g -p PID" ;;
	bcc-offcputime) echo "offcputime-bpfcc -p PID" ;;
	bcc-runqlat) echo "runqlat-bpfcc -p PID" ;;
	floor-switch) echo "empty tp_btf/sched_switch program" ;;
	floor-both) echo "empty tp_btf/sched_switch + tp_btf/sys_exit programs" ;;
	bt-offcpu) echo "bpftrace offcputime stand-in" ;;
	bt-runqlat) echo "bpftrace runqlat -p stand-in" ;;
	esac
}
target() {
	case $1 in
	offcpu | runqlat) echo "≥ 0.90" ;;
	perf) echo "(issue: 0.33)" ;;
	bcc-offcputime) echo "(issue: 0.31)" ;;
	bcc-runqlat) echo "(issue: 0.83)" ;;
	*) echo "" ;;
	esac
}

# start_tool ARM BASE: starts it in the background (sets TOOL_PID).
start_tool() {
	local arm=$1 base=$2 safety
	local -a cmd
	safety=$(awk -v d="$DUR" 'BEGIN{print int(d) + 300}')
	case $arm in
	offcpu) cmd=("$HOTCOLD" record --off-cpu -p "$WL_PID" -d "$safety" -v -o "$base.folded") ;;
	offcpu-min0) cmd=("$HOTCOLD" record --off-cpu --min-block 0 -p "$WL_PID" -d "$safety" -v -o "$base.folded") ;;
	runqlat) cmd=("$HOTCOLD" runqlat -p "$WL_PID" -d "$safety" -v -o "$base.hist") ;;
	# --no-buildid: skip the build-id pass over the data at exit (10-40 s here);
	# it runs after the timed phase, so it changes nothing that is measured
	perf) cmd=(perf record --no-buildid -e sched:sched_switch -g -p "$WL_PID" -o "$base.perf.data") ;;
	bcc-offcputime) cmd=("$BCC_OFFCPU" -p "$WL_PID") ;;
	bcc-runqlat) cmd=("$BCC_RUNQLAT" -p "$WL_PID") ;;
	floor-switch) cmd=("$FLOOR" "$FLOOR.bpf.o" floor_switch) ;;
	floor-both) cmd=("$FLOOR" "$FLOOR.bpf.o" "floor_switch,floor_sys_exit") ;;
	bt-offcpu)
		bt_offcpu_prog "$WL_PID" >"$base.bt"
		cmd=(bpftrace "$base.bt") ;;
	bt-runqlat)
		# shellcheck disable=SC2046 # one word per thread id
		bt_runqlat_prog "$WL_PID" $(ls /proc/"$WL_PID"/task) >"$base.bt"
		cmd=(bpftrace "$base.bt") ;;
	esac
	"${NICE_CMD[@]}" "${cmd[@]}" >"$base.out" 2>"$base.err" </dev/null &
	TOOL_PID=$!
}

# wait_ready ARM BASE: 0 attached, 1 the tool exited, 2 timeout.
wait_ready() {
	local arm=$1 base=$2 t0 need
	t0=$(date +%s)
	need=$(($(find /proc/"$WL_PID"/task -mindepth 1 -maxdepth 1 | wc -l) * NCPU))
	while :; do
		kill -0 "$TOOL_PID" 2>/dev/null || return 1
		case $arm in
		offcpu* | runqlat)
			grep -q '^hotcold: recording' "$base.err" 2>/dev/null && return 0 ;;
		perf)
			(($(perf_fds "$TOOL_PID") >= need)) && return 0 ;;
		bt-*)
			# "Attaching N probes..." comes before the attach: also wait for a program fd
			grep -qs 'Attaching' "$base.out" "$base.err" && (($(prog_fds "$TOOL_PID") > 0)) && return 0 ;;
		bcc-*)
			grep -qs 'Tracing' "$base.out" && return 0 ;;
		floor-*)
			grep -qs '^attached' "$base.err" && return 0 ;;
		esac
		(($(date +%s) - t0 < READY_TIMEOUT)) || return 2
		sleep 0.05
	done
}

# run_arm PASS ROUND ARM: one workload run, under the arm's tool if any.
# Sets RT (round trips/s, "" on failure). Globals, not $(...): the cleanup
# trap must see WL_PID and TOOL_PID.
RT=""
run_arm() {
	local pass=$1 r=$2 arm=$3 base=$TMP/$1.r$2.$3 i ids="" snap0="" snap1=""
	local t0 t1 s0 s1 c0 c1 rc=0
	RT=""
	rec "$pass" "$r" "$arm" bpf_stats_enabled "$(sysctl -n kernel.bpf_stats_enabled)"
	"${WL_CMD[@]}" "$WL" -w -c "$CPU" "$DUR" >"$base.wl" 2>"$base.wl.err" </dev/null &
	WL_PID=$!
	for ((i = 0; i < 200; i++)); do
		grep -q '^ready ' "$base.wl.err" 2>/dev/null && break
		kill -0 "$WL_PID" 2>/dev/null || die "workload failed: $(cat "$base.wl.err")"
		sleep 0.05
	done
	grep -q '^ready ' "$base.wl.err" || die "workload did not get ready in 10 s"

	if [[ $arm != base && $arm != aa ]]; then
		start_tool "$arm" "$base"
		if ! wait_ready "$arm" "$base"; then
			log "$pass round $r: $arm did not attach within ${READY_TIMEOUT}s or exited; its stderr:"
			grep -v '^libbpf:' "$base.err" | tail -n 15 >&2 || true
			kill -INT "$TOOL_PID" 2>/dev/null || true
			wait_exit "$TOOL_PID" || true
			TOOL_PID=""
			stop_workload
			rec "$pass" "$r" "$arm" failed 1
			return 0
		fi
		sleep "$SETTLE"
		if is_bpf_arm "$arm"; then
			ids=$(pid_prog_ids "$TOOL_PID")
			[[ -n $ids ]] && snap0=$(prog_snapshot "$ids")
		fi
		c0=$(cpu_ns "$TOOL_PID")
	fi

	local f0 f1
	f0=$(foreign_progs "$ids")
	s0=$(cpu_line); t0=$(now_ns)
	kill -USR1 "$WL_PID"
	sleep "$DUR"
	for ((i = 0; i < 600; i++)); do
		[[ -s $base.wl ]] && break
		kill -0 "$WL_PID" 2>/dev/null || break
		sleep 0.05
	done
	s1=$(cpu_line); t1=$(now_ns)
	f1=$(foreign_progs "$ids")
	rec "$pass" "$r" "$arm" foreign "$(printf '%s\n%s\n' "$f0" "$f1" | sed '/^$/d' | sort -u | wc -l)"
	rec "$pass" "$r" "$arm" foreign_names "$(printf '%s\n%s\n' "$f0" "$f1" | sed '/^$/d' | cut -d: -f2 | sort | uniq -c | awk '{printf "%s%s×%s", (NR > 1 ? ", " : ""), $2, $1}')"
	[[ -s $base.wl ]] || die "workload printed no result ($arm, $pass round $r): $(cat "$base.wl.err")"

	if [[ -n $TOOL_PID ]]; then
		# just before stopping the tool: BPF stats and the tool's own CPU
		if [[ -n $ids ]]; then snap1=$(prog_snapshot "$ids"); fi
		c1=$(cpu_ns "$TOOL_PID")
		rec "$pass" "$r" "$arm" tool_cpu_pct "$(awk -v c=$((c1 - c0)) -v t=$((t1 - t0)) 'BEGIN{printf "%.2f", 100 * c / t}')"
		rec "$pass" "$r" "$arm" tool_hwm_kib "$(awk '/^VmHWM:/ {print $2}' /proc/"$TOOL_PID"/status 2>/dev/null || echo 0)"
		kill -INT "$TOOL_PID" 2>/dev/null || true
		wait_exit "$TOOL_PID" || rc=$?
		TOOL_PID=""
		rec "$pass" "$r" "$arm" exit "$rc"
		# 130: perf re-raises SIGINT
		if ((rc != 0 && rc != 130)); then
			log "$pass round $r: $arm exited with status $rc; stderr tail:"
			grep -v '^libbpf:' "$base.err" | tail -n 5 >&2 || true
		fi
	fi
	stop_workload

	local rt rts _el wcpu vcsw ivcsw slice
	read -r rt rts _el wcpu vcsw ivcsw slice <"$base.wl"
	rec "$pass" "$r" "$arm" rt_s "$rt"
	rec "$pass" "$r" "$arm" rt_slice "$slice"
	rec "$pass" "$r" "$arm" round_trips "$rts"
	rec "$pass" "$r" "$arm" rt_cpu_s "$(awk -v n="$rts" -v c="$wcpu" 'BEGIN{if (c > 0) printf "%.1f", n / c}')"
	rec "$pass" "$r" "$arm" switches_per_rt "$(awk -v a="$vcsw" -v b="$ivcsw" -v n="$rts" 'BEGIN{printf "%.3f", (a + b) / n}')"
	rec "$pass" "$r" "$arm" vol_share "$(awk -v a="$vcsw" -v b="$ivcsw" 'BEGIN{printf "%.3f", a / (a + b)}')"
	# cpuN user nice system idle iowait irq softirq steal (USER_HZ ticks)
	awk -v a="$s0" -v b="$s1" -v w="$wcpu" -v hz="$(getconf CLK_TCK)" -v wall=$((t1 - t0)) 'BEGIN {
		split(a, x); split(b, y); secs = wall / 1e9
		busy = 0; for (i = 2; i <= 8; i++) if (i != 5 && i != 6) busy += y[i] - x[i]
		o = 100 * (busy / hz - w) / secs; if (o < 0) o = 0
		printf "others_pct %.1f\nsteal_pct %.1f\nidle_pct %.1f\n", o,
			100 * (y[9] - x[9]) / hz / secs, 100 * ((y[5] - x[5]) + (y[6] - x[6])) / hz / secs
	}' | while read -r k v; do rec "$pass" "$r" "$arm" "$k" "$v"; done

	if [[ -n $snap0 && -n $snap1 ]]; then
		# per program: name, delta run_time_ns, delta run_cnt
		awk -v n="$rts" -v secs="$(awk -v t=$((t1 - t0)) 'BEGIN{print t / 1e9}')" '
			NR == FNR {t0[$1] = $3; c0[$1] = $4; next}
			($1 in t0) {printf "%s\t%d\t%d\n", $2, $3 - t0[$1], $4 - c0[$1]}' \
			<(echo "$snap0") <(echo "$snap1") |
			while IFS=$'\t' read -r name dt dc; do
				rec "$pass" "$r" "$arm" "prog:$name" "$dt $dc"
			done
		# run_cnt moves only while stats are on: in the throughput rounds that
		# means someone else enabled them (sysctl or BPF_ENABLE_STATS)
		rec "$pass" "$r" "$arm" stats_on "$(awk 'NR == FNR {c[$1] = $4; next} ($1 in c) && $4 > c[$1] {on = 1} END {print on + 0}' \
			<(echo "$snap0") <(echo "$snap1"))"
	fi
	if [[ $arm == offcpu* || $arm == runqlat ]]; then
		local line
		line=$(grep -m1 'loader cpu' "$base.err" || true)
		if [[ -n $line ]]; then
			awk '{ for (i = 1; i <= NF; i++) {
					if ($(i+1) == "s" && $(i+2) == "user") u = $i
					if ($(i+1) == "s" && $(i+2) == "sys") s = $i
					if ($i == "RSS") r = $(i+1) }
				printf "loader_cpu_s %.3f\nloader_rss_kib %d\n", u + s, r }' <<<"$line" |
				while read -r k v; do rec "$pass" "$r" "$arm" "$k" "$v"; done
		fi
		line=$(grep -m1 -Eo '^sched: [0-9]+ lost' "$base.err" || true)
		[[ -z $line ]] || rec "$pass" "$r" "$arm" ring_lost "$(awk '{print $2}' <<<"$line")"
		line=$(grep -m1 '^sched: ' "$base.err" || true)
		[[ -z $line ]] || rec "$pass" "$r" "$arm" sched_line "$line"
		line=$(grep -E '^hotcold: .*(off-CPU in|->)' "$base.err" | tail -n1 || true)
		[[ -z $line ]] || rec "$pass" "$r" "$arm" summary "$line"
	fi
	if [[ $arm == perf ]]; then
		local line
		line=$(grep -Eo 'Captured and wrote [0-9.]+ MB [^ ]+ \([0-9]+ samples\)' "$base.err" | tail -n1 || true)
		[[ -z $line ]] || rec "$pass" "$r" "$arm" summary "$line"
		line=$(grep -Eo 'Processed [0-9]+ events and lost [0-9]+ chunks' "$base.err" | tail -n1 || true)
		[[ -z $line ]] || rec "$pass" "$r" "$arm" lost "$line"
		((KEEP)) || rm -f "$base.perf.data"
	fi
	RT=$rt
}

# ---- run ----------------------------------------------------------------------------------
log "machine: $NCPU CPUs, kernel $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
log "arms: ${ARMS[*]}; $ROUNDS rounds x ${DUR}s, workload pinned to CPU $CPU; temp dir $TMP"
[[ -z $HOTCOLD_ID ]] || log "hotcold: $HOTCOLD_SRC ($HOTCOLD_ID)"
if ((FIFO)); then log "workload runs SCHED_FIFO priority $FIFO; tools under nice -n $NICE"
elif ((NICE != 0)); then log "workload and tools run under nice -n $NICE"; fi
log "warm-up: workload 1 s"
"${WL_CMD[@]}" "$WL" -c "$CPU" 1 >/dev/null
T_BEGIN=$(date +%s)

for ((r = 1; r <= ROUNDS; r++)); do
	order=()
	for ((i = 0; i < NARMS; i++)); do order+=("${ARMS[(i + r - 1) % NARMS]}"); done
	log "round $r/$ROUNDS: ${order[*]}"
	rec rounds "$r" - order "${order[*]}"
	for arm in "${order[@]}"; do
		t_arm=$(date +%s.%N)
		run_arm rounds "$r" "$arm"
		o=$(awk -F'\t' -v r="$r" -v a="$arm" '$1 == "rounds" && $2 == r && $3 == a && $4 == "others_pct" {print $5}' "$RAW")
		log "  $arm: $(awk -v x="$RT" 'BEGIN{if (x == "") print "failed"; else printf "%.0f round trips/s", x}'), others on CPU $CPU: ${o:-?} %; $(awk -v a="$t_arm" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b - a}') s"
		sleep "$GAP"
	done
done

STATS_ARMS=()
for a in "${ARMS[@]}"; do is_bpf_arm "$a" && STATS_ARMS+=("$a"); done
if ((STATS_RUNS > 0 && ${#STATS_ARMS[@]} > 0)); then
	log "bpf_stats pass: kernel.bpf_stats_enabled=1 (was $PREV_BPF_STATS), ${STATS_RUNS} run(s) of: base ${STATS_ARMS[*]}"
	STATS_TOUCHED=1
	sysctl -qw kernel.bpf_stats_enabled=1
	stats_hold
	for ((r = 1; r <= STATS_RUNS; r++)); do
		for arm in base "${STATS_ARMS[@]}"; do
			run_arm stats "$r" "$arm"
			log "  stats $arm: $(awk -v x="$RT" 'BEGIN{if (x == "") print "failed"; else printf "%.0f round trips/s", x}')"
			sleep "$GAP"
		done
	done
	stats_release
	sysctl -qw kernel.bpf_stats_enabled="$PREV_BPF_STATS"
	STATS_TOUCHED=0
fi
T_END=$(date +%s)
log "done in $((T_END - T_BEGIN)) s"

# ---- report ----------------------------------------------------------------------------------
# stats: numbers on stdin -> "median min max n"
# ratios ARM [clean]: per round rt_s / base rt_s (clean: others <= CLEAN_MAX in both)
ratios() { # ratios ARM [clean] [KEY]
	awk -F'\t' -v a="$1" -v clean="${2:-}" -v key="${3:-rt_s}" -v cm="$CLEAN_MAX" '
		$1 != "rounds" {next}
		$4 == key && $3 == "base" {b[$2] = $5}
		$4 == key && $3 == a {x[$2] = $5}
		$4 == "others_pct" && $5 + 0 > cm + 0 {dirty[$2, $3] = 1}
		$4 == "foreign" && $5 + 0 > 0 {dirty[$2, $3] = 1}
		$4 == "stats_on" && $5 + 0 > 0 {dirty[$2, $3] = 1}
		END {for (r in x) if (r in b && b[r] > 0) {
			if (clean != "" && (dirty[r, "base"] || dirty[r, a])) continue
			printf "%.6f\n", x[r] / b[r] }}' "$RAW"
}
# marks ROUND ARM: why a run is not clean (o: others > CLEAN_MAX % of the CPU,
# f: someone else's tracing BPF programs were loaded, s: bpf_stats were on)
marks() {
	awk -F'\t' -v r="$1" -v a="$2" -v cm="$CLEAN_MAX" '
		$1 != "rounds" || $2 != r || $3 != a {next}
		$4 == "others_pct" && $5 + 0 > cm + 0 {o = "o"}
		$4 == "foreign" && $5 + 0 > 0 {f = "f"}
		$4 == "stats_on" && $5 + 0 > 0 {s = "s"}
		END {m = o f s; if (m != "") printf " %s", m}' "$RAW"
}
# extra_us ARM: per round, µs added to each round trip vs that round's baseline
extra_us() {
	awk -F'\t' -v a="$1" '
		$1 != "rounds" {next}
		$4 == "rt_s" && $3 == "base" {b[$2] = $5}
		$4 == "rt_s" && $3 == a {x[$2] = $5}
		END {for (r in x) if (r in b && x[r] > 0) printf "%.4f\n", 1e6 / x[r] - 1e6 / b[r]}' "$RAW"
}
cnt() { awk '{print $4}' <<<"$1"; }

echo "### Run: $NCPU CPUs, kernel $(uname -r), $ROUNDS rounds × ${DUR} s, workload pinned to CPU $CPU"
echo
[[ -z $HOTCOLD_ID ]] || { echo "hotcold: \`$HOTCOLD_SRC\` ($HOTCOLD_ID)."; echo; }
if ((FIFO)); then
	echo "Workload ran SCHED_FIFO priority $FIFO (\`chrt -f $FIFO\`); tools under \`nice -n $NICE\`."; echo
elif ((NICE != 0)); then
	echo "Workload and tools ran under \`nice -n $NICE\`."; echo
fi
echo "Workload: \`bench/workloads/pingpong.c\` (\`pingpong -w -c $CPU $DUR\`), two threads on CPU $CPU bouncing a byte through two pipes. Ratio = arm's round trips/s over the whole timed phase ÷ the same round's baseline; median and min–max over rounds. \"100-ms-slice\": the same with each run's median over 100 ms slices of round trips/s (bursts of other work on the shared machine hit a few slices, not the median). Switches per round trip: $(vals rounds base switches_per_rt | stats | awk '{printf "%.2f", $1}') in the baseline (voluntary share $(vals rounds base vol_share | stats | awk '{printf "%.2f", $1}')). \"+µs/rt\" = time added to each round trip (1/arm − 1/baseline), median over rounds. Clean rounds: neither the arm nor that round's baseline is marked o/f/s (see the per-round table). \"Per CPU-s\": round trips per second of the two threads' own CPU time (CLOCK_THREAD_CPUTIME_ID), vs the baseline: it leaves out time other tasks took from CPU $CPU and keeps in-context costs (BPF programs on the switch and syscall paths run in the workload's threads; no IRQ time accounting here). bpf_stats as found ($PREV_BPF_STATS) in these rounds."
echo
echo "| arm | command | round trips/s median | ratio median | min–max | 100-ms-slice ratio median | min–max | per-CPU-s ratio median | min–max | clean rounds: ratio median | n | +µs/rt | target |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
for arm in "${ARMS[@]}"; do
	s_rt=$(vals rounds "$arm" rt_s | stats)
	if [[ $arm == base ]]; then
		printf '| %s | `%s` | %s | 1 | – | 1 | – | 1 | – | – | – | – | |\n' "$arm" "$(label "$arm")" \
			"$(awk '{printf "%.0f", $1}' <<<"$s_rt")"
		continue
	fi
	s_c=$(ratios "$arm" clean | stats)
	printf '| %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$arm" "$(label "$arm")" \
		"$(awk '{if ($4 == 0) print "failed"; else printf "%.0f", $1}' <<<"$s_rt")" \
		"$(fmt %.3f "$(ratios "$arm" | stats)")" \
		"$(fmt %.3f "$(ratios "$arm" "" rt_slice | stats)")" \
		"$(fmt %.3f "$(ratios "$arm" "" rt_cpu_s | stats)")" \
		"$(awk '{if ($4 == 0) print "–"; else printf "%.3f", $1}' <<<"$s_c")" "$(cnt "$s_c")" \
		"$(extra_us "$arm" | stats | awk '{if ($4 == 0) print "–"; else printf "%.2f", $1}')" \
		"$(target "$arm")"
done
for a in "${!SKIP[@]}"; do
	printf '| %s | `%s` | skipped | – | – | – | – | – | – | – | – | – | %s |\n' "$a" "$(label "$a")" "$(target "$a")"
done
if ((${#SKIP[@]})); then
	echo
	echo "Skipped arms:"
	echo
	for a in "${!SKIP[@]}"; do echo "- **$a**: ${SKIP[$a]}"; done
fi
fails=$(awk -F'\t' '$4 == "failed"' "$RAW" | wc -l)
((fails == 0)) || { echo; echo "**$fails tool run(s) failed to attach; see stderr.**"; }
echo
if have aa; then
	worst='{d = $1 - 1; if (d < 0) d = -d; if (d > m) m = d} END {if (NR) printf "%.3f", m; else printf "–"}'
	echo "Noise floor (A/A): |1 − ratio| up to $(ratios aa | awk "$worst") in the worst round, $(ratios aa clean | awk "$worst") in the worst clean round."
	echo
fi
ext=$(awk -F'\t' '$1 == "rounds" && $4 == "bpf_stats_enabled" && $5 != 0' "$RAW" | wc -l)
((ext == 0)) || { echo "kernel.bpf_stats_enabled was 1 (set by someone else) at the start of $ext arm run(s) of the throughput rounds."; echo; }

echo "Per round: ratio vs that round's baseline (run order in the second column); a run is marked when it is not clean: **o** others used > ${CLEAN_MAX} % of CPU $CPU, **f** someone else's tracing BPF programs were loaded (they may run on the workload's switches), **s** bpf_stats were on (someone else's; seen as run_cnt moving). Last column: CPU $CPU used by anything but the workload, % (baseline / worst arm)."
echo
hdr="| round | order | base"; sep="| ---: | --- | ---"
for arm in "${ARMS[@]}"; do [[ $arm == base ]] && continue; hdr+=" | $arm"; sep+=" | ---:"; done
echo "$hdr | others % |"; echo "$sep | ---: |"
for ((r = 1; r <= ROUNDS; r++)); do
	line="| $r | $(awk -F'\t' -v r=$r '$1 == "rounds" && $2 == r && $4 == "order" {print $5}' "$RAW") |$(marks "$r" base)"
	b=$(awk -F'\t' -v r=$r '$1 == "rounds" && $2 == r && $3 == "base" && $4 == "rt_s" {print $5}' "$RAW")
	for arm in "${ARMS[@]}"; do
		[[ $arm == base ]] && continue
		x=$(awk -F'\t' -v r=$r -v a="$arm" '$1 == "rounds" && $2 == r && $3 == a && $4 == "rt_s" {print $5}' "$RAW")
		if [[ -n $x && -n $b ]]; then line+=" | $(awk -v x="$x" -v b="$b" 'BEGIN{printf "%.3f", x / b}')$(marks "$r" "$arm")"
		else line+=" | failed"; fi
	done
	line+=" | $(awk -F'\t' -v r=$r '$1 == "rounds" && $2 == r && $4 == "others_pct" {
		if ($3 == "base") b = $5; else if ($5 + 0 > w + 0) w = $5 } END {printf "%s / %s", b, w + 0}' "$RAW")"
	echo "$line |"
done
fnames=$(awk -F'\t' '$4 == "foreign_names" && $5 != "" {print $5}' "$RAW" | tr ',' '\n' | sed 's/^ *//; s/×[0-9]*$//' | sort -u | paste -sd, - | sed 's/,/, /g')
[[ -z $fnames ]] || { echo; echo "Foreign tracing BPF programs seen during the run: $fnames."; }
echo

if ((STATS_RUNS > 0 && ${#STATS_ARMS[@]} > 0)); then
	echo
	echo "BPF run time per event (kernel.bpf_stats_enabled=1 plus a held BPF_ENABLE_STATS fd, separate pass, $STATS_RUNS run(s) per arm; deltas of run_time_ns and run_cnt from the release of the timed phase to just before the tool was stopped; every program the tool holds; median over runs). \"events/rt\" and \"ns/rt\" are per workload round trip; a program on a system-wide hook (sys_exit, sched_switch) also counts other tasks' events."
	echo
	echo "| arm | program | ns/event | events/s | events/rt | BPF ns/rt | ratio in this pass |"
	echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
	sbase=$(vals stats base rt_s | stats)
	for arm in "${STATS_ARMS[@]}"; do
		srt=$(vals stats "$arm" rt_s | stats)
		ratio=$(awk -v a="$(med "$srt")" -v b="$(med "$sbase")" 'BEGIN{if (b > 0 && a != "-") printf "%.3f", a / b; else print "–"}')
		progs=$(awk -F'\t' -v a="$arm" '$1 == "stats" && $3 == a && $4 ~ /^prog:/ {print substr($4, 6)}' "$RAW" | sort -u)
		total_ns=""
		while read -r p; do
			[[ -n $p ]] || continue
			# per run: ns/event, events/s, events/rt, ns/rt
			per=$(awk -F'\t' -v a="$arm" -v p="prog:$p" -v dur="$DUR" '
				$1 != "stats" || $3 != a {next}
				$4 == "round_trips" {n[$2] = $5}
				$4 == p {split($5, v, " "); t[$2] = v[1]; c[$2] = v[2]}
				END {for (r in t) if (n[r] > 0)
					printf "%s %s %s %s\n", (c[r] > 0 ? t[r] / c[r] : 0), c[r] / dur, c[r] / n[r], t[r] / n[r]}' "$RAW")
			[[ -n $per ]] || continue
			ns=$(awk '{print $1}' <<<"$per" | stats)
			ev=$(awk '{print $2}' <<<"$per" | stats)
			evrt=$(awk '{print $3}' <<<"$per" | stats)
			nsrt=$(awk '{print $4}' <<<"$per" | stats)
			printf '| %s | `%s` | %.0f | %.0f | %.2f | %.0f | %s |\n' "$arm" "$p" "$(med "$ns")" "$(med "$ev")" \
				"$(med "$evrt")" "$(med "$nsrt")" "$ratio"
			total_ns=$(awk -v a="${total_ns:-0}" -v b="$(med "$nsrt")" 'BEGIN{print a + b}')
		done <<<"$progs"
		[[ -z $total_ns ]] || printf '| %s | **all its programs** | | | | **%.0f** | |\n' "$arm" "$total_ns"
	done
	echo
	echo "Baseline in this pass: $(awk '{printf "%.0f", $1}' <<<"$sbase") round trips/s. bpf_stats itself adds two clock reads per program run, so ratios in this pass are a little below the table above."
fi

hc_arms=()
for a in offcpu offcpu-min0 runqlat; do have "$a" && hc_arms+=("$a"); done
if ((${#hc_arms[@]})); then
	echo
	echo "hotcold loader (its \`-v\` line: whole life, start-up to output written; throughput rounds), and the tool process's CPU over the timed phase:"
	echo
	echo "| arm | loader CPU s (user+sys) median | min–max | max RSS MiB median | tool CPU % of one core over the timed phase | ring losses (sum) |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: |"
	for a in "${hc_arms[@]}"; do
		printf '| %s | %s | %.1f | %.2f | %s |\n' "$a" "$(fmt %.3f "$(vals rounds "$a" loader_cpu_s | stats)")" \
			"$(vals rounds "$a" loader_rss_kib | awk '{print $1 / 1024}' | stats | awk '{print $1}')" \
			"$(vals rounds "$a" tool_cpu_pct | stats | awk '{print $1}')" \
			"$(vals rounds "$a" ring_lost | awk '{s += $1} END {print s + 0}')"
	done
	echo
	for a in "${hc_arms[@]}"; do
		s=$(vals rounds "$a" summary | tail -n1)
		[[ -z $s ]] || echo "- $a, last round: \`$s\`"
		s=$(vals rounds "$a" sched_line | tail -n1)
		[[ -z $s ]] || echo "  \`$s\`"
	done
fi
others=()
for a in perf bt-offcpu bt-runqlat bcc-offcputime bcc-runqlat floor-switch floor-both; do have "$a" && others+=("$a"); done
if ((${#others[@]})); then
	echo
	echo "Other tools' process CPU over the timed phase (% of one core, median) and peak RSS:"
	echo
	for a in "${others[@]}"; do
		echo "- $a: $(vals rounds "$a" tool_cpu_pct | stats | awk '{printf "%.1f", $1}') % CPU, $(vals rounds "$a" tool_hwm_kib | stats | awk '{printf "%.1f", $1 / 1024}') MiB$(s=$(vals rounds "$a" summary | tail -n1); [[ -z $s ]] || echo "; last round: $s")"
	done
fi
if have bt-offcpu || have bt-runqlat; then
	echo
	echo "bpftrace stand-ins (PID/TIDs substituted per run), run as \`bpftrace FILE\`:"
	echo
	echo '```'
	have bt-offcpu && bt_offcpu_prog PID
	have bt-runqlat && bt_runqlat_prog PID TID1 TID2 TID3
	echo '```'
fi
if ((KEEP)); then echo; echo "Raw data: \`$RAW\`"; fi
