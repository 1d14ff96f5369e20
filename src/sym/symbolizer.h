/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Address -> frame name, in two steps so processes that exit mid-run are
 * still named:
 *  1. at sample time, symbolizer__normalize() turns a user ip into
 *     (object, file offset) using a snapshot of /proc/PID/maps taken when the
 *     process was first seen; the object (ELF file) is opened then, through
 *     /proc/PID/map_files or /proc/PID/root, and kept open;
 *  2. at write time, symbolizer__user_name() names (object, offset) from the
 *     object's symbol tables (+ separate debug file), long after the process
 *     is gone. Kernel ips are named from /proc/kallsyms.
 */
#ifndef HC_SYM_SYMBOLIZER_H
#define HC_SYM_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sym/hotspot.h"
#include "sym/v8.h"

/* Not thread-safe: one thread (or a lock around every call) per symbolizer. */
struct symbolizer;

struct symbolizer_opts {
	const char *debug_root;	/* separate debug files; NULL: "/usr/lib/debug" */
	const char *kallsyms;	/* NULL: "/proc/kallsyms" (tests pass a fixture) */
	const char *proc_root;	/* NULL: "/proc" (tests may pass a fake tree) */
	const char *perfmap_dir;/* NULL: "/tmp" (perf-PID.map files; a process in a
				 * pid namespace is read from /tmp in its own root) */
	bool no_demangle;	/* keep C++/Rust names mangled */
	size_t max_objects;	/* distinct objects held at once (ELF files, vdso images,
				 * one JIT region per process); 0: 4096 */
	bool no_debuginfod;	/* never ask debuginfod, even with DEBUGINFOD_URLS set */
	bool no_v8;		/* never read V8 processes' memory for names (sym/v8.h) */
	bool no_hotspot;	/* never read JVMs' memory for JIT frame names (sym/hotspot.h) */
};

/* A user frame normalized at sample time. */
/*
 * sym_ufr::obj of a Python frame (collect/python.c): addr is its id in
 * python_names, and above bit 32 its instruction + 1 (0: unknown)
 */
#define SYM_OBJ_PYTHON	0xffffffffu
/* A SYM_OBJ_PYTHON frame's id saying native frames are missing there (collect/python_stack.h) */
#define SYM_PY_GAP	0xffffffffu
#define SYM_PY_GAP_NAME	"[native frames not walked]"
/*
 * sym_ufr::obj of an interpreted Java frame: addr is the BPF walk's tagged
 * Method* (abi/hotspot.h hc_hs_method_frame()), named from the JVM
 */
#define SYM_OBJ_JAVA	0xfffffffeu
/*
 * sym_ufr::obj of a JavaScript frame: addr is the BPF walk's tagged
 * SharedFunctionInfo (abi/v8.h hc_v8_sfi_frame()), named from the process
 */
#define SYM_OBJ_V8	0xfffffffdu
/* sym_ufr::obj of a mark among the frames: addr says which (SYM_MARK_*) */
#define SYM_OBJ_MARK	0xfffffffcu
#define SYM_MARK_WALK_CUT	1	/* a CFI walk stopped short of the outermost frame */
#define SYM_MARK_WALK_CUT_NAME	"[walk cut]"

struct sym_ufr {
	uint32_t obj;		/* 0: no mapping (addr is the raw ip); else object id */
	uint32_t tgid;		/* for JIT/anon objects: whose perf map; else 0 */
	uint64_t addr;		/* file offset in obj (or raw ip when obj == 0 / anon) */
};

/* symbolizer__*_name() flag bits */
#define SYM_F_UNKNOWN	0x1	/* no symbol: the name is "module+0xOFF" or "[unknown]" */
#define SYM_F_JIT	0x2	/* anonymous executable memory: named from its perf map,
				 * else from a HotSpot JVM's code cache (sym/hotspot.h),
				 * or "[unknown]" (with SYM_F_UNKNOWN) */
#define SYM_F_PYTHON	0x4	/* a Python function: "qualname (file:line)" */

struct symbolizer_stats {
	uint64_t procs;		/* processes snapshotted */
	uint64_t procs_gone;	/* add_process() on a pid that had already exited */
	uint64_t procs_exit_maps;	/* ... whose snapshot was built from their exit maps */
	uint64_t objects;	/* ELF objects opened */
	uint64_t object_errors;	/* objects that could not be opened or parsed */
	uint64_t unmapped;	/* normalize(): ip in no mapping even after a re-read */
	uint64_t rereads;	/* maps re-read after a miss */
	uint64_t objects_dropped; /* objects not opened: max_objects reached (obj 0) */
	uint64_t objects_evicted; /* freed by symbolizer__trim() */
	uint64_t objects_live;	/* objects held now */
	uint64_t procs_live;	/* process snapshots held now */
	uint64_t procs_pruned;	/* snapshots of exited processes dropped by trim (exit unseen) */
	/* debuginfod (DEBUGINFOD_URLS set): debug files fetched by build-id */
	uint64_t dbg_requested, dbg_fetched, dbg_failed, dbg_timed_out, dbg_skipped,
		dbg_dropped, dbg_pending, dbg_busy_ns;
	uint64_t srcline_objects;	/* objects whose DWARF gave source lines */
	uint64_t srclines_skipped;	/* frames left without lines: an object's address
					 * cache was full (SRCLINE_CACHE_MAX) */
	/* JIT frames named from a HotSpot JVM's code cache, and left unnamed by cause */
	struct hotspot_stats hs;
	struct v8_stats v8;
};

/*
 * The Java-frame counters of @st, each with its name (util/diag.c's key)
 * and whether it is a loss: one list for -v and the agent's /metrics.
 */
typedef void (*symbolizer_stat_fn)(const char *name, uint64_t value, bool loss, void *arg);
void symbolizer_stats_hotspot(const struct symbolizer_stats *st, symbolizer_stat_fn fn,
			      void *arg);
/* The JavaScript-frame counters of @st, the same way */
void symbolizer_stats_v8(const struct symbolizer_stats *st, symbolizer_stat_fn fn, void *arg);

/* NULL + errno on failure. Kallsyms is loaded lazily on first kernel lookup. */
struct symbolizer *symbolizer__new(const struct symbolizer_opts *o);
void symbolizer__free(struct symbolizer *s);	/* NULL is a no-op */

/*
 * Snapshot @tgid's executable mappings and open their objects, unless a
 * snapshot exists. 0, or -ESRCH if the process is gone (then its ips
 * normalize to obj 0).
 */
int symbolizer__add_process(struct symbolizer *s, uint32_t tgid);

struct procmaps;
struct procmap;
/*
 * The same with @pm, @tgid's executable mappings read by the caller at
 * CLOCK_MONOTONIC @read_ns (one read shared with the unwinder); replaces a
 * snapshot taken earlier. 0 or -ENOMEM.
 */
int symbolizer__add_process_maps(struct symbolizer *s, uint32_t tgid, const struct procmaps *pm,
				 uint64_t read_ns);

/*
 * For a process that was gone before its maps could be read: add @maps[0..@n)
 * (its executable mappings as BPF read them at its exit, path "") to its
 * snapshot, naming only files and vdso images some other process already
 * brought into the table. Ignored when a snapshot read from /proc exists.
 * 0 or -ENOMEM.
 */
int symbolizer__add_exit_maps(struct symbolizer *s, uint32_t tgid, const struct procmap *maps,
			      size_t n);

/*
 * The caller found @tgid gone (its maps unreadable: ENOENT): remember that
 * without reading again, as add_process() would. Returns -ESRCH (or -ENOMEM).
 */
int symbolizer__add_gone(struct symbolizer *s, uint32_t tgid);

/* True if @tgid has a snapshot or a failed attempt at one (it was gone). */
bool symbolizer__knows(const struct symbolizer *s, uint32_t tgid);

/* Drop @tgid's snapshot (exec or exit). Objects stay: frames refer to them. */
void symbolizer__forget_process(struct symbolizer *s, uint32_t tgid);

/*
 * ip -> (object, file offset). Takes the snapshot if missing; an ip outside
 * every mapping triggers one re-read of the maps (dlopen) at most once per
 * second per process. Never fails: unknown ips give obj 0.
 * Frames other than the leaf are return addresses: pass ip - 1 for them, or
 * a call that ends a function (to a noreturn callee) is named after the
 * function that follows it. The same holds for symbolizer__kernel_name().
 */
void symbolizer__normalize(struct symbolizer *s, uint32_t tgid, uint64_t ip,
			   struct sym_ufr *out);

/*
 * The same for an ip that was on the stack at @when_ns (CLOCK_MONOTONIC, as
 * bpf_ktime_get_ns()): a miss re-reads the maps only if the snapshot is
 * older than that, since a snapshot taken later holds every mapping the ip
 * could have been in (unless unmapped since). This spares a maps read for
 * each stale ip from before an exec.
 */
void symbolizer__normalize_at(struct symbolizer *s, uint32_t tgid, uint64_t ip, uint64_t when_ns,
			      struct sym_ufr *out);

/*
 * A whole user stack, leaf first: ips[0] as is, the others (return
 * addresses) as ip - 1, into @out[0..@n). One process lookup, and no
 * search for a frame in the same mapping as the one before it. Returns the
 * index of the first ip that lies in no mapping of a process whose mappings
 * are known (@n if none): for a frame-pointer walk, that and what follows
 * are garbage (code without frame pointers; a leaf from the image an execve
 * is replacing).
 */
size_t symbolizer__normalize_stack(struct symbolizer *s, uint32_t tgid, const uint64_t *ips,
				   size_t n, uint64_t when_ns, struct sym_ufr *out);

/*
 * Name a user frame into @buf (always NUL-terminated, truncated to @len).
 * Demangled function name; "libfoo.so+0x1234" when the object has no symbol
 * for the offset; "[unknown]" when obj is 0. @flags gets SYM_F_* bits.
 * Returns 0 or -errno (@buf still holds a printable fallback).
 */
int symbolizer__user_name(struct symbolizer *s, const struct sym_ufr *f, char *buf,
			  size_t len, unsigned int *flags);
/*
 * The same for a native frame, and *@sym_off gets its distance from the
 * function's start (UINT64_MAX: no symbol): "func+0x1c" for branch sites.
 */
int symbolizer__user_name_off(struct symbolizer *s, const struct sym_ufr *f, char *buf,
			      size_t len, unsigned int *flags, uint64_t *sym_off);

struct python_names;
/* Name SYM_OBJ_PYTHON frames from @pn (borrowed; NULL: they are "[unknown]"). */
void symbolizer__set_python(struct symbolizer *s, const struct python_names *pn);
/* The line a SYM_OBJ_PYTHON frame was running; 0 unknown (or another frame). */
int symbolizer__python_line(const struct symbolizer *s, const struct sym_ufr *f);

struct objtab_info;
/*
 * The object of user frame @f: its path as mapped, GNU build ID in hex and
 * the file-offset range of the segment holding f->addr (objtab__info()).
 * 0, or -ENOENT (obj 0, or no longer held).
 */
int symbolizer__object(struct symbolizer *s, const struct sym_ufr *f, struct objtab_info *out);

struct srcline_frame;
/*
 * Source lines of user frame @f from its object's DWARF, where it has some
 * (objtab__srcline()): the functions running at the address, innermost
 * first (inlined ones, then the one holding the code), with file and line.
 * Returns how many went into @out (at most @max); 0: none known.
 */
int symbolizer__srcline(struct symbolizer *s, const struct sym_ufr *f, struct srcline_frame *out,
			size_t max);

/* Kernel ip -> "func" (modules: "func [mod]" is NOT added; just func). Same contract. */
int symbolizer__kernel_name(struct symbolizer *s, uint64_t ip, char *buf, size_t len,
			    unsigned int *flags);

/*
 * For a long-running caller, after its frames were named and discarded (an
 * agent's written interval): forget processes that exited unannounced, then
 * free every object no remaining process maps (an exited process's files,
 * JIT region and perf map) that was not used since the previous trim
 * either, so the table tracks what runs now instead of growing to
 * max_objects. The freed ids are reused: no frame normalized
 * before the call may be named after it. Returns the objects freed.
 */
size_t symbolizer__trim(struct symbolizer *s);

void symbolizer__stats(const struct symbolizer *s, struct symbolizer_stats *st);

#endif /* HC_SYM_SYMBOLIZER_H */
