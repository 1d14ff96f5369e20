// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer target: /proc/PID/maps parsing (a process controls its mapping names). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym/procmaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct procmaps *pm)
{
	const struct procmap *m, *hit;
	size_t i;

	for (i = 0; i < procmaps__nr(pm); i++) {
		m = procmaps__entry(pm, i);
		if (!m->path)
			abort();
		/* every start must be found by lookup (an entry, maybe an overlapping one) */
		hit = procmaps__find(pm, m->start);
		if (m->end > m->start && !hit)
			abort();
		procmaps__find(pm, m->end);
		procmaps__find(pm, m->start - 1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int flags = size && (data[0] & 1) ? PROCMAPS_EXEC_ONLY : 0;
	struct procmaps *pm;
	struct procmap m;
	char *line;
	FILE *f;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		abort();
	pm = procmaps__parse(f, flags);
	fclose(f);
	if (pm)
		check(pm);
	procmaps__free(pm);

	/* the single-line parser on a NUL-terminated copy */
	line = malloc(size + 1);
	if (!line)
		abort();
	memcpy(line, data, size);
	line[size] = '\0';
	procmaps_parse_line(line, &m);
	free(line);
	return 0;
}
