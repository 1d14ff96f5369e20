#!/bin/bash
# -t TID samples exactly that thread; --per-thread roots frames at name-TID.
. "$(dirname "$0")/lib.sh"

coproc W { "$WL/threads" 4; }
cleanup_hooks+=("kill $W_PID 2>/dev/null")
read -r ta tb <&"${W[0]}"
"$HOTCOLD" record -t "$tb" --per-thread -F 499 -d 2 -o "$TMP/out.folded" 2>"$TMP/err"
[ $? -eq 0 ] && ok "exit 0" || bad "exit $?: $(cat "$TMP/err")"
b=$(folded_with_root "$TMP/out.folded" "worker-b-$tb")
total=$(folded_total "$TMP/out.folded")
# a busy machine gives the thread less than a full CPU: 200 of ~1000 possible
[ "$total" -ge 200 ] && [ "$b" -eq "$total" ] && ok "all $total samples from worker-b-$tb" ||
	bad "$b of $total samples from worker-b-$tb"
[ "$(folded_with_frame "$TMP/out.folded" burn_in_a)" -eq 0 ] && ok "thread a not sampled" ||
	bad "thread a sampled"
[ "$(folded_with_frame "$TMP/out.folded" burn_in_b)" -gt $((total / 2)) ] && ok "burn_in_b named" ||
	bad "burn_in_b missing"
finish
