#!/bin/bash
# hotcold agent --push: every interval's pprof reaches a Pyroscope-style
# receiver (pyroscope_stub.py, a strict stand-in written from the documented
# ingest API, not Pyroscope itself) once, with the expected name, labels,
# from/until, tenant and token; a receiver down at first gets the backlog in
# order; 500s are retried; 400s are dropped without stalling the rest; the
# cursor survives restarts (nothing sent twice, a backlog left at exit is sent
# at the next start); exit stays within the signal budget plus push_flush.
# Services by cgroup and command line rules; container_id / systemd_unit
# series labels from the cgroup (test cgroups named like Docker's scope and
# a systemd service); sample_type_config accepted; no tid, pid or command
# line label (nor the command line in the string table) unless asked for.
. "$(dirname "$0")/lib.sh"

D=$TMP/hist
R=$TMP/recv
mkdir -p "$R"
PORT=$((20000 + RANDOM % 20000))
HP=$((PORT + 1))
STUB=$(dirname "$0")/pyroscope_stub.py
"$WL/split" 120 "$TMP/t" >/dev/null 2>&1 &
wl=$!
"$WL/deep" 20 120 >/dev/null 2>&1 &
wl2=$!
cleanup_hooks+=("kill $wl $wl2 2>/dev/null")
# cgroups shaped like a Docker container's scope and a systemd service
CID=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
RULES='spli*=test-svc,cmdline:/deep 20 [0-9]+$=deep-svc'
if [ -n "$cg2" ] && mkdir -p "$cg2/hc-push-$$/docker-$CID.scope" "$cg2/hc-push-$$/deep.service" 2>/dev/null &&
	echo $wl > "$cg2/hc-push-$$/docker-$CID.scope/cgroup.procs" &&
	echo $wl2 > "$cg2/hc-push-$$/deep.service/cgroup.procs"; then
	RULES='cgroup:/hc-push-*/docker-*.scope=test-svc,cmdline:/deep 20 [0-9]+$=deep-svc'
	cleanup_hooks+=("sleep 0.3; rmdir '$cg2/hc-push-$$/docker-$CID.scope' '$cg2/hc-push-$$/deep.service' '$cg2/hc-push-$$'")
else
	CID=
	echo "[Note: no writable cgroup2 mount: cgroup rules and container labels not tested]"
fi
echo 's3cret-token' > "$TMP/token"
chmod 600 "$TMP/token"
printf 'Authorization: Bearer s3cret-token\nX-Scope-OrgID: team-a\n' > "$R/require"
echo "deep 20 120" > "$R/marker"	# deep's command line: never pushed by default

start_stub() {
	python3 "$STUB" $PORT "$R" &
	stub=$!
	cleanup_hooks+=("kill $stub 2>/dev/null")
	for _ in $(seq 50); do
		python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 0.2)" \
			2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
start_agent() {	# $1: log file
	"$HOTCOLD" agent -o "$D" --interval 1s -F 49 --off-cpu -p $wl,$wl2 --http 127.0.0.1:$HP \
		--push http://127.0.0.1:$PORT/ --push-rules "$RULES" --push-token-file "$TMP/token" \
		--push-tenant team-a --push-timeout 2s 2>"$1" &
	ag=$!
	cleanup_hooks+=("kill $ag 2>/dev/null")
}
# stop the agent (not in a subshell: wait needs its parent); the seconds it took into $t
stop_agent() {
	local t0=$(date +%s.%N)
	kill -TERM $ag
	wait $ag
	t=$(echo "$(date +%s.%N) - $t0" | bc)
}
count() { local n=$(grep -c "\"status\": $1" "$R/log.jsonl" 2>/dev/null); echo "${n:-0}"; }
wait_count() {	# $1 status, $2 at least, $3 seconds
	for _ in $(seq $(($3 * 10))); do [ "$(count $1)" -ge "$2" ] && return 0; sleep 0.1; done
	return 1
}

# ---- the receiver is down for the first intervals
start_agent "$TMP/a1.err"
wait_log 'agent: interval 3:' 30 "$TMP/a1.err" || bad "no 3 intervals: $(tail -3 "$TMP/a1.err")"
[ ! -e "$R/log.jsonl" ] && ok "nothing received while down" || bad "received while down"
grep -q 'retrying with backoff' "$TMP/a1.err" && ok "connection refused: retrying" ||
	bad "no retry message: $(grep push "$TMP/a1.err" | head -3)"
start_stub || bad "stub did not start"
# backoff after ~3 s down is at most 2-4 s; then the backlog drains
wait_count 200 6 20 && ok "backlog delivered after the receiver came up ($(count 200) profiles)" ||
	bad "backlog: $(count 200) acknowledged"

# ---- 500 three times, then 200: all retried
echo '500 3' > "$R/mode"
wait_count 500 3 15 || bad "no 500s seen"
n=$(count 200)
wait_count 200 $((n + 2)) 15 && ok "after 3 x 500 the receiver gets profiles again" || bad "stalled after 500"

# ---- 400 twice: dropped, logged once, later intervals still go
echo '400 2' > "$R/mode"
wait_count 400 2 15 || bad "no 400s seen"
n=$(count 200)
wait_count 200 $((n + 2)) 15 && ok "400 does not stall later intervals" || bad "stalled after 400"
[ "$(grep -c 'answered 400' "$TMP/a1.err")" -eq 1 ] && ok "400 logged once" ||
	bad "400 logged $(grep -c 'answered 400' "$TMP/a1.err") times"
sleep 1.2	# one more interval: the metrics are refreshed per interval
curl -s http://127.0.0.1:$HP/metrics > "$TMP/metrics"
grep -q '^hotcold_push_failed_total{cause="http_5xx"} 3$' "$TMP/metrics" &&
	grep -q '^hotcold_push_failed_total{cause="http_4xx"} 2$' "$TMP/metrics" &&
	grep -q '^hotcold_push_dropped_total 2$' "$TMP/metrics" &&
	grep -Eq '^hotcold_push_failed_total\{cause="connect"\} [1-9]' "$TMP/metrics" &&
	grep -Eq '^hotcold_push_sent_total [1-9]' "$TMP/metrics" &&
	grep -q '^hotcold_push_backlog_intervals' "$TMP/metrics" &&
	ok "metrics: 3 x 5xx, 2 x 4xx, 2 dropped, connect failures, sent" ||
	bad "metrics: $(grep push "$TMP/metrics" | grep -v '^#')"
stop_agent
echo "$t < 3.5" | bc | grep -q 1 && ok "exit in $t s (flush bound 2 s)" || bad "exit took $t s"

# ---- restart with the receiver down: the backlog left at exit waits on disk
kill $stub; wait $stub 2>/dev/null
start_agent "$TMP/a2.err"
wait_log 'agent: interval 2:' 20 "$TMP/a2.err" || bad "restart: no intervals"
stop_agent
echo "$t < 3.5" | bc | grep -q 1 && ok "receiver down: exit in $t s" || bad "receiver down: exit took $t s"
grep -q 'not acknowledged yet' "$TMP/a2.err" && ok "backlog kept for the next start" ||
	bad "no backlog message: $(grep push "$TMP/a2.err")"
start_stub || bad "stub did not restart"
start_agent "$TMP/a3.err"
wait_log 'agent: interval 2:' 20 "$TMP/a3.err"
stop_agent

# ---- everything in the history arrived once, in order, labelled
python3 - "$D/index.jsonl" "$R/log.jsonl" "$(hostname)" "$CID" > "$TMP/check" <<'PY'
import json, math, re, sys
cid = sys.argv[4]
want_stc = {"oncpu": "samples", "offcpu": "off_cpu"}
idx = [json.loads(l) for l in open(sys.argv[1])]
log = [json.loads(l) for l in open(sys.argv[2])]
host = re.sub(r"[^A-Za-z0-9_.:/-]", "_", sys.argv[3])
want = {}
for iv in idx:
    for f in iv["files"]:
        if f["format"] == "pprof":
            # a list: an agent stopped and started again within one second
            # leaves two intervals that start in the same second
            want.setdefault((iv["start_ms"] // 1000, f["kind"]), []).append(
                (iv["start_ms"], iv["end_ms"]))
acks, errs, froms, services = {}, [], [], set()
for r in log:
    if r["status"] not in (200, 500, 400):
        errs.append("status %d: %s" % (r["status"], r.get("error")))
        continue
    l, k = r["labels"], r["labels"].get("kind")
    froms.append(r["from"])
    svc = l.get("service_name")
    if svc not in ("test-svc", "deep-svc") or r["app"] != "%s.%s" % (svc, k) or \
       l.get("hostname") != host or l.get("hotcold_version") != "0.1.0":
        errs.append("labels %s" % r["name"])
    # series labels from the cgroup: the container's ID, else the service unit
    if cid and (svc == "test-svc") != (l.get("container_id") == cid):
        errs.append("container_id %s" % r["name"])
    if cid and (svc == "deep-svc") != (l.get("systemd_unit") == "deep.service"):
        errs.append("systemd_unit %s" % r["name"])
    if want_stc.get(k) not in (r.get("stc") or {}) or r["stc"][want_stc[k]]["units"] not in \
       ("samples", "lock_nanoseconds"):
        errs.append("sample_type_config %s: %s" % (k, r.get("stc")))
    if set(r["label_keys"]) & {"tid", "pid", "cmdline", "cgroup"} or r.get("marker_in_strings"):
        errs.append("labels not asked for: %s%s" % (r["label_keys"],
                    ", the command line in the strings" if r.get("marker_in_strings") else ""))
    services.add(svc)
    if r["headers"].get("X-Scope-OrgID") != "team-a":
        errs.append("tenant")
    key = (r["from"], k, svc, None)
    if key[:2] in want:	# the interval whose start is nearest the profile's time_nanos
        s, e = min(want[key[:2]], key=lambda se: abs(se[0] - r.get("time_ms", 0)))
        key = key[:3] + (s,)
        if r["until"] != max(math.ceil(e / 1000), s // 1000 + 1):
            errs.append("until %d for end %d" % (r["until"], e))
    if r["status"] == 200 or r["status"] == 400:
        acks[key] = acks.get(key, 0) + 1
twice = [k for k, n in acks.items() if n > 1]
# the oldest first: the stamps never go back (a retry repeats the same one)
order = all(a <= b for a, b in zip(froms, froms[1:]))
# what the history still lists, and the first restart's backlog, all acknowledged
acked = {(k[0], k[1], k[3]) for k in acks}
missing = [(f, k, s) for (f, k), l in want.items() for s, e in l if (f, k, s) not in acked]
print(sum(map(len, want.values())), len(acks), len(twice), len(missing), int(order), len(errs), len(services))
for e in errs[:5] + ["missing %s" % (m,) for m in missing[:5]] + ["twice %s" % (t,) for t in twice[:5]]:
    print(e)
PY
read nw na ntw nmiss order nerr nsvc < <(head -1 "$TMP/check")
[ "$nsvc" -eq 2 ] && ok "one series per service: test-svc (rule ${RULES%%=*}), deep-svc (cmdline rule)" ||
	bad "$nsvc services"
[ "$nerr" -eq 0 ] && ok "every request valid: name, labels${CID:+ (container_id, systemd_unit)}, tenant, until, sample_type_config, no tid/pid/cmdline labels" ||
	bad "$(tail -n +2 "$TMP/check")"
[ "$ntw" -eq 0 ] && ok "no profile acknowledged twice across 3 runs ($na requests)" || bad "twice: $(tail -n +2 "$TMP/check")"
[ "$nmiss" -eq 0 ] && ok "all $nw profiles of the history arrived" || bad "missing: $(tail -n +2 "$TMP/check")"
[ "$order" -eq 1 ] && ok "requests oldest first" || bad "out of order"
[ "$(count 400)" -eq 2 ] && ok "the 2 refused profiles were not retried" || bad "$(count 400) x 400"

if command -v go >/dev/null; then
	# every acknowledged oncpu profile of each service: only its own
	# process's samples (the last one, a partial interval, may be too short
	# to hold spin_alpha: all of them are read)
	for svc in test-svc deep-svc; do
		: > "$TMP/$svc.raw"
		i=0
		for f in $(python3 -c 'import json,sys
print("\n".join(r["file"] for r in map(json.loads, open(sys.argv[1])) if r["status"] == 200 and
       r["labels"]["kind"] == "oncpu" and r["labels"]["service_name"] == sys.argv[2]))' \
			"$R/log.jsonl" $svc); do
			i=$((i + 1))
			cp "$f" "$TMP/$svc.$i.pb.gz"
			(cd "$TMP" && HOME=$TMP GOCACHE=$TMP/gocache go tool pprof -raw "$svc.$i.pb.gz" >> "$TMP/$svc.raw" 2>&1)
		done
	done
	grep -q 'spin_alpha' "$TMP/test-svc.raw" && grep -q 'Mappings' "$TMP/test-svc.raw" &&
		! grep -q 'comm:\[deep\]' "$TMP/test-svc.raw" &&
		ok "go tool pprof -raw: test-svc has spin_alpha and mappings, no deep samples" ||
		bad "test-svc pprof: $(head -5 "$TMP/test-svc.raw")"
	grep -q 'comm:\[deep\]' "$TMP/deep-svc.raw" && ! grep -q 'comm:\[split\]' "$TMP/deep-svc.raw" &&
		ok "go tool pprof -raw: deep-svc has only deep's samples" ||
		bad "deep pprof: $(grep -m3 'comm:\[split\]' "$TMP/deep-svc.raw" || grep -m3 comm "$TMP/deep-svc.raw")"
fi

# ---- retention deletes intervals not yet sent: counted as lost, the rest go
kill $stub; wait $stub 2>/dev/null
R2=$TMP/recv2
mkdir -p "$R2"
echo "split 120" > "$R2/marker"	# asked for below: the command line goes out
"$HOTCOLD" agent -o "$TMP/hist2" --interval 1s -F 49 -p $wl --max-intervals 2 --http 127.0.0.1:$HP \
	--push http://127.0.0.1:$PORT --push-timeout 1s --push-labels comm,tid,cmdline 2>"$TMP/a4.err" &
ag=$!
cleanup_hooks+=("kill $ag 2>/dev/null")
wait_log 'agent: interval 5:' 30 "$TMP/a4.err" || bad "retention run: no 5 intervals"
python3 "$STUB" $PORT "$R2" &
stub=$!
cleanup_hooks+=("kill $stub 2>/dev/null")
n0=$(grep -c 'agent: interval' "$TMP/a4.err")
wait_log "agent: interval $((n0 + 4)):" 30 "$TMP/a4.err"	# backoff <= 4 s, then 1 interval more
curl -s http://127.0.0.1:$HP/metrics > "$TMP/metrics2"
stop_agent
lost=$(awk '/^hotcold_push_lost_total\{reason="retention"\}/ { print $2 }' "$TMP/metrics2")
deleted=$(awk '/^hotcold_store_deleted_total/ { print $2 }' "$TMP/metrics2")
# every interval deleted before the receiver came up had its oncpu pprof queued
[ "${lost:-0}" -ge 3 ] && ok "retention: $lost profiles lost before sent ($deleted intervals deleted)" ||
	bad "lost ${lost:-none}, deleted ${deleted:-none}: $(grep push_ "$TMP/metrics2" | grep -v '#')"
sent=$(grep -c '"status": 200' "$R2/log.jsonl" 2>/dev/null)
[ "${sent:-0}" -ge 2 ] && ok "retention: the $sent kept ones still arrived" || bad "retention: sent ${sent:-0}"
# --push-labels comm,tid: the tid label goes out, bounded per profile (PUSH_MAX_LABEL_VALUES)
# (the negative control of the default run's "no tid, no command line")
read ntid maxtid ncmd < <(python3 -c 'import json,sys
rs = [r for r in map(json.loads, open(sys.argv[1])) if r["status"] == 200]
print(sum("tid" in r["label_keys"] for r in rs), max([r["tids"] for r in rs] or [0]),
      sum(bool(r.get("marker_in_strings")) and "cmdline" in r["label_keys"] for r in rs))' "$R2/log.jsonl")
[ "${ntid:-0}" -ge 1 ] && [ "${maxtid:-99}" -le 64 ] && [ "${ncmd:-0}" -ge 1 ] &&
	ok "--push-labels comm,tid,cmdline: tid and cmdline sent ($ntid profiles, at most $maxtid tids each)" ||
	bad "--push-labels comm,tid,cmdline: $ntid profiles with tid, $maxtid tids at most, $ncmd with the command line"
finish
