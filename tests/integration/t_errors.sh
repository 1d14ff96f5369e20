#!/bin/bash
# Bad input: clear message on stderr, documented exit status, no output file.
. "$(dirname "$0")/lib.sh"
cd "$TMP"

expect() {	# expect STATUS MESSAGE-REGEX -- ARGS...
	local want=$1 re=$2; shift 3
	"$HOTCOLD" "$@" >"$TMP/o" 2>"$TMP/e"
	local rc=$?
	if [ $rc -eq "$want" ] && grep -Eq "$re" "$TMP/e"; then ok "hotcold $* -> $rc"
	else bad "hotcold $*: exit $rc (want $want), stderr: $(head -c 300 "$TMP/e")"; fi
}

# a pid that cannot exist (above pid_max's hard limit) and one that is free now
expect 2 "no process with id 4194000" -- record -p 4194000 -d 1
# (picked again before each use: a busy machine wraps its pids, and run 6
# of session 11 found a thread at the last one a second later)
free_id() {
	local f=$(( $(cat /proc/sys/kernel/pid_max) - 7 ))
	while [ -e /proc/$f ]; do f=$((f - 1)); done
	echo $f
}
free=$(free_id)
expect 2 "no process with id $free" -- record -p $free -d 1
free=$(free_id)
expect 2 "no thread with id $free" -- record -t $free -d 1
expect 2 "invalid value 'abc' for -p" -- record -p abc
expect 2 "invalid value '10x' for -F" -- record -F 10x
expect 2 "invalid value '0' for -F" -- record -F 0
expect 2 "invalid value 'soon' for -d" -- record -d soon
expect 2 "unknown event 'instruction'" -- record -e instruction
expect 2 "unknown option" -- record --frobnicate
expect 2 "needs a value" -- record -p
expect 2 "exclude each other" -- record --user-only --kernel-only
expect 2 "cannot be combined" -- record -a -p 1
expect 2 "unknown command" -- frobnicate
expect 127 "cannot execute" -- record -d 1 -- /nonexistent/binary
# a name longer than the kernel's 15 characters: matched on those 15, with a warning
expect 0 "longer than the kernel's 15 characters.*starts with 'abcdefghijklmno'" -- \
	record --comm abcdefghijklmnopqrstuvwxyz -d 0.2 -o "$TMP/long.folded"
rm -f "$TMP/long.folded"
expect 1 "cannot (create|write) .*No such file or directory" -- record -d 0.2 -o /nonexistent-dir/out.folded
if [ ! -e /sys/bus/event_source/devices/cpu ]; then
	# no hardware PMU: forcing cycles fails clearly; the default falls back
	expect 1 "no hardware PMU here: use -e cpu-clock" -- record -e cycles -d 0.2
	expect 0 "sampling cpu-clock" -- record -d 0.2 -o "$TMP/fallback.folded"
	rm -f "$TMP/fallback.folded"
fi
[ ! -e "$TMP/hotcold.folded" ] && ok "no output left behind by failed runs" || bad "stray output file"
"$HOTCOLD" record --help >"$TMP/o" 2>"$TMP/e"
[ $? -eq 0 ] && grep -q -- '--freq' "$TMP/o" && [ ! -s "$TMP/e" ] && ok "--help on stdout, exit 0" ||
	bad "--help"
finish
