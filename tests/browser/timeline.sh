#!/bin/bash
# The agent's timeline in headless Chromium over http:// (tests/browser/timeline.js
# drives it through Chromium's DevTools pipe, tests/browser/cdp.js): run the
# agent on the whole machine with a known CPU burner (hotloop), drag-select
# intervals and compare each merged graph's total with the sum of the
# selected intervals in /timeline.json (exactly: the same stored data); a
# click, another kind, a process filter, a thread filter (tests/workloads/
# threads: worker-b burns a third of its time, worker-a all of it; their CPU
# time from /proc's schedstat, logged every 100 ms, is the truth for the
# shares), search, empty states and a diff of two ranges. Screenshots stay in
# $TL_SHOTS (a directory) if set. Needs root.
# usage: tests/browser/timeline.sh [PATH/TO/hotcold]
# exit:  0 pass, 1 fail, 77 skipped (no chromium or node, not root)
set -u
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
NODE=$(command -v node || command -v nodejs || true)
[ -z "$CHROMIUM" ] && { echo "[Skipped chromium not installed]"; exit 77; }
[ -z "$NODE" ] && { echo "[Skipped node not installed: apt-get install nodejs]"; exit 77; }
[ "$(id -u)" != 0 ] && { echo "[Skipped not root]"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
HOTCOLD=$(realpath "${1:-./hotcold}")
HOTLOOP=$(dirname "$HOTCOLD")/workloads/hotloop
THREADS=$(dirname "$HOTCOLD")/workloads/threads
[ -x "$HOTLOOP" ] && [ -x "$THREADS" ] || { echo "[Failed no $HOTLOOP or $THREADS: make workloads]"; exit 1; }
TMP=$(mktemp -d /tmp/hotcold-browser-timeline.XXXXXX)
PORT=$((20000 + RANDOM % 20000))
ag='' hl='' th='' lg=''
trap 'for p in $lg $th $hl $ag; do kill $p 2>/dev/null; done; wait 2>/dev/null; rm -rf "$TMP"' EXIT

# before any interval: an agent whose first interval ends in a minute
"$HOTCOLD" agent -o "$TMP/hist0" --interval 1m -F 19 --http 127.0.0.1:$PORT 2>"$TMP/agent0.err" &
ag=$!
for _ in $(seq 1 100); do grep -q 'writing every' "$TMP/agent0.err" && break; sleep 0.1; done
timeout 30 "$NODE" "$here/timeline.js" "$CHROMIUM" "http://127.0.0.1:$PORT" "$TMP" --empty
rc0=$?
kill $ag; wait $ag
PORT=$((PORT + 1))

"$HOTLOOP" 90 > /dev/null &
hl=$!
"$THREADS" 90 33 > "$TMP/tids" &
th=$!
for _ in $(seq 1 50); do [ -s "$TMP/tids" ] && break; sleep 0.1; done
read -r ta tb < "$TMP/tids"
# "unix_ms cpu_ns(worker-a) cpu_ns(worker-b)" every 100 ms: the threads' true CPU time
(while read -r a _ < "/proc/$th/task/$ta/schedstat" && read -r b _ < "/proc/$th/task/$tb/schedstat"; do
	echo "$(date +%s%3N) $a $b"; sleep 0.1; done > "$TMP/sched.log" 2>/dev/null) &
lg=$!
export TL_THREADS="$th $ta $tb" TL_SCHED="$TMP/sched.log"
"$HOTCOLD" agent -o "$TMP/hist" --interval 1s -F 99 --off-cpu --http 127.0.0.1:$PORT 2>"$TMP/agent.err" &
ag=$!
# 7 intervals written: the test selects among the first 6 (start-up takes
# 2-3 s on a quiet machine, 15 s was seen under a load average of 20)
for _ in $(seq 1 400); do
	[ "$(grep -c 'agent: interval' "$TMP/agent.err")" -ge 7 ] && break
	kill -0 $ag 2>/dev/null || { echo "[Failed the agent exited: $(tail -3 "$TMP/agent.err")]"; break; }
	sleep 0.1
done
echo "waited: $(grep -c "agent: interval" "$TMP/agent.err") intervals, $SECONDS s"
timeout 90 "$NODE" "$here/timeline.js" "$CHROMIUM" "http://127.0.0.1:$PORT" "$TMP" hotloop
rc=$?
# what the page relies on from the server: a diff with an empty side and a bad range say why
url="http://127.0.0.1:$PORT"
set -- $(curl -s "$url/timeline.json" | grep -o '"t":"[^"]*"' | cut -d'"' -f4 | head -3)
body=$(curl -s -w ' %{http_code}' "$url/diff?kind=lock&a=$1..$2&b=$3" | tr -d '\n')
if [ "$body" = "nothing to compare: range a has no lock data 404" ]; then
	echo "[Success] a diff with an empty side: 404 '${body% *}'"
else
	echo "[Failed diff with an empty side answered '$body']"; rc=1
fi
body=$(curl -s -w ' %{http_code}' "$url/flame?kind=oncpu&range=$1..x")
case "$body" in *" 400") echo "[Success] a bad range: 400";; *) echo "[Failed bad range: '$body']"; rc=1;; esac
[ $rc0 -ne 0 ] && rc=$rc0
[ $rc -ne 0 ] && echo "agent: $(tail -2 "$TMP/agent.err")"
if [ -n "${TL_SHOTS:-}" ]; then
	mkdir -p "$TL_SHOTS" && cp "$TMP"/*.png "$TL_SHOTS"/ 2>/dev/null
fi
exit $rc
