/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Names of Python frames: a code object's qualified name, file, first
 * line and location table (for the line being run), read once from the process's memory (process_vm_readv) when its
 * first sample is aggregated, while the process lives, and kept for the
 * session: a sample carries only the code object's address.
 */
#ifndef HC_SYM_PYTHON_NAMES_H
#define HC_SYM_PYTHON_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "sym/keymap.h"

struct python_layout;

struct python_names_stats {
	uint64_t named;		/* code objects read */
	uint64_t unreadable;	/* code objects whose memory could not be read (process gone) */
	uint64_t full;		/* code objects not named: the cache was full */
};

struct python_names;

/* At most @max code objects named over the session. NULL + errno. */
struct python_names *python_names__new(size_t max);
void python_names__free(struct python_names *pn);	/* NULL is a no-op */

/*
 * The id (> 0) of code object @code of process @tgid in its incarnation
 * @gen (a pid reused by another program has other code at the same
 * addresses), laid out as @l; read now if unknown. A code object that
 * cannot be read still gets an id, named "[python code 0x...]".
 */
uint32_t python_names__id(struct python_names *pn, uint32_t tgid, uint32_t gen, uint64_t code,
			  const struct python_layout *l);

/* "qualname (file:line)" of @id; NULL for an unknown id. */
const char *python_names__name(const struct python_names *pn, uint32_t id);

/*
 * The line being run in code object @id at instruction @instr (its index
 * + 1 in code units, abi/python.h; 0 unknown). 0 when unknown.
 */
int python_names__line(const struct python_names *pn, uint32_t id, uint32_t instr);

void python_names__stats(const struct python_names *pn, struct python_names_stats *st);

/*
 * Decode a PyUnicodeObject read into @obj (@n bytes: the header and the
 * data after it) as UTF-8 into @buf (NUL-terminated, truncated to @len).
 * Returns the bytes of data it still needs beyond @n (0: decoded), or
 * -EINVAL for what is not a compact string. Pure: unit-tested.
 */
long python_unicode_utf8(const uint8_t *obj, size_t n, const struct python_layout *l, char *buf,
			 size_t len);

/*
 * The line of code unit @idx from a code object's location table
 * (co_linetable, 3.11/3.12 format) of @n bytes, lines counted from
 * @first (co_firstlineno). 0 if @idx is past the table or has no line.
 * Pure: unit-tested.
 */
int python_line_at(const uint8_t *lt, size_t n, int first, uint32_t idx);

#endif /* HC_SYM_PYTHON_NAMES_H */
