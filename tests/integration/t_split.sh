#!/bin/bash
# `-- CMD` mode on a workload with a designed CPU split: the profile's
# inclusive shares must match the workload's own CPU-time measurement within
# 2 percentage points, >= 99% of samples must reach main, and hotcold must
# exit with the command's status.
. "$(dirname "$0")/lib.sh"

# 999 Hz for 6 s: ~6000 samples, so one standard deviation of a 60% share is
# ~0.6 pp and the 2 pp tolerance is ~3 sigma of sampling noise.
"$HOTCOLD" record -F 999 -o "$TMP/out.folded" -- "$WL/split" 6 "$TMP/truth" 3 2>"$TMP/err"
rc=$?
cat "$TMP/err"
[ $rc -eq 3 ] && ok "exit status is the command's (3)" || bad "exit status $rc, expected 3"
[ -s "$TMP/truth" ] || { bad "workload wrote no ground truth"; finish; }
folded_grep_root "$TMP/out.folded" split > "$TMP/split.folded"
total=$(folded_total "$TMP/split.folded")
[ "$total" -ge 4000 ] && ok "$total samples of split" || bad "only $total samples of split"
for fn in spin_alpha spin_beta recurse; do
	want=$(awk -v f=$fn '$1 == f { print $2 }' "$TMP/truth")
	got=$(pct "$(folded_with_frame "$TMP/split.folded" $fn)" "$total")
	if within "$got" "$want" 2; then ok "$fn: profile $got% vs measured $want%"
	else bad "$fn: profile $got% vs measured $want% (tolerance 2 pp)"; fi
done
# samples before main (exec, dynamic loader) are the stated exception
main=$(folded_with_frame "$TMP/split.folded" main)
p=$(pct "$main" "$total")
awk -v p="$p" 'BEGIN { exit !(p >= 99) }' && ok "$p% of samples reach main" ||
	{ bad "only $p% of samples reach main"; grep -v ';main;' "$TMP/split.folded" | sort -k2 -nr -t' ' | head -5; }
# recursion: recurse appears 5 deep in one stack
grep -q 'recurse;recurse;recurse;recurse;recurse' "$TMP/split.folded" &&
	ok "5-level recursion kept in stacks" || bad "no 5-deep recurse stack"
grep -q -- '-> ' "$TMP/err" && ok "summary names the output" || bad "no summary line"
grep -Eq 'nothing lost$|problems above' "$TMP/err" && ok "loss summary printed" || bad "no loss summary"
finish
