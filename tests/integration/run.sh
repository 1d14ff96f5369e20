#!/bin/bash
# Run every tests/integration/t_*.sh against the real kernel, as root.
# Each test exits 0 (pass), 77 (skip) or anything else (fail).
# usage: run.sh PATH/TO/hotcold [t_name ...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
export HOTCOLD=$(realpath "$1"); shift
export WL=$(dirname "$HOTCOLD")/workloads
pass=0 fail=0 skip=0 failed=()
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
	bash "$here/$t.sh"
	rc=$?
	dur=$(( $(date +%s) - start ))
	case $rc in
	0) pass=$((pass + 1)); echo "--- $t: ok (${dur}s)";;
	77) skip=$((skip + 1)); echo "--- $t: skipped";;
	*) fail=$((fail + 1)); failed+=("$t"); echo "--- $t: FAILED (rc $rc, ${dur}s)";;
	esac
done
[ $fail -ne 0 ] && echo "failed: ${failed[*]}"
echo "integration: $pass passed, $fail failed, $skip skipped"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
