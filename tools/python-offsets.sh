#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Check src/sym/python_layout.c against an interpreter's DWARF (gdb reads
# the debug info: Debian's python3.11 with python3.11-dbg, or a build from
# source with -g such as pyenv's libpython3.X.so).
#   tools/python-offsets.sh [INTERPRETER_OR_LIBPYTHON...]
# Prints one line per field and exits 0 if every field matches, 1 if one
# differs, 77 if gdb or the debug info is missing.
set -u
src=$(dirname "$0")/../src/sym/python_layout.c
[ $# -gt 0 ] || set -- /usr/bin/python3.11
command -v gdb >/dev/null || { echo "python-offsets: no gdb" >&2; exit 77; }

# field of struct python_layout -> the C expression gdb evaluates
exprs=(
	rt_interp_head '&((_PyRuntimeState*)0)->interpreters.head'
	is_threads_head '&((PyInterpreterState*)0)->threads.head'
	ts_next '&((PyThreadState*)0)->next'
	ts_native_tid '&((PyThreadState*)0)->native_thread_id'
	ts_cframe '&((PyThreadState*)0)->cframe'
	cf_current '&((_PyCFrame*)0)->current_frame'
	fr_code '&((_PyInterpreterFrame*)0)->f_code'
	fr_previous '&((_PyInterpreterFrame*)0)->previous'
	fr_owner '&((_PyInterpreterFrame*)0)->owner'
	co_qualname '&((PyCodeObject*)0)->co_qualname'
	co_filename '&((PyCodeObject*)0)->co_filename'
	co_firstlineno '&((PyCodeObject*)0)->co_firstlineno'
	co_linetable '&((PyCodeObject*)0)->co_linetable'
	co_code_adaptive '&((PyCodeObject*)0)->co_code_adaptive'
	fr_prev_instr '&((_PyInterpreterFrame*)0)->prev_instr'
	bytes_size '&((PyVarObject*)0)->ob_size'
	bytes_data '&((PyBytesObject*)0)->ob_sval'
	uni_length '&((PyASCIIObject*)0)->length'
	uni_state '&((PyASCIIObject*)0)->state'
	uni_ascii_data 'sizeof(PyASCIIObject)'
	uni_compact_data 'sizeof(PyCompactUnicodeObject)'
)

# "3.11" entry of the table: field=value lines
table() {
	awk -v minor="$1" '
		/\.major = 3, \.minor = / { m = $0; sub(/.*\.minor = /, "", m); sub(/,.*/, "", m); on = (m == minor) }
		on && /^\t}/ { on = 0 }
		on { n = split($0, kv, ","); for (i = 1; i <= n; i++) if (kv[i] ~ /\.[a-z_]+ = [0-9]+/) {
			s = kv[i]; gsub(/[ \t.]/, "", s); print s } }' "$src"
}

rc=0
for bin in "$@"; do
	ver=$(gdb -batch -ex 'p (int)sizeof(PyThreadState)' -ex 'p Py_Version' "$bin" 2>/dev/null |
		awk -F' = ' '/^\$2/ { printf "%d.%d", int($2 / 16777216), int($2 / 65536) % 256 }')
	if [ -z "$ver" ]; then
		echo "python-offsets: no debug info for '$bin'" >&2
		[ $rc -eq 0 ] && rc=77
		continue
	fi
	want=$(table "${ver#3.}")
	[ -n "$want" ] || { echo "python-offsets: $bin: $ver is not in the table"; rc=1; continue; }
	args=()
	for ((i = 0; i < ${#exprs[@]}; i += 2)); do args+=(-ex "p/d (long)(${exprs[i + 1]})"); done
	mapfile -t got < <(gdb -batch "${args[@]}" "$bin" 2>/dev/null | sed -n 's/^\$[0-9]* = //p')
	for ((i = 0; i < ${#exprs[@]}; i += 2)); do
		f=${exprs[i]} g=${got[i / 2]:-?}
		w=$(sed -n "s/^$f=//p" <<<"$want")
		if [ "$g" = "$w" ]; then echo "ok   $ver $f = $g ($bin)"
		else echo "BAD  $ver $f: table $w, DWARF $g ($bin)"; rc=1; fi
	done
	# 3.11: is_entry; 3.12+: none (the C-stack shim frame instead)
	if [ "$ver" = 3.11 ]; then
		g=$(gdb -batch -ex 'p/d (long)&((_PyInterpreterFrame*)0)->is_entry' "$bin" 2>/dev/null | sed -n 's/^\$[0-9]* = //p')
		w=$(sed -n 's/^fr_is_entry=//p' <<<"$want")
		[ "$g" = "$w" ] && echo "ok   $ver fr_is_entry = $g ($bin)" || { echo "BAD  $ver fr_is_entry: table $w, DWARF $g"; rc=1; }
	else
		g=$(gdb -batch -ex 'p/d FRAME_OWNED_BY_CSTACK' "$bin" 2>/dev/null | sed -n 's/^\$[0-9]* = //p')
		w=$(sed -n 's/^cstack_owner=//p' <<<"$want")
		[ "$g" = "$w" ] && echo "ok   $ver cstack_owner = $g ($bin)" || echo "note $ver cstack_owner: table $w, DWARF '${g:-no enum (a macro)}' ($bin)"
	fi
done
exit $rc
