#!/bin/bash
# `-- CMD` follows children: a shell that starts two workloads, one of them
# exiting early; both are profiled and named, other processes are not, nor
# the child before its exec.
. "$(dirname "$0")/lib.sh"

"$HOTCOLD" record -F 499 -o "$TMP/out.folded" -- \
	sh -c "'$WL/split' 1 '$TMP/t1' & '$WL/split' 2 '$TMP/t2'; wait" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && ok "exit 0" || bad "exit $rc: $(cat "$TMP/err")"
n=$(folded_with_root "$TMP/out.folded" split)
# 3 CPU-seconds of split in total at 499 Hz ~ 1500 samples
[ "$n" -ge 1100 ] && ok "children profiled ($n samples)" || bad "only $n samples of the children"
p=$(pct "$(folded_with_frame "$TMP/out.folded" spin_alpha)" "$n")
awk -v p="$p" 'BEGIN { exit !(p > 40) }' && ok "children named (spin_alpha $p%)" || bad "spin_alpha $p%"
# the root of a line is its first frame, the count taken off first: a sample
# with no frame (its only user pc cut: in no mapping, e.g. sampled in the
# middle of an exec) is the line "sh 1", whose root is "sh" (CI run 4 of
# session 13 read it as "sh 1", another process)
root_of() { awk '/^#/ { next } { n = $NF; s = $0; sub(/ [0-9]+$/, "", s); split(s, fr, ";"); print fr[1], n }' "$1"; }
others=$(root_of "$TMP/out.folded" | awk '$1 != "split" && $1 != "sh" { t += $2 } END { printf "%.0f\n", t }')
[ "$others" -eq 0 ] && ok "nothing from other processes" ||
	bad "$others samples of others: $(root_of "$TMP/out.folded" | awk '$1 != "split" && $1 != "sh"' | head -5)"
# the forked child is hotcold's until its exec (perf's enable_on_exec): its
# wait for the go and the execve tearing down the copied image are not the
# command's. Measured before the fix: 84 samples rooted at "hotcold" in 20
# such runs at 4999 Hz (~4 a run), so 5 runs catch it.
own=0
for i in 1 2 3 4 5; do
	"$HOTCOLD" record -F 4999 -o "$TMP/e$i.folded" -- sh -c 'for i in 1 2 3 4 5 6 7 8; do /bin/true; done' 2>/dev/null
	own=$((own + $(root_of "$TMP/e$i.folded" | awk '$1 == "hotcold" { t += $2 } END { printf "%.0f\n", t }')))
done
[ "$own" -eq 0 ] && ok "no sample of the child before its exec (5 runs at 4999 Hz)" ||
	bad "$own samples of the child before its exec, rooted at hotcold"
finish
