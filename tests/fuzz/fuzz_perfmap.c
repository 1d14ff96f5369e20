// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer target: /tmp/perf-PID.map parsing and lookups (the file is written by the target). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym/perfmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfmap *pm;
	uint64_t addr, off;
	const char *name;
	size_t i;
	FILE *f;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		abort();
	pm = perfmap__parse(f);
	fclose(f);
	if (!pm)
		return 0;
	/* probe addresses taken from the input itself, so they hit entries */
	for (i = 0; i + 8 <= size && i < 64 * 8; i += 8) {
		memcpy(&addr, data + i, 8);
		name = perfmap__lookup(pm, addr, &off);
		if (name && (strlen(name) == SIZE_MAX || off > addr))
			abort();
		perfmap__lookup(pm, addr & 0xffffffff, NULL);
	}
	perfmap__lookup(pm, 0, NULL);
	perfmap__lookup(pm, UINT64_MAX, NULL);
	perfmap__free(pm);
	return 0;
}
