#!/bin/bash
# The agent's history on a disk that stops answering (issue 12: the loop
# never waits for the disk): an ext4 image on a loop device, frozen with
# fsfreeze for 5 s, so every write into it blocks. The intervals are
# written by the writer thread (agent/writer.c), so while it is blocked:
# every interval still ends on time (1 s + 10%), the loop and /metrics
# answer, two intervals wait and the later ones are skipped, said and
# counted; once thawed the waiting ones land and the index lists exactly
# the files on disk. Then a SIGTERM while frozen: the agent says within 1 s
# that it exits with a write in flight (the kernel holds the process until
# the blocked write returns: it is gone once thawed). ~25 s.
# Negative control: the agent before the writer thread wrote on its loop,
# whose intervals grew by the freeze (5 s and more).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/agent_lib.sh"

for b in mkfs.ext4 fsfreeze losetup; do
	command -v $b >/dev/null || skip "$b not installed (e2fsprogs, util-linux)"
done
disk=$TMP/disk
mkdir -p "$disk"
truncate -s 64M "$TMP/img"
mkfs.ext4 -q -F "$TMP/img" >/dev/null 2>&1 || skip "mkfs.ext4 failed"
mount -o loop "$TMP/img" "$disk" 2>/dev/null || skip "cannot mount a loop device"
# lazy: an agent killed by a later hook may still hold files in it
cleanup_hooks+=("fsfreeze -u '$disk' 2>/dev/null; umount -l '$disk' 2>/dev/null")
chmod 0755 "$disk"
PORT=$((20000 + RANDOM % 20000))
"$WL/split" 90 "$TMP/t" >/dev/null 2>&1 &
wl=$!
cleanup_hooks+=("kill $wl 2>/dev/null")

metric() {	# NAME: its value on /metrics (empty if no answer within 2 s)
	curl -s -m 2 "http://127.0.0.1:$PORT/metrics" | awk -v n="hotcold_$1" '$1 == n { print $2 }'
}

# when a CPU stood still (the host stopping the vCPU, unreported: agent_lib.sh)
"$WL/freeze_canary" 120 "$TMP/freezes" 2>"$TMP/canary.err" &
canary=$!
cleanup_hooks+=("kill $canary 2>/dev/null")
"$HOTCOLD" agent -o "$disk/hist" --interval 1s -F 49 -p $wl --http 127.0.0.1:$PORT \
	2>"$TMP/a.err" &
ag=$!
cleanup_hooks+=("kill -KILL $ag 2>/dev/null")
wait_log 'agent: interval 2:' 30 "$TMP/a.err" || { bad "no intervals: $(tail -3 "$TMP/a.err")"; finish; }
n0=$(metric intervals_total)
fsfreeze -f "$disk" || { bad "fsfreeze failed"; finish; }
t0=$(date +%s.%N)
sleep 5
n1=$(metric intervals_total)
t1=$(date +%s.%N)
late=$(metric agent_interval_late_seconds | awk '{ printf "%.3f", $1 }')
fsfreeze -u "$disk"
q=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
# 5 s frozen at 1 s intervals: >= 4 ended (each ends within a turn of its due time)
[ -n "$n1" ] && [ $((n1 - n0)) -ge 4 ] &&
	ok "frozen disk: the loop ended $((n1 - n0)) intervals in $q s, /metrics answered (the last ${late} s late)" ||
	bad "frozen disk: intervals ${n0:-?} -> ${n1:-no answer} in $q s"
sleep 3	# the blocked write returns, the two waiting ones are written
skipped=$(metric agent_intervals_skipped_total)
said=$(grep -c 'not written: the writer is still busy' "$TMP/a.err")
[ "${skipped:-0}" -ge 1 ] && [ "$skipped" = "$said" ] &&
	ok "$skipped intervals skipped while the writer was blocked, each said and counted" ||
	bad "skipped ${skipped:-?} (metric), $said said"
read -r full late mx gaps part < <(index_check "$disk/hist/index.jsonl" 1000 "$TMP/freezes")
frz=$(freeze_summary "$TMP/freezes")
[ "$full" -ge 5 ] && [ "$late" -eq 0 ] &&
	ok "$full intervals written, every one on time (longest $mx ms of 1000 + 10% + stops; $frz)" ||
	bad "$full intervals written, $late late (longest $mx ms; load $(cut -d' ' -f1 /proc/loadavg); $frz)"
# the skipped ones are the only gaps (back to back skips make one)
# (read until no interval is in flight: one may be between its end and its write)
for _ in $(seq 20); do
	ended=$(metric intervals_total)
	lines=$(grep -c . "$disk/hist/index.jsonl")
	[ $((lines + skipped)) -eq "${ended:-0}" ] && break
	sleep 0.1
done
[ $((lines + skipped)) -eq "$ended" ] && [ "$gaps" -ge 1 ] && [ "$gaps" -le "$skipped" ] &&
	ok "$lines written + $skipped skipped = $ended ended; $gaps gaps in the index where they were" ||
	bad "$lines written, $skipped skipped, $ended ended, $gaps gaps"
# every file the index lists is on disk (a file is on disk before the index lists it)
listed_present() {
	python3 - "$disk/hist" <<'PY'
import json, os, sys
d = sys.argv[1]
listed = [f["name"] for l in open(os.path.join(d, "index.jsonl")) if l.strip()
          for f in json.loads(l)["files"]]
sys.exit(0 if listed and all(os.path.exists(os.path.join(d, n)) for n in listed) else 1)
PY
}
listed_present && ok "the index lists no missing file" || bad "the index lists a missing file"

# ---- SIGTERM with the disk frozen: the agent gives up on the write in flight
wait_log "agent: interval $((ended + 1)):" 10 "$TMP/a.err"
fsfreeze -f "$disk"
sleep 1.5	# the next interval's write blocks
kill -TERM $ag
t0=$(date +%s.%N)
for _ in $(seq 100); do
	grep -q 'exiting while an interval is still being written' "$TMP/a.err" && break
	sleep 0.02
done
t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
grep -q 'exiting while an interval is still being written' "$TMP/a.err" && within "$t" 0 1 &&
	ok "SIGTERM on a frozen disk: the agent gave up on the write in flight after $t s" ||
	bad "SIGTERM on a frozen disk: $(tail -2 "$TMP/a.err")"
fsfreeze -u "$disk"
t=$(term_wait $ag 3)
[ "$t" != timeout ] && ok "gone $t s after the thaw" || bad "still running after the thaw"
listed_present && ok "after the exit the index lists no missing file" ||
	bad "after the exit the index lists a missing file"
# a restart over it: what the cut-off write left (temporary files) is cleaned up
"$HOTCOLD" agent -o "$disk/hist" --interval 1s -F 49 -p $wl 2>"$TMP/b.err" &
ag=$!
wait_log 'agent: interval 1:' 20 "$TMP/b.err"
t=$(term_wait $ag 3)
ls "$disk/hist" | grep -q '\.tmp\.' && bad "temporary files left: $(ls "$disk/hist" | grep '\.tmp\.')" ||
	ok "restart: no temporary file left (exit in $t s)"
listed_present && ok "restart: the index lists no missing file" || bad "restart: the index lists a missing file"
finish
