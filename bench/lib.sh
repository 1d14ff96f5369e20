# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench/lib.sh — helpers the side-by-side benchmarks share (sourced by
# sched.sh, locks.sh, oncpu.sh, oncpu_timing.sh and counters_switch.sh;
# each keeps its own arms, workload and report). Scripts set RAW (the
# raw-record file), ARMS, BPFTOOL, WL_PID, STOP_TIMEOUT and log() before
# calling these.

# rec PASS ROUND ARM KEY VALUE: one raw measurement (tab-separated) into $RAW
rec() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >>"$RAW"; }
# vals PASS ARM KEY: the values recorded for them, one per line
vals() { awk -F'\t' -v p="$1" -v a="$2" -v k="$3" '$1 == p && $3 == a && $4 == k {print $5}' "$RAW"; }

now_ns() { date +%s%N; }

# alternate NAME ROUNDS FN BINARY...: FN BINARY for every binary in turn, ROUNDS
# times (the arms alternate), progress on stderr
alternate() {
	local name=$1 rounds=$2 fn=$3 r b
	shift 3
	for r in $(seq "$rounds"); do
		for b in "$@"; do
			echo "[$name] round $r/$rounds: $b" >&2
			"$fn" "$b"
		done
	done
}
have() { local a; for a in "${ARMS[@]}"; do [[ $a == "$1" ]] && return 0; done; return 1; }

# pid_prog_ids PID: ids of the BPF programs PID holds, comma-separated
pid_prog_ids() {
	local f
	for f in /proc/"$1"/fdinfo/*; do
		awk '/^prog_id:/ {print $2}' "$f" 2>/dev/null || true
	done | sort -un | paste -sd, -
}

# prog_snapshot IDS: "id name run_time_ns run_cnt" per program
prog_snapshot() {
	"$BPFTOOL" prog show -j 2>/dev/null | jq -r --arg ids "$1" '
		($ids | split(",") | map(tonumber)) as $want |
		.[] | select(.id as $i | $want | index($i)) |
		"\(.id) \(.name) \(.run_time_ns // 0) \(.run_cnt // 0)"'
}

# cpu_ns PID: CPU time of all its threads so far (schedstat), ns
cpu_ns() {
	local sum=0 f v rest
	for f in /proc/"$1"/task/*/schedstat; do
		read -r v rest <"$f" 2>/dev/null || continue
		sum=$((sum + v))
	done
	echo "$sum"
}

perf_fds() { find /proc/"$1"/fd -lname 'anon_inode:\[perf_event\]' 2>/dev/null | wc -l; }

# wait_exit PID [TIMEOUT]: up to TIMEOUT s (default STOP_TIMEOUT), then SIGKILL.
# Returns the exit status.
wait_exit() {
	local pid=$1 tmo=${2:-$STOP_TIMEOUT} i rc=0
	for ((i = 0; i < tmo * 10; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		log "pid $pid did not exit ${tmo}s after it was told to: SIGKILL"
		kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" || rc=$?
	return "$rc"
}

# stop_workload: release a workload parked after its timed phase (SIGUSR1), reap it
stop_workload() {
	[[ -n $WL_PID ]] || return 0
	kill -USR1 "$WL_PID" 2>/dev/null || true
	local i
	for ((i = 0; i < 100; i++)); do
		kill -0 "$WL_PID" 2>/dev/null || break
		sleep 0.05
	done
	kill -KILL "$WL_PID" 2>/dev/null || true
	wait "$WL_PID" 2>/dev/null || true
	WL_PID=""
}

# stats: numbers on stdin -> "median min max n"
stats() {
	sort -g | awk '{v[NR] = $1} END {
		if (NR == 0) { print "- - - 0"; exit }
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.6f %.6f %.6f %d\n", m, v[1], v[NR], NR }'
}

fmt() { # fmt PRINTF-FORMAT "median min max n" -> "M | MIN–MAX"
	local f=$1 m lo hi n
	read -r m lo hi n <<<"$2"
	if [[ $n == 0 ]]; then echo "– | –"; return; fi
	# shellcheck disable=SC2059 # the format is the caller's
	printf "$f | $f–$f" "$m" "$lo" "$hi"
}

med() { awk '{print $1}' <<<"$1"; }

# stats_hold: keep BPF run-time stats on with a held BPF_ENABLE_STATS fd. The
# kernel.bpf_stats_enabled sysctl is one global switch others on the machine
# flip (and "restore" to 0 in their traps); the fd keeps stats on until it is
# closed, whatever the sysctl. Sets HOLD_PID; "" if it could not be held.
HOLD_PID=""
stats_hold() {
	command -v python3 >/dev/null 2>&1 || { log "no python3: bpf_stats only through the sysctl"; return 0; }
	python3 -c '
import ctypes, os, signal
libc = ctypes.CDLL(None, use_errno=True)
attr = ctypes.create_string_buffer(128)   # union bpf_attr; enable_stats.type = BPF_STATS_RUN_TIME (0)
nr = {"x86_64": 321, "aarch64": 280}.get(os.uname().machine, -1)
fd = libc.syscall(nr, 32, attr, 128) if nr > 0 else -1                 # SYS_bpf, BPF_ENABLE_STATS
print("held" if fd >= 0 else "failed: " + os.strerror(ctypes.get_errno()), flush=True)
if fd >= 0:
    signal.pause()' >"$TMP/stats_hold" 2>&1 &
	HOLD_PID=$!
	local i
	for ((i = 0; i < 50; i++)); do [[ -s $TMP/stats_hold ]] && break; sleep 0.1; done
	if grep -q '^held' "$TMP/stats_hold" 2>/dev/null; then
		log "BPF_ENABLE_STATS fd held"
	else
		log "could not hold a BPF_ENABLE_STATS fd ($(cat "$TMP/stats_hold" 2>/dev/null)); relying on the sysctl alone"
		stats_release
	fi
}
stats_release() {
	[[ -n $HOLD_PID ]] || return 0
	kill "$HOLD_PID" 2>/dev/null || true
	wait "$HOLD_PID" 2>/dev/null || true
	HOLD_PID=""
}

# stop_tool PID: SIGINT, up to 5 s, then SIGKILL (cleanup traps)
stop_tool() {
	local pid=$1 i
	[[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 0
	log "cleanup: stopping tool pid $pid"
	kill -INT "$pid" 2>/dev/null || true
	for ((i = 0; i < 50; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# tracefs_unmount: undo our mount of /sys/kernel/tracing, if it is still only ours
tracefs_unmount() {
	# a mount stacked on it later is someone else's
	if (($(awk '$2 == "/sys/kernel/tracing"' /proc/mounts | wc -l) == 1)); then
		umount /sys/kernel/tracing 2>/dev/null || log "cleanup: could not unmount /sys/kernel/tracing (busy?)"
	else
		log "cleanup: left /sys/kernel/tracing mounted (someone else mounted tracefs on it too)"
	fi
}

# bench_cleanup: the EXIT trap of a side-by-side benchmark: stop the tool and
# the workload, release BPF stats (fd and sysctl as found), unmount a tracefs
# we mounted, drop TMP unless KEEP. Uses TOOL_PID, WL_PID, STATS_TOUCHED,
# PREV_BPF_STATS, MOUNTED_TRACEFS, KEEP and TMP.
bench_cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	stop_tool "$TOOL_PID"
	if [[ -n $WL_PID ]] && kill -0 "$WL_PID" 2>/dev/null; then
		kill -KILL "$WL_PID" 2>/dev/null || true
		wait "$WL_PID" 2>/dev/null || true
	fi
	stats_release
	if ((STATS_TOUCHED)); then
		sysctl -qw kernel.bpf_stats_enabled="$PREV_BPF_STATS" || true
	fi
	((MOUNTED_TRACEFS)) && tracefs_unmount
	if ((KEEP)); then log "kept $TMP"; else rm -rf "$TMP"; fi
	exit "$rc"
}

# hotcold_snapshot: copy $HOTCOLD into $TMP (a rebuild during the run changes
# nothing) and describe it: HOTCOLD_SRC (the original), HOTCOLD (the copy),
# HOTCOLD_ID (hash, build time, commit).
hotcold_snapshot() {
	local commit
	HOTCOLD_SRC=$HOTCOLD
	cp "$HOTCOLD_SRC" "$TMP/hotcold"
	HOTCOLD=$TMP/hotcold
	HOTCOLD_ID="sha256 $(sha256sum "$HOTCOLD" | cut -c1-12), built $(date -r "$HOTCOLD_SRC" '+%F %T')"
	if commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null); then
		HOTCOLD_ID+=", tree at commit $commit (plus any uncommitted changes)"
	fi
}

# build NAME: bench/workloads/NAME.c -> $BUILD/NAME (bench/.build), if out of date
BUILD=$ROOT/bench/.build
build() {
	local src=$ROOT/bench/workloads/$1.c bin=$BUILD/$1
	if [[ ! -x $bin || $src -nt $bin ]]; then
		mkdir -p "$BUILD"
		log "building $bin"
		cc -O2 -g -fno-omit-frame-pointer -Wall -Wextra -pthread -o "$bin.tmp.$$" "$src"
		mv "$bin.tmp.$$" "$bin"
	fi
}
