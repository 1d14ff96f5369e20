#!/bin/bash
# A huge perf map costs the root agent a bounded amount: /tmp/perf-PID.map of
# a JIT workload replaced by 500 MB (a 491 MB hole, then 9 MB of valid lines,
# then the workload's real line). The agent reads only the last 8 MiB: its
# peak and current RSS exceed those of the same run with the workload's own one-line map
# by less than 50 MB, the JIT frame is still named (it is at the end), and the
# skip is counted in /metrics.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip "x86-64 only"
[ -x "$WL/jit" ] || skip "no jit workload (make workloads)"

# agent_run NAME: an agent on a fresh jit workload for ~4 s; peak and current RSS (kB) into $TMP/NAME.hwm
agent_run() {
	"$WL/jit" 8 > "$TMP/$1.pid" &
	wl=$!
	cleanup_hooks+=("kill $wl 2>/dev/null; rm -f /tmp/perf-$wl.map /tmp/perf-$wl.map.big")
	for _ in $(seq 100); do [ -s /tmp/perf-$wl.map ] && break; sleep 0.02; done
	[ "$1" = big ] && make_big /tmp/perf-$wl.map
	port=$((20000 + ($$ + 11) % 10000))
	"$HOTCOLD" agent -p $wl -F 99 --interval 1s -o "$TMP/hist-$1" --http 127.0.0.1:$port \
		2>"$TMP/$1.err" &
	agent=$!
	cleanup_hooks+=("kill $agent 2>/dev/null")
	sleep 4
	awk '/^VmHWM|^VmRSS/ { printf "%d ", $2 }' /proc/$agent/status > "$TMP/$1.hwm"
	python3 -c "import urllib.request,sys; sys.stdout.write(urllib.request.urlopen('http://127.0.0.1:$port/metrics').read().decode())" \
		> "$TMP/$1.metrics" 2>/dev/null
	kill -TERM $agent
	wait $agent
	kill $wl 2>/dev/null
	wait $wl 2>/dev/null
	zcat "$TMP/hist-$1"/*-oncpu.folded.gz > "$TMP/$1.folded" 2>/dev/null
}

# make_big MAP: 491 MB hole + 9 MB of lines elsewhere + MAP's own line, renamed into place
make_big() {
	python3 - "$1" <<'PY'
import os, sys
path = sys.argv[1]
real = open(path).read()
with open(path + ".big", "wb") as f:
    f.truncate(491 << 20)
    f.seek(491 << 20)
    f.write(b"\n")
    line = b"".join(b"%x 40 LazyCompile:~filler_%d /srv/app/filler.js:1\n" % (0x100000000 + i * 64, i)
                    for i in range(16384))
    while f.tell() < (500 << 20) - len(line):
        f.write(line)
    f.write(real.encode())
os.rename(path + ".big", path)
PY
}

agent_run small
agent_run big
read -r small small_rss < "$TMP/small.hwm"
read -r big big_rss < "$TMP/big.hwm"
d=$(( (big - small) / 1024 )) dr=$(( (big_rss - small_rss) / 1024 ))
msg="peak RSS $((small / 1024)) -> $((big / 1024)) MB (+$d), RSS $((small_rss / 1024)) -> $((big_rss / 1024)) MB (+$dr)"
[ "$d" -lt 50 ] && [ "$dr" -lt 50 ] && ok "500 MB perf map: $msg" || bad "500 MB perf map: $msg"
j=$(folded_with_frame "$TMP/big.folded" "jit_hot_loop_[j]")
[ "$j" -gt 0 ] && ok "the map's last line still names $j samples" ||
	bad "jit_hot_loop_[j] not found: $(head -2 "$TMP/big.folded")"
skipped=$(awk '/^hotcold_symbolizer_perfmap_skipped_bytes_total/ { printf "%d", $2 }' "$TMP/big.metrics")
[ "${skipped:-0}" -ge $((491 << 20)) ] && ok "skip counted: $((skipped >> 20)) MiB not read" ||
	bad "skipped bytes in /metrics: '${skipped:-none}'"
grep -q "only the last 8 MiB" "$TMP/big.err" && ok "and warned: $(grep -m1 'only the last' "$TMP/big.err")" ||
	bad "no warning: $(head -3 "$TMP/big.err")"
finish
