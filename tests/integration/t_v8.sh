#!/bin/bash
# JavaScript frames of a Node.js process named from V8's own v8dbg_* table
# (issue 31), with a stock `node`, no flags and no perf map: an async HTTP
# handler on loopback under wrk, with a known CPU split
# (tests/workloads/node/hotcold.js --http: each request's handler, after an
# await, calls hotAlpha(2 N) then hotBeta(N), each call timed with
# process.cpuUsage()) recorded with `-p` after a warm-up. Of the JS thread's samples, at least
# 95% must carry named JavaScript frames only (no [unknown]_[j] or
# [javascript]_[j]), at least 90% have hotAlpha / hotBeta as their innermost
# JavaScript frame, in the workload's own split, all of those naming the
# workload's file after the function ("hotAlpha (.../hotcold.js)": its
# Script's name), and at least 95% of those
# with JavaScript frames reach node::Start beneath them (the walk goes on
# through V8's frames by frame pointer). With HOTCOLD_V8=0 (the control) no
# hotAlpha/hotBeta name may appear, and most of the thread's samples have
# [unknown]_[j] frames.
#
# Off-CPU: the workload's worker thread blocks in awaitOrders
# (Atomics.wait(20 ms), never notified). Of its off-CPU time, at least 95%
# must be under stacks that name awaitOrders; none in the control. What may
# miss it: the block still open at the stop, walked from another task
# (named too since t_v8_blocked's change; on a kernel before 6.2 its pcs
# are kept: at most one 20 ms wait of the record).
#
# usage: t_v8.sh [-d SECONDS]   (each record's length; default 5)
. "$(dirname "$0")/lib.sh"
command -v node >/dev/null || skip "no node"
command -v wrk >/dev/null || skip "no wrk"
[ "$(uname -m)" = x86_64 ] || skip "x86-64 only"
DUR=5
[ "${1:-}" = -d ] && DUR=${2:?-d SECONDS}

WL=$(realpath "$(dirname "$0")/../workloads/node/hotcold.js")
# Tolerance of the split: as t_hotspot.sh's, 4 sigma of a binomial
# proportion around the workload's measured share. Fewer than MIN_N samples
# in the two (a starved run) fail and say so.
MIN_N=$((DUR * 100))
FRAMES_NAMED='JavaScript frames named from V8'

# The JS thread: the "node-TID" root (--per-thread) with the most samples
# (V8's and libuv's threads are named node too, and mostly wait).
js_thread() { busiest_root node "$1"; }

# Of root $2's samples: "total innermost_alpha innermost_beta with_js named_js through_js
# in_script": innermost JS frame = the last "_[j]" frame, its function's
# name without the script after it; with_js: samples with a "_[j]" frame;
# named_js: of those, none is [unknown]_[j] or [javascript]_[j]; through_js:
# of those, with node::Start rootward of the outermost; in_script: of the
# hotAlpha/hotBeta ones, those whose frame names the workload's file ($WL).
js_counts() {
	awk -v root="$2" -v script=" ($WL)_[j]" '{
		n = $NF; line = $0; sub(/ [0-9]+$/, "", line)
		k = split(line, fr, ";")
		if (fr[1] != root) next
		tot += n; last = 0; first = 0; start = 0; unnamed = 0
		for (i = 2; i <= k; i++) {
			if (fr[i] ~ /_\[j\]$/) { last = i; if (!first) first = i }
			if (fr[i] == "[unknown]_[j]" || fr[i] == "[javascript]_[j]") unnamed = 1
			if (!start && fr[i] == "node::Start(int, char**)") start = i
		}
		f = fr[last]; sub(/ \([^;]*\)_\[j\]$/, "_[j]", f)
		if (last && (f == "hotAlpha_[j]" || f == "hotBeta_[j]") &&
		    substr(fr[last], length(fr[last]) - length(script) + 1) == script) s += n
		if (last && f == "hotAlpha_[j]") a += n
		if (last && f == "hotBeta_[j]") b += n
		if (first) wj += n
		if (first && !unnamed) nj += n
		if (first && start && start < first) th += n
	} END { printf "%d %d %d %d %d %d %d\n", tot, a, b, wj, nj, th, s }' "$1"
}

# $1 label, then env assignments for hotcold: record the workload with -p
# after its warm-up; leaves $TMP/$1.{folded,err,truth}
run_wl() {
	local what=$1 out="$TMP/$1" pid rc
	shift
	: >"$out.wl"
	node "$WL" --http 2 60 "$out.truth" "$out.stop" >"$out.wl" 2>&1 &
	pid=$!
	cleanup_hooks+=("kill $pid 2>/dev/null")
	if ! wait_log '^port [0-9]' 10 "$out.wl"; then
		bad "$what: the server never listened: $(head -3 "$out.wl")"
		return 1
	fi
	# one connection: a request at a time, as the truth is kept
	wrk -t1 -c1 -d $((DUR + 20))s "http://127.0.0.1:$(sed -n 's/^port //p' "$out.wl")/" \
		>"$out.wrk" 2>&1 &
	local wrk=$!
	cleanup_hooks+=("kill $wrk 2>/dev/null")
	if ! wait_log '^ready' 30 "$out.wl"; then
		bad "$what: the workload never got ready: $(head -3 "$out.wl")"
		return 1
	fi
	# on- and off-CPU side by side, each its own recorder (the test's time)
	env "$@" "$HOTCOLD" record -v -F 999 -p $pid -d "$DUR" --per-thread -o "$out.folded" \
		2>"$out.err" &
	local on=$!
	rc=0
	env "$@" "$HOTCOLD" record -v --off-cpu -p $pid -d "$DUR" --per-thread \
		-o "$out.off.folded" 2>"$out.off.err" || rc=$?
	wait $on || rc=$?
	# the names were read while it ran: now it may stop and write its truth
	touch "$out.stop"
	for _ in $(seq 1 100); do [ -s "$out.truth" ] && break; sleep 0.1; done
	kill $pid $wrk 2>/dev/null
	wait $pid $wrk 2>/dev/null
	[ $rc -eq 0 ] || { bad "$what: record exit $rc: $(grep -hv '^  ' "$out.err" "$out.off.err" | tail -3)"; return 1; }
	[ -s "$out.truth" ] || { bad "$what: the workload wrote no truth"; return 1; }
	return 0
}

check_named() {
	local what=$1 out="$TMP/$1" root tot a b wj nj th s n want got tol
	root=$(js_thread "$out.folded")
	read -r tot a b wj nj th s <<<"$(js_counts "$out.folded" "$root")"
	if [ "$tot" -gt 0 ] && awk -v n="$nj" -v t="$tot" 'BEGIN { exit !(n >= 0.95 * t) }'; then
		ok "$what: $(pct "$nj" "$tot")% of the JS thread's $tot samples have named JavaScript frames only"
	else
		bad "$what: $nj of the JS thread's $tot samples ($root) have named JavaScript frames only (want >= 95%)"
		grep "^$root;" "$out.folded" | grep -E '\[(unknown|javascript)\]_\[j\]' |
			sort -t' ' -k2 -nr | head -3 | cut -c1-600
	fi
	n=$((a + b))
	if [ "$tot" -gt 0 ] && awk -v n=$n -v t="$tot" 'BEGIN { exit !(n >= 0.9 * t) }'; then
		ok "$what: $(pct $n "$tot")% of the JS thread's samples have hotAlpha/hotBeta as innermost JavaScript frame"
	else
		bad "$what: $n of the JS thread's $tot samples have hotAlpha/hotBeta innermost (want >= 90%)"
		grep "^$root;" "$out.folded" | sort -t' ' -k2 -nr | head -3 | cut -c1-600
	fi
	if [ "$n" -gt 0 ] && [ "$s" -eq "$n" ]; then
		ok "$what: all $n hotAlpha/hotBeta frames name the workload's script ($(basename "$WL"))"
	else
		bad "$what: $s of $n hotAlpha/hotBeta frames name the workload's script ($WL)"
		grep "^$root;" "$out.folded" | grep -E 'hot(Alpha|Beta)' | grep -vF " ($WL)_[j]" |
			sort -t' ' -k2 -nr | head -3 | cut -c1-600
	fi
	# the split against the workload's own measurement
	want=$(awk '{ printf "%.2f", 100 * $1 / ($1 + $2) }' "$out.truth")
	got=$(pct "$a" "$n")
	tol=$(awk -v p="$want" -v n=$n 'BEGIN { p /= 100; if (n < 1) n = 1; printf "%.2f", 400 * sqrt(p * (1 - p) / n) }')
	if [ "$n" -lt "$MIN_N" ]; then
		bad "$what: only $n samples in hotAlpha/hotBeta (need $MIN_N; load: $(cut -d' ' -f1-3 /proc/loadavg))"
	elif within "$got" "$want" "$tol"; then
		ok "$what: hotAlpha $got% of $n samples vs measured $want% (4 sigma: $tol pp)"
	else
		bad "$what: hotAlpha $got% of $n samples vs measured $want% (4 sigma: $tol pp)"
	fi
	if [ "$wj" -gt 0 ] && awk -v t="$th" -v n="$wj" 'BEGIN { exit !(t >= 0.95 * n) }'; then
		ok "$what: $(pct "$th" "$wj")% of the JS thread's $wj samples with JavaScript frames reach node::Start beneath them"
	else
		bad "$what: $th of the JS thread's $wj samples with JavaScript frames reach node::Start beneath them (want >= 95%)"
	fi
	grep -Eq '^  oncpu +work +[1-9][0-9]* JavaScript frames found by the walk$' "$out.err" &&
		ok "$what: -v counts $(grep -Eo '[0-9]+ JavaScript frames found by the walk' "$out.err")" ||
		bad "$what: no 'JavaScript frames found by the walk' count under -v"
	grep -Eq "^  session +work +[1-9][0-9]* $FRAMES_NAMED\$" "$out.err" &&
		ok "$what: -v counts $(grep -Eo "[0-9]+ $FRAMES_NAMED" "$out.err")" ||
		bad "$what: no '$FRAMES_NAMED' count under -v"
	grep -q 'JavaScript frames are not named' "$out.err" && bad "$what: $(grep 'not named' "$out.err")"
	grep -E 'JavaScript frames unnamed' "$out.err" | grep -v ' 0 JavaScript' |
		sed "s/^/[Note: $what: /; s/$/]/"
}

# Of the worker thread's off-CPU ns in $1 (the root whose stacks run
# node::worker::Worker::Run()): "total named", named: under awaitOrders.
waiter_counts() {
	awk '$0 ~ /;node::worker::Worker::Run\(\);/ { split($1, r, ";"); w[r[1]] = 1 }
	     { n = $NF; split($0, fr, ";"); root[NR] = fr[1]; v[NR] = n; nm[NR] = $0 ~ /;awaitOrders( \([^;]*\))?_\[j\];/ }
	     END { for (i = 1; i <= NR; i++) if (root[i] in w) { t += v[i]; if (nm[i]) a += v[i] }
		   printf "%.0f %.0f\n", t, a }' "$1"
}

check_offcpu() {
	local what=$1 out="$TMP/$1" tot nm
	read -r tot nm <<<"$(waiter_counts "$out.off.folded")"
	if [ "$tot" -gt $((DUR * 500000000)) ] && awk -v a="$nm" -v t="$tot" 'BEGIN { exit !(a >= 0.95 * t) }'; then
		ok "$what: off-CPU: $(pct "$nm" "$tot")% of the worker's $((tot / 1000000)) ms blocked name awaitOrders"
	else
		bad "$what: off-CPU: $nm of the worker's $tot ns blocked name awaitOrders (want >= 95% of > $((DUR / 2)) s)"
		grep -E ';node::worker::Worker::Run\(\);' "$out.off.folded" | sort -t' ' -k2 -nr | head -3 | cut -c1-600
	fi
	grep -E 'JavaScript frames unnamed' "$out.off.err" | grep -v ' 0 JavaScript' |
		sed "s/^/[Note: $what off-CPU: /; s/$/]/"
}

if run_wl node; then
	check_named node
	check_offcpu node
fi

# the control: V8 naming off names no JavaScript function
if run_wl control HOTCOLD_V8=0; then
	root=$(js_thread "$TMP/control.folded")
	read -r tot _ _ wj nj _ <<<"$(js_counts "$TMP/control.folded" "$root")"
	unk=$((wj - nj))	# the JS thread's samples with an unnamed JIT frame
	if grep -Eq 'hot(Alpha|Beta)( \(|_)' "$TMP/control.folded"; then
		bad "HOTCOLD_V8=0: hotAlpha/hotBeta names in the profile"
	elif [ "$tot" -lt "$MIN_N" ] || [ "$unk" -lt $((tot / 2)) ]; then
		bad "HOTCOLD_V8=0: a vacuous control: $tot samples of the JS thread, $unk with [unknown]_[j]"
	else
		ok "HOTCOLD_V8=0: no hotAlpha/hotBeta name; $unk of the JS thread's $tot samples have [unknown]_[j]"
	fi
	read -r tot nm <<<"$(waiter_counts "$TMP/control.off.folded")"
	if [ "$tot" -gt $((DUR * 500000000)) ] && [ "$nm" -eq 0 ]; then
		ok "HOTCOLD_V8=0: off-CPU: none of the worker's $((tot / 1000000)) ms blocked names awaitOrders"
	else
		bad "HOTCOLD_V8=0: off-CPU: the worker's $tot ns blocked, $nm ns under awaitOrders (want > $((DUR / 2)) s, none)"
	fi
	grep -q 'JavaScript frames found by the walk' "$TMP/control.err" &&
		bad "HOTCOLD_V8=0: the walk found JavaScript frames"
	grep -q "$FRAMES_NAMED" "$TMP/control.err" &&
		grep -Eq "^  session +work +[1-9][0-9]* $FRAMES_NAMED\$" "$TMP/control.err" &&
		bad "HOTCOLD_V8=0: frames were named: $(grep -m1 "$FRAMES_NAMED" "$TMP/control.err")"
fi
finish
