#!/bin/bash
# LLD-linked code is unwound (issue 15): an executable and a shared library
# linked by Debian's LLD (clang -fuse-ld=lld), built with and without frame
# pointers, and a Rust release build linked by LLD. LLD packs segments into
# shared file pages, so a code mapping's file offset is below its segment's
# p_offset: before sym/loadbias.c such a mapping got no load bias, no CFI,
# and 1.3% of samples reached main.
#
# Workload (tests/workloads/lld/): main -> lib_outer -> lib_inner (the
# library's own loop) and main -> lib_call -> app_cb (a callback into the
# executable), after a 100 ms warmup and a 300 ms pause (the tables are built
# at first sight; samples before that are walked by frame pointer, counted
# as "stacks by FP (no table yet)", and are left out by excluding warmup).
# Required: >= 99% of the loop samples reach main (the issue's bar), and
# both paths through the library are seen with their full chain.
# Negative control: --unwind=fp on the build without frame pointers must
# fail the same check, which shows it can fail.
. "$(dirname "$0")/lib.sh"

SRC=$(cd "$(dirname "$0")/../workloads/lld" && pwd)
command -v clang >/dev/null || skip "clang not installed"
command -v ld.lld >/dev/null || skip "lld not installed"

# reach-main share of the loop samples (frames $2 or $3, not warmup) of file $1
loop_main_pct() {
	awk -v a="$2" -v b="$3" '{
		n = $NF; line = $0; sub(/ [0-9]+$/, "", line)
		k = split(line, fr, ";"); hot = 0; m = 0; w = 0
		for (i = 1; i <= k; i++) {
			if (fr[i] == a || fr[i] == b) hot = 1
			if (fr[i] == "main") m = 1
			if (fr[i] ~ /warmup/) w = 1
		}
		if (hot && !w) { t += n; if (m) r += n }
	} END { if (t) printf "%.2f %d\n", 100 * r / t, t; else print "nan 0" }' "$1"
}

# the executable segment of $1 starts inside a file page shared with the one before
shares_page() {
	local off
	off=$(readelf -lW "$1" | awk '$1 == "LOAD" && $(NF-1) == "E" { print $2; exit }')
	[ -n "$off" ] && [ $((off % 4096)) -ne 0 ]
}

check_run() {	# name folded a b
	local r p t
	r=$(loop_main_pct "$2" "$3" "$4"); p=${r% *}; t=${r#* }
	if [ "$t" -lt 300 ]; then bad "$1: only $t loop samples"
	elif awk -v p="$p" 'BEGIN { exit !(p >= 99) }'; then ok "$1: $p% of $t loop samples reach main"
	else bad "$1: only $p% of $t loop samples reach main"; grep -v ';main;' "$2" | sort -t' ' -k2 -nr | head -3; fi
}

for fp in omit no-omit; do
	d=$TMP/$fp; mkdir -p "$d"
	clang -O2 -g -f$fp-frame-pointer -fuse-ld=lld -shared -fPIC "$SRC/lldlib.c" \
		-o "$d/liblld.so" 2>"$TMP/cc.err" &&
	clang -O2 -g -f$fp-frame-pointer -fuse-ld=lld "$SRC/lldmain.c" -L"$d" -llld \
		-Wl,-rpath,"$d" -o "$d/lldmain" 2>>"$TMP/cc.err" ||
		{ bad "cannot build with lld: $(cat "$TMP/cc.err")"; continue; }
	for f in "$d/lldmain" "$d/liblld.so"; do
		readelf -p .comment "$f" | grep -q LLD && shares_page "$f" ||
			bad "$fp: $(basename "$f") is not an LLD shared-page layout"
	done
	"$HOTCOLD" record -F 999 -o "$d/out.folded" -- "$d/lldmain" 2 2>"$d/err" ||
		{ bad "$fp: record failed: $(tail -3 "$d/err")"; continue; }
	check_run "frame pointer $fp" "$d/out.folded" lib_inner app_cb
	for chain in "main;lib_outer;lib_inner" "main;lib_call;app_cb"; do
		n=$(grep -F ";$chain " "$d/out.folded" | awk '{ t += $NF } END { print t + 0 }')
		[ "$n" -ge 100 ] && ok "$fp: $n samples of $chain" ||
			bad "$fp: only $n samples of $chain"
	done
done

# negative control: no frame pointers, no CFI -> the walk stops in the library
"$HOTCOLD" record -F 999 --unwind fp -o "$TMP/fp.folded" -- "$TMP/omit/lldmain" 1 2>"$TMP/fp.err"
r=$(loop_main_pct "$TMP/fp.folded" lib_inner app_cb)
awk -v p="${r% *}" 'BEGIN { exit !(p < 99) }' &&
	ok "negative control: --unwind fp reaches main in only ${r% *}% of ${r#* } samples" ||
	bad "negative control: --unwind fp reaches main in ${r% *}% (the check cannot fail)"

# Rust: the rustc in PATH (rustup's links with its own rust-lld) and Debian's
rustcs=$( (command -v rustc; [ -x /usr/bin/rustc ] && echo /usr/bin/rustc) | sort -u)
[ -n "$rustcs" ] || echo "[Skipped Rust: rustc not installed]"
for rc in $rustcs; do
	v=$("$rc" --version | awk '{ print $2 }')
	rm -f "$TMP/lldrust"
	"$rc" -C opt-level=2 -C debuginfo=1 -C link-arg=-fuse-ld=lld "$SRC/lldrust.rs" \
		-o "$TMP/lldrust" 2>"$TMP/rs.err" || { bad "rustc $v: $(head -3 "$TMP/rs.err")"; continue; }
	readelf -p .comment "$TMP/lldrust" | grep -q LLD || bad "rustc $v: not linked by LLD"
	# not held at its entry point (HOTCOLD_NO_HOLD=1, docs/record.md): as a
	# process started during a recording, its big table comes from the builder
	HOTCOLD_NO_HOLD=1 "$HOTCOLD" record -v -F 999 -o "$TMP/rs.folded" -- "$TMP/lldrust" 2 \
		>/dev/null 2>"$TMP/rs.err"
	check_run "Rust $v release build" "$TMP/rs.folded" lldrust::spin_a lldrust::spin_b
	# a Rust binary (MiBs) is over the in-line limit: its table came from the builder thread
	q=$(sed -n 's/^unwind: \([0-9]*\) tables built on the builder thread.*/\1/p' "$TMP/rs.err")
	[ "${q:-0}" -ge 1 ] && ok "Rust $v: $q table(s) built on the builder thread, filled in while it ran" ||
		bad "Rust $v: no table from the builder thread"
done
finish
