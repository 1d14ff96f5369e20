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
k=$(awk '/_\[k\]/ { t += $NF } END { print t + 0 }' "$TMP/b.folded")
total=$(folded_total "$TMP/b.folded")
[ "$k" -gt 0 ] && ok "kernel frames present ($k of $total samples)" || bad "no kernel frames: $(cat "$TMP/err")"
grep -Eq '(clear_user|__clear_user|rep_stos|read_zero|iov_iter_zero|memset)[a-z_0-9]*_\[k\]' "$TMP/b.folded" &&
	ok "dd's kernel work is named" || bad "no named kernel frame for dd: $(head -3 "$TMP/b.folded")"
grep -q '\[unknown\]_\[k\]' "$TMP/b.folded" && bad "unnamed kernel frames" || ok "every kernel frame named"
finish
