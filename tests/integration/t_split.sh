#!/bin/bash
# `-- CMD` mode on a workload with a designed CPU split: the profile's
# inclusive shares must match the workload's own CPU-time measurement within
# 2 percentage points (derivation below), >= 99% of samples must reach main, and hotcold must
# exit with the command's status.
. "$(dirname "$0")/lib.sh"

# 1999 Hz for 6 s: ~12000 samples (perf record's default rate is 4000 Hz).
# What the truth is a share of, and its correction: split_shares_check in
# lib.sh.
#
# Tolerance: n samples at independent instants of the thread's CPU time give
# a share p a binomial standard deviation sqrt(p(1-p)/n) <= 0.46 pp at
# p = 0.6 and n >= 11400; 2 pp is over 4 sigma. (At 999 Hz it was 3 sigma, and
# a run under three CPU hogs once read +2.02 pp: 6000 samples were too few.)
"$HOTCOLD" record -F 1999 -o "$TMP/out.folded" -- "$WL/split" 6 "$TMP/truth" 3 2>"$TMP/err"
rc=$?
cat "$TMP/err"
[ $rc -eq 3 ] && ok "exit status is the command's (3)" || bad "exit status $rc, expected 3"
[ -s "$TMP/truth" ] || { bad "workload wrote no ground truth"; finish; }
folded_grep_root "$TMP/out.folded" split > "$TMP/split.folded"
total=$(folded_total "$TMP/split.folded")
[ "$total" -ge 8000 ] && ok "$total samples of split" || bad "only $total samples of split"
split_shares_check "$TMP/split.folded" "$TMP/truth" 2 split spin_alpha spin_beta recurse
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
