#!/bin/bash
# hotcold agent: 2 s intervals rotate into pprof + gzipped folded files that
# `hotcold report` and `go tool pprof` read; retention deletes the oldest first
# and holds the byte budget; SIGTERM mid-interval writes a partial interval and
# exits 0; SIGHUP picks up a new interval; a bad config fails with its line.
. "$(dirname "$0")/lib.sh"

D=$TMP/hist
PORT=$((20000 + RANDOM % 20000))
"$WL/split" 90 "$TMP/t" >/dev/null 2>&1 &
wl=$!
cleanup_hooks+=("kill $wl 2>/dev/null")

# ---- bad config: line number, exit 2
printf 'interval = 2s\n# fine\nfrequency = lots\n' > "$TMP/bad.conf"
"$HOTCOLD" agent --config "$TMP/bad.conf" -o "$D" 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'bad.conf:3: invalid value' "$TMP/err" && ok "bad config: exit 2, line 3" ||
	bad "bad config: rc $rc: $(cat "$TMP/err")"

# ---- unwritable directory: exit 1 with the reason
"$HOTCOLD" agent -o /proc/hotcold-nope 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] && grep -q "cannot write to directory '/proc/hotcold-nope'" "$TMP/err" &&
	ok "unwritable directory: exit 1" || bad "unwritable dir: rc $rc: $(cat "$TMP/err")"

# ---- rotation, retention by count and bytes, SIGHUP, SIGTERM
printf 'dir = %s\ninterval = 2s\nmax_intervals = 3\nmax_bytes = 2M\n' "$D" > "$TMP/a.conf"
"$HOTCOLD" agent --config "$TMP/a.conf" -F 99 --off-cpu 2>"$TMP/agent.err" &
ag=$!
cleanup_hooks+=("kill $ag 2>/dev/null")
# a loaded machine can stretch intervals (the ring is drained before the check)
wait_log 'agent: interval 4:' 40 "$TMP/agent.err"
n=$(wc -l < "$D/index.jsonl")
[ "$n" -eq 3 ] && ok "4 rotations, 3 kept (max_intervals)" || bad "index has $n lines: $(tail -5 "$TMP/agent.err")"
# The newest interval, copied: the agent goes on rotating, and with 3 kept
# the oldest is deleted at the next rotation, which can come while `go tool
# pprof` starts (1-2 s here under load: seen once, "no such file").
first=$TMP/newest-oncpu.pb.gz
cp "$(ls "$D"/*-oncpu.pb.gz | tail -1)" "$first"
gunzip -c "$(ls "$D"/*-oncpu.folded.gz | tail -1)" > "$TMP/last.folded"
"$HOTCOLD" report "$TMP/last.folded" > "$TMP/rep" 2>&1 && grep -q spin_ "$TMP/rep" &&
	ok "hotcold report reads an interval (spin_* named)" || bad "report: $(head -5 "$TMP/rep")"
of=$(ls "$D"/*-offcpu.folded.gz | tail -1)
gunzip -c "$of" | "$HOTCOLD" report --kind offcpu - >/dev/null 2>&1 && ok "off-CPU interval readable" ||
	bad "off-CPU folded unreadable"
if command -v go >/dev/null; then
	top=$(cd "$TMP" && HOME=$TMP GOCACHE=$TMP/gocache go tool pprof -top "$first" 2>&1)
	echo "$top" | grep -q 'Showing nodes' && ok "go tool pprof -top reads an interval" ||
		bad "go tool pprof: $(echo "$top" | head -3)"
fi
# retention: oldest deleted first (the stamps kept are the newest)
ls "$D" | grep -c 'Z-oncpu.pb.gz' | grep -qx 3 && ok "files of 3 intervals on disk" || bad "files: $(ls "$D")"
bytes=$(du -b --apparent-size -c "$D"/* | tail -1 | cut -f1)
[ "$bytes" -le $((2 * 1024 * 1024)) ] && ok "within the byte budget ($bytes bytes)" || bad "$bytes bytes"

# SIGHUP: a 1 s interval from now on
sed -i 's/interval = 2s/interval = 1s/' "$TMP/a.conf"
kill -HUP $ag
wait_log 'reloaded: interval 1.000 s' 20 "$TMP/agent.err" && ok "SIGHUP: reloaded" || bad "no reload message"
n0=$(grep -c 'agent: interval' "$TMP/agent.err")
wait_log "agent: interval $((n0 + 3)):" 30 "$TMP/agent.err"
# intervals only overrun under load, never end early: one under 1.9 s shows the new length
gaps=$(python3 - "$D/index.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print(" ".join(str(r["end_ms"] - r["start_ms"]) for r in rows[-2:]))
PY
)
python3 -c "import sys; g=[int(x) for x in sys.argv[1:]]; sys.exit(0 if min(g) >= 900 and min(g) < 1900 else 1)" $gaps &&
	ok "SIGHUP: intervals now 1 s ($gaps ms)" || bad "intervals after SIGHUP: $gaps ms"

# SIGTERM mid-interval: a partial interval, exit 0
sleep 0.4
kill -TERM $ag
wait $ag
rc=$?
[ $rc -eq 0 ] && ok "SIGTERM: exit 0" || bad "SIGTERM: rc $rc: $(tail -3 "$TMP/agent.err")"
tail -1 "$D/index.jsonl" | grep -q '"partial":true' && ok "SIGTERM: partial interval written" ||
	bad "last interval not partial: $(tail -1 "$D/index.jsonl" | cut -c1-120)"
ls "$D" | grep -q '\.tmp\.' && bad "temporary files left" || ok "no temporary files left"

# ---- a tight byte budget: oldest deleted, never exceeded
# Only the split workload (-p): a handful of stacks, so an interval is far
# below 4K and several fit. System-wide, a busy machine makes every 1 s
# interval larger than 4K; the agent then keeps none ("not kept: N bytes
# exceed the budget", checked below) and there is no oldest to delete.
rm -rf "$D"
"$HOTCOLD" agent -o "$D" -p $wl --interval 1s --max-bytes 4K 2>"$TMP/agent2.err" &
ag=$!
wait_log 'agent: interval 1:' 20 "$TMP/agent2.err"
oldest=$(head -1 "$D/index.jsonl" | cut -c1-40)
[ -n "$oldest" ] && ok "an interval of one workload fits the 4K budget" ||
	bad "no interval kept: $(grep -m1 'not kept' "$TMP/agent2.err")"
max=0
# until the budget forced a deletion, at least 6 s, at most 20
for i in $(seq 1 80); do
	sleep 0.25
	b=$(du -b --apparent-size -c "$D"/* 2>/dev/null | tail -1 | cut -f1)
	[ "${b:-0}" -gt "$max" ] && max=$b
	[ "$i" -ge 24 ] && [ "$(head -1 "$D/index.jsonl" | cut -c1-40)" != "$oldest" ] && break
done
kill -TERM $ag
wait $ag
b=$(du -b --apparent-size -c "$D"/* | tail -1 | cut -f1)
[ "$max" -le 4096 ] && [ "$b" -le 4096 ] && ok "4K budget held (peak seen $max, end $b bytes)" ||
	bad "budget: peak $max, end $b"
[ "$(head -1 "$D/index.jsonl" | cut -c1-40)" != "$oldest" ] && ok "the oldest interval was deleted first" ||
	bad "oldest interval still there: $oldest"
kill $wl 2>/dev/null

# ---- an interval larger than the whole budget is not kept, and says so
rm -rf "$D"
"$HOTCOLD" agent -o "$D" --interval 1s --max-bytes 100 2>"$TMP/agent3.err" &
ag=$!
wait_log 'not kept: ' 20 "$TMP/agent3.err" && [ ! -s "$D/index.jsonl" ] &&
	ok "over-budget interval not kept: $(grep -m1 -o 'not kept: .*' "$TMP/agent3.err")" ||
	bad "100-byte budget: $(tail -2 "$TMP/agent3.err"); index: $(head -c 200 "$D/index.jsonl")"
kill -TERM $ag
wait $ag
finish
