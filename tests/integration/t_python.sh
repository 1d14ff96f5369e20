#!/bin/bash
# Python frames (issue 20): a pure-Python workload with a designed CPU split
# (tests/workloads/pysplit.py: main -> caller_a -> hot_a 70%, main ->
# caller_b -> hot_b 30%, each slice timed with time.process_time) under
# `record -- python3.11` (Debian's, and pyenv's 3.11.7 and 3.12.1 built
# from source when present), under `record -p` of a running interpreter, off-CPU (a
# thread in time.sleep), native frames under a Python caller (zlib), the
# agent, and interpreters of an unsupported version (native frames only,
# counted). Also checks the offsets table against Debian's debug info.
. "$(dirname "$0")/lib.sh"

PY=$(realpath "$(dirname "$0")/../workloads/pysplit.py")
DEB=/usr/bin/python3.11
[ -x "$DEB" ] || skip "no $DEB"

# the offsets table against the DWARF of Debian's interpreter (python3.11-dbg)
if command -v gdb >/dev/null && [ -e /usr/share/doc/python3.11-dbg ]; then
	"$(dirname "$0")"/../../tools/python-offsets.sh "$DEB" >"$TMP/offsets" 2>&1
	rc=$?
	[ $rc -eq 0 ] && ok "offsets table = DWARF of $DEB ($(grep -c '^ok' "$TMP/offsets") fields)" ||
		{ bad "offsets table differs from DWARF of $DEB (rc $rc)"; grep -v '^ok' "$TMP/offsets"; }
else
	echo "[Skipped offsets check: needs gdb and python3.11-dbg]"
fi

# Tolerance of a share: the sampled share of caller_a among the n samples
# of caller_a or caller_b is a binomial proportion at worst (dithered
# sampling is stratified, which only lowers its variance), so one standard
# deviation is sqrt(p (1 - p) / n) = sqrt(0.21 / n) for p = 0.7. The issue's
# 3 pp is 3 sigma from n = 0.21 * (3 / 0.03)^2 = 2100 samples on: each run
# takes 3 s of CPU at 999 Hz (~3000 samples, sigma 0.84 pp) and must have
# at least 2100 samples in those two functions for the check to mean that.
MIN_N=2100

# frames of a Python function: "name (file:line)"; pyre: the same as an ERE
pyf() { printf '%s (%s:' "$1" "$PY"; }
pyre() { pyf "$1" | sed 's/[][\\.*^$()+?{}|]/\\&/g'; }

# $1 folded, $2 truth file, $3 label: the split and the chain of names
check_split() {
	local f=$1 truth=$2 what=$3 a b n got want
	a=$(awk -v s=";$(pyf caller_a)" '{ n = $NF; if (index($0, s)) t += n } END { printf "%.0f", t }' "$f")
	b=$(awk -v s=";$(pyf caller_b)" '{ n = $NF; if (index($0, s)) t += n } END { printf "%.0f", t }' "$f")
	n=$((a + b))
	[ -s "$truth" ] || { bad "$what: the workload wrote no truth"; return; }
	want=$(awk '{ printf "%.2f", 100 * $1 / ($1 + $2) }' "$truth")
	got=$(pct "$a" "$n")
	if [ "$n" -lt $MIN_N ]; then
		bad "$what: only $n samples in caller_a/caller_b (need $MIN_N for 3 pp = 3 sigma; load: $(cut -d' ' -f1-3 /proc/loadavg))"
	elif within "$got" "$want" 3; then
		ok "$what: caller_a $got% of $n samples vs measured $want% (3 pp)"
	else
		bad "$what: caller_a $got% of $n samples vs measured $want% (tolerance 3 pp)"
	fi
	# the whole chain, root to leaf, in one stack: main -> caller_a -> hot_a
	local chain="$(pyre main)[0-9]+\\);$(pyre caller_a)[0-9]+\\);$(pyre hot_a)[0-9]+\\)"
	local hot=$(grep -E "$chain" "$f" | awk '{ t += $NF } END { printf "%.0f", t }')
	awk -v h="$hot" -v a="$a" 'BEGIN { exit !(a > 0 && h >= 0.9 * a) }' &&
		ok "$what: $hot of $a caller_a samples are main -> caller_a -> hot_a" ||
		{ bad "$what: $hot of $a caller_a samples show main -> caller_a -> hot_a"; grep -F "$(pyf caller_a)" "$f" | sort -t' ' -k2 -nr | head -3; }
	# each eval activation became Python frames: none left under them in the hot path
	local left=$(grep -F "$(pyf hot_a)" "$f" | grep -c '_PyEval_EvalFrameDefault')
	[ "$left" -eq 0 ] && ok "$what: no _PyEval_EvalFrameDefault left in hot_a stacks" ||
		bad "$what: $left hot_a stacks still show _PyEval_EvalFrameDefault"
	# native frames above stay: the interpreter's main under the module's frame
	grep -F "$(pyf hot_a)" "$f" | grep -q ';Py_RunMain;.*;<module> (' &&
		ok "$what: native Py_RunMain ... above <module>" || bad "$what: native frames above the Python ones missing"
}

run_split() {
	local py=$1 what=$2
	"$HOTCOLD" record -F 999 -o "$TMP/$what.folded" -- "$py" "$PY" 3 "$TMP/$what.truth" 2>"$TMP/$what.err"
	[ $? -eq 0 ] || { bad "$what: record failed"; cat "$TMP/$what.err"; return; }
	check_split "$TMP/$what.folded" "$TMP/$what.truth" "$what"
	grep -q 'unsupported version' "$TMP/$what.err" && bad "$what: called unsupported" || true
}

run_split "$DEB" debian-3.11
# built from source (a shared libpython), where pyenv is installed
for v in 3.11.7 3.12.1; do
	if [ -x /root/.pyenv/versions/$v/bin/python3 ]; then run_split /root/.pyenv/versions/$v/bin/python3 pyenv-$v
	else echo "[Skipped pyenv-$v: not installed]"; fi
done

# the line being run, in pprof (go tool pprof -lines): hot_a's loop, header and body
if command -v go >/dev/null; then
	"$HOTCOLD" record -F 999 -o "$TMP/l.pb.gz" -- "$DEB" "$PY" 0.5 "$TMP/l.truth" 2>"$TMP/l.err"
	body=$(grep -n 'x += i \* i' "$PY" | head -1 | cut -d: -f1)
	(cd "$TMP" && HOME=$TMP GOCACHE=$TMP/gocache go tool pprof -lines -traces "$TMP/l.pb.gz") \
		>"$TMP/l.traces" 2>&1
	# each trace: labels, then its leaf "<value>ms hot_a (file:first) :line", then callers
	awk -v f="$(pyf hot_a)" '/^-----/ { want = 1; next }
		want && $1 ~ /^[0-9.]+ms$/ { want = 0; if (index($0, f)) {
			n = $NF; sub(/^:/, "", n); v = $1; sub(/ms$/, "", v); t[n] += v; all += v } }
		END { for (l in t) printf "%s %s\n", l, t[l] / all }' "$TMP/l.traces" >"$TMP/l.lines"
	share=$(awk -v b="$body" '$1 == b || $1 == b - 1 { s += $2 } END { printf "%.3f", s }' "$TMP/l.lines")
	awk -v s="$share" 'BEGIN { exit !(s >= 0.9) }' &&
		ok "pprof lines: $share of hot_a's own time on its loop (lines $((body - 1))-$body)" ||
		{ bad "pprof lines: hot_a's loop has $share of its time"; cat "$TMP/l.lines"; }
else
	echo "[Skipped pprof lines: no go]"
fi

# record -p: an interpreter started before hotcold, recorded until it exits
# (the last ~2.8 of its 3 s of CPU). The split holds at every moment by
# design (whichever function is behind its share runs next).
"$DEB" "$PY" 3 "$TMP/p.truth" & pid=$!
cleanup_hooks+=("kill $pid 2>/dev/null")
sleep 0.2
"$HOTCOLD" record -p $pid -F 999 -o "$TMP/p.folded" 2>"$TMP/p.err" ||
	{ bad "record -p failed"; cat "$TMP/p.err"; }
wait $pid
check_split "$TMP/p.folded" "$TMP/p.truth" "record -p"

# off-CPU: the thread sleeping in time.sleep shows its Python caller
"$HOTCOLD" record --off-cpu -o "$TMP/off.folded" -- "$DEB" "$PY" 0.5 "$TMP/off.truth" --sleeper \
	2>"$TMP/off.err" || { bad "record --off-cpu failed"; cat "$TMP/off.err"; }
# (native frames only between them: time_sleep, unless a walk before the
# tables were built stopped at libc's clock_nanosleep)
sl=$(grep -E "$(pyre sleeper_wait)[0-9]+\\);([^;(]+;)*clock_nanosleep;.*\\[sleep\\] [0-9]+\$" "$TMP/off.folded" |
	awk '{ t += $NF } END { printf "%.0f", t }')
all=$(grep -E ';\[sleep\] [0-9]+$' "$TMP/off.folded" | awk '{ t += $NF } END { printf "%.0f", t }')
# every [sleep] of the process is the sleeper's (the main thread never sleeps)
awk -v s="$sl" -v a="$all" 'BEGIN { exit !(s > 0 && s >= 0.99 * a) }' &&
	ok "off-CPU: $(pct "$sl" "$all")% of [sleep] time is sleeper_wait -> (time_sleep) -> clock_nanosleep" ||
	{ bad "off-CPU: sleeper_wait carries $sl of $all ns of [sleep]"; grep sleep "$TMP/off.folded" | head -3; }
grep -F "$(pyf sleeper_wait)" "$TMP/off.folded" | grep -q "Thread.run (.*threading.py:[0-9]*);.*$(pyf sleeper_wait)" &&
	ok "off-CPU: Thread.run above sleeper_wait (the standard library's frames)" || bad "off-CPU: no Thread.run caller"

# a C extension's native frames under its Python caller: zlib.compress
"$HOTCOLD" record -F 999 -o "$TMP/z.folded" -- "$DEB" "$PY" 0.2 "$TMP/z.truth" --zlib 2>"$TMP/z.err" ||
	{ bad "record (zlib) failed"; cat "$TMP/z.err"; }
z=$(grep -F ";$(pyf caller_z)" "$TMP/z.folded" | awk '{ t += $NF } END { printf "%.0f", t }')
# native frames between: the call before the interpreter specialised it goes
# through PyObject_Vectorcall and cfunction_vectorcall_*
zd=$(grep -v -F ";[native frames not walked];" "$TMP/z.folded" |
	grep -E "$(pyre caller_z)[0-9]+\\);([^;(]+;)*zlib_compress[^;]*;deflate" |
	awk '{ t += $NF } END { printf "%.0f", t }')
# Samples taken while libz's CFI table was still being built (in the
# background; more of them on a loaded machine: 1 to 98 of ~300 measured)
# have a partial native walk: their Python frames sit above it after a
# "[native frames not walked]" frame, never as a caller of the leaf, and
# the walks are counted ("walks ended early: CFI table not yet published").
zg=$(grep -F ";$(pyf caller_z)" "$TMP/z.folded" | grep -F ";[native frames not walked];" |
	awk '{ t += $NF } END { printf "%.0f", t }')
zl=$(grep -F ";$(pyf caller_z)" "$TMP/z.folded" | grep -v -F ";[native frames not walked];" |
	grep -E "$(pyre caller_z)[0-9]+\\);libz" | awk '{ t += $NF } END { printf "%.0f", t }')
[ "${zl:-0}" -eq 0 ] && ok "native under Python: no caller_z -> libz stack without the gap frame ($zg samples with it)" ||
	bad "native under Python: $zl caller_z samples call into libz directly (a partial walk not marked)"
# 0.3 s of compress at 999 Hz: ~300 samples; of the fully walked ones a few
# land in the Python call itself or in freeing the result (1 to 3 measured)
awk -v z="$z" -v d="$zd" -v g="$zg" 'BEGIN { exit !(z >= 150 && z - g >= 100 && d >= 0.9 * (z - g)) }' &&
	ok "native under Python: $zd of $z - $zg caller_z samples are caller_z -> ... -> zlib_compress -> deflate*" ||
	{ bad "native under Python: $zd of $z caller_z samples through zlib_compress -> deflate"; grep caller_z "$TMP/z.folded" | head -3; }

# the agent: the same Python names in its interval files
"$DEB" "$PY" 1.5 "$TMP/ag.truth" & apy=$!
cleanup_hooks+=("kill $apy 2>/dev/null")
"$HOTCOLD" agent -o "$TMP/agent" --interval 1s -F 99 -p $apy 2>"$TMP/agent.err" & ag=$!
cleanup_hooks+=("kill $ag 2>/dev/null")
wait $apy
# the agent ends with its last target (its last interval written), else SIGTERM
for _ in $(seq 30); do kill -0 $ag 2>/dev/null || break; sleep 0.1; done
kill -TERM $ag 2>/dev/null; wait $ag
chain="$(pyre main)[0-9]+\\);$(pyre caller_a)[0-9]+\\);$(pyre hot_a)[0-9]+\\)"
n=$(zcat "$TMP"/agent/*-oncpu.folded.gz 2>/dev/null | grep -E "$chain" | awk '{ t += $NF } END { printf "%.0f", t }')
all=$(zcat "$TMP"/agent/*-oncpu.folded.gz 2>/dev/null | grep -F "$(pyf caller_a)" | awk '{ t += $NF } END { printf "%.0f", t }')
# 1.5 s of CPU at 99 Hz: ~100 caller_a samples
awk -v n="$n" -v a="$all" 'BEGIN { exit !(a >= 50 && n >= 0.9 * a) }' &&
	ok "agent: $n of $all caller_a samples are main -> caller_a -> hot_a" ||
	{ bad "agent: $n of $all caller_a samples show the chain"; tail -3 "$TMP/agent.err"; }

# negative controls: interpreters of an unsupported version, native frames
# only and counted: Debian's binary with its Py_Version patched to 3.13
# (anywhere), and pyenv's 3.13.0 or 3.10.13 (no Py_Version: from the name)
unsupported() {
	local py=$1 ver=$2 what=$3
	"$HOTCOLD" record -F 999 -o "$TMP/u.folded" -- "$py" "$PY" 0.2 "$TMP/u.truth" 2>"$TMP/u.err"
	grep -q "python: 1 process of unsupported version $ver: native frames only" "$TMP/u.err" &&
		ok "unsupported $ver ($what): counted, named on stderr" ||
		{ bad "unsupported $ver ($what): no counted reason"; cat "$TMP/u.err"; }
	grep -q ' (.*\.py:[0-9]*)' "$TMP/u.folded" && bad "unsupported $ver ($what): Python frames shown" ||
		ok "unsupported $ver ($what): native frames only"
}
if python3 "$(dirname "$0")"/py_patch_version.py "$DEB" "$TMP/python3.11-as-3.13" 030d00f0; then
	unsupported "$TMP/python3.11-as-3.13" 3.13 "Debian's with Py_Version patched"
else
	bad "could not patch Py_Version of $DEB"
fi
other=
for v in 3.13.0 3.10.13; do
	[ -x /root/.pyenv/versions/$v/bin/python3 ] && { other=/root/.pyenv/versions/$v/bin/python3; break; }
done
if [ -n "$other" ]; then
	unsupported "$other" "$("$other" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" pyenv
else
	echo "[Skipped unsupported version of pyenv: no 3.13.0 or 3.10.13]"
fi
finish
