#!/bin/bash
# pprof source lines and inline frames from DWARF (issue 15), read back by
# `go tool pprof`, on tests/workloads/hotloop.c (clang -O2 -g, no
# .debug_aranges): hot_loop() runs the loop marked HOT 9 times as often as
# the one calling mix(), always inlined (line marked MIX).
# Required:
# - `-lines -top` names hotloop.c:LINE, and the loop's lines (HOT and its
#   `for`, the line before) carry >= 50% of all samples. t_annotate's bar and
#   derivation: by design ~90% of hot_loop is that loop, the compiler puts
#   10-20% of its instructions on DWARF line 0 (measured 76% on the loop's
#   lines), and at 290-750 samples (1.5 s at 499 Hz, fewer on a loaded
#   machine) the binomial sd of a share is < 3 pp;
# - mix() is its own frame, "(inline)", at hotloop.c:MIX with samples: ~1/10
#   of the work by design, 3.1-4.6% measured, so >= 9 of >= 290 expected;
#   0 has p ~ 1e-4;
# - `-list hot_loop` shows the HOT line's source text with samples;
# - at function granularity hot_loop holds every sample of the workload's
#   main (the frame's own Line keeps its name: one function in every view);
# - `hotcold annotate` reads the Lines back: hot_loop's self samples are
#   those of hot_loop and of mix inlined in it (go tool pprof's two flat
#   rows), the MIX line among them (a reader taking the first, innermost Line
#   as the code's function would give mix's samples to "mix");
# - a stripped copy whose DWARF is in its separate debug file (found by
#   .gnu_debuglink) gets the same lines from that file;
# - negative control: a copy without DWARF (objcopy --strip-debug keeps
#   .symtab) is named hot_loop but has no file:line, and no mix frame.
. "$(dirname "$0")/lib.sh"

command -v go >/dev/null 2>&1 || skip "go not installed (golang-go)"
# go tool wants a writable home and build cache; never touch the user's
export HOME="$TMP/home" GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath" GOFLAGS= GOTOOLCHAIN=local
mkdir -p "$HOME"

SRC=$(cd "$(dirname "$0")/../workloads" && pwd)/hotloop.c
HOT=$(grep -n '/\* HOT \*/' "$SRC" | cut -d: -f1)
MIX=$(grep -n '/\* MIX \*/' "$SRC" | cut -d: -f1)

top() {
	go tool pprof -sample_index=samples -top -nodecount=100000 -nodefraction=0 "$@" \
		2>"$TMP/go.err" || bad "go tool pprof $*: $(head -3 "$TMP/go.err")"
}

# flat samples of the -top rows whose name column matches the regex $2
flat_of() { awk -v re="$2" 'hdr && $0 ~ re { t += $1 } /flat%/ { hdr = 1 } END { print t + 0 }' "$1"; }
total_of() { awk '/ of [0-9]+ total/ { for (i = 1; i <= NF; i++) if ($i == "of") print $(i + 1) }' "$1"; }

"$HOTCOLD" record -F 499 -o "$TMP/h.pb.gz" -- "$WL/hotloop" 1.5 2>"$TMP/err" ||
	bad "record: $(tail -3 "$TMP/err")"
top -lines "$TMP/h.pb.gz" >"$TMP/lines"
total=$(total_of "$TMP/lines")
loop=$(flat_of "$TMP/lines" " hot_loop .*/hotloop\\.c:($HOT|$((HOT - 1)))\$")
mix=$(flat_of "$TMP/lines" " mix .*/hotloop\\.c:$MIX \\(inline\\)\$")
echo "  $total samples; hot_loop's loop lines $loop, inlined mix at :$MIX $mix"
[ "${total:-0}" -gt 0 ] || bad "no samples: $(head -5 "$TMP/lines")"
awk -v l="$loop" -v t="$total" 'BEGIN { exit !(t > 0 && l >= 0.5 * t) }' &&
	ok "hotloop.c:$((HOT - 1))-$HOT carry $(pct "$loop" "$total")% (>= 50%)" ||
	bad "the loop's lines carry $loop of $total: $(grep hot_loop "$TMP/lines" | head -5)"
[ "$mix" -gt 0 ] && ok "mix is its own inline frame at hotloop.c:$MIX ($mix samples)" ||
	bad "no inline mix frame at :$MIX: $(grep -i mix "$TMP/lines" | head -3)"

go tool pprof -sample_index=samples -list '^hot_loop$' "$TMP/h.pb.gz" >"$TMP/list" 2>"$TMP/go.err"
awk -v h="$HOT" '$3 == h ":" && /\/\* HOT \*\// && $1 != "." { f = 1 } END { exit !f }' "$TMP/list" &&
	ok "-list hot_loop: the HOT line's source with samples" ||
	bad "-list: $(grep -m1 'HOT' "$TMP/list") $(head -2 "$TMP/go.err")"

top "$TMP/h.pb.gz" >"$TMP/funcs"
main=$(awk 'hdr && $6 == "main" { print $4 } /flat%/ { hdr = 1 }' "$TMP/funcs")
hl=$(awk 'hdr && $6 == "hot_loop" { print $4 } /flat%/ { hdr = 1 }' "$TMP/funcs")
# hot_loop is main's only callee that burns CPU; main's own self time is a few
# clock_gettime calls per 10^6 iterations: allow 2% of main's
awk -v h="${hl:-0}" -v m="${main:-0}" 'BEGIN { exit !(m > 0 && h >= 0.98 * m) }' &&
	ok "functions: hot_loop cum $hl of main's $main (one function across its lines)" ||
	bad "functions: hot_loop cum ${hl:-none}, main ${main:-none}"

hlflat=$(awk 'hdr && $6 == "hot_loop" && NF == 6 { print $1 } /flat%/ { hdr = 1 }' "$TMP/funcs")
mixflat=$(awk 'hdr && $6 == "mix" { print $1 } /flat%/ { hdr = 1 }' "$TMP/funcs")
"$HOTCOLD" annotate --json "$TMP/h.pb.gz" hot_loop >"$TMP/a.json" 2>"$TMP/err" ||
	bad "annotate: $(head -3 "$TMP/err")"
read -r an anmix < <(/usr/bin/python3 - "$TMP/a.json" "$MIX" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
mix = sum(l["samples"] for l in j["lines"] if l["line"] == int(sys.argv[2]) and l.get("inlined") == "mix")
print(j["samples"], mix)
PY
)
[ "${an:-x}" = $((${hlflat:-0} + ${mixflat:-0})) ] && [ "${anmix:-0}" -gt 0 ] &&
	ok "annotate hot_loop: $an self samples = hot_loop $hlflat + inlined mix $mixflat ($anmix on the MIX line)" ||
	bad "annotate hot_loop: ${an:-?} samples, ${anmix:-?} on MIX; go pprof flat hot_loop ${hlflat:-?}, mix ${mixflat:-?}"

# the DWARF in a separate debug file, next to a stripped copy (debuglink)
mkdir -p "$TMP/dl"
objcopy --only-keep-debug "$WL/hotloop" "$TMP/dl/hotloop.debug" &&
	objcopy --strip-all --add-gnu-debuglink="$TMP/dl/hotloop.debug" "$WL/hotloop" "$TMP/dl/hotloop" ||
	bad "objcopy debuglink"
"$HOTCOLD" record -F 499 -o "$TMP/d.pb.gz" -- "$TMP/dl/hotloop" 0.5 2>"$TMP/err" ||
	bad "record stripped: $(tail -3 "$TMP/err")"
top -lines "$TMP/d.pb.gz" >"$TMP/dlines"
dtot=$(total_of "$TMP/dlines")
dloop=$(flat_of "$TMP/dlines" " hot_loop .*/hotloop\\.c:($HOT|$((HOT - 1)))\$")
awk -v l="$dloop" -v t="$dtot" 'BEGIN { exit !(t > 0 && l >= 0.5 * t) }' &&
	ok "stripped, debug file by debuglink: hotloop.c:$((HOT - 1))-$HOT carry $dloop of $dtot" ||
	bad "stripped + debug file: loop lines $dloop of ${dtot:-0}: $(grep hot_loop "$TMP/dlines" | head -3)"

# negative control: no DWARF, same symbols
objcopy --strip-debug "$WL/hotloop" "$TMP/hotloop_nodw" || bad "objcopy"
"$HOTCOLD" record -F 499 -o "$TMP/n.pb.gz" -- "$TMP/hotloop_nodw" 0.5 2>"$TMP/err" ||
	bad "record nodw: $(tail -3 "$TMP/err")"
top -lines "$TMP/n.pb.gz" >"$TMP/nlines"
named=$(flat_of "$TMP/nlines" " hot_loop\$")
withline=$(flat_of "$TMP/nlines" " (hot_loop|mix) .*:[0-9]+( \\(inline\\))?\$")
[ "$named" -gt 0 ] && [ "$withline" -eq 0 ] &&
	ok "without DWARF: hot_loop named ($named samples), no file:line, no mix" ||
	bad "without DWARF: named $named, with a line $withline"
finish
