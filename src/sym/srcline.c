// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Source lines and inline frames through libdw (see srcline.h). */
#include "sym/srcline.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sym/demangle.h"
#include "sym/strtab.h"
#include "util/hash.h"

/* A remembered address: its frames are frs[first .. first + n). */
struct sl_slot {
	uint64_t vaddr;
	uint32_t first;
	uint8_t n;
	bool used;
};

struct sl_frame {
	uint32_t func;		/* offset in names; SL_NO_NAME: unknown */
	const char *file;	/* libdw's string, lives with the Dwarf */
	int line;
};

#define SL_NO_NAME UINT32_MAX

/* A CU's address range, for DWARF without .debug_aranges (clang emits none by default). */
struct sl_cu {
	uint64_t lo, hi;
	Dwarf_Off die;		/* the CU DIE's offset */
};

struct srcline {
	int fd;
	Dwarf *dw;
	struct sl_cu *cus;	/* sorted by lo; built at the first address aranges miss */
	size_t nr_cus;
	bool cus_built;
	struct sl_slot *slots;	/* open addressing by vaddr */
	size_t mask, nr;
	struct sl_frame *frs;
	size_t nr_frs, cap_frs;
	struct strtab names;	/* demangled (or copied) function names */
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
	strtab__init(&sl->names);
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
	free(sl->slots);
	free(sl->frs);
	free(sl->cus);
	strtab__release(&sl->names);
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

static int cu_cmp(const void *a, const void *b)
{
	const struct sl_cu *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Every CU's ranges (DW_AT_low/high_pc or DW_AT_ranges), once: bounded by the CUs. */
static void cus_build(struct srcline *sl)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;
	Dwarf_Die cu;

	sl->cus_built = true;
	while (dwarf_nextcu(sl->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t it = 0;

		while (dwarf_offdie(sl->dw, off + hsize, &cu) &&
		       (it = dwarf_ranges(&cu, it, &base, &lo, &hi)) > 0) {
			if (hi <= lo)
				continue;
			if (sl->nr_cus == cap) {
				struct sl_cu *v = reallocarray(sl->cus, cap ? cap * 2 : 64, sizeof(*v));

				if (!v)
					goto out;
				sl->cus = v;
				cap = cap ? cap * 2 : 64;
			}
			sl->cus[sl->nr_cus++] = (struct sl_cu){ lo, hi, off + hsize };
		}
		off = next;
	}
out:
	qsort(sl->cus, sl->nr_cus, sizeof(*sl->cus), cu_cmp);
}

/* The CU holding @vaddr: by .debug_aranges, else by the CUs' own ranges. */
static bool cu_of(struct srcline *sl, uint64_t vaddr, Dwarf_Die *cu)
{
	size_t lo = 0, hi;

	if (dwarf_addrdie(sl->dw, vaddr, cu))
		return true;
	if (!sl->cus_built)
		cus_build(sl);
	hi = sl->nr_cus;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sl->cus[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ranges may nest or overlap (a CU's ranges list); look back a little */
	for (size_t i = lo, n = 0; i-- > 0 && n < 8; n++)
		if (vaddr < sl->cus[i].hi)
			return dwarf_offdie(sl->dw, sl->cus[i].die, cu) != NULL;
	return false;
}

int srcline__lookup(struct srcline *sl, uint64_t vaddr, struct srcline_frame *out, size_t max)
{
	Dwarf_Die cu, die, *scopes = NULL;
	const char *file = NULL;
	bool have = false;
	Dwarf_Line *ln;
	int line = 0, n, k = 0;

	if (!max || !cu_of(sl, vaddr, &cu))
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

static int sl_grow(struct srcline *sl)
{
	size_t n = sl->slots ? (sl->mask + 1) * 2 : 64, pos;
	struct sl_slot *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; sl->slots && i <= sl->mask; i++) {
		if (!sl->slots[i].used)
			continue;
		for (pos = hash_u64(sl->slots[i].vaddr) & (n - 1); slots[pos].used;
		     pos = (pos + 1) & (n - 1))
			;
		slots[pos] = sl->slots[i];
	}
	free(sl->slots);
	sl->slots = slots;
	sl->mask = n - 1;
	return 0;
}

/* The slot of @vaddr, or the empty one it would take. */
static struct sl_slot *sl_find(struct srcline *sl, uint64_t vaddr)
{
	size_t pos = hash_u64(vaddr) & sl->mask;

	while (sl->slots[pos].used && sl->slots[pos].vaddr != vaddr)
		pos = (pos + 1) & sl->mask;
	return &sl->slots[pos];
}

/* Remember @n frames @f of an address into frs; their first index in *@first. */
static int sl_store(struct srcline *sl, const struct srcline_frame *f, int n, bool demangle,
		    uint32_t *first)
{
	char buf[512];

	if (sl->nr_frs + (size_t)n > sl->cap_frs) {
		size_t cap = sl->cap_frs ? sl->cap_frs * 2 : 256;
		struct sl_frame *v = reallocarray(sl->frs, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		sl->frs = v;
		sl->cap_frs = cap;
	}
	*first = (uint32_t)sl->nr_frs;
	for (int i = 0; i < n; i++) {
		struct sl_frame *d = &sl->frs[sl->nr_frs + i];

		d->func = SL_NO_NAME;
		d->file = f[i].file;
		d->line = f[i].line;
		if (!f[i].func)
			continue;
		demangle_or_copy(f[i].func, demangle, buf, sizeof(buf));
		if (strtab__add(&sl->names, buf, strlen(buf), &d->func))
			return -ENOMEM;
	}
	sl->nr_frs += n;
	return 0;
}

int srcline__get(struct srcline *sl, uint64_t vaddr, bool demangle, struct srcline_frame *out,
		 size_t max)
{
	struct srcline_frame f[SRCLINE_MAX_FRAMES];
	struct sl_slot *s;
	uint32_t first;
	int n, err;

	if ((!sl->slots || sl->nr + 1 > (sl->mask + 1) / 2) && sl->nr < SRCLINE_CACHE_MAX &&
	    sl_grow(sl))
		return -ENOMEM;
	s = sl_find(sl, vaddr);
	if (!s->used) {
		if (sl->nr >= SRCLINE_CACHE_MAX)
			return -ENOSPC;
		n = srcline__lookup(sl, vaddr, f, SRCLINE_MAX_FRAMES);
		err = sl_store(sl, f, n, demangle, &first);
		if (err)
			return err;
		*s = (struct sl_slot){ .vaddr = vaddr, .first = first, .n = (uint8_t)n,
				       .used = true };
		sl->nr++;
	}
	n = s->n < max ? s->n : (int)max;
	for (int i = 0; i < n; i++) {
		const struct sl_frame *d = &sl->frs[s->first + i];

		out[i] = (struct srcline_frame){
			.func = d->func == SL_NO_NAME ? NULL : strtab__str(&sl->names, d->func),
			.file = d->file,
			.line = d->line,
		};
	}
	return n;
}
