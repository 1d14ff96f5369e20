// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* CPython structure offsets per minor version (checked by tools/python-offsets.sh). */
#include "sym/python_layout.h"

#include <stddef.h>
#include <stdio.h>

static const struct python_layout layouts[] = {
	{
		/* 3.11: _PyCFrame { uint8_t use_tracing; current_frame; previous } */
		.major = 3, .minor = 11,
		.rt_interp_head = 40, .is_threads_head = 16, .ts_next = 8,
		.ts_native_tid = 160, .ts_cframe = 56, .cf_current = 8,
		.fr_code = 32, .fr_previous = 48, .fr_owner = 69, .fr_is_entry = 68,
		.cstack_owner = 0, .fr_prev_instr = 56,
		.co_qualname = 128, .co_filename = 112, .co_firstlineno = 72,
		.co_linetable = 136, .co_code_adaptive = 184, .bytes_size = 16, .bytes_data = 32,
		.uni_length = 16, .uni_state = 32, .uni_ascii_data = 48, .uni_compact_data = 72,
	},
	{
		/*
		 * 3.12: no is_entry; _PyEval_EvalFrameDefault pushes a shim frame
		 * owned by the C stack (FRAME_OWNED_BY_CSTACK = 3) under its first
		 * one. PyASCIIObject lost wstr.
		 */
		.major = 3, .minor = 12,
		.rt_interp_head = 40, .is_threads_head = 72, .ts_next = 8,
		.ts_native_tid = 144, .ts_cframe = 56, .cf_current = 0,
		.fr_code = 0, .fr_previous = 8, .fr_owner = 70, .fr_is_entry = 0,
		.cstack_owner = 3, .fr_prev_instr = 56,
		.co_qualname = 128, .co_filename = 112, .co_firstlineno = 68,
		.co_linetable = 136, .co_code_adaptive = 192, .bytes_size = 16, .bytes_data = 32,
		.uni_length = 16, .uni_state = 32, .uni_ascii_data = 40, .uni_compact_data = 56,
	},
};

const struct python_layout *python_layout_find(uint32_t version)
{
	uint32_t major = version >> 24, minor = (version >> 16) & 0xff;

	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].major == major && layouts[i].minor == minor)
			return &layouts[i];
	return NULL;
}

void python_version_str(uint32_t version, char *buf, unsigned long len)
{
	snprintf(buf, len, "%u.%u", version >> 24, (version >> 16) & 0xff);
}
