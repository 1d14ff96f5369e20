#!/bin/bash
# CFI through a frame whose CFA is defined by %rbx: glibc's lazy-binding
# trampoline (_dl_runtime_resolve_xsavec, a program's first call of each
# library function) keeps its stack pointer in %rbx while it realigns the
# stack. tests/workloads/nofp/realign.c has such a frame (realign_call)
# under a function that saves %rbx and reuses it (keeps_rbx), above the leaf
# that burns the CPU; no frame pointers. Required: >= 99% of the leaf's
# samples walked to main through both (before: 0%, every walk stopped at
# realign_call, "a CFA rule we cannot evaluate"). At 999 Hz for 2 s a run
# gives ~1,500 leaf samples; the misses allowed (1%, 15) are the leaf's
# first samples before the table is published: the command is held at its
# entry point until then (t_start_hold), so none are expected.
. "$(dirname "$0")/lib.sh"

command -v gcc >/dev/null || skip "gcc not installed"
src=$(dirname "$0")/../workloads/nofp/realign.c
gcc -O2 -g -fomit-frame-pointer -o "$TMP/realign" "$src" 2>"$TMP/cc.err" ||
	{ bad "cannot build the workload: $(cat "$TMP/cc.err")"; finish; }
# the workload has the rule this test is about
readelf -wF "$TMP/realign" | grep -q 'rbx+16' || bad "no %rbx-defined CFA in the build"

"$HOTCOLD" record -v --unwind cfi -F 999 -o "$TMP/r.folded" -- "$TMP/realign" 2 2>"$TMP/r.err" ||
	{ bad "record failed: $(tail -3 "$TMP/r.err")"; finish; }
read -r leaf full < <(awk '{ n = $NF; if ($0 ~ /;spin_leaf( |;)/) { l += n
		if ($0 ~ /;main;stage;realign_call;keeps_rbx;spin_leaf( |;)/) c += n } }
	END { print l + 0, c + 0 }' "$TMP/r.folded")
if [ "$leaf" -lt 500 ]; then
	bad "only $leaf samples in spin_leaf"
elif [ $((full * 100)) -ge $((leaf * 99)) ]; then
	ok "$full of $leaf spin_leaf samples walked to main through the %rbx-defined frame"
else
	bad "$full of $leaf spin_leaf samples walked to main; e.g. $(grep -v ';main;' "$TMP/r.folded" | sort -t' ' -k2 -nr | head -2 | tr '\n' '|')"
fi

# A walk that stops short says so: through expr_call, whose CFA is a DWARF
# expression the tables do not hold, every walk from spin_leaf stops there
# (counted as an unsupported rule) and the stack gets "[walk cut]" right
# after its root, where an unmarked one looked complete (expr_call its
# outermost frame). All of them: the mark is set for every partial CFI
# walk; 99% allows the leaf's samples walked before the hold (none
# expected, as above).
"$HOTCOLD" record --unwind cfi -F 999 -o "$TMP/e.folded" -- "$TMP/realign" 1 expr 2>"$TMP/e.err" ||
	{ bad "record failed: $(tail -3 "$TMP/e.err")"; finish; }
read -r leaf marked < <(awk '{ n = $NF; if ($0 ~ /;spin_leaf( |;)/) { l += n
		if ($0 ~ /^[^;]*;\[walk cut\];expr_call;keeps_rbx;spin_leaf( |;)/) c += n } }
	END { print l + 0, c + 0 }' "$TMP/e.folded")
if [ "$leaf" -lt 250 ]; then
	bad "expr: only $leaf samples in spin_leaf"
elif [ $((marked * 100)) -ge $((leaf * 99)) ]; then
	ok "expr: $marked of $leaf spin_leaf walks stopped at the DWARF-expression CFA, marked [walk cut]"
else
	bad "expr: $marked of $leaf spin_leaf walks marked; e.g. $(sort -t' ' -k2 -nr "$TMP/e.folded" | head -2 | tr '\n' '|')"
fi
finish
