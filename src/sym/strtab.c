// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Append-only string arena with 32-bit offsets (see strtab.h). */
#include "sym/strtab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void strtab__init(struct strtab *st)
{
	st->buf = NULL;
	st->len = 0;
	st->cap = 0;
}

void strtab__release(struct strtab *st)
{
	free(st->buf);
	strtab__init(st);
}

static int strtab__reserve(struct strtab *st, size_t need)
{
	size_t cap = st->cap ? st->cap : 4096;
	char *buf;

	if (need <= st->cap)
		return 0;
	if (need > UINT32_MAX)
		return -E2BIG;
	while (cap < need)
		cap *= 2;
	buf = realloc(st->buf, cap);
	if (!buf)
		return -ENOMEM;
	st->buf = buf;
	st->cap = cap;
	return 0;
}

int strtab__add(struct strtab *st, const char *s, size_t n, uint32_t *off)
{
	int err;

	if (!st->len) {
		/* reserve offset 0 for "" (STRTAB_EMPTY) */
		err = strtab__reserve(st, 1);
		if (err)
			return err;
		st->buf[0] = '\0';
		st->len = 1;
	}
	if (n > UINT32_MAX - st->len - 1)
		return -E2BIG;
	err = strtab__reserve(st, st->len + n + 1);
	if (err)
		return err;
	memcpy(st->buf + st->len, s, n);
	st->buf[st->len + n] = '\0';
	*off = (uint32_t)st->len;
	st->len += n + 1;
	return 0;
}

void strtab__shrink(struct strtab *st)
{
	char *buf;

	if (!st->buf || st->len == st->cap)
		return;
	buf = realloc(st->buf, st->len);
	if (buf) {
		st->buf = buf;
		st->cap = st->len;
	}
}
