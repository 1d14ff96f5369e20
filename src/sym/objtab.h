/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The symbolizer's object table: every mapped file, vdso image and per-process
 * JIT region gets a small integer id (from 1) that frames carry until they
 * are named. Files are deduplicated by (dev, inode) and opened while their
 * process is alive, so they can be named after it exits.
 */
#ifndef HC_SYM_OBJTAB_H
#define HC_SYM_OBJTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sym/procmaps.h"

struct objtab;

struct objtab_opts {
	const char *proc_root;		/* "/proc" or a fake tree */
	const char *debug_root;		/* separate debug files */
	const char *perfmap_dir;	/* perf-PID.map files */
	size_t max_objects;		/* objects held at once, at most */
	bool demangle;
	struct dbgfetch *fetch;		/* debuginfod, or NULL; outlives the table */
};

struct objtab_stats {
	uint64_t objects;		/* ELF objects (files, vdso images) opened */
	uint64_t object_errors;		/* ... that could not be opened or parsed */
	uint64_t objects_dropped;	/* not opened: max_objects reached */
	uint64_t objects_evicted;	/* freed by objtab__sweep() */
	uint64_t objects_live;		/* held now (not evicted) */
	uint64_t srcline_objects;	/* objects whose DWARF was opened for source lines */
	uint64_t srclines_skipped;	/* lookups refused: the object's SRCLINE_CACHE_MAX
					 * addresses were known already */
};

/* NULL + errno. The strings in @o are copied. */
struct dbgfetch;
struct objtab *objtab__new(const struct objtab_opts *o);
void objtab__free(struct objtab *ot);	/* NULL is a no-op */

/*
 * Id of the file mapped by @m in @tgid, opening it on first sight through
 * /proc/@tgid/map_files (or /proc/@tgid/root/<path>, same inode only).
 * A file that cannot be opened still gets an id, named "<basename>+0x..".
 * 0 when the table is full. *@not_elf (optional) tells that the file is no
 * ELF object (e.g. a memfd holding JIT code), i.e. a perf map may name it.
 */
uint32_t objtab__file(struct objtab *ot, uint32_t tgid, const struct procmap *m, bool *not_elf);

/*
 * Id of an object the table already holds: the file (@m's dev, inode) or,
 * for a PROCMAP_VDSO @m, the vdso image of its size; 0 if unknown. Opens
 * nothing: for a process that is gone, whose mappings are known only from
 * the maps BPF read at its exit (abi/common.h) and whose files only
 * through other processes that map them. *@not_elf (optional) as for objtab__file().
 */
uint32_t objtab__known(struct objtab *ot, const struct procmap *m, bool *not_elf);

/*
 * Open the file mapped by @m in @tgid (read-only, a regular file only):
 * through <@proc_root>/@tgid/map_files, else <@proc_root>/@tgid/root<path>
 * if that is still the mapped inode. An fd, or -errno (-ENOEXEC: not a
 * regular file). objtab__file() opens objects so; sym/hotspot.c its libjvm.so.
 */
int objtab_open_mapped(const char *proc_root, uint32_t tgid, const struct procmap *m);

/* Id of the vdso mapped by @m, read from /proc/@tgid/mem once per image size; 0 on failure. */
uint32_t objtab__vdso(struct objtab *ot, uint32_t tgid, const struct procmap *m);

/*
 * A new pseudo object for @tgid's anonymous executable memory, named from
 * <perfmap_dir>/perf-@tgid.map when that is owned by @uid or root. A process
 * in a child pid namespace (@nspid != @tgid) writes perf-@nspid.map in the
 * /tmp of its own root: that directory is opened now, while it is alive.
 * 0 when the table is full.
 */
uint32_t objtab__jit(struct objtab *ot, uint32_t tgid, uint32_t nspid, uid_t uid);

/*
 * Name @addr (file offset, or raw ip for a JIT object) of object @id into
 * @buf, as symbolizer__user_name() documents; *@flags gets SYM_F_* bits.
 * 0, or -errno when the object is unusable (@buf still holds a fallback).
 */
int objtab__name(struct objtab *ot, uint32_t id, uint64_t addr, char *buf, size_t len,
		 unsigned int *flags);
/* The same, and *@sym_off gets @addr's distance from its symbol's start (UINT64_MAX: none). */
int objtab__name_off(struct objtab *ot, uint32_t id, uint64_t addr, char *buf, size_t len,
		     unsigned int *flags, uint64_t *sym_off);

/*
 * Eviction in two steps: mark every object still referenced, then sweep
 * frees the others that were not looked up or named since the previous
 * sweep either (files closed, symbols dropped; a program started again and
 * again keeps its loaded symbols), and their ids are handed out again. So the caller must hold no frame with an unmarked id: sweep
 * only between a written interval and the next sample. Returns the number
 * of objects freed.
 */
/* An object as a profile's mapping describes it. */
struct objtab_info {
	const char *path;	/* as mapped ("[vdso]"); lives as long as the object */
	char build_id[41];	/* GNU build ID, lowercase hex; "" if none (or longer) */
	uint64_t seg_start;	/* file offsets the segment holding the address maps */
	uint64_t seg_end;	/* (elf_syms__segment_of()); both 0 if unknown */
};

/* The object @id and the segment of its file offset @addr. 0, or -ENOENT (unknown id). */
int objtab__info(struct objtab *ot, uint32_t id, uint64_t addr, struct objtab_info *out);

struct srcline_frame;
/*
 * Source lines at file offset @addr of object @id, from its DWARF (opened
 * on first use, kept with the object; srcline__get()): the functions
 * running there, innermost first, names demangled as the table's, up to
 * @max into @out. Returns how many; 0 when the object has no DWARF or it
 * says nothing of @addr, or once its address cache is full (counted in
 * srclines_skipped).
 */
int objtab__srcline(struct objtab *ot, uint32_t id, uint64_t addr, struct srcline_frame *out,
		    size_t max);

void objtab__mark(struct objtab *ot, uint32_t id);
size_t objtab__sweep(struct objtab *ot);

void objtab__stats(const struct objtab *ot, struct objtab_stats *st);

#endif /* HC_SYM_OBJTAB_H */
