// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer target: kallsyms parsing and lookups (a kallsyms file may come from another host). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym/kallsyms.h"
#include "util/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *name, *module;
	struct kallsyms *ks;
	uint64_t addr, off;
	size_t i;
	FILE *f;

	if (!size)
		return 0;
	log_set_level(LOG_WARN);
	f = fmemopen((void *)data, size, "r");
	if (!f)
		abort();
	ks = kallsyms__parse(f);
	fclose(f);
	if (!ks)
		return 0;
	for (i = 0; i + 8 <= size && i < 64 * 8; i += 8) {
		memcpy(&addr, data + i, 8);
		module = NULL;
		name = kallsyms__lookup(ks, addr, &off, &module);
		if (name && (strlen(name) == SIZE_MAX || off > addr))
			abort();
		if (module && strlen(module) == SIZE_MAX)
			abort();
	}
	kallsyms__lookup(ks, 0, NULL, NULL);
	kallsyms__lookup(ks, UINT64_MAX, NULL, NULL);
	kallsyms__free(ks);
	return 0;
}
