#!/bin/bash
# Quiet, honest summaries and errors a person can act on: a clean run says
# "nothing lost" in at most 3 lines; a lossy one names each loss with its
# remedy; -q prints nothing, -v the full table, -vv libbpf's log too; an
# unprivileged run's first line says what is needed; typos get a suggestion;
# range errors name the range.
. "$(dirname "$0")/lib.sh"
cd "$TMP"

# a target that wakes 50 times a second: some samples, nothing to lose
bash -c 'while :; do sleep 0.02; done' &
tgt=$!
cleanup_hooks+=("kill $tgt 2>/dev/null")

# The 3-line bound is for a run that lost nothing. An idle CPU's sparser
# cpu-clock ticks are no one's time (counted as "tick gaps", -v only), and a
# tick missed while a task ran is no loss either (the thread's time comes
# from the kernel's account; docs/architecture.md "Ticks unseen"): a
# degradation line only past 5% of the CPU time. Before they were told
# apart, this quiet target's idle CPUs passed that 5% in every run.
# A run can still lose for real on a busy machine, and then it must say so:
# such a run is shown as a note and repeated, at most 3 times; a lossy run
# that does not end in "problems above" fails.
for attempt in 1 2 3; do
	"$HOTCOLD" record -p $tgt -d 2 -o "$TMP/p.folded" 2>"$TMP/e"
	rc=$? n=$(wc -l <"$TMP/e")
	[ $rc -eq 0 ] && tail -n1 "$TMP/e" | grep -q 'problems above' || break
	echo "[Note: run $attempt lost something, and said so: $(grep -v '^hotcold\|no hardware' "$TMP/e" | head -2)]"
done
if [ $rc -eq 0 ] && [ "$n" -le 3 ] && tail -n1 "$TMP/e" | grep -q 'nothing lost$' &&
   ! grep -q ' 0 \|libbpf\|ticks missed' "$TMP/e"; then
	ok "record -p PID -d 2: $n lines on stderr, 'nothing lost'"
elif [ $rc -eq 0 ] && tail -n1 "$TMP/e" | grep -q 'problems above' && ! grep -q ' 0 \|libbpf' "$TMP/e"; then
	echo "[Note: no lossless run in 3 (the 3-line bound not shown here); the problems were named: $(grep -c ': [0-9]' "$TMP/e") line(s)]"
	ok "record -p PID -d 2: problems named, no zero counters, no libbpf lines"
else
	bad "record -p: rc $rc, $n lines: $(cat "$TMP/e")"
fi

# negative control: system-wide with room for one stack loses the rest, and says so with the remedy
"$HOTCOLD" record -a -d 1 --max-stacks 1 -o "$TMP/a.folded" 2>"$TMP/e"
if grep -q 'stacks over the aggregation limit.*raise --max-stacks' "$TMP/e" &&
   tail -n1 "$TMP/e" | grep -q 'problems above' && ! grep -q 'nothing lost' "$TMP/e"; then
	ok "a real loss is named with its remedy: $(grep -o '[0-9]* stacks over' "$TMP/e")"
else
	bad "--max-stacks 1 loss not reported: $(cat "$TMP/e")"
fi

# the same under -v: the loss is in the table, and the last line still says so
"$HOTCOLD" record -v -a -d 1 --max-stacks 1 -o "$TMP/a.folded" 2>"$TMP/e"
grep -Eq '^  session +lost +[1-9][0-9]* stacks over the aggregation limit$' "$TMP/e" &&
   tail -n1 "$TMP/e" | grep -q 'problems above' && ok "-v: the loss in the table, 'problems above'" ||
	bad "-v loss: $(grep -E 'aggregation|^hotcold' "$TMP/e")"

"$HOTCOLD" record -q -p $tgt -d 1 -o "$TMP/q.folded" 2>"$TMP/e"
[ $? -eq 0 ] && [ ! -s "$TMP/e" ] && [ -s "$TMP/q.folded" ] && ok "-q: nothing on stderr" ||
	bad "-q printed: $(head -c 300 "$TMP/e")"

"$HOTCOLD" record -v -p $tgt -d 1 -o "$TMP/v.folded" 2>"$TMP/e"
if grep -Eq '^  oncpu +lost +0 lost \(ring full\)$' "$TMP/e" &&
   grep -Eq '^  oncpu +work ' "$TMP/e" && ! grep -q '^libbpf' "$TMP/e"; then
	ok "-v: the full table ($(grep -c '^  ' "$TMP/e") counters), no libbpf lines"
else
	bad "-v: $(head -c 400 "$TMP/e")"
fi
"$HOTCOLD" record -vv -p $tgt -d 1 -o "$TMP/vv.folded" 2>"$TMP/e"
n=$(grep -c '^libbpf' "$TMP/e")
[ "$n" -gt 10 ] && ok "-vv: libbpf's log ($n lines)" || bad "-vv: $n libbpf lines"

# unprivileged: the first line says what is needed, no libbpf lines; exit 1
if command -v setpriv >/dev/null; then
	for cmd in "record -d 1" "stat -d 1" "locks -d 1" "runqlat -d 1"; do
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
			"$HOTCOLD" $cmd -o /dev/null >"$TMP/o" 2>"$TMP/e"
		rc=$?
		if [ $rc -eq 1 ] && head -n1 "$TMP/e" | grep -q 'needs root, or CAP_BPF + CAP_PERFMON' &&
		   ! grep -q libbpf "$TMP/e"; then
			ok "unprivileged $cmd: exit 1, '$(head -n1 "$TMP/e" | cut -c1-60)...'"
		else
			bad "unprivileged $cmd: rc $rc: $(head -c 300 "$TMP/e")"
		fi
	done
	# stat's process table (BPF) names what it can do instead
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$HOTCOLD" stat -d 1 >"$TMP/o" 2>"$TMP/e"
	sed -n 2p "$TMP/e" | grep -q 'count your own processes instead: hotcold stat -- COMMAND' &&
		ok "unprivileged stat -d 1: the way forward on line 2" || bad "stat -d 1 gave no way forward: $(cat "$TMP/e")"
	# stat counts the caller's own processes without privileges where the kernel
	# allows (perf_event_paranoid <= 2), user space only, as perf stat: its
	# task-clock against the command's own CPU time: python's getrusage()
	# (microseconds, the scheduler's account task-clock also reads) printed
	# at its end. Both count the exec; only python's teardown after the
	# getrusage() call is in task-clock alone: 3-5 ms measured here. A
	# 10 ms tolerance (5% of a longer run) covers it twice over. (This was
	# /usr/bin/time's %U %S: 10 ms truncation per field plus time(1)'s own
	# exec left task-clock 28 ms above it once under load.) Above it, the
	# machine's steal meanwhile: task-clock runs on while the hypervisor
	# steals a scheduled task's CPU, getrusage does not (t_stat).
	if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 2 ]; then
		st0=$(steal_ms)
		setpriv --reuid=nobody --regid=nogroup --clear-groups "$HOTCOLD" stat -- \
			/usr/bin/python3 -c 'sum(range(2 * 10**7))
import resource; r = resource.getrusage(resource.RUSAGE_SELF)
print("rusage_ms %.3f" % ((r.ru_utime + r.ru_stime) * 1000))' >"$TMP/o" 2>"$TMP/e"
		rc=$?
		stolen=$(( $(steal_ms) - st0 ))
		tc=$(awk '$2 == "msec" && $3 == "task-clock" { print $1 }' "$TMP/o")
		ru=$(awk '$1 == "rusage_ms" { print $2 }' "$TMP/o")
		pf=$(awk '$2 == "page-faults" { print $1 }' "$TMP/o")
		if [ $rc -eq 0 ] && grep -q 'user space only' "$TMP/e" && [ -n "$tc" ] && [ "${pf:-0}" -gt 0 ] &&
		   awk -v a="$tc" -v b="$ru" -v st="$stolen" 'BEGIN { d = a - b; t = b * 0.05; if (t < 10) t = 10
			exit !(b > 0 && d >= -t && d <= t + st) }'; then
			ok "unprivileged stat -- CMD: exit 0, task-clock $tc ms vs rusage $ru ms ($stolen ms stolen), $pf page faults, 'user space only'"
		else
			bad "unprivileged stat -- CMD: rc $rc, task-clock '$tc' vs rusage '$ru' ($stolen ms stolen): $(head -c 400 "$TMP/e")"
		fi
		# negative control: another user's process is refused by name, before counting
		setpriv --reuid=nobody --regid=nogroup --clear-groups "$HOTCOLD" stat -p 1 -d 1 >"$TMP/o" 2>"$TMP/e"
		rc=$?
		[ $rc -eq 1 ] && grep -q 'pid 1 is not your process' "$TMP/e" && [ ! -s "$TMP/o" ] &&
			ok "unprivileged stat -p 1: exit 1, 'not your process'" || bad "stat -p 1: rc $rc: $(cat "$TMP/e")"
	fi
fi

expect() {	# expect STATUS STDERR-REGEX ARGS...
	local want=$1 re=$2; shift 2
	"$HOTCOLD" "$@" >"$TMP/o" 2>"$TMP/e"
	local rc=$?
	if [ $rc -eq "$want" ] && grep -Eq "$re" "$TMP/e" && [ "$(wc -l <"$TMP/e")" -le 2 ]; then
		ok "hotcold $* -> $rc: $(head -n1 "$TMP/e")"
	else
		bad "hotcold $*: exit $rc (want $want), stderr: $(head -c 300 "$TMP/e")"
	fi
}
# suggestions from each command's own option array, not the whole help
expect 2 "unknown option '--frq'; did you mean '--freq'\\?" record --frq 99
expect 2 "did you mean '--off-cpu'\\?" record --offcpu
expect 2 "did you mean '--output'\\?" stat --outptu x
expect 2 "did you mean '--min-width'\\?" flamegraph --min-widht 2 x
expect 2 "unknown option '--zzzzzzzz'$" record --zzzzzzzz
expect 2 "unknown command 'recrod'; did you mean 'record'\\?" recrod
# ranges in range errors, in the option's units
expect 2 "for -F: out of range \\(1 to 100000\\)" record -F 0
expect 2 "for -d: out of range \\(1ms to 8784h\\)" record -d 0.0001
expect 2 "for -p: out of range \\(1 to 4194304\\)" record -p 0
expect 2 "for --mlp: out of range \\(1 to 1000\\)" stat --mlp 0.5
expect 2 "for --min-width: out of range \\(0 to 10000\\)" flamegraph --min-width 20000 x
expect 2 "for -F: not a valid value" record -F 10x
finish
