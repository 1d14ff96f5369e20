#!/bin/bash
# record writes pprof (-o x.pb.gz) and SVG (-o x.svg) through the same
# profile model: go tool pprof reads our pprof and its CPU total matches the
# folded recording of the same kind; the SVG is well-formed with our frames.
. "$(dirname "$0")/lib.sh"

"$HOTCOLD" record -F 499 -o "$TMP/r.pb.gz" -- "$WL/split" 1.5 "$TMP/t" 2>"$TMP/err"
[ $? -eq 0 ] && ok "pprof record exit 0" || bad "pprof record: $(cat "$TMP/err")"
n=$(awk '/on-CPU samples/ { for (i = 1; i <= NF; i++) if ($i == "on-CPU") print $(i - 1) }' "$TMP/err")
if command -v go >/dev/null; then
	export HOME=$TMP GOCACHE=$TMP/gocache GOFLAGS=-mod=mod
	top=$(cd "$TMP" && go tool pprof -top -sample_index=samples r.pb.gz 2>&1)
	total=$(echo "$top" | awk '/^Showing nodes accounting for/ { print $(NF - 1) }' | head -1)
	[ "$total" = "$n" ] && ok "go tool pprof: $total samples, as recorded" ||
		bad "go tool pprof total '$total' vs $n recorded: $(echo "$top" | head -5)"
	echo "$top" | grep -q 'spin_alpha' && ok "go tool pprof names spin_alpha" || bad "spin_alpha missing in pprof"
else
	skip "go not installed"
fi

"$HOTCOLD" record -F 499 -o "$TMP/r.svg" -- "$WL/split" 1 "$TMP/t" 2>"$TMP/err"
[ $? -eq 0 ] && ok "svg record exit 0" || bad "svg record: $(cat "$TMP/err")"
python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$TMP/r.svg" &&
	ok "SVG is well-formed XML" || bad "SVG does not parse"
grep -q 'spin_alpha' "$TMP/r.svg" && grep -q '<script' "$TMP/r.svg" && ok "SVG has frames and its script" ||
	bad "SVG lacks frames or script"

# a differential flame graph from two recordings
"$HOTCOLD" record -F 499 -o "$TMP/a.folded" -- "$WL/split" 1 "$TMP/t" 2>/dev/null
sed 's/;spin_beta /;spin_gamma /' "$TMP/a.folded" > "$TMP/b.folded"
"$HOTCOLD" diff "$TMP/a.folded" "$TMP/b.folded" -o "$TMP/d.svg" >"$TMP/d.txt" 2>"$TMP/err"
[ $? -eq 0 ] && python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$TMP/d.svg" &&
	grep -q 'spin_gamma' "$TMP/d.svg" && ok "diff -o x.svg: well-formed differential graph" ||
	bad "diff -o x.svg: $(cat "$TMP/err")"
grep -q '+.*pp.*spin_gamma' "$TMP/d.txt" && ok "diff table shows spin_gamma's growth" ||
	bad "diff table: $(head -8 "$TMP/d.txt")"
finish
