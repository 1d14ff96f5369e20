#!/bin/bash
# The agent with every collector next to real servers from Debian (issue 12),
# one agent run for all three (CI time), on loopback, data in a temp dir,
# servers started and stopped by pid:
#   PostgreSQL + pgbench (commits: WAL flush with fdatasync), nginx + wrk (an
#   epoll gateway), Redis + redis-benchmark (no persistence).
# Checks: every interval ends on time (index.jsonl), the stacks name what a
# user looks for, reachable in stripped Debian binaries through their
# dynamic symbols (all three export them) plus libc and the kernel;
# SIGTERM ends the agent within 1 s; its RSS stays flat (see below).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/agent_lib.sh"
. "$(dirname "$0")/pg_lib.sh"
. "$(dirname "$0")/servers_lib.sh"

for b in "$PGBIN/postgres" "$PGBIN/initdb" /usr/bin/pgbench /usr/sbin/nginx /usr/bin/wrk \
	/usr/bin/redis-server /usr/bin/redis-benchmark; do
	[ -x "$b" ] || skip "${b##*/} not installed (tools/quickstart.sh test installs it)"
done
id postgres >/dev/null 2>&1 || skip "no postgres user (the postgresql package creates it)"

RUN=24			# seconds of load under the agent
IV=2000			# interval, ms
PORT=$((20000 + RANDOM % 20000))

# ---- PostgreSQL: own cluster, unix socket only, fsync on
pg_start $PORT -c fsync=on -c synchronous_commit=on -c shared_buffers=16MB || finish

# ---- nginx (an epoll gateway) and Redis (no persistence), loopback
nginx_start $((PORT + 1))
redis_start $((PORT + 2))
sleep 1
for p in $pgpid $ngpid $rdpid; do kill -0 $p 2>/dev/null || { bad "a server did not start:" \
	"$(tail -2 "$TMP/pg.log" "$TMP/nginx.log" "$TMP/redis.log")"; finish; }; done

# ---- the agent, every collector it has
"$HOTCOLD" agent -o "$TMP/hist" --interval 2s -F 99 --off-cpu --runq --locks --counters \
	2>"$TMP/agent.err" &
ag=$!
cleanup_hooks+=("kill -KILL $ag 2>/dev/null")
# for a late interval's diagnosis: the hypervisor's steal over the run
# (/proc/stat, all CPUs, ms) and the machine's run queue, sampled with RSS
st0=$(steal_ms)
# and when the machine stood still (the host stopping the vCPUs, not
# reported as steal: a real-time thread woken over 20 ms late)
"$WL/freeze_canary" $((RUN + 15)) "$TMP/freezes" 2>"$TMP/canary.err" &
canary=$!
cleanup_hooks+=("kill $canary 2>/dev/null")
until [ -s "$TMP/hist/index.jsonl" ]; do sleep 0.1; kill -0 $ag 2>/dev/null || break; done
"${PGRUN[@]}" /usr/bin/pgbench -c 4 -j 2 -T $RUN -h "$PG/sock" -p $PORT postgres >"$TMP/pgbench.log" 2>&1 &
l1=$!
/usr/bin/wrk -t 2 -c 16 -d ${RUN}s http://127.0.0.1:$((PORT + 1))/ >"$TMP/wrk.log" 2>&1 &
l2=$!
timeout $RUN /usr/bin/redis-benchmark -h 127.0.0.1 -p $((PORT + 2)) -q -l -c 16 -t set,get,incr \
	>/dev/null 2>&1 &
l3=$!
cleanup_hooks+=("kill $l1 $l2 $l3 2>/dev/null")
# RSS every second; the first 6 s (3 intervals: start-up, first objects) are warm-up
rss=() runq=()
for s in $(seq $RUN); do
	sleep 1
	rss+=($(awk '/VmRSS/ { print $2 }' /proc/$ag/status))
	runq+=($(awk '/^procs_running/ { print $2 }' /proc/stat))
done
stolen=$(( $(steal_ms) - st0 ))
agcpu=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.0f", ($14 + $15) * 1000 / hz }' /proc/$ag/stat 2>/dev/null)
wait $l1 $l2 $l3 2>/dev/null
t=$(term_wait $ag 3)

python3 - "$TMP/hist/index.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print("[Info] interval lengths (ms, complete ones):",
      " ".join(str(r["end_ms"] - r["start_ms"]) for r in rows if not r.get("partial")))
PY
# The servers' CFI tables are built once they have lived 2 s, on the
# agent's builder thread (session_unwind.c), not in its loop: no warm-up
# is excused, every interval must end on time.
# An interval may take the time the machine stood still in it on top
# (freeze_canary, agent_lib.sh): the agent cannot run then.
kill $canary 2>/dev/null; wait $canary 2>/dev/null
frz=$(freeze_summary "$TMP/freezes")
grep -q 'no SCHED_FIFO' "$TMP/canary.err" && frz="$frz (not real-time: $(head -1 "$TMP/canary.err"))"
read -r full late mx gaps part < <(index_check "$TMP/hist/index.jsonl" $IV "$TMP/freezes")
[ "$full" -ge $((RUN * 1000 / IV - 1)) ] && [ "$late" -eq 0 ] &&
	ok "$full intervals, every one on time (longest $mx ms of $IV + 10% + the machine's stops in it; $frz)" ||
	{ bad "$full intervals, $late late (longest $mx ms; load $(cut -d' ' -f1 /proc/loadavg); $frz)"
	  echo "[Info] steal during the run: $stolen ms; the agent's CPU: $agcpu ms; runnable tasks each second: ${runq[*]}"
	  grep -E 'ended .* late' "$TMP/agent.err" | sed 's/^/[Info] /'
	  tail -5 "$TMP/agent.err" | sed 's/^/[Info] agent: /'; }
[ "$gaps" -eq 0 ] && ok "intervals back to back" || bad "$gaps gaps between intervals"
[ "$t" != timeout ] && within "$t" 0 1 && ok "SIGTERM: exit in $t s" || bad "SIGTERM: exit $t"
[ "$part" = 1 ] && ok "the partial interval written" || bad "no partial interval"

# All intervals' stacks by kind, one file each (frames root first, ';'-joined).
for k in oncpu offcpu runq lock; do
	ls "$TMP/hist/"*-$k.folded.gz >/dev/null 2>&1 && zcat "$TMP/hist/"*-$k.folded.gz
done > "$TMP/all.folded" 2>/dev/null
for k in oncpu offcpu; do
	zcat "$TMP/hist/"*-$k.folded.gz > "$TMP/$k.folded" 2>/dev/null
done
# count_path FILE COMM REGEX: samples (or ns) of stacks of COMM matching REGEX (frames in order)
count_path() {
	awk -v c="$2" -v re="$3" '{ split($0, fr, ";"); if (fr[1] != c) next
		line = $0; sub(/ [0-9]+$/, "", line); if (line ~ re) t += $NF } END { printf "%.0f\n", t }' "$1"
}
report_path() {	# NAME FILE COMM REGEX
	local n
	n=$(count_path "$2" "$3" "$4")
	[ "$n" != 0 ] && ok "$1 ($n)" || bad "$1: no stack of $3 matches $4"
}
# PostgreSQL: a commit waits for its WAL flush: CommitTransactionCommand and
# XLogFlush are exported, XLogWrite is static (postgres+0x...), fdatasync is
# libc's, the kernel's fsync path follows.
report_path "postgres: off-CPU in fdatasync under XLogFlush" "$TMP/offcpu.folded" postgres \
	';XLogFlush;(.*;)?(fdatasync|pg_fdatasync);'
report_path "postgres: on-CPU under PostgresMain" "$TMP/oncpu.folded" postgres ';PostgresMain;'
# nginx: workers wait in epoll_wait under the event loop
report_path "nginx: off-CPU in epoll_wait under ngx_process_events_and_timers" \
	"$TMP/offcpu.folded" nginx ';ngx_process_events_and_timers;(.*;)?(epoll_wait|__GI_epoll_wait)'
# Redis: commands run under the event loop
report_path "redis: on-CPU in processCommand under aeMain" "$TMP/oncpu.folded" redis-server \
	';aeMain;(.*;)?processCommand'
# What could not be named: frames left as raw offsets or [unknown] in the servers' stacks
for c in postgres nginx redis-server; do
	tot=$(awk -v c=$c '{ split($0, fr, ";"); if (fr[1] == c) t += $NF } END { print t + 0 }' \
		"$TMP/oncpu.folded")
	unk=$(awk -v c=$c '{ split($0, fr, ";"); if (fr[1] != c) next
		if ($0 ~ /\[unknown\]/) t += $NF } END { print t + 0 }' "$TMP/oncpu.folded")
	off=$(awk -v c=$c '{ split($0, fr, ";"); if (fr[1] != c) next
		if ($0 ~ /;[^;\[]*\+0x[0-9a-f]+;/) t += $NF } END { print t + 0 }' "$TMP/oncpu.folded")
	echo "[Info] $c: $tot on-CPU samples; $(pct "$unk" "$tot")% with an [unknown] frame," \
		"$(pct "$off" "$tot")% with a frame named object+offset (a static function of a" \
		"stripped binary)"
done
# RSS flat: the agent keeps no state across intervals but what the same
# running processes need (symbols, unwind tables, an aggregation of a
# like-sized interval), so after warm-up (6 s: start-up, first objects) it
# must not grow with time: the mean of the later half of the samples (9)
# within 10% of the earlier half's. Measured here: 21-24 MiB, one-second
# spikes of +3-5 MiB while an interval is encoded; one spike moves a 9-sample
# mean by ~0.5 MiB (~2.5%), so 10% is 4 such spikes in one half, or growth.
read -r m2 m3 < <(printf '%s\n' "${rss[@]:6}" | awk '{ v[NR] = $1 } END {
	n = int(NR / 2); for (i = 1; i <= n; i++) a += v[i]; for (i = n + 1; i <= NR; i++) b += v[i]
	printf "%d %d\n", a / n / 1024, b / (NR - n) / 1024 }')
echo "[Info] agent RSS (MiB, 1/s): $(printf '%s ' "${rss[@]}" | awk '{ for (i = 1; i <= NF; i++) printf "%d ", $i / 1024 }')"
awk -v a="$m2" -v b="$m3" 'BEGIN { exit !(b <= a * 1.10) }' &&
	ok "RSS flat: ${m2} MiB -> ${m3} MiB (later half of the run vs earlier, after warm-up)" ||
	bad "RSS grew: ${m2} MiB -> ${m3} MiB"
grep -E 'stalled|late' "$TMP/agent.err" | head -3
[ -n "${KEEP:-}" ] && cp "$TMP"/*.folded "$TMP/agent.err" "$KEEP"/
finish
