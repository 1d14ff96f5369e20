// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Source lines and inline frames through libdw (see srcline.h). */
#include "sym/srcline.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

struct srcline {
	int fd;
	Dwarf *dw;
};

struct srcline *srcline__open(int fd)
{
	struct srcline *sl = calloc(1, sizeof(*sl));

	if (!sl) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	sl->fd = fd;
	/* NULL for a file without .debug_info (a stripped object) */
	sl->dw = dwarf_begin(fd, DWARF_C_READ);
	if (!sl->dw) {
		srcline__free(sl);
		errno = ENOENT;
		return NULL;
	}
	return sl;
}

void srcline__free(struct srcline *sl)
{
	if (!sl)
		return;
	if (sl->dw)
		dwarf_end(sl->dw);
	if (sl->fd >= 0)
		close(sl->fd);
	free(sl);
}

/* The linkage name where there is one (as .symtab has it), else the name; via abstract origins. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) && (s = dwarf_formstring(&a)))
		return s;
	if (dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a) && (s = dwarf_formstring(&a)))
		return s;
	if (dwarf_attr_integrate(die, DW_AT_name, &a) && (s = dwarf_formstring(&a)))
		return s;
	return NULL;
}

/* The call site of inlined subroutine @die: file (from @cu's file table) and line. */
static void call_site(Dwarf_Die *die, Dwarf_Die *cu, const char **file, int *line)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	Dwarf_Files *files;
	size_t nfiles;

	*file = NULL;
	*line = 0;
	if (dwarf_attr(die, DW_AT_call_line, &a) && !dwarf_formudata(&a, &w))
		*line = (int)w;
	if (dwarf_attr(die, DW_AT_call_file, &a) && !dwarf_formudata(&a, &w) &&
	    !dwarf_getsrcfiles(cu, &files, &nfiles) && w < nfiles)
		*file = dwarf_filesrc(files, w, NULL, NULL);
}

static bool is_function(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	return tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram;
}

/*
 * The function scope around @die in the concrete tree (where it was inlined,
 * not its abstract definition's scopes, which dwarf_getscopes() follows
 * after an inlined subroutine) into *@out. false at the top.
 */
static bool caller_scope(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Die *sc = NULL;
	int n = dwarf_getscopes_die(die, &sc);
	bool found = false;

	/* sc[0] is @die itself, then its parents, innermost first */
	for (int i = 1; i < n && !found; i++) {
		if (is_function(&sc[i])) {
			*out = sc[i];
			found = true;
		}
	}
	free(sc);
	return found;
}

int srcline__lookup(struct srcline *sl, uint64_t vaddr, struct srcline_frame *out, size_t max)
{
	Dwarf_Die cu, die, *scopes = NULL;
	const char *file = NULL;
	bool have = false;
	Dwarf_Line *ln;
	int line = 0, n, k = 0;

	if (!max || !dwarf_addrdie(sl->dw, vaddr, &cu))
		return 0;
	ln = dwarf_getsrc_die(&cu, vaddr);
	if (ln) {
		file = dwarf_linesrc(ln, NULL, NULL);
		dwarf_lineno(ln, &line);
	}
	/* innermost scope first: lexical blocks, then the innermost (inlined) function */
	n = dwarf_getscopes(&cu, vaddr, &scopes);
	for (int i = 0; i < n && !have; i++) {
		if (is_function(&scopes[i])) {
			die = scopes[i];
			have = true;
		}
	}
	free(scopes);
	/* bounded: each step goes one function out, and by @max */
	while (have && (size_t)k < max) {
		out[k++] = (struct srcline_frame){ die_name(&die), file, line };
		if (dwarf_tag(&die) == DW_TAG_subprogram)
			break;
		/* the caller's line is where this one was inlined */
		call_site(&die, &cu, &file, &line);
		have = caller_scope(&die, &die);
	}
	/* line info but no function scope (assembly, or no DIE for it) */
	if (!k && ln)
		out[k++] = (struct srcline_frame){ NULL, file, line };
	return k;
}
