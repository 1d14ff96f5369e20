#!/bin/bash
# hotcold annotate on a recorded profile of tests/workloads/hotloop.c, whose
# hot_loop() runs the loop marked HOT 9 times as often as the one calling
# the inlined mix() (marked MIX):
#  - the loop's lines (HOT and its `for`) carry most of hot_loop's samples,
#    the HOT line alone more than the inlined MIX line (negative control),
#    every instruction's samples add up to the function's;
#  - a copy built from a source in $TMP: its source text shown; moved away,
#    the view says the source is missing (exit 0, lines still weighted);
#    --source-dir OLD=NEW finds it again;
#  - the same binary stripped, with its debug file under --debug-root,
#    annotates the same lines; without the debug file it exits 2;
#  - the agent's history (--history DIR, --since): its intervals summed,
#    equal to annotating each file and adding up;
#  - an unknown function, a profile without addresses: exit 2.
. "$(dirname "$0")/lib.sh"

SRC=$(cd "$(dirname "$0")/../workloads" && pwd)/hotloop.c
HOT=$(grep -n '/\* HOT \*/' "$SRC" | cut -d: -f1)
MIX=$(grep -n '/\* MIX \*/' "$SRC" | cut -d: -f1)

# check JSON LOOP_LINE HOT_LINE MIX_LINE: prints "loop% hot% mix% top_line insn_sum_ok inlined source_ok debug"
summ() {
	python3 - "$@" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
hot, mix = int(sys.argv[2]), int(sys.argv[3])
tot = j["samples"]
w = {}
for l in j["lines"]:
    if l["file"].endswith("hotloop.c"):
        w[l["line"]] = w.get(l["line"], 0) + l["samples"]
loop = w.get(hot, 0) + w.get(hot - 1, 0)
top = j["lines"][0]["line"] if j["lines"] else 0
isum = sum(i["samples"] for i in j["instructions"])
inl = any(l["inlined"] == "mix" for l in j["lines"])
src = [l["source"] for l in j["lines"] if l["line"] == hot]
src_ok = bool(src and src[0] and "/* HOT */" in src[0])
print("%.1f %.1f %.1f %d %d %d %d %d %d" % (100.0 * loop / tot, 100.0 * w.get(hot, 0) / tot,
      100.0 * w.get(mix, 0) / tot, top, isum == tot - j["outside"], inl, src_ok,
      j["debug_file"] is not None, tot))
PY
}

# 1. the Makefile-built workload: ~750 samples at 499 Hz over 1.5 s
"$HOTCOLD" record -F 499 -o "$TMP/h.pb.gz" -- "$WL/hotloop" 1.5 2>"$TMP/err" ||
	bad "record: $(tail -3 "$TMP/err")"
"$HOTCOLD" annotate --json "$TMP/h.pb.gz" hot_loop >"$TMP/a.json" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && ok "annotate --json exit 0" || bad "annotate exit $rc: $(cat "$TMP/err")"
read -r loop hot mix top isum inl src dbg n < <(summ "$TMP/a.json" "$HOT" "$MIX")
echo "  hot_loop: $n samples; loop lines $loop%, HOT line $hot%, MIX line $mix%, top line $top"
# By design 9/10 of hot_loop's work is the HOT loop; the compiler puts some of
# its instructions on DWARF line 0 (measured 10-20%), and with ~700 samples
# the binomial sd of a share is <2%: 50% leaves room for both.
awk -v l="$loop" 'BEGIN { exit !(l >= 50) }' && ok "the loop's lines carry $loop% (>= 50%)" ||
	bad "the loop's lines carry only $loop%"
{ [ "$top" -eq "$HOT" ] || [ "$top" -eq $((HOT - 1)) ]; } && ok "hottest line is the loop's ($top)" ||
	bad "hottest line $top, not $HOT or $((HOT - 1))"
awk -v h="$hot" -v m="$mix" 'BEGIN { exit !(h > m) }' && ok "HOT line $hot% > inlined MIX line $mix%" ||
	bad "HOT $hot% <= MIX $mix%"
[ "$isum" = 1 ] && ok "instructions add up to the function's samples" || bad "instruction sum differs"
[ "$inl" = 1 ] && ok "mix() shown as inlined" || bad "no line marked inlined mix"
[ "$src" = 1 ] && ok "HOT line's source text shown" || bad "HOT source text missing"
"$HOTCOLD" annotate "$TMP/h.pb.gz" hot_loop >"$TMP/a.txt" 2>&1
grep -q 'Hottest lines' "$TMP/a.txt" && grep -q 'imul' "$TMP/a.txt" &&
	grep -q 'in address order' "$TMP/a.txt" && ok "text view: lines, then disassembly" ||
	bad "text view: $(head -5 "$TMP/a.txt")"

# 2. a copy built here, so its source can move
mkdir -p "$TMP/src" "$TMP/bin"
cp "$SRC" "$TMP/src/hotloop.c"
${CLANG:-clang} -O2 -g -fno-omit-frame-pointer "$TMP/src/hotloop.c" -o "$TMP/bin/hotloop" ||
	bad "cannot build the copy"
"$HOTCOLD" record -F 499 -o "$TMP/c.pb.gz" -- "$TMP/bin/hotloop" 1.5 2>"$TMP/err" ||
	bad "record copy: $(tail -3 "$TMP/err")"
"$HOTCOLD" annotate --json "$TMP/c.pb.gz" hot_loop >"$TMP/c.json" 2>"$TMP/err"
read -r loop hot mix top isum inl src dbg n < <(summ "$TMP/c.json" "$HOT" "$MIX")
[ "$src" = 1 ] && ok "copy: source found ($loop% on the loop)" || bad "copy: no source"
mv "$TMP/src" "$TMP/moved"
"$HOTCOLD" annotate --json "$TMP/c.pb.gz" hot_loop >"$TMP/m.json" 2>"$TMP/err"
rc=$?
read -r loop2 hot2 mix2 top2 isum2 inl2 src2 dbg2 n2 < <(summ "$TMP/m.json" "$HOT" "$MIX")
[ $rc -eq 0 ] && [ "$src2" = 0 ] && [ "$loop2" = "$loop" ] &&
	grep -q "source $TMP/src/hotloop.c not found" "$TMP/m.json" &&
	ok "source moved: exit 0, lines still weighted, says the source is missing" ||
	bad "source moved: rc $rc src $src2 loop $loop2 vs $loop: $(head -c 600 "$TMP/m.json")"
"$HOTCOLD" annotate --json --source-dir "$TMP/src=$TMP/moved" "$TMP/c.pb.gz" hot_loop \
	>"$TMP/s.json" 2>"$TMP/err"
read -r _ _ _ _ _ _ src3 _ _ < <(summ "$TMP/s.json" "$HOT" "$MIX")
[ "$src3" = 1 ] && ok "--source-dir OLD=NEW finds the moved source" || bad "--source-dir: no source"

# 3. stripped in place, its debug file in a build-id tree
bid=$(readelf -n "$TMP/bin/hotloop" | awk '/Build ID/ { print $3 }')
mkdir -p "$TMP/dbg/.build-id/${bid:0:2}"
objcopy --only-keep-debug "$TMP/bin/hotloop" "$TMP/dbg/.build-id/${bid:0:2}/${bid:2}.debug"
strip "$TMP/bin/hotloop"
"$HOTCOLD" annotate --json --source-dir "$TMP/src=$TMP/moved" --debug-root "$TMP/dbg" \
	"$TMP/c.pb.gz" hot_loop >"$TMP/d.json" 2>"$TMP/err"
rc=$?
read -r loop4 hot4 mix4 top4 isum4 inl4 src4 dbg4 n4 < <(summ "$TMP/d.json" "$HOT" "$MIX")
[ $rc -eq 0 ] && [ "$dbg4" = 1 ] && [ "$loop4" = "$loop" ] && [ "$hot4" = "$hot" ] &&
	[ "$inl4" = 1 ] && [ "$src4" = 1 ] &&
	ok "stripped + debug file: the same view ($loop4% on the loop)" ||
	bad "stripped: rc $rc dbg $dbg4 loop $loop4 vs $loop: $(cat "$TMP/err")"
"$HOTCOLD" annotate --debug-root "$TMP/nodbg" "$TMP/c.pb.gz" hot_loop >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'no symbol hot_loop' "$TMP/err" &&
	ok "stripped without its debug file: exit 2, says so" ||
	bad "stripped, no debug file: rc $rc: $(cat "$TMP/err")"

# 5. the agent's history: 1 s intervals of hotloop (3 and the partial one at
# the stop), summed (--history), or the last ones (--since)
# hotloop runs until stopped: a loaded machine's slow agent start costs no interval
"$WL/hotloop" 60 >/dev/null &
hl=$!
cleanup_hooks+=("kill $hl 2>/dev/null")
"$HOTCOLD" agent -o "$TMP/hist" --interval 1s -F 499 -p $hl 2>"$TMP/ag.err" &
ag=$!
cleanup_hooks+=("kill $ag 2>/dev/null")
wait_log 'agent: interval 3:' 40 "$TMP/ag.err" || bad "agent: $(tail -3 "$TMP/ag.err")"
kill -TERM $ag 2>/dev/null; wait $ag
kill $hl 2>/dev/null; wait $hl 2>/dev/null
# the sum of the intervals one by one is what --history gives
sum1=0; nf=0
for f in "$TMP"/hist/*-oncpu.pb.gz; do
	n=$("$HOTCOLD" annotate --json "$f" hot_loop 2>/dev/null | python3 -c 'import json,sys
print(json.load(sys.stdin)["samples"])' 2>/dev/null)
	sum1=$((sum1 + ${n:-0})); nf=$((nf + 1))
done
"$HOTCOLD" annotate --json --history "$TMP/hist" hot_loop >"$TMP/h.json" 2>"$TMP/err"
rc=$?
read -r loopH hotH mixH topH isumH inlH srcH dbgH nH < <(summ "$TMP/h.json" "$HOT" "$MIX")
echo "  history: $nf intervals, $nH samples summed ($sum1 one by one); loop lines $loopH%"
[ $rc -eq 0 ] && [ "$nH" -eq "$sum1" ] && [ "$nH" -gt 0 ] && [ "$isumH" = 1 ] &&
	awk -v l="$loopH" 'BEGIN { exit !(l >= 50) }' &&
	ok "annotate --history: $nf intervals summed ($nH samples = the files' sum), loop $loopH%" ||
	bad "annotate --history: rc $rc, $nH vs $sum1 samples, loop $loopH%: $(cat "$TMP/err")"
grep -q "every one the same build" "$TMP/err" && ok "--history: one build in every interval, said" ||
	bad "--history message: $(cat "$TMP/err")"
"$HOTCOLD" annotate --json --history "$TMP/hist" --since 72000h hot_loop >"$TMP/h2.json" 2>/dev/null &&
	[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["samples"])' "$TMP/h2.json")" -eq "$nH" ] &&
	ok "--since 72000h: all of it" || bad "--since 72000h differs"
sleep 1.1	# every interval then started more than 1 s ago
"$HOTCOLD" annotate --history "$TMP/hist" --since 1s hot_loop >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q "no own samples of 'hot_loop' in 0 on-CPU intervals" "$TMP/err" &&
	ok "--since 1s after the agent stopped: no interval, exit 2" || bad "--since 1s: rc $rc $(cat "$TMP/err")"
"$HOTCOLD" annotate --history "$TMP/nonexistent" hot_loop >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && ok "--history of a missing directory: exit 2" || bad "missing history: $(cat "$TMP/err")"
"$HOTCOLD" annotate --since 1h "$TMP/h.pb.gz" hot_loop >/dev/null 2>&1
[ $? -eq 2 ] && ok "--since without --history: exit 2" || bad "--since alone accepted"

# 4. bad input
"$HOTCOLD" annotate "$TMP/h.pb.gz" no_such_function >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q "no function 'no_such_function'" "$TMP/err" &&
	ok "unknown function: exit 2" || bad "unknown function: rc $rc $(cat "$TMP/err")"
printf 'main;hot_loop 10\n' >"$TMP/f.folded"
"$HOTCOLD" convert -o "$TMP/f.pb.gz" "$TMP/f.folded" 2>"$TMP/err" || bad "convert: $(cat "$TMP/err")"
"$HOTCOLD" annotate "$TMP/f.pb.gz" hot_loop >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'has no addresses' "$TMP/err" &&
	ok "profile without addresses: exit 2" || bad "no addresses: rc $rc $(cat "$TMP/err")"
"$HOTCOLD" annotate "$TMP/f.folded" hot_loop >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'not a pprof profile' "$TMP/err" &&
	ok "folded text instead of pprof: exit 2" || bad "folded input: rc $rc $(cat "$TMP/err")"
finish
