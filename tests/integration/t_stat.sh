#!/bin/bash
# hotcold stat on this machine, against the kernel's own accounting:
#  - `stat -- CMD`: task-clock within 5% of the command's CPU time from
#    getrusage (bash `times`), exit status = the command's, the no-PMU
#    message exactly once when there is no PMU, hardware rows "not supported"
#    (never a 0), -I intervals that add up to the same time;
#  - the BPF per-process sums (sched_switch + bpf_perf_event_read_value on
#    per-CPU cpu-clock events): a process's cpu-clock within 5% of
#    /proc/PID/schedstat run time (read while it is a zombie; above, plus
#    the machine's steal, which cpu-clock keeps and run time does not, as
#    for getrusage below), and the sums
#    of a command's process tree within 5% of the per-task perf_event_open
#    task-clock of the same run;
#  - record --counters puts the snapshot in the summary, not in the folded file;
#  - the hardware path (cycles, IPC, class) when a PMU exists, else skipped;
#  - usage errors exit 2.
. "$(dirname "$0")/lib.sh"

have_pmu=0
for d in /sys/bus/event_source/devices/cpu /sys/bus/event_source/devices/cpu_core \
	 /sys/bus/event_source/devices/armv8_pmuv3*; do
	[ -e "$d" ] && have_pmu=1
done

# field $3 (value) of the CSV row whose event ($2) is $2, first match
csv_value() { awk -F, -v e="$2" '$2 == e { print $3; exit }' "$1"; }
# children's user+sys seconds from bash `times` (second line: "0m1.979s 0m0.027s")
times_children() {
	awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.6f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$1"
}
dev_pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? 100 * (a - b) / b : 100 }'; }
in_5pct() { awk -v d="$1" 'BEGIN { exit !(d >= -5 && d <= 5) }'; }
# On a VM, task-clock and cpu-clock (perf's, and so ours) run while the
# hypervisor steals the CPU from a scheduled task; getrusage does not count
# stolen time (paravirt steal accounting). The excess is at most the
# machine's steal during the run (/proc/stat, all CPUs: one thread is not
# stolen more than that): CI run 5 of session 11 read +10.5 % (its steal
# not recorded); runs here +10.4 % with 370 ms stolen, +6.7 % with 100-200
# ms, +0.3 % with none. So against getrusage: within 5 % below, 5 % + that
# steal above.
steal_bound() { awk -v w="$1" -v s="$2" 'BEGIN { printf "%.2f", 5 + (w > 0 ? 100 * s / w : 0) }'; }
in_steal_bound() { awk -v d="$1" -v h="$2" 'BEGIN { exit !(d >= -5 && d <= h) }'; }

# ---- 1. stat -- CMD: software counts, exit status, the no-PMU message ----
st0=$(steal_ms)
"$HOTCOLD" stat --csv -o "$TMP/cmd.csv" -- bash -c '"$0" 2 "$1" 3; rc=$?; times > "$2"; exit $rc' \
	"$WL/split" "$TMP/s1" "$TMP/times1" 2>"$TMP/err1"
rc=$?
stolen=$(( $(steal_ms) - st0 ))
cat "$TMP/err1"
[ $rc -eq 3 ] && ok "exit status is the command's (3)" || bad "exit $rc, want 3"
tc=$(csv_value "$TMP/cmd.csv" task-clock)
want=$(awk -v s="$(times_children "$TMP/times1")" 'BEGIN { printf "%.3f", s * 1000 }')
d=$(dev_pct "$tc" "$want")
hi=$(steal_bound "$want" "$stolen")
[ -n "$tc" ] && in_steal_bound "$d" "$hi" &&
	ok "task-clock $tc ms vs getrusage $want ms ($d%; $stolen ms stolen, bound +$hi%)" ||
	bad "task-clock '$tc' ms vs getrusage $want ms ($d%; $stolen ms stolen, bound +$hi%)"
n=$(grep -c 'no hardware PMU' "$TMP/err1")
if [ $have_pmu -eq 0 ]; then
	[ "$n" -eq 1 ] && ok "no-PMU message exactly once" || bad "no-PMU message $n times"
	rows=$(awk -F, '$2 == "cycles" || $2 == "instructions" || $2 == "LLC-load-misses"' "$TMP/cmd.csv")
	echo "$rows" | awk -F, '$3 != "" || $6 != "not supported" { bad = 1 } END { exit bad }' &&
		ok "hardware rows: not supported, no value" || bad "hardware rows: $rows"
	grep -q '^[0-9.]*,ipc,,,,not available$' "$TMP/cmd.csv" && ok "IPC not available, not 0" ||
		bad "ipc row: $(grep ',ipc,' "$TMP/cmd.csv")"
else
	[ "$n" -eq 0 ] && ok "PMU present: no no-PMU message" || bad "no-PMU message with a PMU"
fi
for ev in context-switches cpu-migrations page-faults cpu-clock; do
	v=$(csv_value "$TMP/cmd.csv" "$ev")
	[ -n "$v" ] && ok "$ev counted ($v)" || bad "$ev not counted"
done

# ---- 2. -I: intervals add up to the command's CPU time (steal: above) ----
st0=$(steal_ms)
"$HOTCOLD" stat -I 250 --csv -o "$TMP/iv.csv" -- bash -c '"$0" 1.5 "$1"; times > "$2"' \
	"$WL/split" "$TMP/s2" "$TMP/times2" 2>/dev/null
stolen=$(( $(steal_ms) - st0 ))
nint=$(awk -F, '$2 == "task-clock"' "$TMP/iv.csv" | wc -l)
sum=$(awk -F, '$2 == "task-clock" { t += $3 } END { printf "%.3f", t }' "$TMP/iv.csv")
want=$(awk -v s="$(times_children "$TMP/times2")" 'BEGIN { printf "%.3f", s * 1000 }')
d=$(dev_pct "$sum" "$want")
hi=$(steal_bound "$want" "$stolen")
[ "$nint" -ge 4 ] && in_steal_bound "$d" "$hi" &&
	ok "-I 250: $nint intervals, $sum ms vs getrusage $want ms ($d%; $stolen ms stolen, bound +$hi%)" ||
	bad "-I 250: $nint intervals, $sum ms vs getrusage $want ms ($d%; $stolen ms stolen, bound +$hi%)"

# ---- 3. BPF per-process sums (-a) vs /proc/PID/schedstat of a zombie ----
"$HOTCOLD" stat -a --per-process --top 0 --csv -o "$TMP/all.csv" 2>"$TMP/err3" &
hc=$!
cleanup_hooks+=("kill $hc 2>/dev/null")
for _ in $(seq 100); do grep -q 'stat: counting' "$TMP/err3" && break; sleep 0.1; done
# the subshell execs sleep: split's parent never reaps it, so it stays a zombie
( "$WL/split" 2 "$TMP/s3" & echo $! > "$TMP/pid3"; exec sleep 30 ) &
holder=$!
st0=$(steal_ms)
cleanup_hooks+=("kill $holder 2>/dev/null")
for _ in $(seq 50); do [ -s "$TMP/pid3" ] && break; sleep 0.1; done
pid=$(cat "$TMP/pid3")
for _ in $(seq 300); do [ "$(awk '{ print $3 }' /proc/$pid/stat 2>/dev/null)" = Z ] && break; sleep 0.1; done
run_ns=$(awk '{ print $1 }' /proc/$pid/schedstat)
stolen=$(( $(steal_ms) - st0 ))
faults=$(awk '{ print $10 + $12 }' /proc/$pid/stat)
kill -INT $hc
wait $hc
rc=$?
kill $holder 2>/dev/null
[ $rc -eq 0 ] && ok "stat -a stopped by SIGINT, exit 0" || bad "stat -a exit $rc: $(cat "$TMP/err3")"
got=$(awk -F, -v p="$pid" '$1 == p && $4 == "cpu-clock" { print $5 * 1000000 }' "$TMP/all.csv")
d=$(dev_pct "$got" "$run_ns")
hi=$(steal_bound "$(awk -v w="$run_ns" 'BEGIN { print w / 1e6 }')" "$stolen")
[ -n "$got" ] && in_steal_bound "$d" "$hi" &&
	ok "pid $pid: BPF cpu-clock $(awk -v g="$got" 'BEGIN { printf "%.1f", g / 1e6 }') ms vs schedstat $(awk -v w="$run_ns" 'BEGIN { printf "%.1f", w / 1e6 }') ms ($d%; $stolen ms stolen, bound +$hi%)" ||
	bad "pid $pid: BPF cpu-clock '$got' ns vs schedstat $run_ns ns ($d%; $stolen ms stolen, bound +$hi%)"
gotf=$(awk -F, -v p="$pid" '$1 == p && $4 == "page-faults" { print $5 }' "$TMP/all.csv")
awk -v a="$gotf" -v b="$faults" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= 5 + b * 0.1) }' &&
	ok "pid $pid: BPF page-faults $gotf vs /proc min+maj faults $faults" ||
	bad "pid $pid: BPF page-faults '$gotf' vs /proc $faults"
grep -q 'per-process: [0-9]* spans charged, 0 lost (counter read failed), 0 lost (process table full)' "$TMP/err3" &&
	ok "no spans lost" || bad "losses: $(grep per-process "$TMP/err3")"

# ---- 4. BPF sums of a command's tree vs per-task counting of the same run ----
# Both keep stolen time (session 12's CI run read -9.00 % when the BPF
# spans were timed on wall time and cut to run time: the steal was lost).
st0=$(steal_ms)
"$HOTCOLD" stat --per-process --csv -o "$TMP/pp.csv" -- bash -c \
	'"$0" 1 "$1" & "$0" 1 "$2"; wait' "$WL/split" "$TMP/s4a" "$TMP/s4b" 2>/dev/null
stolen=$(( $(steal_ms) - st0 ))
tc=$(csv_value "$TMP/pp.csv" task-clock)
tree=$(awk -F, '$4 == "cpu-clock" { t += $5 } END { printf "%.3f", t }' "$TMP/pp.csv")
nsplit=$(awk -F, '$3 == "split" && $4 == "cpu-clock"' "$TMP/pp.csv" | wc -l)
d=$(dev_pct "$tree" "$tc")
[ "$nsplit" -eq 2 ] && in_5pct "$d" &&
	ok "tree of 3 processes: BPF $tree ms vs perf_event_open task-clock $tc ms ($d%; $stolen ms stolen)" ||
	bad "tree: $nsplit split rows, BPF $tree ms vs task-clock $tc ms ($d%; $stolen ms stolen)"

# ---- 5. record --counters: a summary line, the folded file stays clean ----
st0=$(steal_ms)
"$HOTCOLD" record --counters -o "$TMP/r.folded" -- bash -c '"$0" 1 "$1"; times > "$2"' \
	"$WL/split" "$TMP/s5" "$TMP/times5" 2>"$TMP/err5"
stolen=$(( $(steal_ms) - st0 ))
line=$(grep '^counters: .*(running' "$TMP/err5")
if [ $have_pmu -eq 0 ]; then
	ms=$(echo "$line" | sed -n 's/^counters: \([0-9,.]*\) msec cpu-clock.*/\1/p' | tr -d ,)
	want=$(awk -v s="$(times_children "$TMP/times5")" 'BEGIN { printf "%.3f", s * 1000 }')
	d=$(dev_pct "$ms" "$want")
	hi=$(steal_bound "$want" "$stolen")
	[ -n "$ms" ] && in_steal_bound "$d" "$hi" &&
		ok "record --counters: $ms ms vs getrusage $want ms ($d%; $stolen ms stolen): $line" ||
		bad "record --counters: '$ms' ms vs getrusage $want ms ($d%; $stolen ms stolen, bound +$hi%): $(grep -E '^(counters|hotcold):' "$TMP/err5")"
else
	echo "$line" | grep -q 'IPC [0-9]' && ok "record --counters: $line" ||
		bad "record --counters summary: '$line'"
fi
# the header line (profile model) is data; the counter summary must not land there
grep '^#' "$TMP/r.folded" | grep -qv '^# hotcold folded ' && bad "comment in the folded file" ||
	ok "folded file has no comment besides its header"

# ---- 6. the hardware path ----
if [ $have_pmu -eq 1 ]; then
	"$HOTCOLD" stat --json -o "$TMP/hw.json" -- "$WL/split" 1 "$TMP/s6" 2>/dev/null
	grep -q '"event":"cycles","unit":"","value":[0-9]' "$TMP/hw.json" &&
		grep -q '"ipc":[0-9]' "$TMP/hw.json" && grep -q '"class":"' "$TMP/hw.json" &&
		ok "PMU: cycles counted, IPC and class derived" ||
		bad "PMU path: $(head -c 600 "$TMP/hw.json")"
	"$HOTCOLD" stat --per-process --csv -o "$TMP/hwpp.csv" -- "$WL/split" 1 "$TMP/s7" 2>/dev/null
	awk -F, '$3 == "split" && $4 == "instructions" && $5 > 0 { f = 1 } END { exit !f }' "$TMP/hwpp.csv" &&
		ok "PMU: per-process instructions from BPF" || bad "PMU per-process: $(tail -4 "$TMP/hwpp.csv")"
else
	echo "[Skipped no PMU]"
fi

# ---- 7. usage errors ----
"$HOTCOLD" stat -I 5 -- true 2>/dev/null; r1=$?
"$HOTCOLD" stat -a -p 1 -d 1 2>/dev/null; r2=$?
"$HOTCOLD" stat -p 999999999 2>/dev/null; r3=$?
"$HOTCOLD" stat --mlp 0.5 -- true 2>/dev/null; r4=$?
"$HOTCOLD" stat -- /nonexistent/cmd 2>/dev/null; r5=$?
[ $r1 -eq 2 ] && [ $r2 -eq 2 ] && [ $r3 -eq 2 ] && [ $r4 -eq 2 ] && [ $r5 -eq 127 ] &&
	ok "usage errors exit 2, a missing command 127" ||
	bad "exits: -I 5 $r1, -a -p $r2, -p missing $r3, --mlp 0.5 $r4, missing command $r5"
finish
