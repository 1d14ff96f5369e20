/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Internals shared by unwind/tables.c (processes) and unwind/tables_obj.c
 * (objects and their tables). Not for use elsewhere.
 */
#ifndef HC_UNWIND_TABLES_INT_H
#define HC_UNWIND_TABLES_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>
#include <libelf.h>

#include "abi/unwind.h"
#include "sym/keymap.h"
#include "sym/loadbias.h"
#include "sym/procmaps.h"
#include "unwind/cfi_tree.h"
#include "unwind/tables.h"

/* the kernel stores array values rounded up to 8 bytes (384-byte nodes are already) */
#define NODE_BYTES ((sizeof(struct hc_cfi_node) + 7) & ~(size_t)7)

/* files up to this size get their tables built in line (~1 ms), bigger ones on the builder */
#define UT_INLINE_BUILD_BYTES (256u << 10)
/*
 * A re-read's new objects (a dlopen()ed library) are built on the builder
 * thread, first in its queue, and the re-read waits this long for them: a
 * build takes ~1 ms, but one took 563 ms in CI (cold cache, a loaded
 * machine) and held the re-read, so every mapping of the process, with it.
 */
#define UT_REREAD_WAIT_NS (20 * 1000000ull)
/* a table build slower than this is logged (-v) with its phases */
#define UT_SLOW_BUILD_NS (50 * 1000000ull)
/* idle tables unused this long are unloaded: churn has moved on to other binaries */
#define UT_IDLE_TTL_NS (60 * 1000000000ull)
/* idle objects remembered at most (those without a table cost no kernel memory) */
#define UT_MAX_IDLE_OBJS 1024

struct uobj {
	uint64_t key_a, inode;	/* (dev, inode): its key in unwind_tables.objs */
	uint64_t serial;	/* tells a rebuilt object from an evicted one of the same key */
	bool building;		/* its table is being built on the builder thread */
	uint32_t id;		/* key in unwind_objs; 0: no table (FP fallback) */
	uint32_t stamp;		/* its table's, never reused (hc_unwind_map.stamp) */
	uint32_t nr_rows;
	uint32_t nr_nodes;	/* elements of its inner array */
	uint32_t height;	/* of its tree: inner levels above the leaves */
	uint32_t refs;		/* registered processes mapping it; 0: idle */
	struct load_layout ll;	/* its PT_LOADs: the bias of each mapping */
	/* the file as it was built, checked before an idle table is used again */
	uint64_t f_size, f_mtime_ns, f_ctime_ns;
	struct uobj *idle_prev, *idle_next;	/* in unwind_tables' idle list */
	uint64_t idle_ns;			/* when it went idle */
};

/* A mapping published without its object's table, which is being built. */
struct upending {
	uint32_t idx;		/* in the published hc_unwind_proc.maps */
	struct uobj *ob;	/* referenced by the process: alive while it is */
};

/* A published mapping as the loop remembers it: is a walk's end pc in it? */
struct urange {
	uint64_t start, end;
	uint32_t obj;		/* its table's id; 0: walked by frame pointer */
};

struct uproc {
	uint32_t tgid;
	struct upending *pending;	/* filled in as their tables come */
	size_t nr_pending;
	struct urange *ranges;	/* as published, sorted by address */
	size_t nr_ranges;
	uint64_t read_ns;	/* maps last read */
	uint64_t gap_ns;	/* refresh backoff: pcs an FP step may have made up */
	uint64_t sure_gap_ns;	/* ... pcs from the registers or a CFI step */
	struct uobj **objs;	/* distinct objects it references (one ref each) */
	size_t nr_objs;
	bool build;		/* build missing tables (else leave their mappings to FP) */
	size_t missing;		/* mappings left without a table to build */
};

struct unwind_tables {
	int procs_fd, objs_fd;
	struct unwind_tables_opts o;
	struct keymap objs;	/* (dev, inode) -> struct uobj *; the vdso under (0, 0) */
	struct keymap procs;	/* (tgid, 0) -> struct uproc * */
	uint32_t next_id;	/* ids never used yet: next_id .. max_objects */
	uint32_t *free_ids;	/* a FIFO of released ids, max_objects slots */
	size_t free_head, free_nr;
	uint64_t table_bytes;	/* kernel memory of the objects' nodes now */
	/* objects no process maps, oldest first: kept until the idle limits evict them */
	struct uobj *idle_head, *idle_tail;
	size_t idle_rows;
	uint64_t next_serial;
	uint32_t last_stamp;	/* of the last table published */
	struct ubuilder *bld;	/* the builder thread; NULL: tables built in line */
	/* set around one call: where the builds it starts go (tables_obj.c) */
	enum {
		UT_BUILD_BY_SIZE,	/* small ones in line, large ones on the builder */
		UT_BUILD_INLINE,	/* in line even with a builder */
		UT_BUILD_ASYNC,		/* every one on the builder */
		UT_BUILD_REREAD,	/* every one on the builder, first (a re-read) */
	} build_mode;
	struct unwind_tables_stats st;
};

/* What building a table produces (tables_obj.c), on the builder thread or in line. */
struct ubuilt {
	struct cfi_tree tr;	/* tr.nr 0: no table */
	size_t nr_rows;
	bool no_cfi;		/* no CFI, or vaddrs beyond 32 bits */
	bool debug_frame;	/* rows from the separate debug file's .debug_frame */
	int err;
	uint64_t build_ns;
};

/* Where a mapped file's separate debug file is looked up: as the process sees it. */
struct obj_src {
	int fd;			/* the object */
	uint32_t tgid;
	const char *path;	/* as in the process's maps; NULL: none (vdso) */
};

/* Build @elf's table (thread-safe: reads only @o). */
void uobj_compute(const struct unwind_tables_opts *o, Elf *elf, const struct obj_src *src,
		  struct ubuilt *b);
/* Load a built table for @ob (the loop's thread) and release @b. 0 or -errno. */
int uobj_install(struct unwind_tables *ut, struct uobj *ob, struct ubuilt *b);

/*
 * The builder thread (tables_build.c): jobs own an fd of the object's file,
 * are taken highest priority first, and come back through ubuild_collect().
 */
struct ubuild_job {
	uint64_t key_a, inode, serial;
	int fd;
	uint32_t tgid;
	char *path;
	uint32_t prio;		/* processes seen mapping it since it was queued, plus
				 * samples walked while it was awaited (demand) */
	bool urgent;		/* a re-read's: taken before any other, waited for */
	struct ubuilt b;
	struct ubuild_job *next;
};

struct ubuilder *ubuilder_new(const struct unwind_tables_opts *o);
void ubuilder_free(struct ubuilder *bld);	/* waits for the job in hand; NULL is a no-op */
/* Queue @job (taken over, also on failure). 0 or -errno. */
int ubuild_submit(struct ubuilder *bld, struct ubuild_job *job);
/* Raise the priority of the queued job of (@key_a, @inode), if any, by @n. */
void ubuild_bump(struct ubuilder *bld, uint64_t key_a, uint64_t inode, uint32_t n);
/* Finished jobs, oldest first, as a list the caller frees (ubuild_job_free). */
struct ubuild_job *ubuild_collect(struct ubuilder *bld);
void ubuild_job_free(struct ubuild_job *job);
/* Jobs queued or in hand. */
size_t ubuild_pending(struct ubuilder *bld);
/* Wait at most @ns for every urgent job to be done; true if they are. */
bool ubuild_wait_urgent(struct ubuilder *bld, uint64_t ns);
/* Wait at most @ns for every job to be done (none queued or in hand); true if so. */
bool ubuild_wait_idle(struct ubuilder *bld, uint64_t ns);


/*
 * The object of mapping @m of @tgid (a file, keyed by device and inode),
 * built on first sight or taken from the idle LRU. NULL only on ENOMEM.
 * The caller takes its reference (refs++), released with uobj_put().
 */
struct uobj *uobj_get(struct unwind_tables *ut, uint32_t tgid, const struct procmap *m,
		      bool build);
/* The same for the vdso, read from @tgid's memory. */
struct uobj *uobj_get_vdso(struct unwind_tables *ut, uint32_t tgid, const struct procmap *m);
/* Publish @ob's new table (or its lack) in the mappings of processes waiting for it. */
void uproc_table_ready(struct unwind_tables *ut, struct uobj *ob);
/* Install the tables the builder finished; returns how many. */
size_t uobj_collect_built(struct unwind_tables *ut);
/* Drop one reference; the last one makes @ob idle (its table stays loaded). */
void uobj_put(struct unwind_tables *ut, struct uobj *ob);
/* Unload idle tables unused for UT_IDLE_TTL_NS. */
void uobj_expire_idle(struct unwind_tables *ut);
/* The load bias of mapping @m of @ob: object vaddr = ip - bias. */
bool uobj_bias(const struct uobj *ob, const struct procmap *m, uint64_t *bias);

#endif /* HC_UNWIND_TABLES_INT_H */
