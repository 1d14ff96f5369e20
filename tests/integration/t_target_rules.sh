#!/bin/bash
# Targets by cgroup (v2) and by process name instead of pid:
# - --cgroup: a process already in the cgroup (found by the start-up scan)
#   and one that enters it and execs after recording started (caught by the
#   exec program) are profiled; an identical process outside is not;
# - --comm NAME and NAME*: only processes with that name;
# - bad rules exit 2 with a message.
. "$(dirname "$0")/lib.sh"

samples_of() { # FOLDED ROOT: samples whose root frame is ROOT
	awk -v r="$2" '{ split($0, f, ";"); if (f[1] == r) t += $NF } END { printf "%.0f\n", t }' "$1"
}

cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -n "$cg2" ]; then
	cg=$cg2/hotcold-it.$$
	mkdir "$cg"
	cleanup_hooks+=("sleep 0.2; rmdir '$cg' 2>/dev/null")
	"$WL/split" 4 "$TMP/t1" &
	inside=$!
	echo $inside > "$cg/cgroup.procs"
	"$WL/split" 4 "$TMP/t2" &
	outside=$!
	# enters the cgroup, then execs once the recording runs
	sh -c "echo \$\$ > '$cg/cgroup.procs'; sleep 1; exec '$WL/split' 2 '$TMP/t3'" &
	later=$!
	cleanup_hooks+=("kill $inside $outside $later 2>/dev/null")
	"$HOTCOLD" record --cgroup "$cg" --per-pid -F 499 -d 2.5 -o "$TMP/cg.folded" 2>"$TMP/err"
	rc=$?
	tail -n 1 "$TMP/err"
	[ $rc -eq 0 ] && ok "--cgroup: exit 0" || bad "--cgroup: exit $rc"
	a=$(samples_of "$TMP/cg.folded" "split-$inside")
	b=$(samples_of "$TMP/cg.folded" "split-$outside")
	c=$(samples_of "$TMP/cg.folded" "split-$later")
	# the shell that enters the cgroup and its sleep are members too
	other=$(awk '{ n = $NF; split($0, f, ";"); if (f[1] !~ /^(split|sh|sleep)-/) t += n } END { printf "%.0f\n", t }' "$TMP/cg.folded")
	[ "$a" -ge 100 ] && ok "--cgroup: $a samples of the process in it at start" ||
		bad "--cgroup: $a samples of the process in it at start"
	[ "$c" -ge 50 ] && ok "--cgroup: $c samples of the process that entered and exec'd later" ||
		bad "--cgroup: $c samples of the process that entered and exec'd later"
	[ "$b" -eq 0 ] && [ "$other" -eq 0 ] && ok "--cgroup: none of the process outside, nor of non-members" ||
		bad "--cgroup: $b samples of the process outside, $other of others"
	wait $inside $outside $later 2>/dev/null
else
	echo "[Note: no cgroup2 mount: --cgroup not tested]"
fi

"$WL/split" 9 "$TMP/t4" &
named=$!
"$WL/threads" 9 "$TMP/t5" >/dev/null 2>&1 &
unnamed=$!
cleanup_hooks+=("kill $named $unnamed 2>/dev/null")
for rule in split 'spl*'; do
	"$HOTCOLD" record --comm "$rule" --per-pid -F 499 -d 1.5 -o "$TMP/cm.folded" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] && ok "--comm $rule: exit 0" || bad "--comm $rule: exit $rc"
	a=$(samples_of "$TMP/cm.folded" "split-$named")
	other=$(awk -v r="split-$named" '{ n = $NF; split($0, f, ";"); if (f[1] != r) t += n } END { printf "%.0f\n", t }' "$TMP/cm.folded")
	[ "$a" -ge 100 ] && [ "$other" -eq 0 ] && ok "--comm $rule: $a samples of split, $other of others" ||
		bad "--comm $rule: $a samples of split, $other of others"
done
# the agent takes the same rules (config keys cgroups/comms, flags --cgroup/--comm)
"$HOTCOLD" agent --comm 'spl*' --interval 1s -F 99 -o "$TMP/hist" 2>"$TMP/agent.err" &
agent=$!
cleanup_hooks+=("kill $agent 2>/dev/null")
for _ in $(seq 200); do grep -q 'writing every' "$TMP/agent.err" 2>/dev/null && break; sleep 0.05; done
sleep 2.5
kill -TERM $agent
wait $agent
rc=$?
[ $rc -eq 0 ] && ok "agent --comm: exit 0" || bad "agent --comm: exit $rc"
zcat "$TMP"/hist/*-oncpu.folded.gz > "$TMP/agent.folded" 2>/dev/null
a=$(awk '{ split($0, f, ";"); if (f[1] == "split") t += $NF } END { printf "%.0f\n", t }' "$TMP/agent.folded")
other=$(awk '{ split($0, f, ";"); if (f[1] != "split") t += $NF } END { printf "%.0f\n", t }' "$TMP/agent.folded")
# (split may get half a CPU on a busy machine: >= 20 of ~250 at 99 Hz is plenty to tell)
[ "$a" -ge 20 ] && [ "$other" -eq 0 ] && ok "agent --comm: $a samples of split, $other of others" ||
	bad "agent --comm: $a samples of split, $other of others ($(ls "$TMP/hist" | tr '\n' ' '))"
kill $named $unnamed 2>/dev/null
wait $named $unnamed 2>/dev/null

set -f	# the rules below are not shell globs
for args in "--cgroup /nonexistent" "--cgroup /tmp" "--comm a*b" "--comm *" "-a --comm x"; do
	# shellcheck disable=SC2086
	"$HOTCOLD" record $args -d 1 -o "$TMP/x.folded" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] && [ -s "$TMP/err" ] && ok "record $args: exit 2, $(head -c 80 "$TMP/err")" ||
		bad "record $args: exit $rc"
done
set +f
finish
