/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The symbolizer's insides, shared by its two files: symbolizer_procs.c
 * keeps each process's snapshot of executable mappings and turns ips into
 * (object, offset); symbolizer.c names them and owns the whole.
 */
#ifndef HC_SYM_SYMBOLIZER_INT_H
#define HC_SYM_SYMBOLIZER_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sym/keymap.h"
#include "sym/symbolizer.h"

/*
 * A miss re-reads a process's maps at once (a fresh process's first sample
 * often precedes ld.so mapping libc), then backs off while misses keep
 * finding nothing new (garbage ips from frame-pointer walks), up to once a
 * second; a re-read that finds the ip resets the backoff.
 */
#define SYM_REREAD_MIN_NS	1000000ull
#define SYM_REREAD_MAX_NS	1000000000ull
/* above the x86-64 / arm64 user address space: never a mapping, never re-read */
#define SYM_USER_ADDR_END	(1ull << 56)
#define SYM_UNKNOWN		"[unknown]"

enum sym_map_kind {
	MAP_NONE,		/* not nameable ([vsyscall], dropped object): obj 0 */
	MAP_OBJ,		/* file offset in obj */
	MAP_ANON,		/* raw ip in the process's JIT object */
};

struct sym_map {
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	uint32_t obj;
	enum sym_map_kind kind;
};

struct sym_proc {
	uint32_t tgid;
	uid_t uid;		/* owner its perf map must have */
	uint32_t nspid;		/* pid in its own pid namespace */
	uint32_t jit_obj;	/* 0 until an anon mapping is hit */
	struct sym_map *maps;	/* sorted by start */
	size_t nr_maps;
	uint64_t read_ns;	/* last read attempt */
	uint64_t reread_gap_ns;	/* backoff before the next miss-driven re-read */
	bool snapshot;		/* maps were read at least once (or came at exit) */
	bool from_exit;		/* ... only from the maps BPF read at its exit */
	bool status_read;	/* uid and nspid are known (read on the first JIT frame) */
};

struct symbolizer {
	char *kallsyms_path;
	char *proc_root;
	bool demangle;
	struct objtab *objs;
	struct dbgfetch *fetch;	/* debuginfod worker, or NULL */
	struct keymap procs;	/* (tgid, 0) -> struct sym_proc * */
	struct kallsyms *ks;
	int ks_err;		/* nonzero: kallsyms could not be loaded; not retried */
	struct symbolizer_stats st;
	const struct python_names *py;	/* names of SYM_OBJ_PYTHON frames, or NULL */
	struct hotspot *hs;	/* JVMs' code caches, or NULL (no_hotspot) */
	struct v8 *v8;		/* V8 processes' heaps, or NULL (no_v8) */
};

/* ---- process snapshots -------------------------------------------------- */

void sym_proc_free(struct sym_proc *p);

#endif /* HC_SYM_SYMBOLIZER_INT_H */
