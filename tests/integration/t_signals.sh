#!/bin/bash
# SIGINT/SIGTERM to hotcold during `record -- CMD`, like perf: recording
# stops, CMD is ended (SIGTERM, then SIGKILL after 2 s), the profile is
# written, and hotcold exits with CMD's status (143: ended by SIGTERM, 137:
# killed). Before, hotcold waited for CMD to finish on its own.
. "$(dirname "$0")/lib.sh"
cd "$TMP"

run() {	# run SIGNAL OUT -- CMD...: signal hotcold 2 s in; sets rc, secs
	local sig=$1 out=$2; shift 3
	local t0=$(date +%s%N)
	"$HOTCOLD" record -o "$out" -- "$@" 2>"$TMP/e" &
	local h=$!
	sleep 2
	kill -"$sig" $h
	wait $h
	rc=$?
	secs=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
}

# a command that would run 60 s; SIGTERM ends it at once
run INT "$TMP/int.folded" -- sleep 60
if [ $rc -eq 143 ] && [ -s "$TMP/int.folded" ] && awk -v s="$secs" 'BEGIN { exit !(s < 6) }' &&
   ! pgrep -f '^sleep 60$' -P $$ >/dev/null; then
	ok "SIGINT: sleep 60 ended after ${secs} s, exit 143, profile written"
else
	bad "SIGINT: rc $rc after ${secs} s, profile $(stat -c %s "$TMP/int.folded" 2>/dev/null): $(cat "$TMP/e")"
fi

run TERM "$TMP/term.folded" -- sleep 60
[ $rc -eq 143 ] && [ -s "$TMP/term.folded" ] && ok "SIGTERM: exit 143 after ${secs} s" ||
	bad "SIGTERM: rc $rc after ${secs} s"

# a command that ignores SIGTERM is killed after the 2 s grace: ~4 s in all
run INT "$TMP/kill.folded" -- python3 -c \
	'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)'
if [ $rc -eq 137 ] && [ -s "$TMP/kill.folded" ] && grep -q 'did not exit 2000 ms after SIGTERM' "$TMP/e" &&
   awk -v s="$secs" 'BEGIN { exit !(s >= 3.9 && s < 8) }'; then
	ok "SIGTERM ignored: killed after the grace, exit 137 after ${secs} s"
else
	bad "ignored SIGTERM: rc $rc after ${secs} s: $(cat "$TMP/e")"
fi

# control: a command that exits on its own keeps its status, no signal involved
"$HOTCOLD" record -o "$TMP/own.folded" -- sh -c 'sleep 0.3; exit 7' 2>"$TMP/e"
rc=$?
[ $rc -eq 7 ] && ! grep -q 'SIGTERM' "$TMP/e" && ok "no signal: the command's own status (7)" ||
	bad "no signal: rc $rc"
finish
