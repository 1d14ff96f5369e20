# Helpers for integration tests (sourced). Each case prints [Success],
# [Failed <reason>] or [Skipped <reason>]; a test exits 0/1/77.
set -u
TMP=$(mktemp -d /tmp/hotcold-it.XXXXXX)
FAILS=0
cleanup_hooks=()
cleanup() {
	for h in "${cleanup_hooks[@]+"${cleanup_hooks[@]}"}"; do eval "$h"; done
	rm -rf "$TMP"
}
trap cleanup EXIT

ok() { echo "[Success] $*"; }
bad() { echo "[Failed $*]"; FAILS=$((FAILS + 1)); }
skip() { echo "[Skipped $*]"; exit 77; }
finish() { [ "$FAILS" -eq 0 ]; exit $?; }

# total samples of a folded file
folded_total() { awk '{ n = $NF; t += n } END { printf "%.0f\n", t }' "$1"; }

# samples whose stack has a frame equal to $2 (counted once per line)
folded_with_frame() {
	awk -v f="$2" '{
		n = $NF; line = $0; sub(/ [0-9]+$/, "", line)
		k = split(line, fr, ";")
		for (i = 1; i <= k; i++) if (fr[i] == f) { t += n; break }
	} END { printf "%.0f\n", t }' "$1"
}

# The split workload's shares against its truth. $1: folded lines of split;
# $2: its truth file; $3: tolerance in pp; $4: label; $5 $6 $7: the frames of
# spin_alpha, spin_beta and recurse (names, or split+0x.. when stripped).
#
# What the truth is a share of: the workload times each function between
# two reads of its thread's CPU clock (clock_gettime, a system call for
# CLOCK_THREAD_CPUTIME_ID), 5 reads per round, and writes each function's
# share of the three intervals. The reads themselves are in no function:
# 1.2% of the samples on an idle machine, 2.2-2.7% with three CPU hogs
# (measured), which once read spin_alpha 2 pp low as a share of all
# samples (CI, stop 33). So the profile's share is of the n samples in the
# three functions.
#
# Each interval still holds one read's worth of time (the tail of the read
# that opens it and the head of the one that closes it; the other two reads
# of a round fall between rounds). With s the time of one read as a
# fraction of all CPU time, the c samples of N in clock reads give
# s = c / (5 N), and function f with truth w_f (%) is expected at
# 100 * (w_f/100 * (1 - 2s) - s) / (1 - 5s): 0.36 pp above the truth for
# spin_alpha at c/N = 2.2%.
split_shares_check() {
	local f=$1 truth=$2 tol=$3 label=$4 n c N s fn name w want got
	read -r n c N < <(awk -v a="$5" -v b="$6" -v r="$7" '{ k = $NF; f = 0; g = 0
			line = $0; sub(/ [0-9]+$/, "", line); m = split(line, fr, ";")
			for (i = 1; i <= m; i++) {
				if (fr[i] == a || fr[i] == b || fr[i] == r) f = 1
				if (fr[i] == "clock_gettime") g = 1
			}
			N += k; if (f) n += k; else if (g) c += k
		} END { printf "%.0f %.0f %.0f\n", n, c, N }' "$f")
	[ "$n" -gt 0 ] || { bad "$label: no samples in the three functions"; return; }
	s=$(awk -v c="$c" -v t="$N" 'BEGIN { printf "%.6f", c / (5 * t) }')
	ok "$label: $c samples ($(pct "$c" "$N")%) in the workload's clock reads, $n in the three functions"
	for fn in spin_alpha:$5 spin_beta:$6 recurse:$7; do
		name=${fn#*:} fn=${fn%%:*}
		w=$(awk -v f=$fn '$1 == f { print $2 }' "$truth")
		want=$(awk -v w="$w" -v s="$s" 'BEGIN { printf "%.2f", 100 * (w / 100 * (1 - 2 * s) - s) / (1 - 5 * s) }')
		got=$(pct "$(folded_with_frame "$f" "$name")" "$n")
		if within "$got" "$want" "$tol"; then ok "$label: $name $got% vs measured $w% ($want% with the reads out)"
		else bad "$label: $name $got% vs measured $w% ($want% with the reads out; tolerance $tol pp)"; fi
	done
}

# the steal that on-CPU ticks kept in threads' time (ms), from a -v record's stderr $1
# (docs/record.md: samples x interval is CPU time plus the steal the ticks saw)
steal_kept_ms() { awk '/ms of steal kept in threads/ { v = $3 } END { print v + 0 }' "$1"; }

# the hypervisor's steal so far, all CPUs, in ms (/proc/stat)
steal_ms() { awk -v hz="$(getconf CLK_TCK)" '/^cpu / { printf "%.0f", $9 * 1000 / hz }' /proc/stat; }

# the --per-thread root ("comm-TID") of folded file $2 whose comm is $1 with
# the most samples (a VM's busy thread among its idle ones of the same name)
busiest_root() {
	awk -v c="$1" '{ split($1, r, ";"); if (r[1] !~ "^" c "-[0-9]+$") next; t[r[1]] += $NF }
	     END { for (k in t) if (t[k] > best) { best = t[k]; b = k } print b }' "$2"
}

# samples whose root (first) frame is $2
folded_with_root() {
	awk -v f="$2" '{ n = $NF; split($0, fr, ";"); if (fr[1] == f) t += n } END { printf "%.0f\n", t }' "$1"
}

# keep only lines whose root frame is $2
folded_grep_root() { awk -v f="$2" '{ split($0, fr, ";"); if (fr[1] == f) print }' "$1"; }

# 100 * a / b with 2 decimals
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "nan"; else printf "%.2f", 100 * a / b }'; }

# |a - b| <= tol ?
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }
# wait up to $2 seconds for a line matching $1 in the log $3
wait_log() {
	for _ in $(seq 1 $(($2 * 10))); do grep -q "$1" "$3" && return 0; sleep 0.1; done
	return 1
}
# java_run CLASS ARGS...: tests/workloads/java/CLASS.java compiled and run
# (a stock JDK, no flags) with its output in $TMP/wl until it says "ready";
# its pid in JPID, killed at the end. Skips without java/javac or off x86-64
# (the walk of Java frames is x86-64 only); a failure says so and ends the test.
java_run() {
	local class=$1
	shift
	command -v java >/dev/null && command -v javac >/dev/null || skip "no java/javac"
	[ "$(uname -m)" = x86_64 ] || skip "x86-64 only"
	javac -d "$TMP" "$(dirname "${BASH_SOURCE[0]}")/../workloads/java/$class.java" \
		2>"$TMP/javac.err" || { bad "javac: $(head -3 "$TMP/javac.err")"; finish; }
	: >"$TMP/wl"
	java -cp "$TMP" "$class" "$@" >"$TMP/wl" 2>&1 &
	JPID=$!
	cleanup_hooks+=("kill $JPID 2>/dev/null")
	wait_log '^ready' 30 "$TMP/wl" || { bad "the workload never got ready: $(head -3 "$TMP/wl")"; finish; }
}
# A hardware core PMU (x86 "cpu"/"cpu_core", Arm PMUv3)? Exit status.
have_cpu_pmu() {
	local d
	for d in /sys/bus/event_source/devices/cpu /sys/bus/event_source/devices/cpu_core \
		 /sys/bus/event_source/devices/armv8_pmuv3*; do
		[ -e "$d" ] && return 0
	done
	return 1
}
