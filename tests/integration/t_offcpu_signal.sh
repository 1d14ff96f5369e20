#!/bin/bash
# Stacks through a signal handler: the CFI walker continues through the
# kernel's signal frame (glibc's __restore_rt: the interrupted registers from
# the saved ucontext), so an off-CPU stack in a handler reaches main. The
# workload blocks 40 times in a handler (sleep_in_handler); its first blocks
# can end before the loader publishes its unwind tables and are walked by
# frame pointer (1 of 40 measured): so >= 95% of the [sleep] time must carry
# main, send_signals and sleep_in_handler, in that order.
. "$(dirname "$0")/lib.sh"

"$HOTCOLD" record --off-cpu -o "$TMP/sig.folded" -- "$WL/sigwalk" 40 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && ok "exit 0" || { bad "exit $rc: $(tail -3 "$TMP/err")"; finish; }
all=$(awk '/\[sleep\] [0-9]+$/ { t += $NF } END { print t + 0 }' "$TMP/sig.folded")
through=$(awk '/;main;send_signals;.*;on_signal;sleep_in_handler;.*\[sleep\] [0-9]+$/ { t += $NF } END { print t + 0 }' "$TMP/sig.folded")
p=$(pct "$through" "$all")
awk -v p="$p" 'BEGIN { exit !(p >= 95) }' &&
	ok "$p% of $all us in the handler reaches main;send_signals through the signal frame" ||
	bad "only $p% of $all us reaches main through the signal frame: $(sort -t' ' -k2 -n "$TMP/sig.folded" | tail -1)"
finish
