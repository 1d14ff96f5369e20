#!/bin/sh
# Run libFuzzer targets for a bounded time each. Usage: run.sh SECONDS FUZZ_DIR TARGET...
# Seeds come from tests/fuzz/corpus/<target>/ and FUZZ_DIR/seeds/<target>/;
# new inputs are kept in FUZZ_DIR/work/<target>/ (so runs build on each
# other), crashes are written as FUZZ_DIR/crash-<target>-*. Exit 1 if any
# target failed, else 0. Prints one summary line per target.
secs=$1 dir=$2
shift 2
src=$(cd "$(dirname "$0")" && pwd)
fail=0
for t in "$@"; do
	work=$dir/work/$t
	mkdir -p "$work"
	seeds=""
	for s in "$src/corpus/$t" "$dir/seeds/$t"; do
		[ -d "$s" ] && seeds="$seeds $s"
	done
	log=$dir/fuzz_$t.log
	# -rss_limit_mb: a 100 MB line is fine, runaway growth is a finding
	if "$dir/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$dir/crash-$t-" \
		"$work" $seeds >"$log" 2>&1; then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		echo "fuzz: $t: ok, ${execs:-?} runs in ${secs}s, corpus $(ls "$work" | wc -l)"
	else
		echo "fuzz: $t: FAILED, see $log" >&2
		grep -m3 -E 'ERROR|SUMMARY|Test unit written' "$log" >&2
		fail=1
	fi
done
exit $fail
