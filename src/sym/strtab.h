/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Append-only string arena for the symbol tables: names are referred to by a
 * 32-bit offset, so a table of 100k symbols costs one allocation, not 100k,
 * and growing the arena (realloc) never invalidates a stored reference.
 */
#ifndef HC_SYM_STRTAB_H
#define HC_SYM_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct strtab {
	char *buf;
	size_t len;
	size_t cap;
};

/* Offset 0 is always the empty string, so a zeroed reference is valid. */
#define STRTAB_EMPTY 0u

/* Start empty (no allocation until the first add). */
void strtab__init(struct strtab *st);
void strtab__release(struct strtab *st);	/* frees the buffer; st is reusable */

/*
 * Copy @n bytes of @s (need not be NUL-terminated) plus a NUL; store its
 * offset in *@off. 0, -ENOMEM, or -E2BIG past 4 GiB.
 */
int strtab__add(struct strtab *st, const char *s, size_t n, uint32_t *off);

/* The string at @off; valid until the next strtab__add(). */
static inline const char *strtab__str(const struct strtab *st, uint32_t off)
{
	return st->buf ? st->buf + off : "";
}

/* Give back unused capacity once a table is complete. */
void strtab__shrink(struct strtab *st);

#endif /* HC_SYM_STRTAB_H */
