#!/bin/bash
# --label cmdline: two processes with one comm ("titlework") and two
# process titles written over their argv, PostgreSQL-style ("titlework:
# alpha", "titlework: beta"), are told apart in record output (plain and
# --per-pid) and in an agent interval; beta exits first, so its label must
# outlive its exit until the profile is written. Negative control: by comm
# (the default) they are one root. Samples are checked against the CPU time
# each process measured itself.
. "$(dirname "$0")/lib.sh"

F=99
PAD=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
# samples of SECS CPU seconds at F Hz: ticks are charged by CPU time, so the
# count is SECS * F; the dithered period makes it a random count, taken as at
# most Poisson (3 sigma: 3 * sqrt(n)), + 3 for the partial ticks at the start
# and end and a late tick on a loaded machine. At n = 149 (alpha) that is
# +-40, so alpha (2x) and beta are never mistaken for each other. Above, the
# steal the ticks saw and kept (docs/record.md; the record's -v, both
# processes together) adds up to its own count of intervals.
check_root() {
	local file=$1 root=$2 truth=$3 what=$4 n exp tol up
	n=$(folded_with_root "$file" "$root")
	exp=$(awk -v s="$truth" -v f=$F 'BEGIN { printf "%.0f", s * f }')
	tol=$(awk -v e="$exp" 'BEGIN { printf "%.0f", 3 * sqrt(e) + 3 }')
	up=$(awk -v k="${STEAL_UP_MS:-$(steal_kept_ms "$TMP/err")}" -v f=$F 'BEGIN { printf "%.0f", k * f / 1000 + 0.5 }')
	[ "$n" -ge $((exp - tol)) ] && [ "$n" -le $((exp + tol + up)) ] &&
		ok "$what: root '$root' $n samples, truth $exp +- $tol (+ $up of steal kept)" ||
		bad "$what: root '$root' $n samples, truth $exp +- $tol (+ $up of steal kept); roots: $(awk '{ r = $0; sub(/;.*/, "", r); n[r] += $NF } END { for (r in n) print n[r], r }' "$file" | sort -rn | head -6 | paste -sd',')${5:+; $5}"
}

run_record() {
	local out=$1
	shift
	rm -f "$TMP/alpha" "$TMP/beta"
	"$HOTCOLD" record -v -F $F -o "$out" "$@" -- "$WL/titles" 1.5 "$TMP" $PAD ${LATE:-} 2>"$TMP/err"
	local rc=$?
	[ $rc -eq 0 ] || { bad "record $*: exit $rc: $(tail -3 "$TMP/err")"; return 1; }
	[ -s "$TMP/alpha" ] && [ -s "$TMP/beta" ] || { bad "workload wrote no truth"; return 1; }
}

# ---- record --label cmdline
if run_record "$TMP/cmd.folded" --label cmdline; then
	check_root "$TMP/cmd.folded" "titlework: alpha" "$(cat "$TMP/alpha")" "record --label cmdline"
	check_root "$TMP/cmd.folded" "titlework: beta" "$(cat "$TMP/beta")" "record --label cmdline (exited first)"
	n=$(folded_with_root "$TMP/cmd.folded" titlework)
	[ "$n" -le 2 ] && ok "$n samples left under the comm 'titlework'" || bad "$n samples rooted at the comm"
	n=$(folded_with_frame "$TMP/cmd.folded" spin_titled)
	[ "$n" -gt 0 ] && ok "stacks below the label named (spin_titled: $n)" || bad "no spin_titled frame"
fi

# ---- a title set after the first read: each child spins 50 ms of CPU under
# its parent's command line first, so the read at its first sample (at ~10 ms
# of its CPU, 99 Hz) sees that; the title must be read again while beta
# lives (~0.8 s). Before session 15 the second read came at the first drain
# (every 1 s from the start), after beta was gone: 0 of its samples under its
# title in 12 runs of 12 of a program built like it.
if LATE=0.05 run_record "$TMP/late.folded" --label cmdline; then
	check_root "$TMP/late.folded" "titlework: beta" "$(cat "$TMP/beta")" "record --label cmdline, title set late (exited first)"
	check_root "$TMP/late.folded" "titlework: alpha" "$(cat "$TMP/alpha")" "record --label cmdline, title set late"
fi

# ---- --per-pid keeps the -PID suffix after the label
if run_record "$TMP/pid.folded" --label cmdline --per-pid; then
	n=$(awk '{ split($0, fr, ";"); if (fr[1] ~ /^titlework: alpha-[0-9]+$/) t += $NF } END { print t + 0 }' "$TMP/pid.folded")
	exp=$(awk -v s="$(cat "$TMP/alpha")" -v f=$F 'BEGIN { printf "%.0f", s * f }')
	tol=$(awk -v e="$exp" 'BEGIN { printf "%.0f", 3 * sqrt(e) + 3 }')
	up=$(awk -v k="$(steal_kept_ms "$TMP/err")" -v f=$F 'BEGIN { printf "%.0f", k * f / 1000 + 0.5 }')
	[ "$n" -ge $((exp - tol)) ] && [ "$n" -le $((exp + tol + up)) ] &&
		ok "--per-pid: 'titlework: alpha-PID' $n samples (truth $exp +- $tol, + $up of steal kept)" ||
		bad "--per-pid: 'titlework: alpha-PID' $n samples (truth $exp +- $tol, + $up of steal kept): $(cut -d';' -f1 "$TMP/pid.folded" | sort -u | head)"
fi

# ---- negative control: by comm, one root for both
if run_record "$TMP/comm.folded"; then
	both=$(awk -v a="$(cat "$TMP/alpha")" -v b="$(cat "$TMP/beta")" 'BEGIN { print a + b }')
	check_root "$TMP/comm.folded" titlework "$both" "by comm (control)"
	n=$(awk '{ if ($0 ~ /^titlework: /) t += $NF } END { print t + 0 }' "$TMP/comm.folded")
	[ "$n" -eq 0 ] && ok "by comm: no title roots" || bad "by comm: $n samples under a title"
fi

# ---- bad value: exit 2
"$HOTCOLD" record --label argv -d 1 -o "$TMP/x" 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q -- '--label' "$TMP/err" && ok "--label argv: exit 2" || bad "--label argv: rc $rc"

# ---- agent: label = cmdline in the config, 2 s intervals, system-wide
D=$TMP/hist
printf 'dir = %s\ninterval = 2s\nlabel = cmdline\nfrequency = %s\n' "$D" $F > "$TMP/a.conf"
"$HOTCOLD" agent --config "$TMP/a.conf" 2>"$TMP/agent.err" &
ag=$!
cleanup_hooks+=("kill $ag 2>/dev/null")
wait_log 'agent: interval 1:' 30 "$TMP/agent.err" || bad "agent wrote no interval: $(tail -3 "$TMP/agent.err")"
rm -f "$TMP/alpha" "$TMP/beta"
st0=$(steal_ms)
"$WL/titles" 1.5 "$TMP" $PAD
# The agent prints no kept steal: the machine's steal meanwhile (all CPUs,
# /proc/stat) bounds what any one thread's ticks can have kept
STEAL_UP_MS=$(( $(steal_ms) - st0 ))
n0=$(grep -c 'agent: interval' "$TMP/agent.err")
# the interval the workload ended in, and the next: every sample written
wait_log "agent: interval $((n0 + 2)):" 30 "$TMP/agent.err"
kill -TERM $ag
wait $ag
for f in "$D"/*-oncpu.folded.gz; do gunzip -c "$f"; done > "$TMP/agent.folded"
aglog=$(grep -E 'skipped|warn|behind|stall' "$TMP/agent.err" | head -3 | paste -sd'|')
check_root "$TMP/agent.folded" "titlework: alpha" "$(cat "$TMP/alpha")" "agent label = cmdline" "$aglog"
check_root "$TMP/agent.folded" "titlework: beta" "$(cat "$TMP/beta")" "agent label = cmdline (exited first)" "$aglog"
unset STEAL_UP_MS

# ---- PostgreSQL: its processes set titles ("postgres: walwriter"); all share
# the comm "postgres". Own cluster, unix socket only (as t_real_servers.sh).
. "$(dirname "$0")/pg_lib.sh"
if [ -x "$PGBIN/postgres" ] && [ -x /usr/bin/pgbench ] && id postgres >/dev/null 2>&1; then
	PORT=$((20000 + RANDOM % 20000))
	pg_start $PORT -c shared_buffers=16MB || finish
	"$HOTCOLD" record --off-cpu --on-cpu --label cmdline --comm postgres -d 4 -o "$TMP/pg.folded" \
		2>"$TMP/pg.err" &
	hc=$!
	sleep 1
	"${PGRUN[@]}" /usr/bin/pgbench -c 2 -T 2 -h "$PG/sock" -p $PORT postgres >"$TMP/pgbench.log" 2>&1
	wait $hc || bad "record on postgres: $(tail -3 "$TMP/pg.err")"
	roots=$(grep -v '^#' "$TMP/pg.folded" | cut -d';' -f1 | sort -u)
	for r in 'postgres: walwriter' 'postgres: checkpointer' 'postgres: postgres postgres \[local\]'; do
		echo "$roots" | grep -q "^$r" && ok "postgres: a root '$r...'" ||
			bad "postgres: no root '$r': $(echo "$roots" | head -12 | tr '\n' '|')"
	done
	# a process gone before its command line was read keeps its comm, counted:
	# here pgbench's own short connections (a few ms each, next to two
	# backends that live 2 s): nothing at the bare comm goes uncounted
	bare=$(folded_with_root "$TMP/pg.folded" postgres)
	missed=$(sed -n 's/^labels: \([0-9]*\) command lines unreadable.*/\1/p' "$TMP/pg.err")
	[ "$bare" -eq 0 ] || [ "${missed:-0}" -gt 0 ] &&
		ok "postgres: weight at the bare comm $bare, processes counted unread ${missed:-0}" ||
		bad "postgres: weight $bare at the bare comm, not counted"
	be=$(folded_with_frame "$TMP/pg.folded" PostgresMain)
	bebare=$(folded_grep_root "$TMP/pg.folded" postgres | grep -c ';PostgresMain;' || true)
	tb=$(grep -v '^#' "$TMP/pg.folded" | awk '{ if ($0 ~ /^postgres: postgres postgres \[local\]/ && $0 ~ /;PostgresMain;/) t += $NF } END { printf "%.0f", t }')
	p=$(pct "$tb" "$be")
	awk -v p="$p" 'BEGIN { exit !(p >= 95) }' && ok "postgres: $p% of the backends' weight under their titles" ||
		bad "postgres: only $p% of the backends' weight under their titles ($bebare bare lines)"
	kill -INT $pgpid
	wait $pgpid 2>/dev/null
fi
finish
