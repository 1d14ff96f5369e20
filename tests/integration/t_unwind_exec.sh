#!/bin/bash
# After an exec, the old image's CFI mappings are gone at once (bpf/proc.bpf.c
# clears the process's unwind_procs entry in its exec hook), not when the
# loader reads the exec record: until then the walker stepped the new image's
# code by the old image's rows. tests/workloads/nofp/execab.c, built twice
# without PIE or frame pointers, is two images whose spin functions sit at
# the same address: A's with an 8 KiB frame, B's with 24 bytes; each spins
# 50 ms and execs the other, 20 images in all. A walk of one by the other's
# rows takes its return address from the wrong place.
#
# Required: every sample of either spin function walked to main, or marked
# "[frame-pointer walk: no CFI table yet]" (a sample between the exec and
# the new image's publication: walked by frame pointer, said so). Before
# the fix, 7-58 of each run's 80-350 such samples ended "[walk cut...]"
# with made-up [unknown] frames (3 runs here, loaded machine); after, none.
# The negative count is exact: a stale walk has no other cause to hide
# behind. At least 100 samples of the two functions (1 s of spinning at
# 999 Hz is ~1,000; a run that got a tenth of a CPU still has 100).
. "$(dirname "$0")/lib.sh"

command -v gcc >/dev/null || skip "gcc not installed"
src=$(dirname "$0")/../workloads/nofp/execab.c
for i in a b; do
	d=; [ $i = b ] && d=-DIMAGE_B
	gcc -O1 -g -fomit-frame-pointer -fasynchronous-unwind-tables -no-pie $d \
		-o "$TMP/execab_$i" "$src" 2>"$TMP/cc.err" ||
		{ bad "cannot build the workload: $(cat "$TMP/cc.err")"; finish; }
done
# the premise: both spin functions at one address, with different frames
aa=$(nm "$TMP/execab_a" | awk '$3 == "a_frame" { print $1 }')
ba=$(nm "$TMP/execab_b" | awk '$3 == "b_spin" { print $1 }')
[ -n "$aa" ] && [ "$aa" = "$ba" ] || bad "a_frame at ${aa:-?}, b_spin at ${ba:-?}: not one address"

"$HOTCOLD" record -v --unwind cfi -F 999 -o "$TMP/e.folded" -- \
	"$TMP/execab_a" 20 50 "$TMP/execab_a" "$TMP/execab_b" 2>"$TMP/e.err" ||
	{ bad "record failed: $(tail -3 "$TMP/e.err")"; finish; }
# per spin function: samples, walked to main, marked as walked by FP, other
read -r tot main fp other < <(awk '{ n = split($0, fr, ";"); sub(/ [0-9]+$/, "", fr[n])
	if (fr[n] != "a_frame" && fr[n] != "b_spin") next
	c = $NF; t += c
	if ($0 ~ /;main;(a_frame|b_spin) [0-9]+$/) m += c
	else if ($0 ~ /^[^;]*;\[frame-pointer walk: no CFI table yet\];/) f += c
	else o += c } END { print t + 0, m + 0, f + 0, o + 0 }' "$TMP/e.folded")
echo "  spin functions: $tot samples, $main walked to main, $fp by frame pointer before" \
	"the new image's table, $other other"
if [ "$tot" -lt 100 ]; then
	bad "only $tot samples of a_frame and b_spin"
elif [ "$other" -eq 0 ]; then
	ok "$main of $tot samples walked to main, $fp marked as walked before the new image's table; none by the old image's"
else
	bad "$other of $tot samples neither walked to main nor marked: $(grep -E ';(a_frame|b_spin) [0-9]+$' "$TMP/e.folded" |
		grep -v ';main;' | grep -v 'no CFI table yet' | sort -t' ' -k2 -nr | head -3 | tr '\n' '|')"
fi
grep -E '^ +oncpu .*(walk|table|FP|CFI|mapp)' "$TMP/e.err" | grep -v ' 0 ' | sed 's/^/  /'
finish
