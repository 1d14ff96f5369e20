// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: the folded reader on arbitrary bytes, then the model's
 * invariants (totals add up, recursion counted once, write/read is stable).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/profile.h"
#include "output/folded.h"
#include "util/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* NULL when the profile cannot be written: on-CPU x period past UINT64_MAX (hot/cold) */
static char *write_text(const struct profile *p, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int err;

	if (!f)
		abort();
	err = profile__write_folded(p, f);
	fclose(f);
	if (err == -EOVERFLOW) {
		free(buf);
		return NULL;
	}
	if (err)
		abort();
	return buf;
}

static struct profile *read_mem(const void *data, size_t size, struct folded_read_stats *st)
{
	struct profile *p = profile__new();
	FILE *f;
	int err;

	if (!p)
		abort();
	/* fmemopen() refuses 0 bytes; no input is an empty profile */
	if (!size) {
		memset(st, 0, sizeof(*st));
		return p;
	}
	f = fmemopen((void *)data, size, "r");
	if (!f)
		abort();
	err = profile__read_folded(p, f, PROFILE_KIND_ONCPU, st);
	fclose(f);
	/* refused input: binary (a NUL byte) or a header this version cannot use */
	if ((err == -EILSEQ && st->binary_line) || (err == -EPROTO && st->bad_header_line)) {
		profile__free(p);
		return NULL;
	}
	if (err)
		abort();
	return p;
}

/* Self sums to the total; no frame's inclusive exceeds it or falls below its self. */
static void check_totals(const struct profile *p)
{
	uint64_t total = profile__total(p, PROFILE_KIND_ONCPU), self = 0;
	struct frame_total *t;
	size_t nr, i;
	uint32_t hot;

	if (profile__frame_totals(p, PROFILE_KIND_ONCPU, &t, &nr))
		abort();
	for (i = 0; i < nr; i++) {
		if (t[i].inclusive > total || t[i].self > t[i].inclusive)
			abort();
		if (i && t[i].self > t[i - 1].self)
			abort();
		self += t[i].self;
	}
	if (self != total)
		abort();
	if (profile__hottest(p, PROFILE_KIND_ONCPU, &hot, NULL) != (total > 0))
		abort();
	if (total && hot != t[0].frame)
		abort();
	free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct folded_read_stats st;
	struct profile *p, *q;
	char *once, *twice;
	size_t len1, len2;

	log_set_level(LOG_WARN);
	p = read_mem(data, size, &st);
	if (!p)
		return 0;
	if (st.malformed > st.lines || (st.malformed && !st.first_bad_line))
		abort();
	check_totals(p);
	once = write_text(p, &len1);
	if (!once) {
		profile__free(p);
		return 0;
	}
	/* what hotcold writes it reads back: same totals, same text */
	q = read_mem(once, len1, &st);
	if (!q || st.malformed || profile__total(q, PROFILE_KIND_ONCPU) !=
				    profile__total(p, PROFILE_KIND_ONCPU))
		abort();
	twice = write_text(q, &len2);
	if (len1 != len2 || memcmp(once, twice, len1))
		abort();
	free(once);
	free(twice);
	profile__free(p);
	profile__free(q);
	return 0;
}
