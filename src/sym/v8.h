/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * JavaScript frames of V8 processes (Node.js) named without a perf map and
 * without flags: the BPF walk puts a JavaScript frame's function (its
 * SharedFunctionInfo, tagged: abi/v8.h) in place of its pc; the name is
 * read from the process's memory (<proc>/PID/mem) when names are written,
 * laid out as the binary's v8dbg_* symbols say (sym/v8_layout.h). A binary
 * whose table lacks something we read is refused with one line. Nothing of
 * the target is executed.
 */
#ifndef HC_SYM_V8_H
#define HC_SYM_V8_H

#include <stddef.h>
#include <stdint.h>

struct procmap;

/* Not thread-safe: its symbolizer's thread only. */
struct v8;

struct v8_stats {
	uint64_t named;		/* JavaScript frames named */
	uint64_t unreadable;	/* frames of a process whose memory could not be read (or gone) */
	uint64_t stale;		/* frames whose function failed its check (moved, freed, misread) */
	uint64_t refused;	/* frames of processes refused (layout unknown) */
	uint64_t procs;		/* V8 processes whose tables were read */
	uint64_t procs_refused;	/* refused, each said once */
};

/* What a JavaScript frame is called when it cannot be named. */
#define V8_UNNAMED "[javascript]"

/* Reads <@proc_root>/PID/{mem,map_files,root}. NULL + errno. */
struct v8 *v8__new(const char *proc_root);
void v8__free(struct v8 *v);	/* NULL is a no-op */

/*
 * @tgid maps a V8 binary with @m (v8_elf_candidate() says which files):
 * remember it; nothing is read until a frame is named. The same mapping
 * again is a no-op; another one replaces the entry (an exec). 0 or -ENOMEM.
 */
int v8__add_process(struct v8 *v, uint32_t tgid, const struct procmap *m);

/* @tgid exited or exec'd: its names and mem fd go. NULL @v is a no-op. */
void v8__forget(struct v8 *v, uint32_t tgid);

/*
 * Name the frame @frame (abi/v8.h) of @tgid into @buf: "functionName",
 * "(anonymous)". The first call for a process reads its binary's table. 0;
 * -ENOENT: no V8 known in @tgid (gone since); -EPERM: refused; -ESTALE,
 * -EINVAL: the function failed its check, or its name could not be read;
 * -EFAULT, -ESRCH: unreadable. Each counted; a name once read is kept for
 * the process's life.
 */
int v8__name(struct v8 *v, uint32_t tgid, uint64_t frame, char *buf, size_t len);

void v8__stats(const struct v8 *v, struct v8_stats *st);

#endif /* HC_SYM_V8_H */
