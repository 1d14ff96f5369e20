#!/bin/bash
# Run every tests/integration/t_*.sh against the real kernel, as root.
# Each test exits 0 (pass), 77 (skip) or anything else (fail).
# usage: run.sh PATH/TO/hotcold [t_name ...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
export HOTCOLD=$(realpath "$1"); shift
export WL=$(dirname "$HOTCOLD")/workloads
pass=0 fail=0 skip=0 failed=()
# each test's checks that failed, printed again at the end: a CI log shows
# its tail, and the tail must say what failed, not only which test
fails=$(mktemp /tmp/hotcold-run-fails.XXXXXX)
trap 'rm -f "$fails" "$fails.out"' EXIT
tests=("$@")
[ ${#tests[@]} -eq 0 ] && tests=($(cd "$here" && ls t_*.sh | sed 's/\.sh$//'))
if [ "$(id -u)" != 0 ]; then
	echo "integration: not root, all skipped"
	echo "0 passed, 0 failed, ${#tests[@]} skipped"
	exit 0
fi
for t in "${tests[@]}"; do
	echo "--- $t"
	start=$(date +%s)
	# into a file, not a pipe: a server a test leaves behind would hold a
	# pipe open and hang the run
	bash "$here/$t.sh" > "$fails.out" 2>&1
	rc=$?
	cat "$fails.out"
	grep -E '^\[Failed' "$fails.out" | sed "s/^/  $t: /" >> "$fails"
	dur=$(( $(date +%s) - start ))
	case $rc in
	0) pass=$((pass + 1)); echo "--- $t: ok (${dur}s)";;
	77) skip=$((skip + 1)); echo "--- $t: skipped";;
	*) fail=$((fail + 1)); failed+=("$t"); echo "--- $t: FAILED (rc $rc, ${dur}s)";;
	esac
done
[ $fail -ne 0 ] && { echo "failed: ${failed[*]}"; grep -E "^  ($(IFS='|'; echo "${failed[*]}")): " "$fails" | head -40; }
echo "integration: $pass passed, $fail failed, $skip skipped"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
