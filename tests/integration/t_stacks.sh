#!/bin/bash
# --user-only has no kernel frames; --kernel-only has no user frames of the
# workload; a default run has both kinds somewhere.
. "$(dirname "$0")/lib.sh"

"$HOTCOLD" record --user-only -F 499 -o "$TMP/u.folded" -- "$WL/split" 1.5 "$TMP/t" 2>"$TMP/err"
[ $? -eq 0 ] || bad "user-only run failed: $(cat "$TMP/err")"
grep -q '_\[k\]' "$TMP/u.folded" && bad "--user-only has kernel frames" || ok "--user-only: no kernel frames"
[ "$(folded_with_frame "$TMP/u.folded" spin_alpha)" -gt 0 ] && ok "--user-only: user frames" ||
	bad "--user-only: no spin_alpha"

"$HOTCOLD" record --kernel-only -F 499 -o "$TMP/k.folded" -- "$WL/split" 1.5 "$TMP/t" 2>"$TMP/err"
[ $? -eq 0 ] || bad "kernel-only run failed: $(cat "$TMP/err")"
[ "$(folded_with_frame "$TMP/k.folded" spin_alpha)" -eq 0 ] && ok "--kernel-only: no user frames" ||
	bad "--kernel-only has user frames"

# a syscall-heavy command: kernel frames must be present and named
"$HOTCOLD" record -F 999 -o "$TMP/b.folded" -- sh -c 'dd if=/dev/zero of=/dev/null bs=64k count=200000 2>/dev/null' 2>"$TMP/err"
k=$(awk '/_\[k\]/ { t += $NF } END { printf "%.0f\n", t }' "$TMP/b.folded")
total=$(folded_total "$TMP/b.folded")
[ "$k" -gt 0 ] && ok "kernel frames present ($k of $total samples)" || bad "no kernel frames: $(cat "$TMP/err")"
grep -Eq '(clear_user|__clear_user|rep_stos|read_zero|iov_iter_zero|memset)[a-z_0-9]*_\[k\]' "$TMP/b.folded" &&
	ok "dd's kernel work is named" || bad "no named kernel frame for dd: $(head -3 "$TMP/b.folded")"
# BPF programs of other tools can be on a stack and gone (unnamed) by the time
# we write: allow 1% of kernel samples to carry an unnamed frame
u=$(awk '/\[unknown\]_\[k\]/ { t += $NF } END { printf "%.0f\n", t }' "$TMP/b.folded")
p=$(pct "$u" "$k")
awk -v p="$p" 'BEGIN { exit !(p < 1) }' && ok "kernel frames named ($p% of samples with an unnamed one)" ||
	bad "$p% of kernel samples have unnamed frames"
# deeper than the 127-frame walk limit: marked, not silently cut
"$HOTCOLD" record -F 499 -o "$TMP/deep.folded" -- "$WL/deep" 200 1 2>"$TMP/err"
t=$(awk '/^deep;\[truncated\];/ { t += $NF } END { printf "%.0f\n", t }' "$TMP/deep.folded")
all=$(folded_with_frame "$TMP/deep.folded" descend)
p=$(pct "$t" "$all")
awk -v p="$p" 'BEGIN { exit !(p >= 95) }' && ok "200-deep stacks marked [truncated] ($p%)" ||
	bad "200-deep stacks: only $p% marked [truncated]"
grep -q 'user stacks truncated' "$TMP/err" && ok "truncation counted in the summary" || bad "no truncation count"
"$HOTCOLD" record -F 499 -o "$TMP/deep50.folded" -- "$WL/deep" 50 1 2>"$TMP/err"
grep -q '\[truncated\]' "$TMP/deep50.folded" && bad "50-deep stacks marked truncated" ||
	ok "50-deep stacks complete, not marked"
finish
