#!/bin/sh
# hotcold convert -> `go tool pprof`: the reference reader must see the same
# total and the same flat/cum per function as the folded input says.
# Expectations come from awk over the folded text (an independent reading of
# SEEDS.md §1: self = leaf, cum counts a recursive frame once per stack), with
# kernel frames' "_[k]" dropped as the pprof writer does.
# Usage: pprof_check.sh [HOTCOLD] [FOLDED]. Exit 0 pass, 1 fail, 77 skipped (no go).
set -u
cd "$(dirname "$0")/../.."
HC=${1:-./hotcold}
IN=${2:-tests/golden/pprof.in}
PERIOD=1000000

if ! command -v go >/dev/null 2>&1; then
	echo "[Skipped go not installed: apt-get install golang-go]"
	exit 77
fi
[ -x "$HC" ] || { echo "[Skipped hotcold binary '$HC' not built]"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
# go tool wants a writable home and build cache; never touch the user's
export HOME="$tmp/home" GOCACHE="$tmp/gocache" GOPATH="$tmp/gopath" GOFLAGS= GOTOOLCHAIN=local
mkdir -p "$HOME"

fail() {
	echo "[Failed $1]"
	exit 1
}

"$HC" convert "$IN" -o "$tmp/p.pb.gz" --period-ns $PERIOD 2>"$tmp/err" ||
	fail "convert: $(cat "$tmp/err")"

awk '{
	sub(/^[ \t]+/, ""); sub(/[ \t\r]+$/, "")
	if ($0 == "") next
	n = match($0, / [^ ]*$/); if (!n) next
	c = substr($0, n + 1); s = substr($0, 1, n - 1)
	nf = split(s, f, ";"); total += c
	delete seen
	for (i = 1; i <= nf; i++) {
		sub(/_\[k\]$/, "", f[i])
		if (!(f[i] in seen)) { seen[f[i]] = 1; cum[f[i]] += c }
	}
	flat[f[nf]] += c; names[f[nf]] = 1
	for (i = 1; i <= nf; i++) names[f[i]] = 1
} END {
	print "total", total
	for (k in names) print k, flat[k] + 0, cum[k] + 0
}' "$IN" | sort >"$tmp/want"

top() {
	go tool pprof -top -nodecount=100000 -nodefraction=0 -edgefraction=0 "$@" \
		"$tmp/p.pb.gz" 2>"$tmp/go.err" || fail "go tool pprof: $(head -3 "$tmp/go.err")"
}

top -sample_index=samples >"$tmp/top" || exit 1
awk '/ of [0-9]+ total/ { for (i = 1; i <= NF; i++) if ($i == "of") print "total", $(i + 1) }
     hdr { name = $6; for (i = 7; i <= NF; i++) name = name " " $i; print name, $1, $4 }
     /flat%/ { hdr = 1 }' "$tmp/top" | sort >"$tmp/got"
if ! diff -u "$tmp/want" "$tmp/got" >"$tmp/d"; then
	cat "$tmp/d"
	fail "pprof -top samples differ from the folded data"
fi
echo "[Success] pprof samples: total and $(($(wc -l <"$tmp/want") - 1)) functions' flat/cum match"

# cpu nanoseconds = samples x period, and cpu is the default sample type
want_ns=$(($(awk '$1 == "total" { print $2 }' "$tmp/want") * PERIOD))
top -unit=ns >"$tmp/top_ns" || exit 1
grep -q "^Type: cpu$" "$tmp/top_ns" || fail "default sample type is not cpu"
grep -q " of ${want_ns}ns total" "$tmp/top_ns" ||
	fail "cpu total is not ${want_ns}ns: $(grep total "$tmp/top_ns")"
echo "[Success] pprof cpu: ${want_ns}ns total, default sample type cpu"

# kernel frames sit in the [kernel.kallsyms] mapping
go tool pprof -raw "$tmp/p.pb.gz" >"$tmp/raw" 2>"$tmp/go.err" || fail "pprof -raw"
if grep -q '_\[k\]' "$IN"; then
	grep -q '\[kernel.kallsyms\]' "$tmp/raw" || fail "no [kernel.kallsyms] mapping"
	grep ' M=' "$tmp/raw" | grep -q 'vfs_read' || fail "kernel frame without its mapping"
	echo "[Success] pprof kernel frames in [kernel.kallsyms]"
fi
exit 0
