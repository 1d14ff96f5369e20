#!/bin/bash
# Debug files from debuginfod (issue 15), against Debian's debuginfod server
# on loopback. The whole test runs in its own network namespace (unshare -n)
# with only lo up: debuginfod 0.188 cannot bind to one address, and there it
# is unreachable from anywhere else.
#
# Workload: tests/workloads/lld/lldmain.c and lldlib.c built with gcc and
# stripped, their debug files (objcopy --only-keep-debug) in the server's
# directory. main, warmup and the static app_cb are in .symtab only, so only
# a debug file names them.
# 1. With DEBUGINFOD_URLS, both debug files are fetched (counted) and
#    main;lib_call;app_cb is named.
# 2. The server killed, the same cache directory: named again, "fetched"
#    from libdebuginfod's cache (nothing else could answer).
# 3. Negative control: without DEBUGINFOD_URLS app_cb is not named.
# 4. A dead server costs at most its timeout, once:
#    - nothing listening on the port: both fail at once (< 1 s in fetches);
#    - a server that accepts and never answers, DEBUGINFOD_TIMEOUT=2: one
#      fetch times out, the other is skipped, and the time in fetches is at
#      most 2 s + 1.5 s (libdebuginfod polls the cancel callback once a
#      second; 0.5 s for scheduling on a loaded machine).
if [ -z "${HC_NETNS:-}" ]; then
	command -v unshare >/dev/null || { echo "[Skipped no unshare]"; exit 77; }
	HC_NETNS=1 exec unshare -n bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"

command -v debuginfod >/dev/null || skip "debuginfod not installed"
command -v curl >/dev/null || skip "curl not installed"
ip link set lo up 2>/dev/null || skip "cannot bring up lo in a network namespace"
SRC=$(cd "$(dirname "$0")/../workloads/lld" && pwd)
PORT=8002
mkdir -p "$TMP/full" "$TMP/bin" "$TMP/srv"
gcc -O2 -g -shared -fPIC "$SRC/lldlib.c" -o "$TMP/full/liblld.so" &&
	gcc -O2 -g "$SRC/lldmain.c" -L"$TMP/full" -llld -Wl,-rpath,"$TMP/bin" \
		-o "$TMP/full/lldmain" || { bad "cannot build the workload"; finish; }
for f in lldmain liblld.so; do
	objcopy --only-keep-debug "$TMP/full/$f" "$TMP/srv/$f.debug" &&
		strip -o "$TMP/bin/$f" "$TMP/full/$f" || bad "cannot strip $f"
done

debuginfod -F "$TMP/srv" -p $PORT -d "$TMP/db.sqlite" -t 0 -g 0 >"$TMP/srv.log" 2>&1 &
SRV=$!
cleanup_hooks+=("kill \$SRV 2>/dev/null; wait \$SRV 2>/dev/null")
# wait (<= 30 s) until the scan has indexed both debug files
ids=$(for f in lldmain liblld.so; do readelf -n "$TMP/bin/$f" | sed -n 's/.*Build ID: //p'; done)
for i in $(seq 150); do
	n=0
	for id in $ids; do
		curl -sf -o /dev/null "http://127.0.0.1:$PORT/buildid/$id/debuginfo" && n=$((n + 1))
	done
	[ $n -eq 2 ] && break
	sleep 0.2
done
[ $n -eq 2 ] || { bad "debuginfod did not serve both debug files: $(tail -3 "$TMP/srv.log")"; finish; }

# run N [env...]: record lldmain for 2 s with the environment given
run() {
	local n=$1; shift
	env "$@" "$HOTCOLD" record -v -F 499 -o "$TMP/$n.folded" -- "$TMP/bin/lldmain" 2 \
		2>"$TMP/$n.err" || bad "record $n failed: $(tail -3 "$TMP/$n.err")"
	grep '^debuginfod:' "$TMP/$n.err"
}
stat_of() { sed -n "s/^debuginfod:.* \([0-9]*\) $2.*/\1/p" "$TMP/$1.err" | head -1; }
named() { grep -c ";main;lib_call;app_cb " "$TMP/$1.folded"; }

URL=DEBUGINFOD_URLS=http://127.0.0.1:$PORT
run 1 $URL DEBUGINFOD_CACHE_PATH="$TMP/cache"
[ "$(stat_of 1 'debug files fetched')" = 2 ] && ok "2 debug files fetched" ||
	bad "fetched: $(grep '^debuginfod' "$TMP/1.err")"
[ "$(named 1)" -ge 1 ] && ok "main;lib_call;app_cb named from the fetched debug file" ||
	{ bad "app_cb not named"; sort -t' ' -k2 -nr "$TMP/1.folded" | head -3; }

kill $SRV; wait $SRV 2>/dev/null
run 2 $URL DEBUGINFOD_CACHE_PATH="$TMP/cache"
[ "$(stat_of 2 'debug files fetched')" = 2 ] && [ "$(named 2)" -ge 1 ] &&
	ok "server stopped: named again from the cache" || bad "the cache was not used"

run 3 DEBUGINFOD_URLS=
[ "$(named 3)" -eq 0 ] && grep -q 'lldmain+0x' "$TMP/3.folded" &&
	ok "negative control: without DEBUGINFOD_URLS app_cb is unnamed" ||
	bad "negative control: named without debuginfod (another debug file source?)"

busy_ok() {	# run, max seconds
	local b
	b=$(sed -n 's/^debuginfod:.*; \([0-9.]*\) s in fetches/\1/p' "$TMP/$1.err")
	awk -v b="${b:-99}" -v m="$2" 'BEGIN { exit !(b <= m) }' &&
		ok "run $1: $b s in fetches (at most $2)" || bad "run $1: ${b:-?} s in fetches (> $2)"
}
run 4 DEBUGINFOD_URLS=http://127.0.0.1:$((PORT + 1)) DEBUGINFOD_CACHE_PATH="$TMP/cache4"
[ "$(stat_of 4 'not found or failed')" = 2 ] && ok "nothing listening: both failed" ||
	bad "nothing listening: $(grep '^debuginfod' "$TMP/4.err")"
busy_ok 4 1

python3 -c '
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(16)
time.sleep(60)' $((PORT + 2)) &
HUNG=$!
cleanup_hooks+=("kill \$HUNG 2>/dev/null")
sleep 0.5
run 5 DEBUGINFOD_URLS=http://127.0.0.1:$((PORT + 2)) DEBUGINFOD_CACHE_PATH="$TMP/cache5" \
	DEBUGINFOD_TIMEOUT=2
[ "$(stat_of 5 'timed out')" = 1 ] && [ "$(stat_of 5 'skipped')" = 1 ] &&
	ok "never answering: one fetch timed out, the other skipped" ||
	bad "never answering: $(grep '^debuginfod' "$TMP/5.err")"
busy_ok 5 3.5
finish
