#!/bin/bash
# `record -- CMD` holds the command from its exec to its entry point (after
# ld.so mapped its libraries) until its CFI tables are built and published,
# so no block of its own code is walked before them (issue 14: t_offcpu's
# first blocks were cut on a loaded machine and their time put on a shorter
# stack).
# - the tables of the executable and ld.so are published at the exec stop,
#   so ld.so's own start-up (relocation page faults) is walked by them too
#   (CI run 1 of session 6: one such walk before the tables, cold cache);
# - python3.11 (6.8 MB without frame pointers: its table is over the in-line
#   build size, 50-200 ms on the builder thread when not held) sleeping 1 ms
#   400 times from its start, under --off-cpu: held, no sched walk ends early
#   or goes by FP for want of a table, and every [sleep] stack reaches
#   Py_RunMain;
# - negative control, HOTCOLD_NO_HOLD=1 (published when first seen, as any
#   new process): its first sleeps are walked before the table is published
#   (>= 1 counted), and every [sleep] stack that does not reach Py_RunMain is
#   marked as cut ("[walk cut: ...]" or Python's "[native frames not walked]");
# - the hold keeps the command's exit status.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3.11
[ -x "$PY" ] || skip "no $PY"
stat_of() { sed -n "s/^ *sched *[a-z]* *\([0-9]\+\) $2\$/\1/p" "$1"; }
sleep_py='import time
for i in range(400): time.sleep(0.001)'

run() {	# $1: tag, then env; writes $TMP/$1.{folded,err}
	local tag=$1; shift
	env "$@" "$HOTCOLD" record -v --off-cpu -o "$TMP/$tag.folded" -- "$PY" -c "$sleep_py" \
		2>"$TMP/$tag.err" || bad "$tag: record failed: $(tail -3 "$TMP/$tag.err")"
	early=$(( $(stat_of "$TMP/$tag.err" "walks ended early: CFI table not yet published") +
		$(stat_of "$TMP/$tag.err" "stacks by FP (no table yet)") +
		$(stat_of "$TMP/$tag.err" "walks ended in unmapped code") ))
	total=$(awk '/\[sleep\] [0-9]+$/ { t += $NF } END { printf "%.0f\n", t }' "$TMP/$tag.folded")
	main=$(awk '/\[sleep\] [0-9]+$/ && /;Py_RunMain;/ { t += $NF } END { printf "%.0f\n", t }' \
		"$TMP/$tag.folded")
	unmarked=$(awk '/\[sleep\] [0-9]+$/ && !/;Py_RunMain;/ && !/\[(walk cut|frame-pointer walk): / &&
		!/\[native frames not walked\]/' "$TMP/$tag.folded" | wc -l)
	echo "  $tag: $early walks early or by FP, [sleep] through Py_RunMain $(pct "$main" "$total")%," \
		"$unmarked cut stacks unmarked; $(grep -o 'held [0-9.]* ms from exec, .*' "$TMP/$tag.err")"
}

run held
grep -q "held [0-9.]* ms from exec, at its entry point" "$TMP/held.err" &&
	ok "held: the command was held to its entry point" || bad "held: not held: $(grep held "$TMP/held.err")"
[ "$early" -eq 0 ] && ok "held: no walk before its tables (0 pending, FP or unmapped)" ||
	bad "held: $early walks before its tables"
[ "$total" -gt 0 ] && [ "$main" = "$total" ] && ok "held: every [sleep] stack reaches Py_RunMain" ||
	bad "held: [sleep] through Py_RunMain $main of $total ns"

run control HOTCOLD_NO_HOLD=1
[ "$early" -ge 1 ] && ok "control (not held): $early walks before its tables, counted" ||
	bad "control: no walk before its tables: the test shows nothing here"
[ "$unmarked" -eq 0 ] && ok "control: every cut [sleep] stack is marked" ||
	bad "control: $unmarked cut stacks unmarked: $(awk '/\[sleep\] [0-9]+$/ && !/;Py_RunMain;/' "$TMP/control.folded" | head -2)"

"$HOTCOLD" record -o "$TMP/st.folded" -- /bin/sh -c 'exit 3' 2>"$TMP/st.err"
rc=$?
[ $rc -eq 3 ] && ok "held command's exit status kept (3)" || bad "exit status $rc, not 3"
finish
