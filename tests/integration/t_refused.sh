#!/bin/bash
# Degrade, never die: each optional part (CFI walker, task work, waker
# stacks, lock holders' stacks) is refused by the real kernel
# (HOTCOLD_TEST_REFUSE makes its BPF code invalid: bpf/lib/refuse.bpf.h),
# and record, locks and the agent go on without it: exit 0, one line with
# the verifier's reason, a counter under -v and on /metrics. A refused core
# program is one clear line and exit 3; so is a kernel below the minimum,
# and the agent's systemd unit does not restart on it.
. "$(dirname "$0")/lib.sh"

# the line a refused part gets, exactly once (collect/parts.c)
once() {	# PATTERN FILE
	local n
	n=$(grep -c "$1" "$2")
	[ "$n" -eq 1 ]
}

# --- CFI refused: record falls back to frame-pointer stacks (the workloads have them)
HOTCOLD_TEST_REFUSE=cfi "$HOTCOLD" record -v -F 499 -o "$TMP/cfi.folded" -- "$WL/hotloop" 1 \
	2>"$TMP/cfi.err"
rc=$?
total=$(folded_total "$TMP/cfi.folded")
main=$(folded_with_frame "$TMP/cfi.folded" main)
p=$(pct "$main" "$total")
if [ $rc -eq 0 ] && once 'oncpu: the kernel refused CFI unwinding (invalid read from stack' "$TMP/cfi.err"; then
	ok "CFI refused: exit 0, one line: $(grep 'refused CFI' "$TMP/cfi.err")"
else
	bad "CFI refused: rc $rc: $(grep -v '^  ' "$TMP/cfi.err" | head -5)"
fi
# hotloop spins in main's callees for 1 s; frame pointers in every function:
# every sample reaches main, bar the few at its exit (none in 3 runs here)
awk -v p="$p" 'BEGIN { exit !(p >= 99) }' &&
	ok "frame-pointer stacks reach main in $p% of $total samples" ||
	bad "only $p% of $total samples reach main with frame pointers"
grep -q 'by frame pointers' "$TMP/cfi.err" && ok "the summary says user stacks are by frame pointers" ||
	bad "summary does not say frame pointers: $(grep recording "$TMP/cfi.err")"
grep -Eq '^ *oncpu +degraded +1 parts refused by the kernel: CFI unwinding' "$TMP/cfi.err" &&
	ok "-v counts it: $(grep -o 'parts refused by the kernel: CFI[^)]*)' "$TMP/cfi.err" | head -1)" ||
	bad "no -v counter for the refused CFI walker"
# no collector walks CFI: no tables built for nobody (nor Python's maps riding on the walk)
grep -Eq '^(unwind|python): ' "$TMP/cfi.err" &&
	bad "CFI refused, tables still built: $(grep -E '^(unwind|python): ' "$TMP/cfi.err" | cut -c1-100)" ||
	ok "CFI refused: no unwind tables built, no Python maps"
grep -q 'try --unwind cfi' "$TMP/cfi.err" && bad "CFI refused, yet the hint says try --unwind cfi" ||
	ok "no 'try --unwind cfi' hint with the walker refused"
# control: the same run with the walker loads it, builds tables, says nothing of refusals
"$HOTCOLD" record -v -F 499 -o "$TMP/ctl.folded" -- "$WL/hotloop" 1 2>"$TMP/ctl.err"
grep -q 'refused' "$TMP/ctl.err" && bad "control run speaks of a refusal: $(grep refused "$TMP/ctl.err")" ||
	ok "control: no refusal without the hook"
grep -Eq '^unwind: [1-9][0-9]* tables built' "$TMP/ctl.err" &&
	ok "control: $(grep -Eo '^unwind: [0-9]+ tables built' "$TMP/ctl.err")" ||
	bad "control: no unwind tables built: $(grep -E '^unwind' "$TMP/ctl.err")"

# --- a refused core program: one clear line, exit 3 (cli/cmd.h EXIT_KERNEL), no libbpf noise
HOTCOLD_TEST_REFUSE=core "$HOTCOLD" record -a -d 1 -o "$TMP/core.folded" 2>"$TMP/core.err"
rc=$?
if [ $rc -eq 3 ] && once 'oncpu: the kernel refused its BPF programs (invalid read from stack.*); they need' "$TMP/core.err" &&
   ! grep -qi 'libbpf' "$TMP/core.err" && [ ! -e "$TMP/core.folded" ]; then
	ok "core refused: exit 3, $(wc -l <"$TMP/core.err") line(s): $(head -1 "$TMP/core.err")"
else
	bad "core refused: rc $rc: $(head -5 "$TMP/core.err")"
fi

# --- a kernel below the minimum: the first line names what is missing, exit 3
HOTCOLD_TEST_KERNEL_LACKS=bpf_loop "$HOTCOLD" record -a -d 1 -o "$TMP/k.folded" 2>"$TMP/k.err"
rc=$?
[ $rc -eq 3 ] && head -1 "$TMP/k.err" | grep -q 'lacks bpf_loop (5.17); hotcold needs Linux >= 5.17' &&
	ok "kernel below the minimum: exit 3: $(head -1 "$TMP/k.err")" ||
	bad "kernel check: rc $rc: $(head -2 "$TMP/k.err")"

# --- task work and waker stacks refused: off-CPU goes on with stacks at sys_exit, no wakers
HOTCOLD_TEST_REFUSE=task_work,wakers "$HOTCOLD" record -v --off-cpu --wakers -o "$TMP/w.folded" \
	-- "$WL/wakeup" 200 2>"$TMP/w.err"
rc=$?
waits=$(awk '/;wait_for_token;.*\[futex\]/ { t += $NF } END { printf "%.0f\n", t }' "$TMP/w.folded")
if [ $rc -eq 0 ] && once 'offcpu: the kernel refused waker stacks' "$TMP/w.err"; then
	ok "wakers refused: exit 0, one line"
else
	bad "wakers refused: rc $rc: $(grep -v '^  ' "$TMP/w.err" | head -5)"
fi
# task work may be refused by this kernel already (6.18.y: "failed callback
# verification"); then the hook changes nothing, and the line is there all the same
once 'offcpu: the kernel refused BPF task work' "$TMP/w.err" &&
	ok "task work refused: one line: $(grep -o 'refused BPF task work ([^)]*)' "$TMP/w.err")" ||
	bad "task work refusal not said once: $(grep -c 'refused BPF task work' "$TMP/w.err")"
# wakeup's waiter blocks ~200 times on a futex: its user stack is taken at sys_exit
[ "${waits:-0}" -gt 0 ] && ok "off-CPU stacks through wait_for_token: $waits ns" ||
	bad "no off-CPU stack through wait_for_token: $(head -3 "$TMP/w.folded")"
grep -q '_\[w\]' "$TMP/w.folded" && bad "waker frames without waker stacks" ||
	ok "no waker frames"
grep -Eq 'degraded +1 parts refused by the kernel: waker stacks' "$TMP/w.err" &&
	grep -Eq 'degraded +1 parts refused by the kernel: task work' "$TMP/w.err" &&
	ok "-v counts both" || bad "-v counters: $(grep 'parts refused' "$TMP/w.err")"

# --- lock holders refused: the lock table still comes, without holders' stacks
HOTCOLD_TEST_REFUSE=holders "$HOTCOLD" locks -o "$TMP/l.txt" -- "$WL/mutex" 4 200 1 "$TMP/m.res" \
	2>"$TMP/l.err"
rc=$?
if [ $rc -eq 0 ] && once "locks: the kernel refused lock holders' stacks" "$TMP/l.err" &&
   grep -q 'worker' "$TMP/l.txt"; then
	ok "holders refused: exit 0, one line, the table names the waiters' stacks ($(wc -l <"$TMP/l.txt") lines)"
else
	bad "holders refused: rc $rc: $(head -3 "$TMP/l.err"); table: $(head -5 "$TMP/l.txt")"
fi

# --- the agent: CFI refused, intervals keep coming, /metrics counts it
PORT=$((20000 + RANDOM % 20000))
"$WL/hotloop" 30 >/dev/null 2>&1 &
wl=$!
cleanup_hooks+=("kill $wl 2>/dev/null")
HOTCOLD_TEST_REFUSE=cfi "$HOTCOLD" agent -o "$TMP/hist" --interval 1s -F 49 -p $wl \
	--http 127.0.0.1:$PORT 2>"$TMP/a.err" &
ag=$!
cleanup_hooks+=("kill -KILL $ag 2>/dev/null")
if wait_log 'agent: interval 3:' 30 "$TMP/a.err"; then
	m=$(curl -s -m 2 "http://127.0.0.1:$PORT/metrics" |
		awk '/^hotcold_degraded_total.*reason="kernel_refused_cfi"/ { print $2 }')
	n=$(wc -l <"$TMP/hist/index.jsonl")
	kill -TERM $ag
	wait $ag
	rc=$?
	[ "$m" = 1 ] && ok "agent: /metrics kernel_refused_cfi $m" || bad "agent: /metrics kernel_refused_cfi '$m'"
	[ $rc -eq 0 ] && [ "$n" -ge 3 ] && once 'the kernel refused CFI unwinding' "$TMP/a.err" &&
		ok "agent: $n intervals, exit 0, one line" ||
		bad "agent: rc $rc, $n intervals: $(grep -v '^  ' "$TMP/a.err" | head -4)"
	z=$(ls "$TMP"/hist/*-oncpu.folded.gz 2>/dev/null | tail -1)
	[ -n "$z" ] && zcat "$z" | grep -q 'hotloop;.*main' && ok "agent: frame-pointer stacks reach main" ||
		bad "agent: no hotloop stack through main in ${z:-no file}"
else
	bad "agent: no 3 intervals: $(grep -v '^  ' "$TMP/a.err" | head -4)"
fi
# the agent too: exit 3, which its unit does not restart on
HOTCOLD_TEST_REFUSE=core "$HOTCOLD" agent -o "$TMP/hist2" --interval 1s 2>"$TMP/a2.err"
rc=$?
unit=$(dirname "$0")/../../tools/hotcold-agent.service
[ $rc -eq 3 ] && grep -q '^RestartPreventExitStatus=.*\<3\>' "$unit" && grep -q '^StartLimitBurst=' "$unit" &&
	ok "agent, core refused: exit 3, which the unit does not restart on" ||
	bad "agent, core refused: rc $rc: $(head -2 "$TMP/a2.err")"
if command -v systemd-analyze >/dev/null; then
	systemd-analyze verify "$unit" 2>&1 | grep -i 'restart\|startlimit' &&
		bad "systemd-analyze verify complains of the restart settings" ||
		ok "systemd-analyze verify: no complaint about the restart settings"
fi
finish
