#!/bin/bash
# The agent restarts over its own history, with --counters (the longest kind
# name, which once overflowed a stack buffer at start-up: an abort with
# _FORTIFY_SOURCE, so a systemd restart loop). Both runs exit 0, the second
# keeps every interval of the first and adds its own; the index lists exactly
# the files on disk. `make check-hardened` runs it on the fortified binary.
. "$(dirname "$0")/lib.sh"

# run N SECONDS: an agent over $TMP/hist for SECONDS after it started writing
run() {
	"$HOTCOLD" agent --counters --interval 1s -o "$TMP/hist" 2>"$TMP/err$1" &
	agent=$!
	cleanup_hooks+=("kill $agent 2>/dev/null")
	for _ in $(seq 200); do
		grep -q 'writing every' "$TMP/err$1" && break
		kill -0 $agent 2>/dev/null || break
		sleep 0.05
	done
	sleep "$2"
	kill -TERM $agent 2>/dev/null
	wait $agent
}

files_listed() { grep -o '"name":"[^"]*"' "$TMP/hist/index.jsonl" | cut -d'"' -f4 | sort; }

run 1 2.5
rc=$?
[ $rc -eq 0 ] && ok "first run: exit 0" || bad "first run: exit $rc: $(tail -2 "$TMP/err1")"
n1=$(wc -l < "$TMP/hist/index.jsonl")
files_listed > "$TMP/first"
c1=$(grep -c counters.json "$TMP/first")
[ "$c1" -ge 2 ] && ok "first run: $n1 intervals, $c1 counters files" ||
	bad "first run: $n1 intervals, $c1 counters files"

run 2 1.5
rc=$?
[ $rc -eq 0 ] && ok "restart over its own history: exit 0" ||
	bad "restart: exit $rc: $(tail -2 "$TMP/err2")"
n2=$(wc -l < "$TMP/hist/index.jsonl")
files_listed > "$TMP/second"
[ "$n2" -gt "$n1" ] && ok "restart: $n1 -> $n2 intervals" || bad "restart: $n1 -> $n2 intervals"
missing=$(comm -23 "$TMP/first" "$TMP/second" | wc -l)
[ "$missing" -eq 0 ] && ok "every file of the first run kept" || bad "$missing files of the first run lost"
(cd "$TMP/hist" && ls | grep -E '\.(pb\.gz|folded\.gz|json)$' | sort) > "$TMP/disk"
cmp -s "$TMP/disk" "$TMP/second" && ok "index lists exactly the $(wc -l < "$TMP/disk") files on disk" ||
	bad "index and disk differ: $(diff "$TMP/disk" "$TMP/second" | head -3 | tr '\n' ' ')"
grep -qi 'ignoring\|refusing' "$TMP/err2" && bad "restart warned: $(grep -i 'ignoring\|refusing' "$TMP/err2" | head -1)"
finish
