#!/bin/bash
# hotcold locks: rows by lock site and by class of wait.
# 1. A queued lock (qlock: 4 threads, each sleeping on its own semaphore
#    g_sem[i] for one logical lock, as PostgreSQL's LWLocks do) is one row,
#    named by its site lw_acquire, holding >= 90% of the process's
#    contention and within 5% of the time the threads measured in sem_wait
#    (the BPF totals are exact per futex; the 5% covers the workload's own
#    clock reads around sem_wait). --by lock shows the 4 futexes instead
#    (the negative control).
# 2. The holder's side: g_queue_mutex (mutex) is held and released in
#    hold_queue_lock; each wait knows the thread whose wake ended it, and
#    the wakers' sampled stacks share that thread's ended wait time: they
#    must name hold_queue_lock for most (> 50%) of the waiting time (the
#    rest: stacks cut short by the unwinder), and the held-by times sum to
#    the waiters' stacked times (within 1%: a waker's time is all shown,
#    with a stack or without; only the per-stack rounding, < 1 ns each, and
#    a wait ended after its waker was sampled last can differ).
# 3. Waiting for work is not contention: a condition-variable wait and
#    pthread_join (waits) are not in the default view, next to a contended
#    mutex that is; --all-waits shows them with their class.
. "$(dirname "$0")/lib.sh"

"$HOTCOLD" locks --user-only -n 10 -- "$WL/qlock" 4 200 2 "$TMP/truth" >"$TMP/site" 2>"$TMP/err"
rc=$?
cut -c1-200 "$TMP/site"
[ $rc -eq 0 ] && ok "exit 0" || { bad "exit $rc: $(cat "$TMP/err")"; finish; }
read -r want nwaits < "$TMP/truth"
row=$(awk '$NF == "futexes)" && $(NF - 2) == "site:lw_acquire" { print; exit }' "$TMP/site")
[ -n "$row" ] && ok "one row named by the site: $(echo "$row" | awk '{ print $(NF-2), $(NF-1), $NF }')" ||
	{ bad "no site:lw_acquire row"; finish; }
got=$(echo "$row" | awk '{ printf "%.0f", $1 * 1e6 }')
all=$(awk '$1 ~ /^[0-9.]+$/ && $2 ~ /^[0-9]+$/ { t += $1 * 1e6 } END { printf "%.0f", t }' "$TMP/site")
share=$(pct "$got" "$all")
awk -v s="$share" 'BEGIN { exit !(s >= 90) }' && ok "the site row holds $share% of the contention" ||
	bad "the site row holds only $share% of the contention"
dev=$(awk -v a="$got" -v b="$want" 'BEGIN { printf "%.2f", b ? 100 * (a - b) / b : 100 }')
awk -v d="$dev" 'BEGIN { exit !(d >= -5 && d <= 5) }' &&
	ok "site total $got ns vs $want ns measured in sem_wait ($dev%, $nwaits waits)" ||
	bad "site total $got ns vs $want ns measured in sem_wait ($dev%)"
grep -A3 'site:lw_acquire' "$TMP/site" | grep -q '\[qlock-[0-9]* qlock-[0-9]*.*;worker;lw_acquire;' &&
	ok "the threads' identical stacks are merged, with their thread names" ||
	bad "no merged stack with thread names"

"$HOTCOLD" locks --user-only --by lock -n 10 -- "$WL/qlock" 4 200 1 "$TMP/truth2" >"$TMP/lock" 2>"$TMP/err"
n=$(grep -c ' g_sem\(+0x[0-9a-f]*\)\?$' "$TMP/lock")
[ "$n" -ge 3 ] && ok "control: --by lock shows $n g_sem futex rows" || bad "control: --by lock shows $n g_sem rows"

"$HOTCOLD" locks --user-only --json -- "$WL/qlock" 4 200 1 "$TMP/truth3" >"$TMP/q.json" 2>"$TMP/err"
python3 - "$TMP/q.json" <<'PY' && ok "--json: a site row with its 4 locks and class" || bad "--json lacks the site row's locks"
import json, sys
rows = json.load(open(sys.argv[1]))
r = [x for x in rows if x["row"] == "site" and x["site"] == "lw_acquire"]
sys.exit(not (r and len(r[0]["locks"]) == 4 and r[0]["class"] == "semaphore"
              and sum(l["total_ns"] for l in r[0]["locks"]) == r[0]["total_ns"]))
PY

# record --locks: the queued lock's frames follow the same grouping
"$HOTCOLD" record --locks -o "$TMP/q.folded" -- "$WL/qlock" 4 200 1 "$TMP/truth5" 2>"$TMP/err"
grep -q ';lw_acquire;.*\[lock site:lw_acquire\] [0-9]*$' "$TMP/q.folded" &&
	! grep -q '\[lock g_sem' "$TMP/q.folded" && ok "record --locks: [lock site:lw_acquire] frames, no per-futex ones" ||
	bad "record --locks: $(grep -o '\[lock [^]]*\]' "$TMP/q.folded" | sort | uniq -c | head -3)"

"$HOTCOLD" locks --user-only --json -- "$WL/mutex" 4 200 1 "$TMP/truth4" >"$TMP/m.json" 2>"$TMP/err"
r=$(python3 - "$TMP/m.json" <<'PY'
import json, sys
rows = [x for x in json.load(open(sys.argv[1])) if x["lock"] == "g_queue_mutex"]
h = rows[0]["holders"] if rows else []
alls = rows[0]["holders_wait_ns"] if rows else 0	# all holders, shown or not
mine = sum(x["wait_ns"] for x in h if ";hold_queue_lock;" in x["stack"])
named = all(x["thread_names"] for x in h)
waited = rows[0]["stacks_wait_ns"] if rows else 0
print(mine, alls, int(named), waited)
PY
)
read -r mine alls named waited <<<"$r"
if [ "${alls:-0}" -gt 0 ] && [ $((mine * 2)) -gt "$alls" ] && [ "$named" = 1 ]; then
	ok "holders: hold_queue_lock for $((mine / 1000000)) of $((alls / 1000000)) ms of g_queue_mutex's waits, with thread names"
else
	bad "holders: hold_queue_lock for ${mine:-0} of ${alls:-0} ns of waits (named $named)"
fi
within "${alls:-0}" "${waited:-0}" "$(( ${waited:-0} / 100 ))" &&
	ok "holders: held-by $alls ns vs waiters' stacks $waited ns" ||
	bad "holders: held-by $alls ns vs waiters' stacks $waited ns"

"$HOTCOLD" locks --user-only -n 20 -- "$WL/waits" 300 >"$TMP/def" 2>"$TMP/err"
"$HOTCOLD" locks --user-only --all-waits -n 20 -- "$WL/waits" 300 >"$TMP/allw" 2>"$TMP/err"
cut -c1-200 "$TMP/allw"
classes() { awk '$1 ~ /^[0-9.]+$/ && $2 ~ /^[0-9]+$/ { print $6 }' "$1" | sort -u | tr '\n' ' '; }
grep -q ' g_busy_mutex$' "$TMP/def" && ok "default view: the contended mutex is there" ||
	bad "default view: g_busy_mutex missing"
c=$(classes "$TMP/def")
echo "$c" | grep -qw 'condvar\|join' && bad "default view has waits for work: $c" ||
	ok "default view: no condvar or join rows (classes: $c)"
grep -A1 ' condvar ' "$TMP/allw" | grep -q ';cond_waiter;pthread_cond_wait' &&
	ok "--all-waits: the condition variable, class condvar, waited in cond_waiter" ||
	bad "--all-waits: no condvar row waited in cond_waiter"
awk '$6 == "join" { t += $1 } END { exit !(t >= 250) }' "$TMP/allw" &&
	ok "--all-waits: pthread_join, class join (~300 ms)" || bad "--all-waits: no join row of ~300 ms"
grep -A2 ' join ' "$TMP/allw" | grep -q ';main;[a-z_]*join' && ok "join stack goes through main" ||
	bad "join stack does not name main"
finish
