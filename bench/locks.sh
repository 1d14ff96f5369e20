#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench/locks.sh — what does lock-contention tracing cost a workload that does
# nothing but fight over one mutex? (issue 6's benchmark: target >= 0.90)
#
# Workload: bench/workloads/lockbench.c — THREADS threads (default 4, on this
# 2-CPU VM: more threads than CPUs) lock ONE global pthread_mutex_t
# (g_bench_mutex), do ~1 µs of dependent arithmetic inside, unlock, ~0.2 µs
# outside, for SECONDS; it prints acquisitions per second. The iteration counts
# for 1 µs / 0.2 µs are calibrated once per run (lockbench -C, median of 3)
# and the same counts are given to every arm. The workload starts paused (-w):
# its threads exist and are parked in read(), the tool attaches with -p PID,
# the script waits until it is attached (hotcold: its "recording" line on
# stderr), then releases the timed phase (SIGUSR1). After the timed phase the
# workload waits for a second SIGUSR1, so the tool can be read (BPF stats)
# and stopped (SIGINT) while its target still exists.
#
# Arms, side by side in one run, ROUNDS rounds, the order rotated every round:
#
#   base        the workload alone
#   aa          the workload alone again (A/A: the noise floor)
#   locks       hotcold locks -p PID                 (default settings; target >= 0.90)
#   locks-min0  hotcold locks -p PID --min-wait 0    (every wait gets a stack)
#   locks-user  hotcold locks -p PID --user-only     (futex waits only, no lock:contention_*)
#   perf-lock   perf lock record -p PID              (lock:contention_begin/end with
#               callchains into perf.data; `perf lock contention -b`, the BPF mode,
#               is preflighted and its failure reported)
#   perf-trace  perf trace -s -e futex -p PID        (futex syscalls, summary only)
#   klockstat   klockstat-bpfcc -p PID               (bcc; needs kprobes: preflighted,
#               skipped with the reason if it cannot run here)
#   futexctn    futexctn (libbpf-tools)              (skipped with the reason if absent)
#
# Every arm's acquisitions/s is divided by the same round's `base`. The
# throughput rounds run with kernel.bpf_stats_enabled as found (normally 0).
# Then a stats pass runs `base` and every hotcold arm --stats-runs times with
# kernel.bpf_stats_enabled=1 and reports, per BPF program hotcold holds (prog
# ids from /proc/TOOL/fdinfo), run_time_ns / run_cnt over the timed phase
# (bpftool prog show -j read just before hotcold is stopped), events per
# second and per acquisition, and BPF ns per acquisition. The sysctl is
# restored on any exit. hotcold runs with -v --json; the futex waits on
# g_bench_mutex per second come from its table, and its "loader cpu ... max
# RSS" line is kept.
#
# Also per arm: CPU used by anything but the workload, as % of the machine
# (from /proc/stat; the tool's user-space process included; BPF programs count
# for the task they run in) — the noise indicator of a shared VM.
#
# tracefs is mounted on /sys/kernel/tracing if perf needs it and it is not,
# and unmounted at exit. Progress on stderr, markdown on stdout. Needs root.
# A full default run takes about 6 minutes.
#
# usage: bench/locks.sh [--rounds N] [--seconds D] [--threads N] [--hotcold PATH]
#                       [--arms LIST] [--stats-runs N] [--nice N] [--clean-max PCT] [--keep]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
ROUNDS=7
DUR=5
THREADS=4
HOTCOLD=$ROOT/hotcold
ALL_ARMS=base,aa,locks,locks-min0,locks-user,perf-lock,perf-trace,klockstat,futexctn
ARMS_ARG=$ALL_ARMS
NICE=0
STATS_RUNS=2
CLEAN_MAX=10		# % of the machine used by others for a round to be clean
KEEP=0
NS_IN=1000		# critical section, ns of work
NS_OUT=200		# outside the lock, ns of work
SETTLE=0.5		# after a tool says it is attached
GAP=0.3			# between arms
READY_TIMEOUT=30	# seconds for a tool to attach
STOP_TIMEOUT=120	# seconds for a tool to exit after SIGINT

usage() {
	cat <<EOF
usage: $0 [options]
  --rounds N       rounds, each running every arm once (default $ROUNDS, minimum 5)
  --seconds D      timed phase of the workload per arm, seconds (default $DUR)
  --threads N      workload threads contending the one mutex (default $THREADS)
  --hotcold PATH   hotcold binary (default $ROOT/hotcold; copied once at start)
  --arms LIST      comma-separated subset of:
                   $ALL_ARMS
                   (default: all; base is always run)
  --stats-runs N   runs per hotcold arm in the bpf_stats pass (default $STATS_RUNS, 0 = no pass)
  --nice N         run the workload and every tool under nice -n N (default $NICE;
                   e.g. -20 on a machine others are loading)
  --clean-max PCT  a round is clean when others used <= PCT % of the machine during
                   both the arm and the baseline (default $CLEAN_MAX)
  --keep           keep the temporary directory (tool outputs, logs, raw data)
Markdown on stdout, progress on stderr. Needs root.
EOF
}

die() { echo "locks.sh: $*" >&2; exit 1; }
log() { echo "[locks] $*" >&2; }

while [[ $# -gt 0 ]]; do
	case $1 in
	--rounds) ROUNDS=${2:?}; shift 2 ;;
	--seconds) DUR=${2:?}; shift 2 ;;
	--threads) THREADS=${2:?}; shift 2 ;;
	--hotcold) HOTCOLD=${2:?}; shift 2 ;;
	--arms) ARMS_ARG=${2:?}; shift 2 ;;
	--stats-runs) STATS_RUNS=${2:?}; shift 2 ;;
	--nice) NICE=${2:?}; shift 2 ;;
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
[[ $THREADS =~ ^[0-9]+$ && $THREADS -ge 2 && $THREADS -le 256 ]] || die "--threads must be an integer in 2..256"
[[ $STATS_RUNS =~ ^[0-9]+$ ]] || die "--stats-runs must be a non-negative integer"
[[ $NICE =~ ^-?[0-9]+$ && $NICE -ge -20 && $NICE -le 19 ]] || die "--nice must be an integer in -20..19"
[[ $CLEAN_MAX =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--clean-max must be a number"
[[ $EUID -eq 0 ]] || die "needs root (BPF, perf -p on any task, sysctl, mount)"
[[ $HOTCOLD == /* ]] || HOTCOLD=$PWD/$HOTCOLD
for t in bpftool jq cc awk; do command -v "$t" >/dev/null 2>&1 || die "$t not found"; done
BPFTOOL=$(command -v bpftool)
NCPU=$(nproc)
HZ=$(getconf CLK_TCK)

# ---- state, cleanup -----------------------------------------------------------
TMP=$(mktemp -d /tmp/hotcold-locks.XXXXXX)
RAW=$TMP/raw.tsv		# pass  round  arm  key  value
: >"$RAW"
PREV_BPF_STATS=$(sysctl -n kernel.bpf_stats_enabled)
STATS_TOUCHED=0
MOUNTED_TRACEFS=0
WL_PID=""
TOOL_PID=""
NICE_CMD=()
((NICE == 0)) || NICE_CMD=(nice -n "$NICE")

# Other benchmarks on a shared machine set and restore kernel.bpf_stats_enabled
# too; one restoring 0 in the middle of our stats pass would zero our numbers.
# So besides the sysctl, the stats pass holds a BPF_ENABLE_STATS fd (the
# kernel's own reference count on the same static key): run time is
# accounted while it is open, whatever the sysctl says.
trap bench_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

is_hc_arm() { [[ $1 == locks || $1 == locks-* ]]; }

# ---- arms: which can run here -------------------------------------------------------
declare -A SKIP=()		# arm -> reason
NOTES=()			# facts found while preflighting, for the report
ARMS=(base)
IFS=, read -r -a want <<<"$ARMS_ARG"
KLOCKSTAT=$(command -v klockstat-bpfcc || echo /usr/sbin/klockstat-bpfcc)

kernel_facts() {
	local f=""
	[[ -d /sys/bus/event_source/devices/kprobe ]] || f+="no kprobe PMU (/sys/bus/event_source/devices/kprobe)"
	[[ -e /sys/kernel/debug/kprobes/blacklist ]] || f+="${f:+, }no /sys/kernel/debug/kprobes/blacklist"
	[[ -d /lib/modules/$(uname -r)/build ]] || f+="${f:+, }no kernel headers (/lib/modules/$(uname -r)/build)"
	echo "$f"
}
# preflight OUT_PREFIX CMD...: run it (<= 60 s); "" if it exited 0, else why not.
preflight() {
	local out=$1 rc=0 why
	shift
	timeout 60 "$@" >"$out.out" 2>"$out.err" </dev/null || rc=$?
	((rc == 0)) && return 0
	why=$(grep -m1 -E 'No such file|cannot attach|Failed to attach|not available|not built-in|kprobe|Error' "$out.err" ||
		tail -n1 "$out.err")
	echo "exit $rc: ${why:-no message}"
}

needs_tracefs=0
for a in "${want[@]}"; do [[ $a == perf-* || $a == klockstat ]] && needs_tracefs=1; done
if ((needs_tracefs)) && [[ ! -e /sys/kernel/tracing/events/lock/contention_begin ]]; then
	if [[ ! -e /sys/kernel/tracing/events ]]; then
		mount -t tracefs nodev /sys/kernel/tracing || die "cannot mount tracefs on /sys/kernel/tracing"
		MOUNTED_TRACEFS=1
		log "mounted tracefs on /sys/kernel/tracing (unmounted at exit)"
	fi
fi

for a in "${want[@]}"; do
	case $a in
	base) ;;
	aa) ARMS+=(aa) ;;
	locks | locks-min0 | locks-user)
		[[ -x $HOTCOLD ]] || die "hotcold binary '$HOTCOLD' not found (run make, or pass --hotcold PATH, or leave hotcold arms out of --arms)"
		"$HOTCOLD" locks --help >/dev/null 2>&1 || die "$HOTCOLD has no locks subcommand"
		ARMS+=("$a") ;;
	perf-lock | perf-trace)
		if ! command -v perf >/dev/null 2>&1; then
			SKIP[$a]="'perf' not on PATH (Debian: apt-get install linux-perf)"
			continue
		fi
		if [[ $a == perf-lock ]]; then
			[[ -e /sys/kernel/tracing/events/lock/contention_begin ]] ||
				{ SKIP[$a]="no lock:contention_begin tracepoint"; continue; }
			log "preflight: perf lock contention -b -a sleep 1 (the BPF mode the brief asks for)"
			why=$(preflight "$TMP/pf-perf-lock-b" perf lock contention -b -a sleep 1 || true)
			if [[ -n $why ]] || grep -qi 'not available\|not built-in' "$TMP/pf-perf-lock-b.err"; then
				NOTES+=("\`perf lock contention -b -p PID\` cannot run here: $(perf version 2>/dev/null) says \"$(grep -m1 -i 'not available\|not built-in\|error' "$TMP/pf-perf-lock-b.err" | sed "s/^ *//; s/[\`']//g" || echo "${why:-?}")\" — so the perf-lock arm uses the non-BPF mode: \`perf lock record\` (tracepoints lock:contention_begin/end with callchains into perf.data, every event copied to user space) and \`perf lock contention -i\` afterwards.")
			else
				NOTES+=("\`perf lock contention -b\` works here; the perf-lock arm still uses \`perf lock record -p PID\` (it filters by PID).")
			fi
		fi
		ARMS+=("$a") ;;
	klockstat)
		if [[ ! -x $KLOCKSTAT ]]; then
			SKIP[$a]="klockstat-bpfcc not installed (Debian: apt-get install bpfcc-tools)"
			continue
		fi
		log "preflight: $(basename "$KLOCKSTAT") -p $$ -d 1"
		why=$(preflight "$TMP/pf-klockstat" "$KLOCKSTAT" -p $$ -d 1 || true)
		if [[ -n $why ]]; then
			facts=$(kernel_facts)
			SKIP[$a]="\`$(basename "$KLOCKSTAT") -p PID\` fails on this kernel: $why${facts:+; $facts} (klockstat attaches kprobes to mutex_lock & co.)"
		else
			ARMS+=("$a")
		fi ;;
	futexctn)
		if command -v futexctn >/dev/null 2>&1 || command -v futexctn-bpfcc >/dev/null 2>&1; then
			SKIP[$a]="futexctn is installed but this script has no arm for it yet"
		else
			SKIP[$a]="not installable from Debian 12: bpfcc-tools $(dpkg-query -W -f='${Version}' bpfcc-tools 2>/dev/null || echo '(not installed)') ships no futexctn (it exists only in bcc's libbpf-tools, which Debian 12 does not package)"
		fi ;;
	*) die "unknown arm '$a' (known: $ALL_ARMS)" ;;
	esac
done
for a in "${!SKIP[@]}"; do log "SKIP arm $a: ${SKIP[$a]}"; done
NARMS=${#ARMS[@]}

# ---- the binaries under test ------------------------------------------------------------
HOTCOLD_SRC=$HOTCOLD
HOTCOLD_ID=""
for a in "${ARMS[@]}"; do
	if is_hc_arm "$a"; then
		hotcold_snapshot
		break
	fi
done
build lockbench
WL=$BUILD/lockbench

# ---- helpers ------------------------------------------------------------------------------
# BPF programs a process holds (program fds and link fds both name a prog_id).
# prog_snapshot IDS(comma list) -> lines "id name run_time_ns run_cnt"
cpu_all() { grep '^cpu ' /proc/stat; }

label() { # the command as run (PID = the workload)
	case $1 in
	base) echo "baseline: lockbench alone" ;;
	aa) echo "A/A: lockbench alone again" ;;
	locks) echo "hotcold locks -p PID" ;;
	locks-min0) echo "hotcold locks -p PID --min-wait 0" ;;
	locks-user) echo "hotcold locks -p PID --user-only" ;;
	perf-lock) echo "perf lock record -p PID" ;;
	perf-trace) echo "perf trace -s -e futex -p PID" ;;
	klockstat) echo "klockstat-bpfcc -p PID" ;;
	futexctn) echo "futexctn -p PID" ;;
	esac
}
target() { [[ $1 == locks ]] && echo "≥ 0.90" || echo ""; }

# start_tool ARM BASE: starts it in the background (sets TOOL_PID).
start_tool() {
	local arm=$1 base=$2 safety
	local -a cmd
	safety=$(awk -v d="$DUR" 'BEGIN{print int(d) + 300}')
	case $arm in
	locks) cmd=("$HOTCOLD" locks -p "$WL_PID" -d "$safety" -v --json -o "$base.json") ;;
	locks-min0) cmd=("$HOTCOLD" locks -p "$WL_PID" --min-wait 0 -d "$safety" -v --json -o "$base.json") ;;
	locks-user) cmd=("$HOTCOLD" locks -p "$WL_PID" --user-only -d "$safety" -v --json -o "$base.json") ;;
	perf-lock) cmd=(perf lock record -o "$base.perf.data" -p "$WL_PID") ;;
	perf-trace) cmd=(perf trace -s -e futex -p "$WL_PID") ;;
	klockstat) cmd=("$KLOCKSTAT" -p "$WL_PID") ;;
	esac
	"${NICE_CMD[@]}" "${cmd[@]}" >"$base.out" 2>"$base.err" </dev/null &
	TOOL_PID=$!
}

# wait_ready ARM BASE: 0 attached, 1 the tool exited, 2 timeout.
wait_ready() {
	local arm=$1 base=$2 t0 n last=-1 same=0
	t0=$(date +%s)
	while :; do
		kill -0 "$TOOL_PID" 2>/dev/null || return 1
		case $arm in
		locks*)
			grep -q '^hotcold: recording' "$base.err" 2>/dev/null && return 0 ;;
		perf-*)
			# perf opens one event per thread (and per event): attached when
			# the count is non-zero and has not changed for 0.3 s
			n=$(perf_fds "$TOOL_PID")
			if ((n > 0 && n == last)); then
				((++same >= 3)) && return 0
			else
				same=0
			fi
			last=$n ;;
		klockstat)
			grep -qs 'Tracing' "$base.out" && return 0 ;;
		esac
		(($(date +%s) - t0 < READY_TIMEOUT)) || return 2
		sleep 0.1
	done
}

# run_arm PASS ROUND ARM: one workload run, under the arm's tool if any.
# Sets RT (acquisitions/s, "" on failure). Globals, not $(...): the cleanup
# trap must see WL_PID and TOOL_PID.
RT=""
run_arm() {
	local pass=$1 r=$2 arm=$3 base=$TMP/$1.r$2.$3 i ids="" snap0="" snap1=""
	local t0 t1 s0 s1 c0 c1 rc=0
	RT=""
	rec "$pass" "$r" "$arm" bpf_stats_enabled "$(sysctl -n kernel.bpf_stats_enabled)"
	rec "$pass" "$r" "$arm" loadavg "$(cut -d' ' -f1 /proc/loadavg)"
	"${NICE_CMD[@]}" "$WL" -w -t "$THREADS" -i "$IN_ITERS" -o "$OUT_ITERS" "$DUR" >"$base.wl" 2>"$base.wl.err" </dev/null &
	WL_PID=$!
	WL_PID_SEEN=$WL_PID	# for reading the tool's table after the workload is gone
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
			wait_exit "$TOOL_PID" 10 || true
			TOOL_PID=""
			stop_workload
			rec "$pass" "$r" "$arm" failed 1
			return 0
		fi
		sleep "$SETTLE"
		if is_hc_arm "$arm"; then
			ids=$(pid_prog_ids "$TOOL_PID")
			[[ -n $ids ]] && snap0=$(prog_snapshot "$ids")
		fi
		c0=$(cpu_ns "$TOOL_PID")
	fi

	s0=$(cpu_all); t0=$(now_ns)
	kill -USR1 "$WL_PID"
	sleep "$DUR"
	for ((i = 0; i < 600; i++)); do
		[[ -s $base.wl ]] && break
		kill -0 "$WL_PID" 2>/dev/null || break
		sleep 0.05
	done
	s1=$(cpu_all); t1=$(now_ns)
	rec "$pass" "$r" "$arm" bpf_stats_end "$(sysctl -n kernel.bpf_stats_enabled)"
	[[ -s $base.wl ]] || die "workload printed no result ($arm, $pass round $r): $(cat "$base.wl.err")"

	if [[ -n $TOOL_PID ]]; then
		# just before stopping the tool: BPF stats and the tool's own CPU
		if [[ -n $ids ]]; then snap1=$(prog_snapshot "$ids"); fi
		c1=$(cpu_ns "$TOOL_PID")
		rec "$pass" "$r" "$arm" tool_cpu_pct "$(awk -v c=$((c1 - c0)) -v t=$((t1 - t0)) 'BEGIN{printf "%.2f", 100 * c / t}')"
		rec "$pass" "$r" "$arm" tool_hwm_kib "$(awk '/^VmHWM:/ {print $2}' /proc/"$TOOL_PID"/status 2>/dev/null || echo 0)"
		if [[ $arm == perf-trace ]]; then
			# perf trace -p prints its summary when the target exits (SIGINT
			# alone is not always honoured: seen spinning here)
			stop_workload
			wait_exit "$TOOL_PID" 15 || rc=$?
		else
			kill -INT "$TOOL_PID" 2>/dev/null || true
			wait_exit "$TOOL_PID" || rc=$?
		fi
		TOOL_PID=""
		rec "$pass" "$r" "$arm" exit "$rc"
		# 130: perf re-raises SIGINT
		if ((rc != 0 && rc != 130)); then
			log "$pass round $r: $arm exited with status $rc; stderr tail:"
			grep -v '^libbpf:' "$base.err" | tail -n 5 >&2 || true
		fi
	fi
	stop_workload

	local rt acq el wcpu vcsw ivcsw
	read -r rt acq el wcpu vcsw ivcsw <"$base.wl"
	rec "$pass" "$r" "$arm" acq_s "$rt"
	rec "$pass" "$r" "$arm" acq "$acq"
	rec "$pass" "$r" "$arm" elapsed "$el"
	rec "$pass" "$r" "$arm" wl_cpu_s "$wcpu"
	rec "$pass" "$r" "$arm" vcsw_s "$(awk -v a="$vcsw" -v e="$el" 'BEGIN{printf "%.0f", a / e}')"
	rec "$pass" "$r" "$arm" ivcsw_s "$(awk -v a="$ivcsw" -v e="$el" 'BEGIN{printf "%.0f", a / e}')"
	# cpu user nice system idle iowait irq softirq steal (USER_HZ ticks), whole machine
	awk -v a="$s0" -v b="$s1" -v w="$wcpu" -v hz="$HZ" -v n="$NCPU" -v wall=$((t1 - t0)) 'BEGIN {
		split(a, x); split(b, y); secs = wall / 1e9
		busy = 0; for (i = 2; i <= 8; i++) if (i != 5 && i != 6) busy += y[i] - x[i]
		o = 100 * (busy / hz - w) / (secs * n); if (o < 0) o = 0
		printf "others_pct %.1f\nsteal_pct %.1f\n", o, 100 * (y[9] - x[9]) / hz / (secs * n)
	}' | while read -r k v; do rec "$pass" "$r" "$arm" "$k" "$v"; done

	if [[ -n $snap0 && -n $snap1 ]]; then
		# per program: name, delta run_time_ns, delta run_cnt
		awk 'NR == FNR {t0[$1] = $3; c0[$1] = $4; next}
			($1 in t0) {printf "%s\t%d\t%d\n", $2, $3 - t0[$1], $4 - c0[$1]}' \
			<(echo "$snap0") <(echo "$snap1") |
			while IFS=$'\t' read -r name dt dc; do
				rec "$pass" "$r" "$arm" "prog:$name" "$dt $dc"
			done
	fi
	if is_hc_arm "$arm"; then
		local line
		if [[ -s $base.json ]]; then
			# the workload's futex waits on the benchmark mutex, all its futex
			# waits, and the kernel lock contentions of its threads
			jq -r --argjson pid "$WL_PID_SEEN" '
				[.[] | select(.lock == "g_bench_mutex")] as $m |
				[.[] | select(.type == "futex" and .pid == $pid)] as $f |
				[.[] | select(.type != "futex")] as $k |
				"mutex_waits \($m | map(.waits) | add // 0)",
				"mutex_wait_ns \($m | map(.total_ns) | add // 0)",
				"mutex_named \($m | length)",
				"futex_waits \($f | map(.waits) | add // 0)",
				"kernel_waits \($k | map(.waits) | add // 0)",
				"kernel_wait_ns \($k | map(.total_ns) | add // 0)",
				"stack_sample \($m[0].stacks[0].stack // "-")"' "$base.json" |
				while read -r k v; do rec "$pass" "$r" "$arm" "$k" "$v"; done
		fi
		line=$(grep -m1 'loader cpu' "$base.err" || true)
		if [[ -n $line ]]; then
			awk '{ for (i = 1; i <= NF; i++) {
					if ($(i+1) == "s" && $(i+2) == "user") u = $i
					if ($(i+1) == "s" && $(i+2) == "sys") s = $i
					if ($i == "RSS") r = $(i+1) }
				printf "loader_cpu_s %.3f\nloader_rss_kib %d\n", u + s, r }' <<<"$line" |
				while read -r k v; do rec "$pass" "$r" "$arm" "$k" "$v"; done
		fi
		line=$(grep -m1 '^locks: ' "$base.err" || true)
		[[ -z $line ]] || rec "$pass" "$r" "$arm" locks_line "$line"
		line=$(grep -m1 -Eo '^locks: [0-9]+ lost' "$base.err" || true)
		[[ -z $line ]] || rec "$pass" "$r" "$arm" ring_lost "$(awk '{print $2}' <<<"$line")"
	fi
	if [[ $arm == perf-lock ]]; then
		local line
		line=$(grep -Eo 'Captured and wrote [0-9.]+ MB [^ ]+ \([0-9]+ samples\)' "$base.err" | tail -n1 || true)
		[[ -z $line ]] || rec "$pass" "$r" "$arm" summary "${line/$base./}"
		line=$(grep -Eo 'Woken up [0-9]+ times' "$base.err" | tail -n1 || true)
		[[ -z $line ]] || rec "$pass" "$r" "$arm" woken "$line"
		# what it found: kernel lock contentions of the workload (post-processing, untimed)
		if perf lock contention -i "$base.perf.data" >"$base.contention" 2>&1; then
			rec "$pass" "$r" "$arm" kernel_waits "$(awk '$1 ~ /^[0-9]+$/ {s += $1} END {print s + 0}' "$base.contention")"
		fi
		((KEEP)) || rm -f "$base.perf.data"
	fi
	if [[ $arm == perf-trace ]]; then
		# summary per thread: "futex  calls  errors  total ..."
		rec "$pass" "$r" "$arm" futex_calls "$(awk '$1 == "futex" && $2 ~ /^[0-9]+$/ {s += $2} END {print s + 0}' "$base.err" "$base.out")"
		rec "$pass" "$r" "$arm" futex_errors "$(awk '$1 == "futex" && $3 ~ /^[0-9]+$/ {s += $3} END {print s + 0}' "$base.err" "$base.out")"
	fi
	RT=$rt
}

# ---- calibration ----------------------------------------------------------------------------
log "calibrating the work loop (lockbench -C, median of 3)"
cal=$(for i in 1 2 3; do "$WL" -C -n "$NS_IN" -N "$NS_OUT"; done | sort -n -k1,1 | sed -n 2p)
read -r IN_ITERS OUT_ITERS NS_PER_ITER <<<"$cal"
[[ $IN_ITERS =~ ^[0-9]+$ && $OUT_ITERS =~ ^[0-9]+$ ]] || die "calibration failed: '$cal'"
log "critical section: $IN_ITERS iterations (~$NS_IN ns), outside: $OUT_ITERS (~$NS_OUT ns), $NS_PER_ITER ns/iteration"
WL_CMD="lockbench -w -t $THREADS -i $IN_ITERS -o $OUT_ITERS $DUR"

# ---- run ----------------------------------------------------------------------------------
log "machine: $NCPU CPUs, kernel $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
log "arms: ${ARMS[*]}; $ROUNDS rounds x ${DUR}s, $THREADS threads; temp dir $TMP"
[[ -z $HOTCOLD_ID ]] || log "hotcold: $HOTCOLD_SRC ($HOTCOLD_ID)"
((NICE == 0)) || log "workload and tools run under nice -n $NICE"
LOAD_BEGIN=$(cut -d' ' -f1-3 /proc/loadavg)
log "warm-up: workload 1 s"
"$WL" -t "$THREADS" -i "$IN_ITERS" -o "$OUT_ITERS" 1 >/dev/null
T_BEGIN=$(date +%s)
WL_PID_SEEN=0

for ((r = 1; r <= ROUNDS; r++)); do
	order=()
	for ((i = 0; i < NARMS; i++)); do order+=("${ARMS[(i + r - 1) % NARMS]}"); done
	log "round $r/$ROUNDS: ${order[*]}"
	rec rounds "$r" - order "${order[*]}"
	for arm in "${order[@]}"; do
		run_arm rounds "$r" "$arm"
		o=$(awk -F'\t' -v r="$r" -v a="$arm" '$1 == "rounds" && $2 == r && $3 == a && $4 == "others_pct" {print $5}' "$RAW")
		log "  $arm: $(awk -v x="$RT" 'BEGIN{if (x == "") print "failed"; else printf "%.0f acquisitions/s", x}'), others used ${o:-?} % of the machine"
		sleep "$GAP"
	done
done

STATS_ARMS=()
for a in "${ARMS[@]}"; do is_hc_arm "$a" && STATS_ARMS+=("$a"); done
if ((STATS_RUNS > 0 && ${#STATS_ARMS[@]} > 0)); then
	log "bpf_stats pass: kernel.bpf_stats_enabled=1 (was $PREV_BPF_STATS), ${STATS_RUNS} run(s) of: base ${STATS_ARMS[*]}"
	STATS_TOUCHED=1
	sysctl -qw kernel.bpf_stats_enabled=1
	stats_hold
	for ((r = 1; r <= STATS_RUNS; r++)); do
		for arm in base "${STATS_ARMS[@]}"; do
			run_arm stats "$r" "$arm"
			log "  stats $arm: $(awk -v x="$RT" 'BEGIN{if (x == "") print "failed"; else printf "%.0f acquisitions/s", x}')"
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
# ratios ARM [clean]: per round acq_s / base acq_s (clean: others <= CLEAN_MAX in both)
ratios() {
	awk -F'\t' -v a="$1" -v clean="${2:-}" -v cm="$CLEAN_MAX" '
		$1 != "rounds" {next}
		$4 == "acq_s" && $3 == "base" {b[$2] = $5}
		$4 == "acq_s" && $3 == a {x[$2] = $5}
		$4 == "others_pct" && $3 == "base" {ob[$2] = $5}
		$4 == "others_pct" && $3 == a {ox[$2] = $5}
		END {for (r in x) if (r in b && b[r] > 0) {
			if (clean != "" && (ob[r] + 0 > cm + 0 || ox[r] + 0 > cm + 0)) continue
			printf "%.6f\n", x[r] / b[r] }}' "$RAW"
}
# per_s PASS ARM KEY: per run KEY / elapsed (the timed interval)
per_s() {
	awk -F'\t' -v p="$1" -v a="$2" -v k="$3" '
		$1 != p || $3 != a {next}
		$4 == k {v[$2] = $5}
		$4 == "elapsed" {e[$2] = $5}
		END {for (r in v) if (e[r] > 0) printf "%.3f\n", v[r] / e[r]}' "$RAW"
}
# per_acq PASS ARM KEY: per run KEY / acquisitions
per_acq() {
	awk -F'\t' -v p="$1" -v a="$2" -v k="$3" '
		$1 != p || $3 != a {next}
		$4 == k {v[$2] = $5}
		$4 == "acq" {n[$2] = $5}
		END {for (r in v) if (n[r] > 0) printf "%.9f\n", v[r] / n[r]}' "$RAW"
}
medf() { awk -v f="$1" '{if ($4 == 0) print "–"; else printf f, $1}' <<<"$2"; }

echo "### Run: $NCPU CPUs, kernel $(uname -r), $ROUNDS rounds × ${DUR} s, $THREADS threads"
echo
echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $NCPU CPUs, $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo), kernel $(uname -r), $(. /etc/os-release && echo "$PRETTY_NAME"); load average at start $LOAD_BEGIN, at end $(cut -d' ' -f1-3 /proc/loadavg) (a shared VM: other jobs run)."
echo
[[ -z $HOTCOLD_ID ]] || { echo "hotcold: \`$HOTCOLD_SRC\` ($HOTCOLD_ID)."; echo; }
((NICE == 0)) || { echo "Workload and tools ran under \`nice -n $NICE\`."; echo; }
echo "Workload: \`bench/workloads/lockbench.c\` (\`$WL_CMD\`): $THREADS threads lock one global \`pthread_mutex_t g_bench_mutex\` (glibc default mutex), $IN_ITERS iterations of work inside (≈ $NS_IN ns at the calibrated $NS_PER_ITER ns/iteration), $OUT_ITERS outside (≈ $NS_OUT ns). Ratio = arm's acquisitions/s ÷ the same round's baseline; median and min–max over rounds. \"others %\" = CPU used by anything but the workload (tools included) as % of the whole machine, median over the arm's runs; a clean round is one where others used ≤ $CLEAN_MAX % during both the arm and the baseline. kernel.bpf_stats_enabled in these rounds: as found at the start ($PREV_BPF_STATS), i.e. what a user gets."
echo
echo "| arm | command | acquisitions/s median | ratio median | ratio min–max | n | others % | clean-round ratio median (n) | futex waits/s (hotcold table) | target |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
for arm in "${ARMS[@]}"; do
	s_rt=$(vals rounds "$arm" acq_s | stats)
	s_o=$(vals rounds "$arm" others_pct | stats)
	s_w=$(per_s rounds "$arm" mutex_waits | stats)
	if [[ $arm == base ]]; then
		printf '| %s | `%s` | %s | 1 | – | %s | %s | – | – | |\n' "$arm" "$(label "$arm")" \
			"$(medf %.0f "$s_rt")" "$(awk '{print $4}' <<<"$s_rt")" "$(medf %.0f "$s_o")"
		continue
	fi
	s_r=$(ratios "$arm" | stats)
	s_c=$(ratios "$arm" clean | stats)
	printf '| %s | `%s` | %s | %s | %s | %s | %s | %s | %s |\n' "$arm" "$(label "$arm")" \
		"$(awk '{if ($4 == 0) print "failed"; else printf "%.0f", $1}' <<<"$s_rt")" \
		"$(fmt %.3f "$s_r")" "$(awk '{print $4}' <<<"$s_r")" "$(medf %.0f "$s_o")" \
		"$(awk '{if ($4 == 0) print "– (0)"; else printf "%.3f (%d)", $1, $4}' <<<"$s_c")" \
		"$(is_hc_arm "$arm" && medf %.0f "$s_w" || echo –)" "$(target "$arm")"
done
for a in "${!SKIP[@]}"; do
	printf '| %s | `%s` | skipped | – | – | – | – | – | – | %s |\n' "$a" "$(label "$a")" "$(target "$a")"
done
if ((${#SKIP[@]})); then
	echo
	echo "Skipped arms:"
	echo
	for a in "${!SKIP[@]}"; do echo "- **$a**: ${SKIP[$a]}"; done
fi
if ((${#NOTES[@]})); then
	echo
	for n in "${NOTES[@]}"; do echo "- $n"; done
fi
fails=$(awk -F'\t' '$4 == "failed"' "$RAW" | wc -l)
((fails == 0)) || { echo; echo "**$fails tool run(s) failed to attach; see stderr.**"; }
echo
if have aa; then
	echo "Noise floor (A/A): |1 − ratio| up to $(ratios aa | awk '{d = $1 - 1; if (d < 0) d = -d; if (d > m) m = d} END {printf "%.3f", m}') (worst round), median ratio $(ratios aa | stats | awk '{printf "%.3f", $1}')."
	echo
fi
ext=$(awk -F'\t' '$1 == "rounds" && ($4 == "bpf_stats_enabled" || $4 == "bpf_stats_end") && $5 != 0 {print $2, $3}' "$RAW" | sort -u | wc -l)
((ext == 0)) || { echo "**kernel.bpf_stats_enabled was 1 (set by someone else) at the start or end of $ext of the $(awk -F'\t' '$1 == "rounds" && $4 == "acq_s"' "$RAW" | wc -l) arm runs of the throughput rounds** (it adds two clock reads to every BPF program run: hotcold's arms look a little worse in those runs)."; echo; }

echo "Per round (ratio vs that round's baseline; run order in the second column; others = % of the machine used by anything but the workload, baseline / worst arm):"
echo
hdr="| round | order"; sep="| ---: | ---"
for arm in "${ARMS[@]}"; do [[ $arm == base ]] && continue; hdr+=" | $arm"; sep+=" | ---:"; done
echo "$hdr | base acq/s | others % | mutex futex waits/s under locks |"; echo "$sep | ---: | ---: | ---: |"
for ((r = 1; r <= ROUNDS; r++)); do
	line="| $r | $(awk -F'\t' -v r=$r '$1 == "rounds" && $2 == r && $4 == "order" {print $5}' "$RAW")"
	b=$(awk -F'\t' -v r=$r '$1 == "rounds" && $2 == r && $3 == "base" && $4 == "acq_s" {print $5}' "$RAW")
	for arm in "${ARMS[@]}"; do
		[[ $arm == base ]] && continue
		x=$(awk -F'\t' -v r=$r -v a="$arm" '$1 == "rounds" && $2 == r && $3 == a && $4 == "acq_s" {print $5}' "$RAW")
		if [[ -n $x && -n $b ]]; then line+=" | $(awk -v x="$x" -v b="$b" 'BEGIN{printf "%.3f", x / b}')"
		else line+=" | failed"; fi
	done
	line+=" | $(awk -v b="${b:-0}" 'BEGIN{printf "%.0f", b}')"
	line+=" | $(awk -F'\t' -v r=$r '$1 == "rounds" && $2 == r && $4 == "others_pct" {
		if ($3 == "base") b = $5; else if ($5 + 0 > w + 0) w = $5 } END {printf "%s / %s", b, w + 0}' "$RAW")"
	line+=" | $(awk -F'\t' -v r=$r '$1 == "rounds" && $2 == r && $3 == "locks" {
		if ($4 == "mutex_waits") w = $5; if ($4 == "elapsed") e = $5 } END {if (e > 0 && w != "") printf "%.0f", w / e; else print "–"}' "$RAW")"
	echo "$line |"
done

hc_arms=()
for a in locks locks-min0 locks-user; do have "$a" && hc_arms+=("$a"); done
if ((${#hc_arms[@]})); then
	echo
	echo "What hotcold saw (throughput rounds, median over rounds): futex waits on \`g_bench_mutex\` (the table's row for the lock, named by its symbol) per second of the timed phase and per 1000 acquisitions, their mean wait, and the kernel lock contentions (lock:contention_*) of the workload's threads:"
	echo
	echo "| arm | mutex futex waits/s | per 1000 acquisitions | mean wait µs | all futex waits/s of the process | kernel contentions/s | rounds with the lock named | loader CPU s (user+sys) | min–max | max RSS MiB | tool CPU % of one core (timed phase) | ring losses (sum) |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	for a in "${hc_arms[@]}"; do
		mw=$(per_s rounds "$a" mutex_waits | stats)
		pk=$(per_acq rounds "$a" mutex_waits | awk '{print $1 * 1000}' | stats)
		mean=$(awk -F'\t' -v a="$a" '$1 == "rounds" && $3 == a && $4 == "mutex_waits" {n[$2] = $5}
			$1 == "rounds" && $3 == a && $4 == "mutex_wait_ns" {t[$2] = $5}
			END {for (r in n) if (n[r] > 0) printf "%.3f\n", t[r] / n[r] / 1000}' "$RAW" | stats)
		fw=$(per_s rounds "$a" futex_waits | stats)
		kw=$(per_s rounds "$a" kernel_waits | stats)
		named=$(vals rounds "$a" mutex_named | awk '$1 > 0' | wc -l)
		printf '| %s | %s | %s | %s | %s | %s | %s/%s | %s | %s | %s | %s |\n' "$a" \
			"$(medf %.0f "$mw")" "$(medf %.2f "$pk")" "$(medf %.0f "$mean")" "$(medf %.0f "$fw")" "$(medf %.0f "$kw")" \
			"$named" "$(vals rounds "$a" acq_s | wc -l)" \
			"$(fmt %.3f "$(vals rounds "$a" loader_cpu_s | stats)")" \
			"$(vals rounds "$a" loader_rss_kib | awk '{print $1 / 1024}' | stats | awk '{printf "%.1f", $1}')" \
			"$(vals rounds "$a" tool_cpu_pct | stats | awk '{printf "%.2f", $1}')" \
			"$(vals rounds "$a" ring_lost | awk '{s += $1} END {print s + 0}')"
	done
	echo
	for a in "${hc_arms[@]}"; do
		s=$(vals rounds "$a" locks_line | tail -n1)
		[[ -z $s ]] || echo "- $a, last round: \`$s\`"
	done
	s=$(vals rounds locks stack_sample | tail -n1)
	[[ -z $s || $s == - ]] || echo "- top stack for the lock (locks, last round): \`$s\`"
fi

if ((STATS_RUNS > 0 && ${#STATS_ARMS[@]} > 0)); then
	echo
	echo "BPF run time per event (kernel.bpf_stats_enabled=1, separate pass, $STATS_RUNS run(s) per arm; deltas of run_time_ns and run_cnt from the release of the timed phase to just before hotcold was stopped; every program hotcold holds; median over runs). sys_enter/sys_exit and lock:contention_* are system-wide hooks: their events/s count **every task's** syscalls and contentions, not only the workload's. \"per acq\" = per workload acquisition; \"CPU %\" = BPF run time as % of one CPU."
	echo
	echo "| arm | program | ns/event | events/s | events per acq | BPF ns per acq | BPF CPU % of one core | ratio in this pass |"
	echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
	sbase=$(vals stats base acq_s | stats)
	for arm in "${STATS_ARMS[@]}"; do
		srt=$(vals stats "$arm" acq_s | stats)
		ratio=$(awk -v a="$(med "$srt")" -v b="$(med "$sbase")" 'BEGIN{if (b > 0 && a != "-") printf "%.3f", a / b; else print "–"}')
		progs=$(awk -F'\t' -v a="$arm" '$1 == "stats" && $3 == a && $4 ~ /^prog:/ {print substr($4, 6)}' "$RAW" | sort -u)
		total_ns="" total_cpu=""
		while read -r p; do
			[[ -n $p ]] || continue
			# per run: ns/event, events/s, events/acq, ns/acq, cpu%
			per=$(awk -F'\t' -v a="$arm" -v p="prog:$p" '
				$1 != "stats" || $3 != a {next}
				$4 == "acq" {n[$2] = $5}
				$4 == "elapsed" {e[$2] = $5}
				$4 == p {split($5, v, " "); t[$2] = v[1]; c[$2] = v[2]}
				END {for (r in t) if (n[r] > 0 && e[r] > 0)
					printf "%s %s %s %s %s\n", (c[r] > 0 ? t[r] / c[r] : 0), c[r] / e[r], c[r] / n[r], t[r] / n[r], 100 * t[r] / 1e9 / e[r]}' "$RAW")
			[[ -n $per ]] || continue
			ns=$(awk '{print $1}' <<<"$per" | stats)
			ev=$(awk '{print $2}' <<<"$per" | stats)
			evq=$(awk '{print $3}' <<<"$per" | stats)
			nsq=$(awk '{print $4}' <<<"$per" | stats)
			cpu=$(awk '{print $5}' <<<"$per" | stats)
			printf '| %s | `%s` | %.0f | %.0f | %.4f | %.1f | %.2f | %s |\n' "$arm" "$p" "$(med "$ns")" "$(med "$ev")" \
				"$(med "$evq")" "$(med "$nsq")" "$(med "$cpu")" "$ratio"
			total_ns=$(awk -v a="${total_ns:-0}" -v b="$(med "$nsq")" 'BEGIN{print a + b}')
			total_cpu=$(awk -v a="${total_cpu:-0}" -v b="$(med "$cpu")" 'BEGIN{print a + b}')
		done <<<"$progs"
		[[ -z $total_ns ]] || printf '| %s | **all its programs** | | | | **%.1f** | **%.2f** | |\n' "$arm" "$total_ns" "$total_cpu"
	done
	echo
	echo "Where sys_exit's time goes (per stats run, median): its run time beyond run_cnt × sys_enter's ns/event (the cost of a syscall that is not a tracked futex wait: one task-storage lookup ≈ sys_enter's id check) divided by the timed futex waits of the workload (hotcold's table) = BPF ns per timed futex wait (aggregation + stack for waits ≥ --min-wait); lock:contention_end's ns/event is per kernel contention:"
	echo
	echo "| arm | futex waits/s (process) | sys_exit ns per futex wait | kernel contentions/s | contention_end ns/event | sys_enter+sys_exit events/s, all tasks | share of them that are the workload's futex waits |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
	for arm in "${STATS_ARMS[@]}"; do
		awk -F'\t' -v a="$arm" '
			$1 != "stats" || $3 != a {next}
			$4 == "elapsed" {e[$2] = $5}
			$4 == "futex_waits" {w[$2] = $5}
			$4 == "kernel_waits" {k[$2] = $5}
			$4 == "prog:locks_sys_enter" {split($5, v, " "); te[$2] = v[1]; ne[$2] = v[2]}
			$4 == "prog:locks_sys_exit" {split($5, v, " "); tx[$2] = v[1]; nx[$2] = v[2]}
			$4 == "prog:locks_contention_end" {split($5, v, " "); tc[$2] = v[1]; nc[$2] = v[2]}
			END {for (r in e) if (e[r] > 0 && nx[r] > 0) {
				fast = ne[r] > 0 ? te[r] / ne[r] : 0
				printf "%s %s %s %s %s %s\n", w[r] / e[r], (w[r] > 0 ? (tx[r] - nx[r] * fast) / w[r] : -1),
					k[r] / e[r], (nc[r] > 0 ? tc[r] / nc[r] : -1), (ne[r] + nx[r]) / e[r],
					(ne[r] + nx[r] > 0 ? 100 * 2 * w[r] / (ne[r] + nx[r]) : 0)
			}}' "$RAW" >"$TMP/derived.$arm"
		[[ -s $TMP/derived.$arm ]] || continue
		col() { awk -v c="$1" '{print $c}' "$TMP/derived.$arm" | stats; }
		printf '| %s | %s | %s | %s | %s | %s | %s %% |\n' "$arm" "$(medf %.0f "$(col 1)")" \
			"$(col 2 | awk '{if ($4 == 0 || $1 < 0) print "–"; else printf "%.0f", $1}')" "$(medf %.0f "$(col 3)")" \
			"$(col 4 | awk '{if ($4 == 0 || $1 < 0) print "–"; else printf "%.0f", $1}')" "$(medf %.0f "$(col 5)")" \
			"$(medf %.2f "$(col 6)")"
	done
	bad=$(awk -F'\t' '$1 == "stats" && $4 == "bpf_stats_end" && $5 != 1' "$RAW" | wc -l)
	if ((bad > 0)); then
		echo
		if grep -q '^held' "$TMP/stats_hold" 2>/dev/null; then
			echo "kernel.bpf_stats_enabled was switched off by someone else during $bad stats run(s); run time stayed accounted through the BPF_ENABLE_STATS fd this script held."
		else
			echo "**kernel.bpf_stats_enabled was switched off by someone else during $bad stats run(s): their numbers are partial.**"
		fi
	fi
	echo
	echo "Baseline in this pass: $(awk '{printf "%.0f", $1}' <<<"$sbase") acquisitions/s; mutex futex waits/s in this pass: $(for a in "${STATS_ARMS[@]}"; do printf '%s %s; ' "$a" "$(per_s stats "$a" mutex_waits | stats | awk '{printf "%.0f", $1}')"; done | sed 's/; $//'). bpf_stats itself adds two clock reads per program run, so ratios in this pass are a little below the table above."
fi

others=()
for a in perf-lock perf-trace klockstat; do have "$a" && others+=("$a"); done
if ((${#others[@]})); then
	echo
	echo "Other tools (throughput rounds, median): process CPU over the timed phase (% of one core), peak RSS, and what they saw:"
	echo
	for a in "${others[@]}"; do
		extra=""
		case $a in
		perf-lock)
			extra="; kernel lock contentions/s recorded (\`perf lock contention -i\`): $(per_s rounds perf-lock kernel_waits | stats | awk '{printf "%.0f", $1}')"
			s=$(vals rounds perf-lock summary | tail -n1); [[ -z $s ]] || extra+="; last round: $s"
			s=$(vals rounds perf-lock woken | tail -n1); [[ -z $s ]] || extra+=", $s" ;;
		perf-trace)
			extra="; futex calls/s of the workload (waits and wakes): $(per_s rounds perf-trace futex_calls | stats | awk '{printf "%.0f", $1}'), of which errors (EAGAIN: the lock word changed before the wait)/s: $(per_s rounds perf-trace futex_errors | stats | awk '{printf "%.0f", $1}')" ;;
		esac
		echo "- $a: $(vals rounds "$a" tool_cpu_pct | stats | awk '{printf "%.1f", $1}') % CPU, $(vals rounds "$a" tool_hwm_kib | stats | awk '{printf "%.1f", $1 / 1024}') MiB$extra"
	done
fi
if ((KEEP)); then echo; echo "Raw data: \`$RAW\`"; fi
