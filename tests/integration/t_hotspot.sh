#!/bin/bash
# JIT frames of a HotSpot JVM named from the VM's own vmStructs (issue 31),
# with a stock `java`, no JVM flags and no perf map: a workload with a known
# CPU split (tests/workloads/java/HotCold.java: main calls alpha(2 N) then
# beta(N), each call timed on the thread's CPU clock) recorded with `-p`
# after a JIT warm-up. The Java thread's innermost Java frames must be
# HotCold.alpha / HotCold.beta in the workload's own split; with
# HOTCOLD_HOTSPOT=0 (the control) no HotCold. name may appear. Debian's JDK
# 17 always, Temurin 25 where installed. The BPF walk goes on through the
# Java frames (compiled, interpreted, stubs) into the VM's native frames
# below them: at least 95% of the Java thread's samples with a Java frame
# must reach JavaMain beneath their Java frames; without the walk (the
# control) next to none do.
#
# Off-CPU: the workload's "hc-waiter" thread blocks in HotCold.awaitOrders
# (Object.wait(20), never notified, interpreted: see HotCold.java). Of its
# off-CPU time, at least 95% must be under stacks that name
# HotCold.awaitOrders and java.lang.Object.wait; none in the control. What
# may miss them: blocks walked before the VM's layout was read (the first
# milliseconds of the recording), and the block still open at the stop,
# walked from another task (through its Java frames since
# t_hotspot_blocked's change; on a kernel before 6.2 its pc is kept: at
# most one 20 ms wait of 5 s, 0.4%). 95% leaves room for 12 such waits.
. "$(dirname "$0")/lib.sh"
command -v java >/dev/null && command -v javac >/dev/null || skip "no java/javac"
[ "$(uname -m)" = x86_64 ] || skip "x86-64 only"

SRC=$(realpath "$(dirname "$0")/../workloads/java/HotCold.java")
javac -d "$TMP" "$SRC" 2>"$TMP/javac.err" || { bad "javac: $(head -3 "$TMP/javac.err")"; finish; }

# Tolerance of the split: alpha's share of the n samples whose innermost Java
# frame is alpha or beta is a binomial proportion at worst (dithered
# sampling is stratified, which only lowers its variance): 4 sigma is
# 400 sqrt(p (1 - p) / n) pp around the workload's measured p (about 2/3:
# 4.9 pp at n = 1500). The issue asks for 3 pp: 4 sigma is that at
# n = 3950, so the recording is 5 s at 999 Hz (~5000 samples, 2.7 pp; the
# note says when a starved run's 4 sigma is wider than 3 pp). Below MIN_N
# samples the check would not mean much: it fails and says so.
MIN_N=500

# Samples of the Java thread: the "java-TID" root (--per-thread) with the
# most samples (the launcher's first thread only waits; the VM's own
# threads have their own names).
java_thread() { busiest_root java "$1"; }

# Of root $2's samples: "total innermost_alpha innermost_beta reach_javamain beyond_leaf
# with_java through_java", innermost Java frame = the last "_[j]" frame of the
# stack; with_java: samples with a Java frame, through_java: those of them
# with JavaMain rootward of their outermost Java frame (the walk went through).
java_counts() {
	awk -v root="$2" '{
		n = $NF; line = $0; sub(/ [0-9]+$/, "", line)
		k = split(line, fr, ";")
		if (fr[1] != root) next
		tot += n; last = 0; first = 0; jm = 0
		for (i = 2; i <= k; i++) if (fr[i] ~ /_\[j\]$/) { last = i; if (!first) first = i }
		if (last && fr[last] == "HotCold.alpha_[j]") a += n
		if (last && fr[last] == "HotCold.beta_[j]") b += n
		for (i = 2; i <= k; i++) if (fr[i] == "JavaMain") { jm = i; m += n; break }
		if (last > 2) up += n
		if (first) wj += n
		if (first && jm && jm < first) th += n
	} END { printf "%d %d %d %d %d %d %d\n", tot, a, b, m, up, wj, th }' "$1"
}

# $1 label, $2 java binary, then env assignments for hotcold: record the
# workload with -p after its warm-up; leaves $TMP/$1.{folded,err,truth}
run_wl() {
	local what=$1 java=$2 out="$TMP/$1" pid
	shift 2
	: >"$out.wl"	# before wait_log reads it: the child opens it after the fork
	"$java" -cp "$TMP" HotCold 2 60 "$out.truth" "$out.stop" >"$out.wl" 2>&1 &
	pid=$!
	cleanup_hooks+=("kill $pid 2>/dev/null")
	if ! wait_log '^ready' 30 "$out.wl"; then
		bad "$what: the workload never got ready: $(head -3 "$out.wl")"
		return 1
	fi
	# on- and off-CPU side by side, each its own recorder (the test's time)
	env "$@" "$HOTCOLD" record -v -F 999 -p $pid -d 5 --per-thread -o "$out.folded" 2>"$out.err" &
	local on=$! rc=0
	env "$@" "$HOTCOLD" record -v --off-cpu -p $pid -d 5 --per-thread -o "$out.off.folded" \
		2>"$out.off.err" || rc=$?
	wait $on || rc=$?
	# the names were read while it ran: now it may stop and write its truth
	touch "$out.stop"
	for _ in $(seq 1 100); do [ -s "$out.truth" ] && break; sleep 0.1; done
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
	[ $rc -eq 0 ] || { bad "$what: record exit $rc: $(grep -hv '^  ' "$out.err" "$out.off.err" | tail -3)"; return 1; }
	[ -s "$out.truth" ] || { bad "$what: the workload wrote no truth"; return 1; }
	return 0
}

check_named() {
	local what=$1 out="$TMP/$1" root tot a b m up wj th want got n tol
	root=$(java_thread "$out.folded")
	read -r tot a b m up wj th <<<"$(java_counts "$out.folded" "$root")"
	n=$((a + b))
	if [ "$tot" -gt 0 ] && awk -v n=$n -v t=$tot 'BEGIN { exit !(n >= 0.9 * t) }'; then
		ok "$what: $(pct $n $tot)% of the Java thread's $tot samples have HotCold.alpha/beta as innermost Java frame"
	else
		bad "$what: $n of the Java thread's $tot samples ($root) have HotCold.alpha/beta innermost (want >= 90%)"
		grep "^$root;" "$out.folded" | sort -t' ' -k2 -nr | head -3
	fi
	# the split against the workload's own measurement
	want=$(awk '{ printf "%.2f", 100 * $1 / ($1 + $2) }' "$out.truth")
	got=$(pct "$a" "$n")
	tol=$(awk -v p="$want" -v n=$n 'BEGIN { p /= 100; if (n < 1) n = 1; printf "%.2f", 400 * sqrt(p * (1 - p) / n) }')
	if [ "$n" -lt $MIN_N ]; then
		bad "$what: only $n samples in alpha/beta (need $MIN_N; load: $(cut -d' ' -f1-3 /proc/loadavg))"
	elif within "$got" "$want" "$tol"; then
		ok "$what: alpha $got% of $n samples vs measured $want% (4 sigma: $tol pp)"
		awk -v t="$tol" 'BEGIN { exit !(t > 3) }' &&
			echo "[Note: $what: 4 sigma is $tol pp, wider than the issue's 3 pp: $n samples, load $(cut -d' ' -f1-3 /proc/loadavg)]"
	else
		bad "$what: alpha $got% of $n samples vs measured $want% (4 sigma: $tol pp)"
	fi
	# the BPF walk: through the Java frames into JavaMain (thread start above it)
	if [ "$wj" -gt 0 ] && awk -v t=$th -v n=$wj 'BEGIN { exit !(t >= 0.95 * n) }'; then
		ok "$what: $(pct "$th" "$wj")% of the Java thread's $wj samples with Java frames reach JavaMain beneath them"
	else
		bad "$what: $th of the Java thread's $wj samples with Java frames reach JavaMain beneath them ($(pct "$th" "$wj")%, want >= 95%)"
		awk -v r="$root" '{ split($0, fr, ";"); if (fr[1] == r && $0 !~ /;JavaMain;/) print }' "$out.folded" |
			sort -t' ' -k2 -nr | head -3
	fi
	echo "[Note: $what: stacks past the innermost Java frame $(pct "$up" "$tot")%, up to JavaMain $(pct "$m" "$tot")%]"
	grep -Eq '^  (oncpu|offcpu) +work +[1-9][0-9]* Java frames walked$' "$out.err" &&
		ok "$what: -v counts $(grep -Eo '[0-9]+ Java frames walked' "$out.err" | head -1)" ||
		bad "$what: no 'Java frames walked' count under -v"
	# where walks stopped in the code cache (degraded, not asserted), and leaves stepped at a frame's edge
	grep -E '^  (oncpu|offcpu) +degraded +[1-9][0-9]* walks ended (in a J|in a Java|on a corrupt Java|on unreadable JVM)' \
		"$out.err" | sed "s/^ */[Note: $what: /; s/$/]/"
	grep -E '^  (oncpu|offcpu) +work +[1-9][0-9]* Java leaves in a prologue or epilogue' "$out.err" |
		sed "s/^ */[Note: $what: /; s/$/]/"
	grep -Eq '^  session +work +[1-9][0-9]* Java frames named from the JVM$' "$out.err" &&
		ok "$what: -v counts $(grep -Eo '[0-9]+ Java frames named' "$out.err")" ||
		bad "$what: no 'Java frames named' count under -v"
	grep -q 'Java frames left unnamed' "$out.err" && bad "$what: $(grep 'left unnamed' "$out.err")"
	grep -E 'Java frames unnamed' "$out.err" | grep -v ' 0 Java' | sed "s/^/[Note: $what: /; s/$/]/"
}

# Of the waiter thread's off-CPU ns in $1: "total named": named, under stacks
# with both HotCold.awaitOrders and java.lang.Object.wait frames.
waiter_counts() {
	awk '{ n = $NF; split($0, fr, ";"); if (fr[1] !~ /^hc-waiter-[0-9]+$/) next
		tot += n; if ($0 ~ /;HotCold\.awaitOrders_\[j\];/ && $0 ~ /;java\.lang\.Object\.wait0?_\[j\];/) nm += n
	} END { printf "%.0f %.0f\n", tot, nm }' "$1"
}

check_offcpu() {
	local what=$1 out="$TMP/$1" tot nm
	read -r tot nm <<<"$(waiter_counts "$out.off.folded")"
	if [ "$tot" -gt 2500000000 ] && awk -v a="$nm" -v t="$tot" 'BEGIN { exit !(a >= 0.95 * t) }'; then
		ok "$what: off-CPU: $(pct "$nm" "$tot")% of the waiter's $((tot / 1000000)) ms blocked name HotCold.awaitOrders and Object.wait"
	else
		bad "$what: off-CPU: $nm of the waiter's $tot ns blocked name HotCold.awaitOrders and Object.wait (want >= 95% of > 2.5 s, half the record)"
		grep '^hc-waiter' "$out.off.folded" | sort -t' ' -k2 -nr | head -3 | cut -c1-600
	fi
	grep -E 'Java frames unnamed' "$out.off.err" | grep -v ' 0 Java' | sed "s/^/[Note: $what off-CPU: /; s/$/]/"
}

if run_wl jdk17 java; then
	check_named jdk17
	check_offcpu jdk17
fi

# the control: the same run with hotspot naming off names no Java method
if run_wl control java HOTCOLD_HOTSPOT=0; then
	root=$(java_thread "$TMP/control.folded")
	read -r tot _ _ _ _ wj th <<<"$(java_counts "$TMP/control.folded" "$root")"
	unk=$(folded_with_frame "$TMP/control.folded" "[unknown]_[j]")
	if grep -q 'HotCold\.' "$TMP/control.folded"; then
		bad "HOTCOLD_HOTSPOT=0: HotCold. names in the profile: $(grep -m1 -o 'HotCold\.[a-z]*' "$TMP/control.folded")"
	elif [ "$tot" -lt $MIN_N ] || [ "$unk" -lt $((tot / 2)) ]; then
		bad "HOTCOLD_HOTSPOT=0: a vacuous control: $tot samples of the Java thread, $unk with [unknown]_[j]"
	else
		ok "HOTCOLD_HOTSPOT=0: no HotCold. name; $unk of the Java thread's $tot samples are [unknown]_[j]"
	fi
	# ... and no walk through Java frames: next to no stack reaches JavaMain beneath them
	if grep -q 'Java frames walked' "$TMP/control.err"; then
		bad "HOTCOLD_HOTSPOT=0: Java frames were walked: $(grep -m1 'Java frames walked' "$TMP/control.err")"
	elif [ "$wj" -gt 0 ] && awk -v t=$th -v n=$wj 'BEGIN { exit !(t <= 0.05 * n) }'; then
		ok "HOTCOLD_HOTSPOT=0: the walk is off: $(pct "$th" "$wj")% of $wj samples with Java frames reach JavaMain beneath them"
	else
		bad "HOTCOLD_HOTSPOT=0: $th of $wj samples with Java frames reach JavaMain beneath them (want <= 5%: the walk off)"
	fi
	read -r tot nm <<<"$(waiter_counts "$TMP/control.off.folded")"
	if [ "$tot" -gt 2500000000 ] && [ "$nm" -eq 0 ] && ! grep -q 'awaitOrders' "$TMP/control.off.folded"; then
		ok "HOTCOLD_HOTSPOT=0: off-CPU: none of the waiter's $((tot / 1000000)) ms blocked names awaitOrders"
	else
		bad "HOTCOLD_HOTSPOT=0: off-CPU: the waiter's $tot ns blocked, $nm ns under awaitOrders (want > 2.5 s, none)"
	fi
fi

# a newer VM, its layout read the same way (CodeBlob::_kind, nmethod::_method)
for j in /usr/lib/jvm/temurin-25*/bin/java; do
	[ -x "$j" ] || { echo "[Skipped JDK 25: not installed]"; break; }
	if run_wl jdk25 "$j"; then
		check_named jdk25
		check_offcpu jdk25
	fi
	break
done
finish
