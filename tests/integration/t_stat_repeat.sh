#!/bin/bash
# stat -r N and stat --compare on tests/workloads/faults.c, whose page faults
# are set by design (PAGES first touches of fresh pages, huge pages refused):
#  - stat -r 3: mean, stddev, min, max per counter; task-clock varies from
#    run to run (ns resolution), so it shows a spread (stddev > 0, min < max);
#    without a PMU no hardware row appears (never a 0) and it says so;
#  - --compare of 20000 vs 40000 pages: B has exactly 20000 more faults and
#    A about 20000 + the ~50 of exec and libc, so +99.7% (95..100 allowed for
#    the start-up faults), flagged as beyond the spread, and named in the
#    reasoning; negative control: a file compared with itself flags nothing;
#  - -e minor-faults: counted beside the fixed list (>= the 20000 faults, <= page-faults);
#  - --mode cache: the drill-down ratios with their bands, or "no hardware PMU";
#  - --compare --json and --mode --json: the same for scripts;
#  - bad input: -r without a command, -r 1, --compare of a non-JSON file, an
#    unknown --mode: exit 2.
. "$(dirname "$0")/lib.sh"

"$HOTCOLD" stat -r 3 -- "$WL/faults" 20000 20 >"$TMP/r.txt" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && grep -q '3 runs' "$TMP/r.txt" && ok "stat -r 3: exit 0, 3 runs" ||
	bad "stat -r 3: rc $rc $(cat "$TMP/err")"
"$HOTCOLD" stat -r 3 --json -o "$TMP/a.json" -- "$WL/faults" 20000 0 2>"$TMP/err" ||
	bad "stat -r 3 --json A: $(cat "$TMP/err")"
"$HOTCOLD" stat -r 3 --json -o "$TMP/b.json" -- "$WL/faults" 40000 0 2>"$TMP/err" ||
	bad "stat -r 3 --json B: $(cat "$TMP/err")"
read -r sd mn mx pf hw < <(python3 - "$TMP/a.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
c = {x["event"]: x for x in j["counters"]}
t = c["task-clock"]
print(t["stddev"], t["min"], t["max"], c["page-faults"]["value"], int("cycles" in c))
PY
)
echo "  task-clock stddev $sd msec (min $mn, max $mx); page-faults mean $pf"
awk -v s="$sd" -v a="$mn" -v b="$mx" 'BEGIN { exit !(s > 0 && a < b) }' &&
	ok "stat -r 3 shows a spread (task-clock sd $sd msec)" || bad "no spread: sd $sd min $mn max $mx"
if ! have_cpu_pmu; then
	[ "$hw" = 0 ] && grep -q 'no hardware PMU' "$TMP/r.txt" &&
		ok "no PMU: no hardware rows, says so" || bad "no PMU: cycles row $hw"
fi

"$HOTCOLD" stat --compare "$TMP/a.json" "$TMP/b.json" >"$TMP/c.txt" 2>"$TMP/err"
rc=$?
d=$(awk '$1 == "page-faults" && $4 ~ /%$/ { sub(/%/, "", $4); print $4; exit }' "$TMP/c.txt")
echo "  page-faults delta: $d%"
[ $rc -eq 0 ] && awk -v d="$d" 'BEGIN { exit !(d >= 95 && d <= 100) }' &&
	grep -q '^  page-faults .*\*$' "$TMP/c.txt" &&
	ok "--compare: page-faults $d% (twice the faults by design), beyond the spread" ||
	bad "--compare: rc $rc delta '$d': $(cat "$TMP/c.txt" "$TMP/err")"
grep -q '^2\. beyond the spread' "$TMP/c.txt" && grep -q '^   page-faults +' "$TMP/c.txt" &&
	ok "--compare: reasoning names page-faults" || bad "reasoning: $(tail -4 "$TMP/c.txt")"
# --compare --json: the same numbers for scripts, the reasoning as lines
"$HOTCOLD" stat --compare --json "$TMP/a.json" "$TMP/b.json" >"$TMP/c.json" 2>"$TMP/err"
python3 - "$TMP/c.json" "$d" <<'PY' && ok "--compare --json: page-faults delta, significant, the reasoning" ||
import json, sys
j = json.load(open(sys.argv[1]))
c = {x["event"]: x for x in j["counters"]}
pf = c["page-faults"]
ok = abs(pf["delta_pct"] - float(sys.argv[2])) < 0.1 and pf["significant"] and \
     pf["b"] - pf["a"] > 19000 and any("page-faults +" in l for l in j["verdict"]) and \
     c["task-clock"]["unit"] == "ns"
sys.exit(not ok)
PY
	bad "--compare --json: $(head -c 600 "$TMP/c.json") $(cat "$TMP/err")"
"$HOTCOLD" stat --compare "$TMP/a.json" "$TMP/a.json" >"$TMP/s.txt" 2>&1
! grep -q '  \*$' "$TMP/s.txt" && ok "negative control: A vs A flags nothing" ||
	bad "A vs A: $(cat "$TMP/s.txt")"

# --mode: without a PMU it says so (never a table of zeros); with one, every ratio has a band
"$HOTCOLD" stat --mode cache -- "$WL/faults" 100 1 >"$TMP/m.txt" 2>&1
rc=$?
if grep -q 'no hardware PMU' "$TMP/m.txt"; then
	[ $rc -eq 0 ] && grep -q 'cache and TLB drill-down: not available (no hardware PMU)' "$TMP/m.txt" &&
		ok "--mode cache without a PMU: says so" || bad "--mode cache: $(tail -3 "$TMP/m.txt")"
else
	[ $rc -eq 0 ] && grep -q 'L1d miss rate .*healthy < 5%, investigate > 10%' "$TMP/m.txt" &&
		ok "--mode cache: ratios with bands" || bad "--mode cache: $(tail -8 "$TMP/m.txt")"
fi
# --mode --json: the drill-down in the snapshot's JSON; without a PMU unavailable, no zeros
"$HOTCOLD" stat --mode branches --json -- "$WL/faults" 100 1 >"$TMP/m.json" 2>"$TMP/err"
python3 - "$TMP/m.json" <<'PY' && ok "--mode --json: \"drill\" present, no ratio given as 0 without its events" ||
import json, sys
d = json.load(open(sys.argv[1]))["drill"]
ok = d["mode"] == "branches" and (
    (not d["available"] and d["why"] == "no hardware PMU" and d["metrics"] == []) or
    (d["available"] and all(m["value"] is not None or m["why"] for m in d["metrics"])))
sys.exit(not ok)
PY
	bad "--mode --json: $(cat "$TMP/m.json" "$TMP/err" | tail -c 600)"
# -e: a named software event beside the fixed list; minor faults = page faults here
# (fresh anonymous pages are never read from disk)
"$HOTCOLD" stat --json -e minor-faults,major-faults -- "$WL/faults" 20000 0 >"$TMP/e.json" 2>"$TMP/err"
read -r mi pf < <(python3 - "$TMP/e.json" <<'PY'
import json, sys
c = {x["event"]: x["value"] for x in json.load(open(sys.argv[1]))["counters"]}
print(int(c.get("minor-faults") or 0), int(c.get("page-faults") or 0))
PY
)
[ "$mi" -ge 20000 ] && [ "$mi" -le "$pf" ] && ok "-e minor-faults: $mi (page-faults $pf)" ||
	bad "-e minor-faults: $mi vs page-faults $pf: $(cat "$TMP/err")"
"$HOTCOLD" stat -e no-such-event -- true >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q "unknown event 'no-such-event'" "$TMP/err" && ok "stat -e unknown event: exit 2" ||
	bad "stat -e unknown: rc $rc"
"$HOTCOLD" stat --mode topdown9 -- true >/dev/null 2>&1
[ $? -eq 2 ] && ok "unknown --mode: exit 2" || bad "unknown --mode accepted"

"$HOTCOLD" stat -r 3 >/dev/null 2>&1
[ $? -eq 2 ] && ok "-r without a command: exit 2" || bad "-r without a command"
"$HOTCOLD" stat -r 1 -- true >/dev/null 2>&1
[ $? -eq 2 ] && ok "-r 1: exit 2" || bad "-r 1 accepted"
echo 'not json' >"$TMP/x.json"
"$HOTCOLD" stat --compare "$TMP/a.json" "$TMP/x.json" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'is not the JSON' "$TMP/err" && ok "--compare of a non-JSON file: exit 2" ||
	bad "--compare bad file: rc $rc"
finish
