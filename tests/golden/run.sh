#!/bin/sh
# Golden-file and bad-input tests of hotcold's folded reader and writers
# (report, diff, convert), without root. Usage: tests/golden/run.sh [HOTCOLD]
# (default ./hotcold). Prints [Success]/[Failed <reason>]/[Skipped <reason>]
# per case and "N passed, N failed" last. Exit 0 all passed (skips allowed),
# 1 a failure, 77 hotcold not built. Expected outputs change only through
# tools/regen-golden.sh.
set -u
cd "$(dirname "$0")/../.."
HC=${1:-./hotcold}
case $HC in /*) ;; *) HC=$PWD/$HC ;; esac
if [ ! -x "$HC" ]; then
	echo "[Skipped hotcold binary '$HC' not built]"
	echo "0 passed, 0 failed"
	exit 77
fi
. tests/golden/cases.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0 fail=0

ok() { echo "[Success] $1"; pass=$((pass + 1)); }
ko() { echo "[Failed $2] $1"; fail=$((fail + 1)); }

golden_list >"$tmp/list"
while read -r c kind; do
	want=tests/golden/$c.$kind
	if ! golden_run "$c" "$kind" >"$tmp/out" 2>"$tmp/err"; then
		ko "$c.$kind" "exit $?: $(head -1 "$tmp/err")"
	elif [ ! -f "$want" ]; then
		ko "$c.$kind" "no $want (tools/regen-golden.sh)"
	elif cmp -s "$want" "$tmp/out"; then
		ok "$c.$kind"
	else
		diff -u "$want" "$tmp/out" | head -20
		ko "$c.$kind" "output differs"
	fi
done <"$tmp/list"

# expect NAME STATUS STDERR-PATTERN CMD...: exit status and a diagnostic, no crash
expect()
{
	name=$1 status=$2 pattern=$3
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne "$status" ]; then
		ko "$name" "exit $rc, want $status: $(head -2 "$tmp/err")"
	elif [ -n "$pattern" ] && ! grep -q -- "$pattern" "$tmp/err"; then
		ko "$name" "stderr lacks '$pattern': $(head -2 "$tmp/err")"
	else
		ok "$name"
	fi
}

: >"$tmp/empty"
expect "bad input: empty file" 2 "no stacks" "$HC" report "$tmp/empty"
printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000\003\000>\000\001' >"$tmp/bin"
head -c 4096 /dev/urandom >>"$tmp/bin"
expect "bad input: binary file" 2 "not folded stacks" "$HC" report "$tmp/bin"
gzip -c tests/golden/basic.in | head -c 60 >"$tmp/trunc.gz"
expect "bad input: truncated gzip" 2 "gzip-compressed" "$HC" report "$tmp/trunc.gz"
expect "bad input: truncated gzip to convert" 2 "gzip-compressed" \
	"$HC" convert "$tmp/trunc.gz" -o "$tmp/x.pb.gz"
[ ! -e "$tmp/x.pb.gz" ] && ok "bad input: no output file left behind" ||
	ko "bad input: no output file left behind" "$tmp/x.pb.gz exists"
expect "bad input: -v lists malformed line numbers" 0 "line 6: empty frame" \
	"$HC" report -v tests/golden/messy.in
expect "bad input: missing file" 1 "cannot open" "$HC" report "$tmp/none"
expect "bad input: a directory" 2 "is a directory" "$HC" report "$tmp"
expect "bad input: a directory to convert" 2 "is a directory" "$HC" convert "$tmp" -o "$tmp/x.pb.gz"
expect "bad input: a directory to flamegraph" 2 "is a directory" "$HC" flamegraph "$tmp" -o "$tmp/x.svg"
expect "bad input: a directory to diff" 2 "is a directory" "$HC" diff "$tmp" tests/golden/basic.in
# /bin/ls: its ELF header has NUL bytes; never exit 0 on a line that happens to parse
for c in report "convert -o $tmp/x.pb.gz" "flamegraph -o $tmp/x.svg"; do
	expect "bad input: /bin/ls to ${c%% *}" 2 "binary data" "$HC" $c /bin/ls
done
expect "bad input: /bin/ls to diff" 2 "binary data" "$HC" diff tests/golden/basic.in /bin/ls
# a random binary file whose first "line" is a valid folded line
{ echo "app;main 5"; head -c 8192 /dev/urandom; } >"$tmp/lucky"
expect "bad input: binary after one valid line" 2 "binary data" "$HC" report "$tmp/lucky"
# headers: no --kind for hotcold's files; a contradicting one is refused
printf '# hotcold folded v1 kind=offcpu unit=nanoseconds\napp;read;[sleep] 2000000000\n' >"$tmp/off"
expect "header: report reads kind and unit from it" 0 "" "$HC" report --json "$tmp/off"
grep -q '"kind": "offcpu"' "$tmp/out" && grep -q '"total": 2000000000' "$tmp/out" &&
	ok "header: report total in nanoseconds" || ko "header: report total in nanoseconds" "$(head -c 300 "$tmp/out")"
expect "header: --kind that contradicts it" 2 "contradicts" "$HC" report --kind oncpu "$tmp/off"
expect "header: --unit that contradicts it" 2 "contradicts" \
	"$HC" flamegraph --unit bytes "$tmp/off" -o "$tmp/x.svg"
printf '# hotcold folded v1 kind=oncpu unit=samples period_ns=1000000\napp;f 3\n' >"$tmp/on"
expect "header: --period-ns that contradicts it" 2 "contradicts" \
	"$HC" convert --period-ns 5 "$tmp/on" -o "$tmp/x.pb.gz"
printf '# hotcold folded v9 kind=oncpu unit=samples\napp;f 3\n' >"$tmp/v9"
expect "header: an unknown version is refused" 2 "cannot use" "$HC" report "$tmp/v9"
expect "usage: unknown option" 2 "unknown option" "$HC" report --bogus x
expect "usage: bad regex" 2 "bad --grep expression" "$HC" report --grep '(' tests/golden/basic.in
expect "usage: diff needs two inputs" 2 "two inputs" "$HC" diff tests/golden/basic.in
expect "usage: convert needs a format" 2 "use --format" \
	"$HC" convert tests/golden/basic.in -o "$tmp/x.bin"
expect "stdin: report -" 0 "" sh -c "\"$HC\" report - <tests/golden/basic.in"

# 100 MB on one line: no fixed buffer, no overflow, bounded work
head -c 100000000 /dev/zero | tr '\0' 'x' >"$tmp/huge"
expect "huge line: 100 MB without a count" 2 "not folded stacks" "$HC" report "$tmp/huge"
printf ' 7\n' >>"$tmp/huge"
expect "huge line: one 100 MB frame" 0 "" "$HC" report -q "$tmp/huge"
# "a;" 50M times (sed on one 100 MB line took 12 s of each run, twice in the test command)
python3 -c 'import sys; sys.stdout.write("a;" * 50000000)' >"$tmp/deep"
printf 'a 1\n' >>"$tmp/deep"
expect "huge line: 50M frames is malformed" 2 "not folded stacks" "$HC" report "$tmp/deep"
rm -f "$tmp/huge" "$tmp/deep"

# the pprof reader of record (skips without go)
tests/golden/pprof_check.sh "$HC" >"$tmp/pprof" 2>&1
case $? in
0) ok "pprof: go tool pprof agrees with the folded data" ;;
77) echo "$(cat "$tmp/pprof")" ;;
*) cat "$tmp/pprof"; ko "pprof: go tool pprof agrees with the folded data" "see above" ;;
esac

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
