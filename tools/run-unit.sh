#!/bin/sh
# Run each cmocka unit-test binary; fail if any fails. Usage: run-unit.sh BIN...
fail=0
for t in "$@"; do
	"$t" || { echo "unit: $t failed" >&2; fail=1; }
done
exit $fail
