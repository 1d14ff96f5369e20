#!/bin/bash
# A stripped binary's functions are whole frames (issue 15): with no .symtab,
# each unnamed address used to become its own frame (binary+0xADDR), one hot
# function spread over dozens. Now the .eh_frame FDE that covers an address
# names it by the function's start: binary+0xSTART (a file offset).
#
# Workload: a stripped copy of tests/workloads/split (spin_alpha 60%,
# spin_beta 25%, recurse 15%, measured by the workload itself).
# Required:
# - each of the three is one frame, binary+0x<its start> (the start from the
#   unstripped binary's symbol table, as a file offset), with its measured
#   share within 3 pp: 5 s at 999 Hz is ~5000 samples, one standard deviation
#   of a 60% share ~0.7 pp, so 3 pp is > 4 sigma of sampling noise (the
#   issue's bar; t_split holds the unstripped build to 2 pp);
# - every unnamed frame of the binary names an FDE start (none is a bare
#   sampled address): at most 7 distinct names, the binary's FDE count.
# MiniDebugInfo: a copy whose only symbols are in .gnu_debugdata (GDB's
# recipe, tests/fixtures/sym/minidebuginfo.sh) has the three functions by
# name, same shares and tolerance, and main in >= 99% of the samples of the
# three (t_split's bar for the unstripped build).
. "$(dirname "$0")/lib.sh"

cp "$WL/split" "$TMP/split_full" && strip -o "$TMP/split" "$WL/split" ||
	{ bad "cannot strip the workload"; finish; }
readelf -S "$TMP/split" | grep -q '\.symtab' && bad "strip left a .symtab"

# file offset of symbol $1 in the unstripped binary (vaddr in the R E segment)
sym_off() {
	local v seg
	v=$(nm "$TMP/split_full" | awk -v f="$1" '$3 == f { print $1 }')
	seg=$(readelf -lW "$TMP/split_full" | awk '$1 == "LOAD" && $(NF-1) == "E" { print $2, $3 }')
	[ -n "$v" ] && [ -n "$seg" ] || return 1
	set -- $seg
	printf '0x%x\n' $((0x$v - $2 + $1))
}

"$HOTCOLD" record -F 999 -o "$TMP/out.folded" -- "$TMP/split" 5 "$TMP/truth" 2>"$TMP/err" ||
	{ bad "record failed: $(tail -3 "$TMP/err")"; finish; }
folded_grep_root "$TMP/out.folded" split > "$TMP/split.folded"
total=$(folded_total "$TMP/split.folded")
[ "$total" -ge 2000 ] && ok "$total samples of the stripped split" || bad "only $total samples"
# 5000 samples: a share's binomial standard deviation is <= 0.7 pp, and 3 pp
# over 4 sigma; the shares are of the three functions' samples, the truth
# corrected for the workload's clock reads (split_shares_check in lib.sh)
offs=()
for fn in spin_alpha spin_beta recurse; do
	off=$(sym_off $fn) || { bad "no symbol $fn in the unstripped build"; continue; }
	offs+=("split+$off")
done
[ ${#offs[@]} -eq 3 ] && split_shares_check "$TMP/split.folded" "$TMP/truth" 3 stripped "${offs[@]}"
names=$(tr ';' '\n' < "$TMP/split.folded" | sed 's/ [0-9]*$//' | grep '^split+0x' | sort -u)
n=$(echo "$names" | grep -c .)
fdes=$(readelf --debug-dump=frames "$TMP/split" | grep -c ' FDE ')
[ "$n" -le "$fdes" ] && ok "$n distinct unnamed frames, <= $fdes FDEs" ||
	bad "$n distinct unnamed frames for $fdes FDEs: addresses, not functions"

SH=$(cd "$(dirname "$0")/../fixtures/sym" && pwd)/minidebuginfo.sh
if ! command -v xz >/dev/null; then
	echo "[Skipped MiniDebugInfo: xz not installed]"
elif mkdir -p "$TMP/mini" && "$SH" "$WL/split" "$TMP/mini/split" 2>"$TMP/mini.err"; then
	readelf -S "$TMP/mini/split" | grep -q '\.symtab' && bad "MiniDebugInfo copy has a .symtab"
	readelf -S "$TMP/mini/split" | grep -q '\.gnu_debugdata' || bad "no .gnu_debugdata"
	"$HOTCOLD" record -F 999 -o "$TMP/mini.folded" -- "$TMP/mini/split" 4 "$TMP/mtruth" \
		2>"$TMP/err" || bad "record failed: $(tail -3 "$TMP/err")"
	folded_grep_root "$TMP/mini.folded" split > "$TMP/msplit.folded"
	total=$(folded_total "$TMP/msplit.folded")
	# 4000 samples: <= 0.8 pp per share, 3 pp is over 3.9 sigma
	split_shares_check "$TMP/msplit.folded" "$TMP/mtruth" 3 MiniDebugInfo spin_alpha spin_beta recurse
	hot=$(grep -E ';(spin_alpha|spin_beta|recurse) ' "$TMP/msplit.folded" | folded_total /dev/stdin)
	m=$(grep -E ';(spin_alpha|spin_beta|recurse) ' "$TMP/msplit.folded" | grep ';main;' |
		folded_total /dev/stdin)
	p=$(pct "$m" "$hot")
	awk -v p="$p" 'BEGIN { exit !(p >= 99) }' && ok "MiniDebugInfo: $p% of $hot reach main" ||
		bad "MiniDebugInfo: only $p% of $hot samples reach main"
else
	bad "cannot make the MiniDebugInfo copy: $(cat "$TMP/mini.err")"
fi
finish
