#!/bin/bash
# hotcold locks: 4 threads contend a global pthread_mutex_t with a known hold
# time; the lock's total wait is within 10% of what the threads measured
# inside pthread_mutex_lock, it is named g_queue_mutex, and its stacks name
# the contending function. Kernel contention (mmap_lock from an mmap/munmap
# storm) shows non-zero, typed waits with kernel stacks. record --locks puts
# [lock NAME] frames into folded output.
. "$(dirname "$0")/lib.sh"

"$HOTCOLD" locks --user-only -n 5 -- "$WL/mutex" 4 200 3 "$TMP/truth" >"$TMP/table" 2>"$TMP/err"
rc=$?
cat "$TMP/table" | cut -c1-200
[ $rc -eq 0 ] && ok "exit 0" || { bad "exit $rc: $(cat "$TMP/err")"; finish; }
read -r want acq < "$TMP/truth"
row=$(awk '$NF == "g_queue_mutex" && $5 == "futex" { print; exit }' "$TMP/table")
[ -n "$row" ] && ok "lock named by its symbol: g_queue_mutex" || { bad "g_queue_mutex not in the table"; finish; }
got=$(echo "$row" | awk '{ printf "%.0f", $1 * 1e6 }')
dev=$(awk -v a="$got" -v b="$want" 'BEGIN { printf "%.2f", b ? 100 * (a - b) / b : 100 }')
awk -v d="$dev" 'BEGIN { exit !(d >= -10 && d <= 10) }' &&
	ok "total wait $got ns vs $want ns measured in pthread_mutex_lock ($dev%, $acq acquisitions)" ||
	bad "total wait $got ns vs $want ns measured ($dev%)"
grep -A3 'g_queue_mutex$' "$TMP/table" | grep -q ';take_queue_lock;pthread_mutex_lock;' &&
	ok "top stacks go through take_queue_lock -> pthread_mutex_lock" || bad "contending function missing from stacks"
grep -q 'bpf_prog_' "$TMP/table" && bad "BPF program frames in stacks" || ok "no BPF frames in stacks"

"$HOTCOLD" locks --kernel-only --min-wait 0 --json -- "$WL/mmap_storm" 4 2 >"$TMP/k.json" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && ok "kernel: exit 0" || bad "kernel: exit $rc: $(cat "$TMP/err")"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/k.json" 2>/dev/null &&
	ok "--json output parses" || bad "--json output is not JSON"
kw=$(grep -o '"type": "rwsem:[RW]"[^}]*"waits": [0-9]*' "$TMP/k.json" | awk -F'"waits": ' '{ t += $2 } END { printf "%.0f\n", t }')
[ "$kw" -gt 0 ] && ok "kernel rwsem contention seen: $kw waits" || bad "no rwsem contention seen"
grep -q '"lock": "rwsem:[RW] mmap_lock 0x' "$TMP/k.json" &&
	ok "the storm's rwsem is named as the waiters' mmap_lock" || bad "rwsem not recognised as mmap_lock"
# (what matched is printed: session 16's run 3 failed here once, unexplained)
grep -q '"lock": "[a-z:-]* __start_\|__traceiter_' "$TMP/k.json" &&
	bad "a linker marker names a lock, or tracepoint frames in stacks: $(grep -o '"lock": "[a-z:-]* __start_[^"]*"\|"[^"]*__traceiter_[^"]*"' "$TMP/k.json" | head -3 | tr '\n' '|')" ||
	ok "no marker names, no tracepoint frames"
grep -q 'down_write_killable_\[k\]\|down_read_killable_\[k\]\|rwsem_down_[a-z_]*slowpath_\[k\]' "$TMP/k.json" &&
	ok "kernel contention attributed to rwsem slow paths" || bad "no kernel stacks for rwsem waits"

"$HOTCOLD" record --locks -o "$TMP/l.folded" -- "$WL/mutex" 4 200 1 "$TMP/truth2" 2>"$TMP/err"
grep -q ';take_queue_lock;.*\[lock g_queue_mutex\] [0-9]*$' "$TMP/l.folded" &&
	ok "record --locks: [lock g_queue_mutex] frames" || bad "record --locks: no lock frames: $(head -2 "$TMP/l.folded")"
finish
