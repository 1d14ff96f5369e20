#!/bin/bash
# One profile model, one unit per kind, on every documented path. For each
# kind (on-CPU, off-CPU, run queue, locks, hot/cold) one recording to folded
# is read back by report (--json total), convert -> pprof (go tool pprof
# -raw, summed per sample type), flamegraph (the root frame's width) and
# diff (-o -, the after column): all give the folded file's total in the same
# unit. Those paths only re-encode the same integers, so they must agree
# exactly; the 0.1% bound covers only the one rounding there is (on-CPU
# samples read back from CPU nanoseconds: count / period, rounded, exact for
# counts hotcold wrote). record -o x.pb.gz and -o x.svg (their own runs)
# agree with that run's summary line; the agent's pprof and folded of one
# interval agree with each other. Also: go tool pprof -raw shows the
# workload's mapping with its build ID and non-zero addresses, and a stripped
# binary's profile is symbolized from the unstripped build afterwards.
. "$(dirname "$0")/lib.sh"

GO=
if command -v go >/dev/null; then
	export HOME=$TMP GOCACHE=$TMP/gocache GOFLAGS=-mod=mod
	GO=go
fi

# close A B: within 0.1% (and both non-zero)
close() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && b > 0 && d <= b / 1000) }'; }
check() { close "$2" "$3" && ok "$1: $2 = $3" || bad "$1: $2 vs $3"; }

# folded_kind FILE KIND: that kind's section total, in the unit its header gives
folded_kind() {
	awk -v k="$2" '/^# hotcold folded/ { on = index($0, " kind=" k " ") > 0; next }
		on { t += $NF } END { printf "%.0f\n", t }' "$1"
}
# pprof_sum FILE TYPE: the sum of sample type TYPE (e.g. off_cpu/nanoseconds) over -raw
pprof_sum() {
	(cd "$TMP" && go tool pprof -raw "$1" 2>/dev/null) | awk -v want="$2" '
		/^Samples:/ { hdr = 1; next }
		hdr == 1 { for (i = 1; i <= NF; i++) { t = $i; sub(/\[dflt\]/, "", t); if (t == want) col = i }; hdr = 2; next }
		hdr == 2 && /^ *[0-9]/ && col { v = $col; sub(/:$/, "", v); s += v }
		/^Locations/ { hdr = 0 }
		END { printf "%.0f\n", s }'
}
svg_root() { grep -o '<g data-x="0" data-w="[0-9]*"><title>all' "$1" | head -1 | sed 's/.*data-w="\([0-9]*\)".*/\1/'; }
report_total() { "$HOTCOLD" report --json "$@" 2>/dev/null | sed -n 's/^  "total": \([0-9]*\),$/\1/p'; }

# paths NAME FILE KIND PPROF_TYPE: every reader of FILE's KIND gives its total
paths() {
	local name=$1 f=$2 kind=$3 type=$4 want
	want=$(folded_kind "$f" "$kind")
	head -1 "$f" | grep -q '^# hotcold folded v1 kind=' && ok "$name: folded header: $(head -1 "$f" | cut -c1-60)" ||
		bad "$name: no header"
	check "$name: report --kind $kind" "$(report_total --kind "$kind" "$f")" "$want"
	"$HOTCOLD" diff -o - --raw --kind "$kind" "$f" "$f" >"$TMP/d.txt" 2>/dev/null
	check "$name: diff -o -" "$(awk '{ t += $NF } END { printf "%.0f\n", t }' "$TMP/d.txt")" "$want"
	"$HOTCOLD" flamegraph --kind "$kind" "$f" -o "$TMP/f.svg" 2>/dev/null
	check "$name: flamegraph --kind $kind root" "$(svg_root "$TMP/f.svg")" "$want"
	"$HOTCOLD" convert "$f" -o "$TMP/c.pb.gz" 2>/dev/null
	[ -n "$GO" ] && check "$name: convert -> pprof $type" "$(pprof_sum "$TMP/c.pb.gz" "$type")" "$want"
}

# summary_ns ERR WHAT: the seconds the summary line gives for WHAT, in ns
summary_ns() { sed -n "s/.*[^0-9]\([0-9]*\.[0-9]*\) s $2.*/\1/p" "$1" | tail -1 | awk '{ printf "%.0f\n", $1 * 1e9 }'; }

# ---- on-CPU: samples everywhere
"$HOTCOLD" record -F 499 -o "$TMP/on.folded" -- "$WL/split" 1 "$TMP/t" 2>"$TMP/err" || bad "on-CPU record"
paths on-CPU "$TMP/on.folded" oncpu samples/count
n=$(sed -n 's/.*: \([0-9]*\) on-CPU samples.*/\1/p' "$TMP/err")
check "on-CPU: folded vs the summary's samples" "$(folded_kind "$TMP/on.folded" oncpu)" "$n"
"$HOTCOLD" record -F 499 -o "$TMP/on.pb.gz" -- "$WL/split" 1 "$TMP/t" 2>"$TMP/err"
n=$(sed -n 's/.*: \([0-9]*\) on-CPU samples.*/\1/p' "$TMP/err")
[ -n "$GO" ] && check "on-CPU: record -o x.pb.gz vs its summary" "$(pprof_sum "$TMP/on.pb.gz" samples/count)" "$n"
grep -q 'unit svg\|unit pprof' "$TMP/err" && bad "summary says 'unit pprof'" || ok "summary names the format, not a unit"
"$HOTCOLD" record -F 499 -o "$TMP/on.svg" -- "$WL/split" 1 "$TMP/t" 2>"$TMP/err"
n=$(sed -n 's/.*: \([0-9]*\) on-CPU samples.*/\1/p' "$TMP/err")
check "on-CPU: record -o x.svg root vs its summary" "$(svg_root "$TMP/on.svg")" "$n"
grep -q 'unit svg' "$TMP/err" && bad "record -o x.svg prints 'unit svg'" || ok "record -o x.svg: no 'unit svg'"

if [ -n "$GO" ]; then
	# the workload's mapping first, with its build ID, and real addresses
	raw=$(cd "$TMP" && go tool pprof -raw on.pb.gz 2>/dev/null)
	bid=$(readelf -n "$WL/split" | sed -n 's/.*Build ID: //p')
	first=$(echo "$raw" | sed -n '/^Mappings/{n;p}')
	case $first in *"$WL/split $bid"*) ok "pprof: first mapping is the workload with build ID $bid" ;;
	*) bad "pprof: first mapping '$first'" ;; esac
	nz=$(echo "$raw" | sed -n '/^Locations/,/^Mappings/p' | awk '$2 ~ /^0x/ && $2 != "0x0" && $3 == "M=1"' | wc -l)
	[ "$nz" -gt 0 ] && ok "pprof: $nz locations with addresses in the workload" || bad "pprof: no addresses"
	echo "$raw" | grep -q '^Time: ' && echo "$raw" | grep -q '^Duration: ' && ok "pprof: time and duration" ||
		bad "pprof: no time/duration"
	# a stripped binary: no names in the profile, but the addresses are right
	cp "$WL/split" "$TMP/full" && strip -s -o "$TMP/split" "$TMP/full"
	"$HOTCOLD" record -F 499 -o "$TMP/s.pb.gz" -- "$TMP/split" 1 "$TMP/t" 2>/dev/null
	(cd "$TMP" && go tool pprof -symbolize=none -top s.pb.gz 2>/dev/null) | grep -q spin_alpha &&
		bad "stripped: spin_alpha named without symbols?" || ok "stripped: no names before symbolization"
	# Go's pprof cannot read build IDs (its objTool has none), so PPROF_BINARY_PATH
	# files are refused as mismatched; it opens the mapping's own path instead
	mv "$TMP/full" "$TMP/split"
	top=$(cd "$TMP" && go tool pprof -symbolize=local -top s.pb.gz 2>/dev/null)
	echo "$top" | grep -q ' spin_alpha$' && ok "stripped: symbolized afterwards from the unstripped build" ||
		bad "stripped: not symbolized: $(echo "$top" | sed -n 7,10p)"
fi

# ---- off-CPU: nanoseconds everywhere
"$HOTCOLD" record --off-cpu -o "$TMP/off.folded" -- "$WL/wakeup" 100 2>"$TMP/err" || bad "off-CPU record"
paths off-CPU "$TMP/off.folded" offcpu off_cpu/nanoseconds
# the summary gives ms resolution: 1 ms of slack per term
want=$(awk -v a="$(summary_ns "$TMP/err" "off-CPU in")" -v b="$(summary_ns "$TMP/err" "in [0-9]* short")" 'BEGIN { printf "%.0f", a + b }')
got=$(folded_kind "$TMP/off.folded" offcpu)
within "$got" "$want" 2000000 && ok "off-CPU: folded $got ns vs summary $want ns (+-2 ms rounding)" ||
	bad "off-CPU: folded $got ns vs summary $want ns"
"$HOTCOLD" record --off-cpu -o "$TMP/off.svg" -- "$WL/wakeup" 100 2>"$TMP/err"
# the graph holds the blocked time and, on the same stacks, the [cpu wait] after it
want=$(awk -v a="$(summary_ns "$TMP/err" "off-CPU in")" -v b="$(summary_ns "$TMP/err" "in [0-9]* short")" \
	-v c="$(summary_ns "$TMP/err" "\\[cpu wait\\]")" 'BEGIN { printf "%.0f", a + b + c }')
got=$(svg_root "$TMP/off.svg")
within "$got" "$want" 3000000 && ok "off-CPU: record -o x.svg $got ns vs summary $want ns (+-3 ms rounding)" ||
	bad "off-CPU: record -o x.svg $got ns vs summary $want ns"
grep -q 'Off-CPU Flame Graph' "$TMP/off.svg" && ok "off-CPU: SVG titled Off-CPU" || bad "off-CPU: SVG title"

# ---- run queue
"$HOTCOLD" record --runq -o "$TMP/rq.folded" -- "$WL/runq" 2 1 "$TMP/t2" 2>"$TMP/err" || bad "runq record"
paths "run queue" "$TMP/rq.folded" runq runq_wait/nanoseconds

# ---- locks
"$HOTCOLD" record --locks -o "$TMP/lk.folded" -- "$WL/mutex" 4 200 1 "$TMP/t3" 2>"$TMP/err" || bad "locks record"
paths locks "$TMP/lk.folded" lock lock_wait/nanoseconds

# ---- hot/cold: both sections in nanoseconds, and every reader keeps them apart
"$HOTCOLD" record --off-cpu --on-cpu -F 499 -o "$TMP/hc.folded" -- "$WL/wakeup" 100 2>"$TMP/err" || bad "hot/cold record"
on_ns=$(folded_kind "$TMP/hc.folded" oncpu)
off_ns=$(folded_kind "$TMP/hc.folded" offcpu)
period=$(sed -n 's/^# hotcold folded v1 kind=oncpu unit=nanoseconds period_ns=\([0-9]*\).*/\1/p' "$TMP/hc.folded")
[ "$period" = 2004008 ] && ok "hot/cold: on-CPU section in nanoseconds, period 2004008 ns" ||
	bad "hot/cold: on-CPU header $(grep '^#' "$TMP/hc.folded")"
check "hot/cold: report --kind oncpu (samples x period)" \
	"$(awk -v n="$(report_total --kind oncpu "$TMP/hc.folded")" -v p="$period" 'BEGIN { printf "%.0f", n * p }')" "$on_ns"
check "hot/cold: report --kind offcpu" "$(report_total --kind offcpu "$TMP/hc.folded")" "$off_ns"
"$HOTCOLD" flamegraph "$TMP/hc.folded" -o "$TMP/hc.svg" 2>/dev/null
rq_ns=$(folded_kind "$TMP/hc.folded" runq)	# the [cpu wait] after blocks
check "hot/cold: flamegraph root (ns)" "$(svg_root "$TMP/hc.svg")" "$((on_ns + off_ns + rq_ns))"
grep -q '<text id="title"[^>]*>Hot/Cold Flame Graph<' "$TMP/hc.svg" && ok "hot/cold: SVG titled Hot/Cold" ||
	bad "hot/cold: SVG title"
if [ -n "$GO" ]; then
	"$HOTCOLD" convert "$TMP/hc.folded" -o "$TMP/hc.pb.gz" 2>/dev/null
	check "hot/cold: pprof cpu/nanoseconds" "$(pprof_sum "$TMP/hc.pb.gz" cpu/nanoseconds)" "$on_ns"
	check "hot/cold: pprof off_cpu/nanoseconds" "$(pprof_sum "$TMP/hc.pb.gz" off_cpu/nanoseconds)" "$off_ns"
fi
"$HOTCOLD" report --kind oncpu "$TMP/off.folded" >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q contradicts "$TMP/err" && ok "a --kind the file contradicts: exit 2" ||
	bad "--kind oncpu on an off-CPU file: $(cat "$TMP/err")"

# ---- agent: one interval's pprof and folded, per kind
D=$TMP/hist
"$HOTCOLD" agent -o "$D" --interval 2s -F 99 --off-cpu --runq --locks --comm mutex 2>"$TMP/agent.err" &
ag=$!
cleanup_hooks+=("kill $ag 2>/dev/null")
wait_log 'agent: writing every' 30 "$TMP/agent.err"
"$WL/mutex" 2 200 2.5 "$TMP/t4" &
wait_log 'agent: interval 1:' 30 "$TMP/agent.err"
kill -TERM $ag; wait $ag
for k in oncpu offcpu runq lock; do
	f=$(ls "$D"/*-$k.folded.gz 2>/dev/null | head -1)
	[ -n "$f" ] || continue
	zcat "$f" >"$TMP/a.folded"
	t=$(folded_kind "$TMP/a.folded" $k)
	[ "$t" -gt 0 ] || continue
	type=$(case $k in oncpu) echo samples/count;; offcpu) echo off_cpu/nanoseconds;;
		runq) echo runq_wait/nanoseconds;; lock) echo lock_wait/nanoseconds;; esac)
	[ -n "$GO" ] && check "agent $k: pprof vs folded of one interval" "$(pprof_sum "${f%.folded.gz}.pb.gz" "$type")" "$t"
	check "agent $k: report of its folded" "$(report_total "$TMP/a.folded")" "$t"
done
wait
finish
