#!/bin/bash
# Off-CPU with wakers, system-wide, under thread churn with thousands of long
# blocks per second: every record that reaches the loader is well formed.
# (Records are built in a per-CPU scratch; a task-work walk, a sys_exit walk
# and an interrupt's waker record can nest on one CPU. Before the scratch
# was made nesting-safe this run gave ~50 malformed records.) Losses to a
# full ring are allowed here (counted), malformed records are not.
. "$(dirname "$0")/lib.sh"

"$HOTCOLD" record -v --off-cpu --wakers -a -d 5 -o "$TMP/out.folded" 2>"$TMP/err" &
hc=$!
# start-up (BPF load, verification) can take seconds on a loaded machine
for _ in $(seq 400); do grep -q 'Ctrl-C to stop' "$TMP/err" 2>/dev/null && break; sleep 0.05; done
"$WL/churn" 4
wait $hc
rc=$?
grep -E '^(  sched|  session|hotcold: [0-9])' "$TMP/err"
[ $rc -eq 0 ] && ok "exit 0" || bad "exit $rc"
grep -q ' 0 malformed ring records' "$TMP/err" && ok "no malformed ring records" ||
	bad "malformed ring records: $(grep -o '[0-9]* malformed ring records' "$TMP/err")"
n=$(awk '$0 ~ /^churn;/ && /usleep/ { t += $NF } END { printf "%.0f\n", t }' "$TMP/out.folded")
awk -v n="$n" 'BEGIN { exit !(n > 1000000000) }' && ok "churn's threads blocked $n ns in usleep, with stacks" ||
	bad "churn's threads blocked only $n ns in usleep"
finish
