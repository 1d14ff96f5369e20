/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The BPF unwinder's tables: one row array per ELF object (shared by every
 * process that maps it, keyed by device and inode), and per process the list
 * of its executable mappings with each one's load bias. Objects are built on
 * first use, on a builder thread (most-awaited first: the one the most newly
 * seen processes map), while their mappings are walked by frame pointer;
 * when no registered process maps them any more they stay loaded
 * (up to max_idle_rows, at most 60 s unused, first to go when a new table
 * needs room) in case the same program starts again.
 */
#ifndef HC_UNWIND_TABLES_H
#define HC_UNWIND_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct unwind_tables;

struct unwind_tables_opts {
	size_t max_procs;	/* processes with tables at once; 0: 4096 */
	size_t max_objects;	/* distinct objects; 0: 4096 */
	size_t max_rows;	/* rows over all objects (~12 bytes each in the kernel); 0: 4M */
	size_t max_idle_rows;	/* of those, in tables no process maps now (each kept at most
				 * 60 s after its last user went away); 0: max_rows / 4 */
	const char *proc_root;	/* NULL: "/proc" */
	const char *debug_root;	/* separate debug files (.debug_frame); NULL: "/usr/lib/debug",
				 * "": none */
	bool sync_build;	/* build tables in line, not on the builder thread */
};

struct unwind_tables_stats {
	uint64_t procs;		/* processes registered now */
	uint64_t objects;	/* objects with tables now (idle ones included) */
	uint64_t objects_idle;	/* objects no registered process maps now, kept for reuse */
	uint64_t objects_reused;/* idle objects mapped again: tables not rebuilt */
	uint64_t rows;		/* rows loaded now */
	uint64_t bytes;		/* kernel memory of tables (384-byte nodes of up to 32 rows,
				 * plus ~1 % of inner nodes) and process maps now;
				 * the two outer maps' fixed ~0.4 MiB not included */
	uint64_t rows_peak;	/* most rows loaded at once */
	uint64_t bytes_peak;	/* most kernel memory at once */
	uint64_t objects_built;	/* tables built so far */
	uint64_t objects_no_cfi;/* mapped objects without usable CFI (FP fallback) */
	uint64_t objects_debug_frame;	/* tables from a separate debug file's .debug_frame */
	uint64_t objects_failed;/* objects that could not be opened or parsed */
	uint64_t over_limit;	/* objects or processes refused by a limit */
	uint64_t maps_dropped;	/* mappings beyond HC_UNWIND_MAX_MAPS in a process */
	uint64_t build_ns;	/* time spent building tables */
	uint64_t build_loop_ns;	/* ... of it on the caller's thread (in line), not the builder */
	uint64_t refreshes;	/* process re-reads after walks ended in unmapped code */
	uint64_t refresh_stale;	/* ... not needed: the pc is in a mapping read since */
	uint64_t refresh_backoff;	/* ... put off: recent re-reads did not find such pcs */
	uint64_t refresh_missed;	/* re-reads that did not find the pc mapped either */
	uint64_t procs_failed;	/* processes whose tables could not be published */
	uint64_t objects_queued;	/* tables sent to the builder thread */
	uint64_t objects_pending;	/* ... not back yet (now) */
	uint64_t builds_discarded;	/* built for an object evicted meanwhile */
	uint64_t maps_waiting;	/* mappings published before their table: FP meanwhile */
	uint64_t demand_samples;	/* samples walked while their tables were built, each
					 * raising those tables in the builder's queue */
	uint64_t reread_builds_late;	/* re-reads whose new tables took over
					 * UT_REREAD_WAIT_NS (20 ms): published without */
};

/* Create the BPF maps (empty). 0 or -errno. */
int unwind_tables__new(struct unwind_tables **out, const struct unwind_tables_opts *o);
void unwind_tables__free(struct unwind_tables *ut);	/* NULL is a no-op */

/* fds of the maps the BPF side names unwind_procs and unwind_objs; owned by @ut. */
int unwind_tables__procs_fd(const struct unwind_tables *ut);
int unwind_tables__objs_fd(const struct unwind_tables *ut);

/*
 * Read @tgid's executable mappings, build or share their objects' tables and
 * publish the process. Again for a known process (exec, dlopen): re-reads.
 * 0, -ESRCH if the process is gone, or -errno.
 */
int unwind_tables__add_process(struct unwind_tables *ut, uint32_t tgid);
/*
 * The same, every table built in line before the process is published (none
 * left to the builder thread): for a process held until then (child_hold.h).
 */
int unwind_tables__add_process_now(struct unwind_tables *ut, uint32_t tgid);

/*
 * The same, every new object's table left to the builder thread (none built
 * in line, none waited for): the tables' lock, if the caller holds one for
 * this call, is held for reading the mappings and publishing them only.
 */
int unwind_tables__add_process_async(struct unwind_tables *ut, uint32_t tgid);
/*
 * Wait at most @ns, without any lock of the caller's, until the builder
 * thread has no table queued or in hand (then unwind_tables__poll() loads
 * them all). True if so; true at once without a builder thread.
 */
bool unwind_tables__wait_builds(struct unwind_tables *ut, uint64_t ns);
struct procmaps;
/*
 * The same with @tgid's executable mappings already read by the caller.
 * Without @build, only tables already loaded are used and the mappings of
 * other objects are left to frame pointers: a cheap first registration for
 * a process that may be gone in a moment (call again with @build later).
 * Returns the number of mappings so left (0 with @build), or -errno.
 */
int unwind_tables__add_process_maps(struct unwind_tables *ut, uint32_t tgid,
				    const struct procmaps *pm, bool build);

/*
 * Build, and keep for the whole run, the tables of the C runtime objects this
 * process maps (libc, ld.so, libm, libstdc++, libgcc_s): nearly every target
 * maps the same files, so a new process then only needs its own binary's
 * table and is published within a millisecond or two instead of ~50 ms.
 * Returns the number of objects preloaded.
 */
int unwind_tables__preload_runtime(struct unwind_tables *ut);

/*
 * A CFI walk of @tgid ended at @pc, in no published mapping; @inner_pc is
 * the frame before it (0: @pc is the leaf). Unless @pc is in a mapping read
 * since (the walk is older than the last re-read), re-read the mappings
 * (dlopen, JIT): at once, then with a backoff doubling up to a second while
 * re-reads do not find such a pc, kept apart for pcs from the registers or a
 * CFI step and pcs a frame-pointer step may have made up. New objects'
 * tables are built on the builder thread, waited for at most 20 ms, else
 * loaded by a later unwind_tables__poll(). 1: re-read; 0: not needed or put
 * off; -errno.
 */
int unwind_tables__refresh(struct unwind_tables *ut, uint32_t tgid, uint64_t pc, uint64_t inner_pc);

/*
 * Load the tables the builder thread finished and fill them into the
 * mappings published without them. Tables are built on that thread, so no
 * call here waits for one; call this every turn of the loop. Returns the
 * number of tables taken.
 */
size_t unwind_tables__poll(struct unwind_tables *ut);

/*
 * @n samples of @tgid were walked while some of its tables were still being
 * built (by frame pointer, or cut where the walk met such a mapping): raise
 * those tables' places in the builder thread's queue by @n. The queue puts
 * first the objects the most processes map; a process that barely runs
 * (one of many at a system-wide start) then came before the one that burns
 * the CPU, which waited seconds for its own binary's table on a slow
 * machine. Returns the number of its tables still being built (0 for a
 * process not registered); never waits for a build.
 */
size_t unwind_tables__demand(struct unwind_tables *ut, uint32_t tgid, uint32_t n);

/* Unpublish @tgid and release objects nobody maps any more. */
void unwind_tables__remove_process(struct unwind_tables *ut, uint32_t tgid);

void unwind_tables__stats(const struct unwind_tables *ut, struct unwind_tables_stats *st);

#endif /* HC_UNWIND_TABLES_H */
