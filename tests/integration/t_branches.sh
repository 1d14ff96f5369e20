#!/bin/bash
# Branch records (record -b, report --branches, annotate):
#  - on this machine, record -b says what is missing, with its exit status:
#    no hardware PMU or no branch stack -> exit 1, and writes no profile;
#    usage errors (a software event, no on-CPU samples, stdout) -> exit 2;
#  - a recorded branch file (the format record -b writes) next to a real
#    pprof profile of tests/workloads/hotloop: report --branches lists its
#    mispredicted sites with source lines, annotate marks the branch
#    instruction in hot_loop (and not a site of main: negative control);
#    a truncated branch file and a profile without one: exit 2;
#  - with LBR/BRBE: the hot loop's sites recorded for real. Without (this
#    machine, CI), the test ends with exit 77 and the reason, after the
#    checks above ran.
. "$(dirname "$0")/lib.sh"

BIN="$WL/hotloop"
SRC=$(cd "$(dirname "$0")/../workloads" && pwd)/hotloop.c

# 1. record -b here: what the machine has decides the expected error
"$HOTCOLD" record -b -d 1 -o "$TMP/b.folded" -- "$BIN" 0.5 >"$TMP/out" 2>"$TMP/err"
rc=$?
lbr=0
if [ $rc -eq 0 ]; then
	lbr=1
	ok "record -b works here (a PMU with a branch stack)"
elif ! have_cpu_pmu; then
	why="no hardware PMU here"
	[ $rc -eq 1 ] && grep -q "need a PMU branch stack (Intel LBR, AMD Zen 4+ LbrExtV2, Arm BRBE): $why" "$TMP/err" &&
		ok "record -b without a PMU: exit 1, '$why'" ||
		bad "record -b without a PMU: rc $rc: $(cat "$TMP/err")"
else
	why="this PMU has no branch stack"
	[ $rc -eq 1 ] && grep -q "$why" "$TMP/err" && ok "record -b without LBR/BRBE: exit 1, '$why'" ||
		bad "record -b without a branch stack: rc $rc: $(cat "$TMP/err")"
fi
if [ $lbr = 0 ]; then
	[ ! -e "$TMP/b.folded" ] && [ ! -e "$TMP/b.folded.branches" ] &&
		ok "no profile written (never a silent empty one)" || bad "a profile was written after the error"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] && ok "one line says it" || bad "stderr: $(cat "$TMP/err")"
fi
"$HOTCOLD" record -b -e cpu-clock -d 1 -o "$TMP/x.folded" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q "'cpu-clock' is a software event" "$TMP/err" &&
	ok "record -b -e cpu-clock: exit 2" || bad "-b -e cpu-clock: rc $rc: $(cat "$TMP/err")"
"$HOTCOLD" record -b --off-cpu -d 1 -o "$TMP/x.folded" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'add --on-cpu' "$TMP/err" && ok "record -b --off-cpu: exit 2" ||
	bad "-b --off-cpu: rc $rc: $(cat "$TMP/err")"
"$HOTCOLD" record -b -d 1 -o - >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'give -o FILE' "$TMP/err" && ok "record -b -o -: exit 2" ||
	bad "-b -o -: rc $rc: $(cat "$TMP/err")"

# 2. a real profile of hotloop, and branch records as record -b writes them
"$HOTCOLD" record -F 499 -o "$TMP/h.pb.gz" -- "$BIN" 1 2>"$TMP/err" ||
	bad "record: $(tail -3 "$TMP/err")"
# hot_loop's loop back edge (its last backward conditional jump) and a jump of main,
# as file offsets (through the LOAD segments) and function offsets
read -r br_va br_off br_fo to_off to_fo main_off main_fo < <(/usr/bin/python3 - "$BIN" <<'PY'
import re, subprocess, sys
b = sys.argv[1]
segs = []
for l in subprocess.run(["readelf", "-lW", b], capture_output=True, text=True).stdout.splitlines():
    f = l.split()
    if f and f[0] == "LOAD":
        segs.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
def off(va):
    for o, v, sz in segs:
        if v <= va < v + sz:
            return va - v + o
    sys.exit("no segment for %x" % va)
def jumps(fn):
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "--disassemble=" + fn, b],
                         capture_output=True, text=True).stdout
    start = int(re.search(r"^([0-9a-f]+) <%s>:" % fn, out, re.M).group(1), 16)
    js = [(int(m.group(1), 16), int(m.group(2), 16)) for m in
          re.finditer(r"^\s*([0-9a-f]+):\s+j(?!mp)[a-z]+\s+([0-9a-f]+)", out, re.M)]
    return start, js
s, js = jumps("hot_loop")
back = [j for j in js if j[1] < j[0]][-1]
ms, mjs = jumps("main")
print("%x %x %x %x %x %x %x" % (back[0], off(back[0]), back[0] - s, off(back[1]), back[1] - s,
      off(mjs[0][0]), mjs[0][0] - ms))
PY
)
[ -n "${br_va:-}" ] || bad "no conditional jump found in hot_loop"
bname=$(basename "$BIN")
printf '# hotcold branches v1 samples=100 entries=3200 mispredicted=430 predicted=2770\n' >"$TMP/h.pb.gz.branches"
printf '1600\t400\t1200\t7200\t1600\t%s\t0x%s\thot_loop\t0x%s\t%s\t24\t%s\t0x%s\thot_loop\t0x%s\t%s\t24\n' \
	"$BIN" "$br_off" "$br_fo" "$SRC" "$BIN" "$to_off" "$to_fo" "$SRC" >>"$TMP/h.pb.gz.branches"
printf '100\t30\t70\t0\t0\t%s\t0x%s\tmain\t0x%s\t-\t0\t%s\t0x0\t-\t-\t-\t0\n' \
	"$BIN" "$main_off" "$main_fo" "$BIN" >>"$TMP/h.pb.gz.branches"

"$HOTCOLD" report --branches "$TMP/h.pb.gz" >"$TMP/r.txt" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && ok "report --branches: exit 0" || bad "report --branches: rc $rc $(cat "$TMP/err")"
grep -q '430 mispredicted (13.44%)' "$TMP/r.txt" && ok "totals: 430 of 3200 mispredicted (13.44%)" ||
	bad "totals: $(head -1 "$TMP/r.txt")"
first=$(grep -m1 -A1 -- 'branch -> target' "$TMP/r.txt" | tail -1)
echo "  top site: $first"
echo "$first" | grep -q "400  25.00% .*hot_loop+0x$br_fo (hotloop.c:24) -> hot_loop+0x$to_fo" &&
	ok "most mispredicted first: hot_loop+0x$br_fo, 25% of its 1600" || bad "top site: $first"
grep -q "30  30.00% .*main+0x$main_fo -> $bname+0x0" "$TMP/r.txt" &&
	ok "main's site second, its unnamed target as $bname+0x0" || bad "main's site: $(cat "$TMP/r.txt")"
"$HOTCOLD" report --branches --json "$TMP/h.pb.gz" | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["mispredicted"] == 430 and len(j["sites"]) == 2, j
assert j["sites"][0]["from"]["function"] == "hot_loop" and j["sites"][0]["mispredict_pct"] == 25.0
' && ok "report --branches --json" || bad "report --branches --json"

"$HOTCOLD" annotate "$TMP/h.pb.gz" hot_loop >"$TMP/a.txt" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && ok "annotate: exit 0" || bad "annotate: rc $rc $(cat "$TMP/err")"
# the mark follows the branch instruction itself, in address order
awk -v a=" $br_va:  " 'index($0, a) && !/mispredicted/ { getline; print; exit }' "$TMP/a.txt" >"$TMP/mark"
grep -q "\^ mispredicted 400 of 1600 (25.0%) -> hot_loop+0x$to_fo" "$TMP/mark" &&
	ok "annotate marks the branch at $br_va: $(sed 's/^ *//' "$TMP/mark")" ||
	bad "no mark after $br_va: $(cat "$TMP/mark")"
[ "$(grep -c 'mispredicted .* of ' "$TMP/a.txt")" -eq 2 ] &&
	ok "one site listed, one marked; main's site is not hot_loop's" ||
	bad "marks: $(grep 'mispredicted' "$TMP/a.txt")"
"$HOTCOLD" annotate --json "$TMP/h.pb.gz" hot_loop | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
b = j["branches"]
assert len(b) == 1 and b[0]["address"] == int(sys.argv[1], 16) and b[0]["mispredicted"] == 400, b
' "$br_va" && ok "annotate --json: branches[]" || bad "annotate --json branches"

# 3. bad input
"$HOTCOLD" record -F 99 -o "$TMP/n.pb.gz" -- "$BIN" 0.2 2>/dev/null
"$HOTCOLD" report --branches "$TMP/n.pb.gz" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'has no branch records' "$TMP/err" &&
	ok "a profile without branch records: exit 2" || bad "no branches: rc $rc $(cat "$TMP/err")"
"$HOTCOLD" annotate "$TMP/n.pb.gz" hot_loop 2>"$TMP/err" | grep -q 'mispredicted' &&
	bad "annotate without branch records marks something" || ok "annotate without branch records: no marks"
head -c -9 "$TMP/h.pb.gz.branches" >"$TMP/cut.branches"
"$HOTCOLD" report --branches "$TMP/cut.branches" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'line 3: no newline (truncated?)' "$TMP/err" &&
	ok "a truncated branch file: exit 2, the line said" || bad "truncated: rc $rc $(cat "$TMP/err")"

# 4. the hardware part
if [ $lbr = 1 ]; then
	"$HOTCOLD" report --branches "$TMP/b.folded" >"$TMP/hw.txt" 2>"$TMP/err" ||
		bad "report of the real branch records: $(cat "$TMP/err")"
	grep -q 'hot_loop' "$TMP/hw.txt" && ok "real branch records name hot_loop" ||
		bad "real branch records: $(head -8 "$TMP/hw.txt")"
	finish
fi
[ "$FAILS" -eq 0 ] || finish
skip "record -b on real branch records: $why (needs Intel LBR, AMD Zen 4+ or Arm BRBE)"
