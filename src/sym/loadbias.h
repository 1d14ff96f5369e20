/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The load bias of a file mapping: which PT_LOAD segment a /proc/PID/maps
 * entry maps, and so object vaddr = address - bias. The one place that
 * computes it (unwind tables, data symbols).
 */
#ifndef HC_SYM_LOADBIAS_H
#define HC_SYM_LOADBIAS_H

#include <stddef.h>
#include <stdint.h>

#include <gelf.h>

#include "sym/procmaps.h"

#define LOAD_MAX_SEGS 16

/* A PT_LOAD: file bytes [off, off + filesz) load at vaddr, memsz bytes in all. */
struct load_seg {
	uint64_t off, filesz, vaddr, memsz;
	uint32_t flags;		/* PF_R | PF_W | PF_X */
};

struct load_layout {
	struct load_seg segs[LOAD_MAX_SEGS];
	size_t nr;
	/* PT_GNU_RELRO [vaddr, vaddr + size): mprotect()ed read-only after relocation */
	uint64_t relro_vaddr, relro_size;
};

/* @elf's PT_LOADs with file bytes (the first LOAD_MAX_SEGS) and its RELRO. 0 or -ENOEXEC. */
int load_layout_read(Elf *elf, struct load_layout *ll);

/*
 * The bias of mapping @m of the object laid out as @ll, with pages of @page
 * bytes: the mapping's address - bias is the object's vaddr.
 *
 * The kernel maps a segment from the page holding p_offset, so a mapping's
 * file offset is p_offset rounded down. LLD packs segments without padding
 * the file (p_offset % page == p_vaddr % page, but several segments share a
 * file page), so one file page can be the start of up to three mappings of
 * different segments: the permissions pick the one (x must match; a
 * read-only mapping of a writable segment is its RELRO part, a writable one
 * lies outside it). One ambiguity is left: a read-only mapping of a page
 * holding both a read-only segment and the start of RELRO fits either (the
 * first wins); code and writable data, what callers ask about, do not.
 * 0, or -ENOENT when no segment fits.
 */
int load_bias(const struct load_layout *ll, const struct procmap *m, uint64_t page,
	      uint64_t *bias);

#endif /* HC_SYM_LOADBIAS_H */
