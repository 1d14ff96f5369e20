#!/bin/bash
# record -e EVENT: software events as the sampling event, stacks at the sites
# that raise them (tests/workloads/faults.c):
#  - -e page-faults (period 1): fault_pages() touches 20000 fresh pages, huge
#    pages refused, so it takes 20000 minor faults (the workload writes what
#    getrusage saw, the truth compared): its samples are exactly that many
#    (none lost or counted twice),
#    and the header says event=page-faults event_period=1;
#  - -c 10: a tenth of them (+-1 for where the count starts);
#  - -e context-switches: 300 sleeps of 200 us are 300 voluntary switches,
#    each sample ends in schedule() under clock_nanosleep;
#    negative control: no page-fault site in it, no switch site in the
#    page-fault profile;
#  - an unknown event, -c without -e, a hardware event without a PMU: exit 2/1.
. "$(dirname "$0")/lib.sh"

PAGES=20000
SLEEPS=300
sum() { awk -v re="$2" '!/^#/ && $0 ~ re { s += $NF } END { print s + 0 }' "$1"; }

"$HOTCOLD" record -e page-faults -o "$TMP/pf.folded" -- "$WL/faults" $PAGES 0 "$TMP/truth" 2>"$TMP/err" ||
	bad "record -e page-faults: $(tail -3 "$TMP/err")"
fp=$(sum "$TMP/pf.folded" ';fault_pages ')
tot=$(sum "$TMP/pf.folded" '^faults;')
# the faults fault_pages's loop really took (tests/workloads/faults.c)
nf=$(cat "$TMP/truth" 2>/dev/null || echo $PAGES)
echo "  page-faults: $fp in fault_pages of $tot in the process; the workload took $nf"
# one sample per fault (period 1): every fault is a sample at fault_pages or
# a counted loss (a burst of 20000 samples can overflow the ring between
# two drains; nothing may be lost silently), and no more samples than faults
lost=$(grep -E '^[a-z]+: [0-9]+ .*lost' "$TMP/err" | awk '{ s += $2 } END { print s + 0 }')
if [ "$fp" -eq "$nf" ] && [ "$nf" -ge $PAGES ]; then
	ok "fault_pages: $fp samples = $nf faults"
elif [ "$fp" -lt "$nf" ] && [ $((fp + lost)) -ge "$nf" ]; then
	ok "fault_pages: $fp samples + $lost counted as lost >= $nf faults"
else
	bad "fault_pages: $fp samples, $lost counted lost, the workload took $nf faults: $(grep -i lost "$TMP/err" | head -3)"
fi
head -1 "$TMP/pf.folded" | grep -q 'event=page-faults event_period=1' &&
	! head -1 "$TMP/pf.folded" | grep -q period_ns &&
	ok "header: event=page-faults event_period=1, no period_ns" ||
	bad "header: $(head -1 "$TMP/pf.folded")"
grep -q 'page-faults samples (one per 1 page-faults)' "$TMP/err" &&
	ok "summary names the event" || bad "summary: $(tail -1 "$TMP/err")"
# readers take the event from the header: report, its JSON, the flame graph's title
"$HOTCOLD" report "$TMP/pf.folded" 2>&1 | head -1 | grep -q '^profile: .*, page-faults (one sample per 1), ' &&
	"$HOTCOLD" report --json "$TMP/pf.folded" 2>/dev/null | python3 -c 'import json,sys
j = json.load(sys.stdin); sys.exit(not (j.get("event") == "page-faults" and j.get("event_period") == 1))' &&
	"$HOTCOLD" flamegraph "$TMP/pf.folded" -o "$TMP/pf.svg" 2>/dev/null &&
	grep -q '>page-faults Flame Graph<' "$TMP/pf.svg" &&
	ok "report, report --json and flamegraph name the event read from the header" ||
	bad "readers: $("$HOTCOLD" report "$TMP/pf.folded" 2>&1 | head -1); $(grep -o '<text id="title"[^<]*' "$TMP/pf.svg")"
[ "$(sum "$TMP/pf.folded" 'schedule_\[k\] ')" -eq 0 ] &&
	ok "negative control: no switch site among page faults" || bad "schedule in the fault profile"

"$HOTCOLD" record -e page-faults -c 10 -o "$TMP/pf10.folded" -- "$WL/faults" $PAGES 0 "$TMP/truth10" \
	2>"$TMP/err"
fp10=$(sum "$TMP/pf10.folded" ';fault_pages ')
nf10=$(cat "$TMP/truth10" 2>/dev/null || echo $PAGES)
within "$fp10" $((nf10 / 10)) 1 && ok "-c 10: $fp10 samples in fault_pages ($nf10 faults)" ||
	bad "-c 10: $fp10 samples, expected $((nf10 / 10)) +-1 ($nf10 faults)"

"$HOTCOLD" record -e context-switches -o "$TMP/cs.folded" -- "$WL/faults" 0 $SLEEPS 2>"$TMP/err" ||
	bad "record -e context-switches: $(tail -3 "$TMP/err")"
cs=$(sum "$TMP/cs.folded" '^faults;')
site=$(sum "$TMP/cs.folded" 'clock_nanosleep;.*schedule_\[k\] ')
so=$(sum "$TMP/cs.folded" ';switch_often;')
echo "  context-switches: $cs in the process, $site at clock_nanosleep -> schedule, $so under switch_often"
# one switch per sleep; a preemption by another helper's process may add a few
[ "$cs" -ge $SLEEPS ] && [ "$cs" -le $((SLEEPS + SLEEPS / 10)) ] &&
	ok "context-switches: $cs samples for $SLEEPS sleeps" || bad "context-switches: $cs for $SLEEPS"
[ "$site" -ge $((SLEEPS * 95 / 100)) ] && ok "$site of $cs at the switching site" ||
	bad "switching site: $site of $cs"
[ "$(sum "$TMP/cs.folded" 'fault_pages')" -eq 0 ] &&
	ok "negative control: no fault site among switches" || bad "fault_pages in the switch profile"

# -v: a failure says how the recording went (once in CI, session 11: no
# fault_pages in the profile, not reproduced in 70 runs idle and under load)
"$HOTCOLD" record -v -e page-faults -o "$TMP/pf.pb.gz" -- "$WL/faults" 1000 0 2>"$TMP/pf.err"
"$HOTCOLD" annotate --json "$TMP/pf.pb.gz" fault_pages >"$TMP/a.json" 2>"$TMP/err" &&
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(j['samples'] != 1000)" \
		"$TMP/a.json" && ok "annotate of a page-fault profile: 1000 faults in fault_pages" ||
	{ bad "annotate page-faults: $(cat "$TMP/err")"
	  grep -Ev '^  [a-z]+ +[a-z]+ +0 ' "$TMP/pf.err" | sed 's/^/    record: /'
	  "$HOTCOLD" report "$TMP/pf.pb.gz" 2>&1 | head -15 | sed 's/^/    report: /'; }

"$HOTCOLD" record -e no-such-event -- true 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q "unknown event 'no-such-event'" "$TMP/err" && ok "unknown event: exit 2" ||
	bad "unknown event: rc $rc"
"$HOTCOLD" record -c 5 -- true 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'needs -e' "$TMP/err" && ok "-c without -e: exit 2" || bad "-c alone: rc $rc"
have_pmu=0
for d in /sys/bus/event_source/devices/cpu /sys/bus/event_source/devices/cpu_core \
	 /sys/bus/event_source/devices/armv8_pmuv3*; do
	[ -e "$d" ] && have_pmu=1
done
if [ $have_pmu -eq 0 ]; then
	"$HOTCOLD" record -e branch-misses -- true 2>"$TMP/err"
	rc=$?
	[ $rc -eq 1 ] && grep -q 'software events such as' "$TMP/err" &&
		ok "no PMU: -e branch-misses says which events work" || bad "no PMU: rc $rc $(cat "$TMP/err")"
fi
finish
