# Helpers for the agent's liveness tests (sourced after lib.sh, or by bench/):
# on-time intervals from index.jsonl, SIGTERM timing, process churn.

# index_check INDEX INTERVAL_MS [FREEZES [LAST]]: one line "complete late max_ms gaps partial"
# (intervals not cut by a stop; of them longer than INTERVAL_MS + 10%; the
# longest; starts not equal to the previous end; 1 if the last is partial).
# An interval's length is end_ms - start_ms: the loop ends it when it sees
# its timer, so a stalled loop shows as a long interval.
#
# With FREEZES (freeze_canary's output: "<realtime ms> <ms late> <cpu>" per
# wakeup of a CPU's real-time thread over 20 ms late, i.e. that CPU stood
# still), an interval is late only past 10% plus the time in it that some
# CPU stood still (their union: the agent's loop may have been on either;
# an upper bound): the loop cannot end an interval while its CPU is stopped.
#
# With LAST, only the last LAST complete intervals are judged (gaps: 0).
index_check() {
	python3 - "$1" "$2" "${3:-}" "${4:-0}" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
iv = int(sys.argv[2])
last = int(sys.argv[4])
frz = []
if sys.argv[3]:
    for l in open(sys.argv[3]):
        t, ms = map(int, l.split()[:2])
        frz.append((t - ms, t))
frz.sort()
union = []
for a, b in frz:
    if union and a <= union[-1][1]:
        union[-1][1] = max(union[-1][1], b)
    else:
        union.append([a, b])
def frozen(r):
    return sum(max(0, min(b, r["end_ms"]) - max(a, r["start_ms"])) for a, b in union)
full = [r for r in rows if not r.get("partial")]
if last:
    full = full[-last:]
late = [r for r in full if r["end_ms"] - r["start_ms"] > iv * 1.1 + frozen(r)]
mx = max([r["end_ms"] - r["start_ms"] for r in full] or [0])
gaps = 0 if last else sum(1 for a, b in zip(rows, rows[1:]) if b["start_ms"] != a["end_ms"])
print(len(full), len(late), mx, gaps, int(bool(rows) and bool(rows[-1].get("partial"))))
PY
}

# freeze_summary FREEZES: freeze_canary's output in one phrase for a check's message
freeze_summary() {
	awk '{ n++; t += $2; if ($2 > m) m = $2 } END {
		printf "a CPU stood still %d times, %d ms in all, longest %d ms", n, t, m }' "$1"
}

# term_wait PID LIMIT_S: SIGTERM, wait up to LIMIT_S for the exit; prints
# the seconds it took (3 decimals). Returns 1 (after SIGKILL) if it did not exit.
term_wait() {
	local pid=$1 lim=$2 t0 t1
	t0=$(date +%s.%N)
	kill -TERM "$pid" 2>/dev/null
	while kill -0 "$pid" 2>/dev/null; do
		t1=$(date +%s.%N)
		if awk -v a="$t0" -v b="$t1" -v l="$lim" 'BEGIN { exit !(b - a > l) }'; then
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			echo "timeout"
			return 1
		fi
		sleep 0.02
	done
	t1=$(date +%s.%N)
	wait "$pid" 2>/dev/null
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}

# churn_start DIR NBIN SECONDS: the issue's churn, started in the background
# (pids appended to CHURN_PIDS): short-lived programs from NBIN fresh
# binaries (copies of $WL/storm under new names: new inodes, so the
# symbolizer and unwinder meet each as a new object), /bin/true storms, and
# a context-switch-heavy pair (1-byte pipe copies). All stop after SECONDS.
CHURN_PIDS=()
churn_start() {
	local dir=$1 nbin=$2 secs=$3 i
	mkdir -p "$dir"
	for i in $(seq 1 "$nbin"); do cp "$WL/storm" "$dir/churn_bin_$i"; done
	for i in 1 2 3; do
		bash -c "end=\$((SECONDS + $secs)); while [ \$SECONDS -lt \$end ]; do
			for b in $dir/churn_bin_*; do \"\$b\" 1; done; /bin/true; done" \
			>/dev/null 2>&1 &
		CHURN_PIDS+=($!)
	done
	bash -c "end=\$((SECONDS + $secs)); while [ \$SECONDS -lt \$end ]; do
		for j in 1 2 3 4 5 6; do /bin/true & done; wait; done" >/dev/null 2>&1 &
	CHURN_PIDS+=($!)
	# each end under its own timeout: killing one leaves no orphan copying forever
	timeout "$secs" dd if=/dev/zero bs=1 2>/dev/null | timeout "$secs" dd of=/dev/null bs=1 2>/dev/null &
	CHURN_PIDS+=($!)
}

churn_stop() {
	local p
	for p in "${CHURN_PIDS[@]+"${CHURN_PIDS[@]}"}"; do kill "$p" 2>/dev/null; done
	# with none, a bare wait would wait for every child (a canary's 600 s)
	[ ${#CHURN_PIDS[@]} -eq 0 ] || wait "${CHURN_PIDS[@]}" 2>/dev/null
	CHURN_PIDS=()
}
