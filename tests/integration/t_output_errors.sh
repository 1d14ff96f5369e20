#!/bin/bash
# Lost output is reported truthfully (record and stat):
#  - -o naming a directory fails before recording starts (exit 2), a missing or
#    read-only directory too (exit 1), each in well under the recording's time;
#  - a full disk (a 64 KiB tmpfs, filled) with `-- CMD` that exits 3: exit 1
#    (our failure wins over the command's status, which is still reported),
#    the message names ENOSPC, and nothing is left in the directory;
#    negative control: the same run with room exits 3 and writes the file;
#  - /dev/full, as -o and as stdout: exit 1, "No space left on device";
#  - record killed with -9 leaves no temporary file (O_TMPFILE);
#  - the file is fsync'ed before the rename and the directory after it (strace).
. "$(dirname "$0")/lib.sh"
cd "$TMP"

spin='i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done; exit 3'

# expect STATUS MESSAGE-REGEX MAX-SECONDS -- ARGS...
expect() {
	local want=$1 re=$2 max=$3; shift 4
	local t0 t1 rc
	t0=$(date +%s.%N)
	"$HOTCOLD" "$@" >"$TMP/o" 2>"$TMP/e"
	rc=$?
	t1=$(date +%s.%N)
	local dt
	dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	if [ $rc -eq "$want" ] && grep -Eq "$re" "$TMP/e" && within "$dt" 0 "$max"; then
		ok "hotcold $* -> $rc in ${dt}s"
	else
		bad "hotcold $*: exit $rc (want $want) in ${dt}s (max $max), stderr: $(head -c 300 "$TMP/e")"
	fi
}

mkdir -p "$TMP/adir"
# -d 10: a check made only after the recording would take 10 s
expect 2 "cannot write '$TMP/adir': Is a directory" 2 -- record -d 10 -o "$TMP/adir"
expect 2 "Is a directory" 2 -- record -d 10 -o "$TMP/newdir/"
expect 2 "cannot write '$TMP/adir': Is a directory" 2 -- stat -d 10 -o "$TMP/adir"
expect 2 "Is a directory" 2 -- record -o "$TMP/adir" -- sh -c 'sleep 10'
expect 1 "cannot write '$TMP/missing/x.folded': No such file or directory" 2 -- \
	record -d 10 -o "$TMP/missing/x.folded"

mkdir -p "$TMP/ro" "$TMP/small"
if mount -t tmpfs -o size=64k,ro tmpfs "$TMP/ro" 2>/dev/null; then
	cleanup_hooks+=("umount '$TMP/ro' 2>/dev/null")
	expect 1 "Read-only file system" 2 -- record -d 10 -o "$TMP/ro/x.folded"
	expect 1 "Read-only file system" 2 -- stat -d 10 -o "$TMP/ro/x.txt"
else
	echo "[Skipped read-only tmpfs: cannot mount]"
fi

if mount -t tmpfs -o size=64k tmpfs "$TMP/small" 2>/dev/null; then
	cleanup_hooks+=("umount '$TMP/small' 2>/dev/null")
	# negative control first: with room, the command's status and a file
	expect 3 "recording" 30 -- record -F 999 -o "$TMP/small/ok.folded" -- sh -c "$spin"
	[ -s "$TMP/small/ok.folded" ] && ok "with room: the profile is written" ||
		bad "with room: no profile"
	expect 3 "counting" 30 -- stat -o "$TMP/small/ok.txt" -- sh -c "$spin"
	rm -f "$TMP/small/ok.folded" "$TMP/small/ok.txt"
	dd if=/dev/zero of="$TMP/small/fill" bs=4k count=64 2>/dev/null
	expect 1 "cannot write '$TMP/small/out.folded': No space left on device" 30 -- \
		record -F 999 -o "$TMP/small/out.folded" -- sh -c "$spin"
	grep -q "the command exited with status 3" "$TMP/e" &&
		ok "record: the command's status 3 is still reported" ||
		bad "record: the command's status not reported: $(head -c 300 "$TMP/e")"
	expect 1 "cannot write '$TMP/small/out.txt': No space left on device" 30 -- \
		stat -o "$TMP/small/out.txt" -- sh -c "$spin"
	left=$(ls -A "$TMP/small" | grep -v '^fill$' | tr '\n' ' ')
	[ -z "$left" ] && ok "full disk: nothing left behind" || bad "full disk left: $left"
else
	echo "[Skipped ENOSPC: cannot mount a tmpfs]"
fi

# /dev/full: a device written in place, and stdout, fail with ENOSPC by name
expect 1 "cannot write '/dev/full': No space left on device" 5 -- record -d 0.2 -o /dev/full
"$HOTCOLD" record -d 0.2 -o - >/dev/full 2>"$TMP/e"
rc=$?
[ $rc -eq 1 ] && grep -q "cannot write '-': No space left on device" "$TMP/e" &&
	ok "record -o - >/dev/full -> 1, No space left on device" ||
	bad "stdout to /dev/full: exit $rc, $(head -c 300 "$TMP/e")"
expect 1 "No space left on device" 5 -- stat -d 0.2 -o /dev/full

# kill -9 while recording: the unnamed temporary file goes with the process
mkdir -p "$TMP/kill"
for i in 1 2 3; do
	"$HOTCOLD" record -p $$ -d 20 -o "$TMP/kill/k.folded" 2>/dev/null &
	pid=$!
	sleep 1
	kill -9 $pid
	wait $pid 2>/dev/null
done
left=$(ls -A "$TMP/kill" | tr '\n' ' ')
[ -z "$left" ] && ok "3 runs killed with -9 left no file" || bad "kill -9 left: $left"

if command -v strace >/dev/null; then
	strace -f -qq -e trace=openat,fsync,linkat,rename -o "$TMP/trace" \
		"$HOTCOLD" record -d 0.3 -o "$TMP/s.folded" 2>/dev/null
	# the O_TMPFILE fd, fsync'ed, linked, renamed, then the directory fsync'ed
	order=$(awk -v dst="\"$TMP/s.folded\"" '
		/O_TMPFILE/ { split($0, a, "= "); fd = a[2] + 0; print "tmpfile" }
		fd != "" && $0 ~ "fsync\\(" fd "\\)" && !renamed { print "fsync-file" }
		/linkat\(/ && /proc\/self\/fd/ { print "link" }
		/rename\(/ && index($0, dst) { print "rename"; renamed = 1 }
		/fsync\(/ && renamed && $0 !~ "fsync\\(" fd "\\)" { print "fsync-dir"; exit }
	' "$TMP/trace" | tr '\n' ' ')
	[ "$order" = "tmpfile fsync-file link rename fsync-dir " ] &&
		ok "write order: $order" || bad "write order: '$order'"
	[ -s "$TMP/s.folded" ] && ok "the traced run wrote its profile" || bad "traced run: no profile"
else
	echo "[Skipped fsync order: no strace]"
fi
finish
