#!/bin/sh
# Run libFuzzer targets for a bounded time each.
#   run.sh [-c] SECONDS FUZZ_DIR TARGET...
# Seeds come from tests/fuzz/corpus/<target>/ and FUZZ_DIR/seeds/<target>/
# (built ones: ELF). Without -c, new inputs are kept in FUZZ_DIR/work/<target>/
# (runs build on each other). -c (CI, make check-fuzz): a fresh, empty work
# directory each run, so a run starts from the committed seeds alone and is
# repeatable. Each target prints one line with its time. A crash, leak,
# timeout or out-of-memory fails the target: its input is copied to
# FUZZ_DIR/crashes/ (the line names it) and printed in base64 and as a hex
# dump, so the log alone is enough to commit it as a seed and reproduce it
# (FUZZ_DIR/fuzz_<target> FILE). Exit 1 if any target failed, else 0.
ci=0
if [ "$1" = "-c" ]; then
	ci=1
	shift
fi
secs=$1 dir=$2
shift 2
src=$(cd "$(dirname "$0")" && pwd)
fail=0
now() { date +%s.%N; }
mkdir -p "$dir/crashes"
# run_one TARGET: its lines on stdout; 1 if it failed
run_one() {
	t=$1
	work=$dir/work/$t
	[ $ci -eq 1 ] && work=$dir/check/$t && rm -rf "$work"
	mkdir -p "$work"
	seeds=""
	for s in "$src/corpus/$t" "$dir/seeds/$t"; do
		[ -d "$s" ] && seeds="$seeds $s"
	done
	log=$dir/fuzz_$t.log
	art=$dir/art-$t
	rm -rf "$art"
	mkdir -p "$art"
	t0=$(now)
	# -rss_limit_mb: a 100 MB line is fine, runaway growth is a finding
	"$dir/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$art/" \
		"$work" $seeds >"$log" 2>&1
	rc=$?
	took=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	if [ $rc -eq 0 ] && [ -z "$(ls "$art")" ]; then
		echo "fuzz: $t: ok, ${execs:-?} runs in ${took}s, corpus $(ls "$work" | wc -l) new + seeds"
		return 0
	fi
	echo "fuzz: $t: FAILED (exit $rc) after ${took}s, ${execs:-?} runs; log $log"
	grep -m4 -E '^==[0-9]+==ERROR|SUMMARY|runtime error|deadly signal|Test unit written' "$log"
	grep -m8 -E '^ +#[0-9]+ ' "$log"
	for a in "$art"/*; do
		[ -f "$a" ] || continue
		keep=$dir/crashes/$t-$(basename "$a")
		cp "$a" "$keep"
		echo "fuzz: $t: failing input kept as $keep ($(wc -c <"$keep") bytes); to add it as a seed:"
		echo "fuzz: $t:   base64 -d > tests/fuzz/corpus/$t/$(basename "$a") <<'EOF'"
		head -c 65536 "$keep" | base64 -w 76
		echo "EOF"
		echo "fuzz: $t: hex (first 512 bytes):"
		head -c 512 "$keep" | od -A x -t x1z -v
	done
	return 1
}

# Targets run side by side, one per CPU (each is one busy thread): 8 of them
# at 5 s took 49 s one after another; their lines are printed in order.
jobs=$(nproc 2>/dev/null || echo 1)
t_all=$(now)
while [ $# -gt 0 ]; do
	batch=""
	while [ $# -gt 0 ] && [ $(echo $batch | wc -w) -lt "$jobs" ]; do
		batch="$batch $1"
		shift
	done
	for t in $batch; do
		( run_one "$t" >"$dir/out-$t" 2>&1; echo $? >"$dir/rc-$t" ) &
	done
	wait
	for t in $batch; do
		cat "$dir/out-$t"
		[ "$(cat "$dir/rc-$t")" = 0 ] || fail=1
		rm -f "$dir/out-$t" "$dir/rc-$t"
	done
	ntargets=$((${ntargets:-0} + $(echo $batch | wc -w)))
done
echo "fuzz: ${ntargets:-0} targets in $(awk -v a="$t_all" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')s, ${secs}s each: $([ $fail -eq 0 ] && echo ok || echo FAILED)"
exit $fail
