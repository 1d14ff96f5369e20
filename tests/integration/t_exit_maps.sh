#!/bin/bash
# A process storm the loader misses: 30 processes of 20 ms start and exit
# while the loader is stopped (SIGSTOP), so none has its maps read alive.
# BPF keeps sampling into the ring and, in the exit tracepoint, reads each
# young process's executable mappings (HC_REC_MAPS); the loader holds the
# storm's samples until those arrive and names them through the binary it
# knows from a live instance (a hard link, so a different comm: stormlong).
# Negative control: HOTCOLD_NO_EXIT_MAPS=1 leaves the storm's frames unknown.
. "$(dirname "$0")/lib.sh"

ln "$WL/storm" "$TMP/storm" 2>/dev/null || cp "$WL/storm" "$TMP/storm"
ln "$TMP/storm" "$TMP/stormlong"

# $1: "" or an env assignment; writes $TMP/$2.folded and $TMP/$2.err
storm_run() {
	env $1 "$HOTCOLD" record -v -a -F 999 -o "$TMP/$2.folded" 2>"$TMP/$2.err" &
	local hc=$! long
	cleanup_hooks+=("kill -CONT $hc 2>/dev/null; kill $hc 2>/dev/null")
	for _ in $(seq 50); do grep -q 'recording' "$TMP/$2.err" && break; sleep 0.1; done
	"$TMP/stormlong" 3000 &
	long=$!
	sleep 0.7	# stormlong's first sample: its maps are read, the binary known
	kill -STOP $hc
	for _ in $(seq 30); do "$TMP/storm" 20; done
	kill -CONT $hc
	wait $long
	kill -INT $hc
	wait $hc
}

# Storm samples with a user stack: how many name storm_work
storm_named() { awk '/^storm;/ && /main/ && /storm_work/ { n += $NF } END { print n + 0 }' "$1"; }
# Storm samples whose walk reached storm's own code: "named unnamed", named:
# a frame main or storm_work; unnamed: none of those, a frame [unknown] or
# storm+0x... (what the maps read at exit are for)
storm_code() {
	awk '/^storm;/ { n = $NF; s = $0; sub(/ [0-9]+$/, "", s)
		nm = s ~ /;(main|storm_work)(;|$)/; un = s ~ /;(\[unknown\]|storm\+0x[0-9a-f]+)(;|$)/
		if (nm) a += n; else if (un) b += n } END { print a + 0, b + 0 }' "$1"
}
storm_user() {
	awk '/^storm;/ { s = $0; sub(/ [0-9]+$/, "", s); n1 = split(s, fr, ";");
		u = 0; for (i = 2; i <= n1; i++) if (fr[i] !~ /_\[k\]$/) u = 1;
		if (u) n += $NF } END { print n + 0 }' "$1"
}

storm_run "" on
rc=$?
[ $rc -eq 0 ] && ok "exit 0" || bad "exit $rc: $(tail -3 "$TMP/on.err")"
user=$(storm_user "$TMP/on.folded")
named=$(storm_named "$TMP/on.folded")
# 30 x 20 ms at 999 Hz ~ 600 samples; most of them in storm_work
[ "$user" -ge 300 ] && ok "$user storm samples with user frames" || bad "only $user storm samples with user frames"
p=$(pct "$named" "$user")
# The storm never has a CFI table (the loader is stopped for its life), so
# it is walked by frame pointer: a walk from ld.so's start-up ends there,
# and one from a leaf in the vdso (storm_work's clock_gettime) skips
# storm_work, which keeps no frame pointer there. Those have no frame of
# storm's code to name: 5-10 % of storm's user samples in 6 runs here
# (89.84 % named in CI run 4 of session 13, where this asked 90 %). So
# names are judged on walks that reached storm's code: main or storm_work
# named, against [unknown] or storm+0x... left. Left unnamed here: 4 of
# 609, leaves of the exec that starts a storm process and of its exit (the
# replaced image's pc); 95 % is over 10 sigma from that.
read -r cn cu <<<"$(storm_code "$TMP/on.folded")"
cp=$(pct "$cn" "$((cn + cu))")
awk -v p="$cp" 'BEGIN { exit !(p >= 95) }' && ok "storm's code named in $cp% of $((cn + cu)) walks that reached it" ||
	{ bad "storm's code named in only $cp% of $((cn + cu)) walks that reached it"
	  grep '^storm;' "$TMP/on.folded" | grep -E '\[unknown\]|storm\+0x' | head -5; }
echo "[Note: storm_work and main named in $p% of storm's $user samples with user frames]"
# "symbolizer: N processes gone before their maps were read, M named from the maps BPF read at their exit"
gone=$(sed -n 's/.*symbolizer: \([0-9]*\) processes gone.*/\1/p' "$TMP/on.err")
hinted=$(sed -n 's/.*read, \([0-9]*\) named from the maps BPF read.*/\1/p' "$TMP/on.err")
[ "${gone:-0}" -ge 25 ] && [ "${hinted:-0}" -ge 25 ] &&
	ok "$gone processes gone before their maps were read, $hinted named from exit maps" ||
	bad "gone ${gone:-?}, named from exit maps ${hinted:-?}"
grep -q '^stormlong;.*storm_work' "$TMP/on.folded" && ok "the live instance is named" ||
	bad "stormlong not named"

storm_run HOTCOLD_NO_EXIT_MAPS=1 off
user=$(storm_user "$TMP/off.folded")
named=$(storm_named "$TMP/off.folded")
p=$(pct "$named" "$user")
awk -v p="$p" 'BEGIN { exit !(p < 20) }' && ok "control, no exit maps: storm_work named in only $p%" ||
	bad "control named storm_work in $p% without exit maps"
read -r cn cu <<<"$(storm_code "$TMP/off.folded")"
[ "$cu" -gt 0 ] && awk -v p="$(pct "$cn" "$((cn + cu))")" 'BEGIN { exit !(p < 20) }' &&
	ok "control, no exit maps: storm's code named in $(pct "$cn" "$((cn + cu))")% of $((cn + cu)) walks that reached it" ||
	bad "control named storm's code in $cn of $((cn + cu)) walks without exit maps"
finish
