/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * CPython structure offsets by version: what the BPF frame walker
 * (bpf/python.bpf.h) and the code-object reader (sym/python_names.c) need.
 * Versions 3.11 and 3.12 (x86-64, the default non-debug build); the table
 * was read from the interpreters' DWARF and is checked against it by
 * tools/python-offsets.sh (Debian's 3.11.2 with python3.11-dbg, pyenv's
 * 3.11.7 and 3.12.1 built with -g).
 */
#ifndef HC_SYM_PYTHON_LAYOUT_H
#define HC_SYM_PYTHON_LAYOUT_H

#include <stdint.h>

struct python_layout {
	uint32_t major, minor;		/* the layout holds for every 3.minor.x */
	/* the thread and frame chain (abi/python.h: struct hc_py_proc) */
	uint16_t rt_interp_head, is_threads_head, ts_next, ts_native_tid, ts_cframe;
	uint16_t cf_current, fr_code, fr_previous, fr_owner, fr_is_entry, cstack_owner;
	uint16_t fr_prev_instr;
	/* PyCodeObject; its location table is a bytes object (data at bytes_data) */
	uint16_t co_qualname, co_filename, co_firstlineno, co_linetable, co_code_adaptive;
	uint16_t bytes_size, bytes_data;
	/* PyUnicodeObject: the state bit field, where compact ASCII / other data start */
	uint16_t uni_length, uni_state, uni_ascii_data, uni_compact_data;
};

/*
 * The layout of PY_VERSION_HEX @version (0x030b02f0 for 3.11.2 final), or
 * NULL if this version is not supported.
 */
const struct python_layout *python_layout_find(uint32_t version);

/* "3.11" from a PY_VERSION_HEX into @buf (at least 16 bytes). */
void python_version_str(uint32_t version, char *buf, unsigned long len);

#endif /* HC_SYM_PYTHON_LAYOUT_H */
