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
# A hardware core PMU (x86 "cpu"/"cpu_core", Arm PMUv3)? Exit status.
have_cpu_pmu() {
	local d
	for d in /sys/bus/event_source/devices/cpu /sys/bus/event_source/devices/cpu_core \
		 /sys/bus/event_source/devices/armv8_pmuv3*; do
		[ -e "$d" ] && return 0
	done
	return 1
}
