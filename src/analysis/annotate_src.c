// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * annotate_source(): source text for the annotated lines. DWARF names each
 * file as the compiler saw it (comp_dir joined by libdw); --source-dir
 * OLD=NEW rewrites a prefix for sources that moved (a build machine's tree).
 */
#include "analysis/annotate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Larger "source files" are not source: a bound on memory. */
#define ANNOTATE_MAX_SOURCE (16u << 20)

static char *load(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	struct stat st;
	char *buf = NULL;

	if (!f)
		return NULL;
	if (!fstat(fileno(f), &st) && S_ISREG(st.st_mode) && st.st_size <= ANNOTATE_MAX_SOURCE &&
	    (buf = malloc((size_t)st.st_size + 1))) {
		*len = fread(buf, 1, (size_t)st.st_size, f);
		buf[*len] = 0;
	}
	fclose(f);
	return buf;
}

/* Line @n (1-based) of @buf, copied to @out; false past the end. */
static bool line_of(const char *buf, size_t len, uint32_t n, char *out, size_t cap)
{
	const char *p = buf, *end = buf + len, *nl;

	for (uint32_t i = 1; i < n; i++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return false;
		p = nl + 1;
	}
	if (p >= end)
		return false;
	nl = memchr(p, '\n', (size_t)(end - p));
	len = (size_t)((nl ? nl : end) - p);
	/* tabs expanded to 8 columns, other control bytes as spaces: one terminal line */
	for (size_t i = 0, o = 0; o + 1 < cap; i++) {
		if (i == len || p[i] == '\r') {
			out[o] = 0;
			return true;
		}
		if (p[i] == '\t') {
			do
				out[o++] = ' ';
			while (o % 8 && o + 1 < cap);
		} else {
			out[o++] = (unsigned char)p[i] < 0x20 ? ' ' : p[i];
		}
	}
	out[cap - 1] = 0;
	return true;
}

static char *open_mapped(const char *file, const struct annotate_opts *o, size_t *len,
			 char *used, size_t cap)
{
	for (size_t i = 0; i < o->nr_srcmap; i++) {
		size_t ol = strlen(o->srcmap_old[i]);
		char *buf;

		if (strncmp(file, o->srcmap_old[i], ol))
			continue;
		snprintf(used, cap, "%s%s", o->srcmap_new[i], file + ol);
		buf = load(used, len);
		if (buf)
			return buf;
	}
	snprintf(used, cap, "%s", file);
	return load(file, len);
}

void annotate_source(struct annotate_result *r, const struct annotate_opts *o)
{
	char text[512], used[4096];
	size_t nr_missing = 0;

	for (size_t i = 0; i < r->nr_lines; i++) {
		const char *file = r->lines[i].file;
		size_t len = 0;
		char *buf;
		bool done = false;

		for (size_t j = 0; j < i && !done; j++)
			done = r->lines[j].file == file;
		if (done)
			continue;	/* that file was handled with line j */
		buf = open_mapped(file, o, &len, used, sizeof(used));
		if (!buf && nr_missing++ < 3) {
			size_t l = strlen(r->missing);

			snprintf(r->missing + l, sizeof(r->missing) - l,
				 "%ssource %s not found (--source-dir OLD=NEW maps a moved tree)",
				 l ? "; " : "", file);
		}
		for (size_t j = i; buf && j < r->nr_lines; j++)
			if (r->lines[j].file == file &&
			    line_of(buf, len, r->lines[j].line, text, sizeof(text)))
				r->lines[j].text = annotate_intern(r, text);
		free(buf);
	}
}
