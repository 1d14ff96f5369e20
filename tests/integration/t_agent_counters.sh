#!/bin/bash
# agent --counters: every interval gets <start>-counters.json, one object with
# each process's counters over that interval (cpu-clock and page-faults here,
# without a PMU). Summed over the intervals, a spinning process's cpu-clock
# agrees with the CPU time the kernel charged it over the agent's run (±5%
# + 30 ms for the edges); the web view serves the file.
. "$(dirname "$0")/lib.sh"

# a name of its own: --comm split also counted other tests' and benches'
# split processes running on the machine (4 rows in run 6 of session 11)
comm=hcsplit$$
cp "$WL/split" "$TMP/$comm"
"$TMP/$comm" 8 "$TMP/truth" &
wl=$!
cleanup_hooks+=("kill $wl 2>/dev/null")
port=$((20000 + $$ % 10000))
"$HOTCOLD" agent --counters --comm "$comm" --interval 1s -o "$TMP/hist" --http 127.0.0.1:$port \
	2>"$TMP/err" &
agent=$!
cleanup_hooks+=("kill $agent 2>/dev/null")
for _ in $(seq 100); do grep -q 'writing every' "$TMP/err" && break; sleep 0.05; done
cpu_ticks() { awk '{ print $14 + $15 }' /proc/$wl/stat; }
t0=$(cpu_ticks)
sleep 3.2
served=$(curl -s "http://127.0.0.1:$port/" | grep -o 'counters?t=[^"]*' | head -1)
body=$(curl -s "http://127.0.0.1:$port/$served")
t1=$(cpu_ticks)
kill -TERM $agent
wait $agent
rc=$?
[ $rc -eq 0 ] && ok "exit 0" || bad "exit $rc: $(tail -3 "$TMP/err")"
n=$(ls "$TMP"/hist/*-counters.json 2>/dev/null | wc -l)
[ "$n" -ge 3 ] && ok "$n counters files" || bad "$n counters files"
python3 - "$wl" "$TMP"/hist/*-counters.json > "$TMP/sum" <<'PY' || bad "counters JSON does not parse"
import json, sys
pid = int(sys.argv[1]); ms = 0.0; others = 0
for path in sys.argv[2:]:
    doc = json.load(open(path))
    assert doc["seconds"] > 0
    for p in doc["processes"]:
        if p["pid"] == pid:
            ms += p["counters"]["cpu-clock"]["value"]
        else:
            others += 1
print(f"{ms:.1f} {others}")
PY
read -r ms others < "$TMP/sum"
want=$(awk -v a=$t0 -v b=$t1 -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", (b - a) * 1000 / hz }')
awk -v g="$ms" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 1000 && d <= 0.05 * w + 30) }' &&
	ok "split: $ms ms cpu-clock in the counters files vs $want ms charged by the kernel" ||
	bad "split: $ms ms cpu-clock in the counters files vs $want ms charged by the kernel"
[ "$others" -eq 0 ] && ok "only the --comm target is counted" || bad "$others rows of other processes"
grep -q '"processes"' <<<"$body" && ok "web view serves $served" || bad "web view: '$served' gave '${body:0:80}'"
finish
