// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: JavaScript names read from a V8 heap (sym/v8_names.c).
 * Everything it reads comes from a target process's memory, which the
 * process controls: the input is that memory (at FZ_BASE), its first 8
 * bytes the frame the BPF walk would give (a tagged SharedFunctionInfo and
 * its check byte, abi/v8.h), read with Node 20's layout.
 */
#include <linux/types.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "abi/v8.h"
#include "sym/v8_layout.h"
#include "sym/v8_names.h"
#include "../fixtures/v8dbg_node20.h"

#define FZ_BASE 0x10000ull

struct mem {
	const uint8_t *p;
	size_t n;
};

/* all or nothing, like the process reader */
static int mem_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	const struct mem *m = arg;

	if (addr < FZ_BASE || addr - FZ_BASE > m->n || len > m->n - (addr - FZ_BASE))
		return -EFAULT;
	memcpy(buf, m->p + (addr - FZ_BASE), len);
	return 0;
}


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem m = { data, size };
	struct v8_reader r = { mem_read, &m };
	static struct v8_layout l;
	static int ready;
	uint64_t frame;
	char name[64];

	if (!ready) {
		v8_layout_init(&l);
		for (size_t i = 0; i < sizeof(v8dbg_node20) / sizeof(v8dbg_node20[0]); i++)
			v8_layout_set(&l, v8dbg_node20[i].name, v8dbg_node20[i].v);
		if (v8_layout_check(&l, name, sizeof(name)))
			abort();
		ready = 1;
	}
	if (size < 8)
		return 0;
	memcpy(&frame, data, sizeof(frame));
	/* the pointer's low 16 bits from the input, inside it; tag and check as given */
	frame = HC_V8_SFI_TAG | (frame & (0xffull << HC_V8_SFI_CHECK_SHIFT)) |
		(FZ_BASE + (frame & 0xffff));
	v8_frame_name(&l, &r, frame, name, sizeof(name));
	/* and any word as a string, into a buffer too small for most */
	v8_string(&l, &r, FZ_BASE + (data[0] | data[1] << 8), name, 5);
	return 0;
}
