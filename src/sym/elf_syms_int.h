/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Inside elf_syms: the object's state, shared by elf_syms.c (headers,
 * symbol tables, lookups) and elf_syms_debug.c (separate debug files,
 * debuginfod answers, MiniDebugInfo, the DWARF kept for source lines).
 */
#ifndef HC_SYM_ELF_SYMS_INT_H
#define HC_SYM_ELF_SYMS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gelf.h>

#include "sym/elf_debug.h"
#include "sym/elf_syms.h"
#include "sym/strtab.h"

struct elf_seg {
	uint64_t off;
	uint64_t vaddr;
	uint64_t filesz;
	bool exec;
};

struct elf_range {
	uint64_t start;
	uint64_t end;
};

struct esym {
	uint64_t addr;
	uint64_t size;		/* extent used by lookup */
	uint32_t name;		/* strtab offset */
	uint8_t rank;		/* lower wins among aliases: binding, then underscores */
	bool inferred;		/* st_size was 0: extent runs to the next known start */
};

struct elf_syms {
	int fd;
	int debug_fd;
	char *debug_path;
	void *image;		/* elf_memory() copy (vdso), freed after load */
	size_t image_size;
	struct elf_ident id;
	struct elf_seg *segs;
	size_t nr_segs;
	struct elf_range *text;	/* executable sections, else executable segments */
	size_t nr_text;
	bool loaded;
	int load_err;
	struct esym *syms;
	size_t nr;
	size_t cap;
	struct strtab names;
	uint64_t *fde;		/* function starts from .eh_frame_hdr, during load only, */
	size_t nr_fde;		/* ... or for good where there is no .symtab: */
	uint64_t *fde_end;	/* their ends (0: unknown), which name unnamed code */
	bool keep_fde;
	bool minidebug;		/* named from .gnu_debugdata */
	struct dbgfetch *fetch;	/* asked for the debug file, answer not picked up yet */
	int fetch_slot;
	int dwarf_fd;		/* the file with this object's DWARF, kept past load for
				 * source lines (elf_syms__take_dwarf_fd()); -1: none */
};

/* An Elf handle on @fd, or on the in-memory image when @fd is the object's own (vdso). */
Elf *elf_syms__begin(struct elf_syms *es, int fd);
/* Add the function symbols of table @sh (section @scn of @elf). 0 or -errno. */
int elf_syms__read_symtab(struct elf_syms *es, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh);
/*
 * Add the symbols of the tables of @type (SHT_SYMTAB/SHT_DYNSYM) in @fd;
 * @fdes: read the .eh_frame function starts too. 0 or -errno.
 */
int elf_syms__read_symbols(struct elf_syms *es, int fd, GElf_Word type, bool fdes);
/* Sort, drop aliases, bound size-0 symbols. */
void elf_syms__finish(struct elf_syms *es);

/* elf_syms_debug.c */
/* Locate the separate debug file of an object without .symtab, else ask debuginfod. */
void elf_syms__find_debug(struct elf_syms *es, const struct elf_syms_opts *o);
/*
 * The debuginfod answer, if it has come: 0 with es->debug_fd and
 * es->debug_path set, -EINPROGRESS (ask again later) or -ENOENT (none).
 */
int elf_syms__take_fetched(struct elf_syms *es);
/* Symbols were loaded while the fetch was in flight: use the debug file if it has come since. */
void elf_syms__load_fetched(struct elf_syms *es);
/* Add the .symtab of the object's MiniDebugInfo, if any. 0 or -ENOMEM. */
int elf_syms__read_minidebug(struct elf_syms *es);
/*
 * Before the fds close at load: keep the debug file's fd, else the
 * object's, as es->dwarf_fd if it holds DWARF (.debug_info).
 */
void elf_syms__keep_dwarf(struct elf_syms *es);

#endif /* HC_SYM_ELF_SYMS_INT_H */
