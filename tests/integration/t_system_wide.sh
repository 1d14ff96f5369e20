#!/bin/bash
# -a: other processes are seen, idle is excluded unless --idle; -o - writes
# only data to stdout; the output file is created with mode 0644 and a
# symlink at the output path is replaced, not written through.
. "$(dirname "$0")/lib.sh"

"$WL/split" 4 "$TMP/truth" &
pid=$!
cleanup_hooks+=("kill $pid 2>/dev/null")
"$HOTCOLD" record -a -d 2 -o - >"$TMP/out.folded" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && ok "exit 0" || bad "exit $rc: $(cat "$TMP/err")"
n=$(folded_with_root "$TMP/out.folded" split)
# a busy machine may give split well under a CPU: any real share proves it is seen
[ "$n" -ge 20 ] && ok "system-wide sees split ($n samples)" || bad "split has $n samples"
# folded lines, after the header that says what they count
head -1 "$TMP/out.folded" | grep -q '^# hotcold folded v1 kind=oncpu unit=samples' && ok "stdout starts with the folded header" ||
	bad "no folded header on stdout: $(head -1 "$TMP/out.folded")"
awk 'NR > 1 && !/ [0-9]+$/ { bad = 1 } END { exit bad }' "$TMP/out.folded" && ok "stdout holds only folded lines" ||
	bad "non-folded line on stdout"
[ "$(folded_with_root "$TMP/out.folded" swapper/0)$(folded_with_root "$TMP/out.folded" swapper/1)" = 00 ] &&
	ok "idle excluded by default" || bad "idle samples present without --idle"

# idle ticks (USER_HZ) of all CPUs in a window well inside the recording
# (not its start-up), to know whether there was idle time to see
idle_ticks() { awk '$1 == "cpu" { print $5 }' /proc/stat; }
"$HOTCOLD" record -a --idle -d 3 -o "$TMP/idle.folded" 2>"$TMP/err" &
hc=$!
sleep 1.2
i0=$(idle_ticks)
sleep 1
i1=$(idle_ticks)
wait $hc
n=$(awk '$0 ~ /^swapper/ { t += $NF } END { printf "%.0f\n", t }' "$TMP/idle.folded")
if [ $((i1 - i0)) -lt 20 ]; then
	ok "--idle: the machine had little idle time ($((i1 - i0)) ticks), nothing to check"
elif [ "$n" -gt 0 ]; then
	ok "--idle records swapper ($n samples, $((i1 - i0)) idle ticks in 1 s mid-run)"
else
	bad "--idle: no swapper samples with $((i1 - i0)) idle ticks in 1 s mid-run"
fi

echo secret > "$TMP/victim"
ln -s "$TMP/victim" "$TMP/link.folded"
"$HOTCOLD" record -a -d 0.5 -o "$TMP/link.folded" 2>"$TMP/err"
[ "$(cat "$TMP/victim")" = secret ] && [ ! -L "$TMP/link.folded" ] &&
	ok "symlink at the output path replaced, its target untouched" || bad "wrote through a symlink"
mode=$(stat -c %a "$TMP/link.folded")
[ "$mode" = 644 ] && ok "output mode 644" || bad "output mode $mode"
finish
