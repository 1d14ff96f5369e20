/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Source lines and inline frames of code addresses, from DWARF (libdw),
 * where debug info exists: the object's own, or its separate debug file
 * (elf_syms__debug_path()). For pprof Line entries (function, file:line,
 * one per inlined frame) and `go tool pprof -lines`.
 */
#ifndef HC_SYM_SRCLINE_H
#define HC_SYM_SRCLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct srcline;

struct srcline_frame {
	const char *func;	/* raw (mangled) name, as in .symtab; NULL: unknown */
	const char *file;	/* source path as DWARF has it; NULL: unknown */
	int line;		/* 0: unknown */
};

/*
 * The DWARF of the ELF file behind @fd (taken over: closed by
 * srcline__free(), or here on failure). NULL + errno: ENOENT (no DWARF),
 * ENOMEM.
 */
struct srcline *srcline__open(int fd);
void srcline__free(struct srcline *sl);	/* NULL is a no-op */

/*
 * The frames at ELF virtual address @vaddr, innermost first: each function
 * inlined there (with the line executing in it), then the function that
 * holds the code, last. A caller's line is its call site of the frame
 * before it. Up to @max frames into @out; returns how many (0: no line info
 * for @vaddr). Strings live as long as @sl.
 */
int srcline__lookup(struct srcline *sl, uint64_t vaddr, struct srcline_frame *out, size_t max);

/* Addresses one srcline remembers, at most: bounds its memory and its DWARF work. */
#define SRCLINE_CACHE_MAX 16384
/* Frames kept per address (inline depth + 1); a deeper chain keeps its innermost. */
#define SRCLINE_MAX_FRAMES 16

/*
 * srcline__lookup() remembered per address, with function names demangled
 * when @demangle (one setting per @sl: the first call's is what is kept).
 * Returns the frames written; -ENOSPC when @vaddr is new and
 * SRCLINE_CACHE_MAX addresses are known already (no DWARF work done: the
 * caller counts it); -ENOMEM. Strings live as long as @sl.
 */
int srcline__get(struct srcline *sl, uint64_t vaddr, bool demangle, struct srcline_frame *out,
		 size_t max);

#endif /* HC_SYM_SRCLINE_H */
