// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Allocation-free demangling via libiberty callbacks (see demangle.h). */
#include "sym/demangle.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libiberty/demangle.h>

/*
 * The C++ demangler puts two components per input byte on the stack (a VLA
 * of ~48 bytes each). Symbol names come from untrusted files, so refuse
 * names that would need more than ~1 MiB of stack; they print mangled.
 */
#define DEMANGLE_MAX_NAME 16384

struct dm_out {
	char *buf;
	size_t len;		/* capacity incl. NUL */
	size_t pos;
};

static void dm_append(const char *s, size_t n, void *opaque)
{
	struct dm_out *o = opaque;
	size_t room = o->len - 1 - o->pos;

	if (n > room)
		n = room;
	memcpy(o->buf + o->pos, s, n);
	o->pos += n;
	o->buf[o->pos] = '\0';
}

bool demangle_is_mangled(const char *name)
{
	/* _Z: Itanium C++ and Rust legacy; _R: Rust v0 */
	return name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

int demangle_into(const char *name, char *buf, size_t len)
{
	struct dm_out o = { .buf = buf, .len = len };
	const int opts = DMGL_PARAMS | DMGL_ANSI;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	if (!demangle_is_mangled(name) || strnlen(name, DEMANGLE_MAX_NAME) == DEMANGLE_MAX_NAME)
		return -EINVAL;
	/*
	 * Rust first: a legacy Rust name is also valid Itanium C++, but only the
	 * Rust demangler drops the hash and decodes "$LT$"-style escapes. Without
	 * DMGL_VERBOSE it strips the "h<hash>" segment.
	 */
	if (rust_demangle_callback(name, opts, dm_append, &o))
		return 0;
	o.pos = 0;
	buf[0] = '\0';
	if (name[1] == 'Z' && cplus_demangle_v3_callback(name, opts, dm_append, &o))
		return 0;
	buf[0] = '\0';
	return -EINVAL;
}

void demangle_or_copy(const char *name, bool demangle, char *buf, size_t len)
{
	if (!len || (demangle && !demangle_into(name, buf, len)))
		return;
	snprintf(buf, len, "%s", name);
}
