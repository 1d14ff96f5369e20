#!/bin/bash
# Anonymous executable code named from /tmp/perf-PID.map with the _[j] suffix;
# a perf map not owned by the target's user is ignored.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip "x86-64 only"

"$HOTCOLD" record -F 499 -o "$TMP/out.folded" -- "$WL/jit" 2 >"$TMP/pid" 2>"$TMP/err"
[ $? -eq 0 ] && ok "exit 0" || bad "exit: $(cat "$TMP/err")"
total=$(folded_total "$TMP/out.folded")
j=$(folded_with_frame "$TMP/out.folded" "jit_hot_loop_[j]")
p=$(pct "$j" "$total")
awk -v p="$p" 'BEGIN { exit !(p > 80) }' && ok "jit_hot_loop_[j] in $p% of samples" ||
	bad "jit_hot_loop_[j] in $p% of samples: $(head -3 "$TMP/out.folded")"
rm -f "/tmp/perf-$(cat "$TMP/pid").map"

# same workload, but its map is handed to another user before hotcold reads it
"$WL/jit" 3 >/dev/null &
pid=$!
cleanup_hooks+=("kill $pid 2>/dev/null; rm -f /tmp/perf-$pid.map")
sleep 0.3
chown 65534 /tmp/perf-$pid.map
"$HOTCOLD" record -p $pid -F 499 -d 1 -o "$TMP/foreign.folded" 2>"$TMP/err"
grep -q 'jit_hot_loop' "$TMP/foreign.folded" && bad "foreign-owned perf map was trusted" ||
	ok "perf map owned by another user ignored"
rm -f /tmp/perf-$pid.map
finish
