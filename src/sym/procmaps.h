/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * /proc/PID/maps parsing: "start-end perms offset major:minor inode   path".
 * The path may be absent, contain spaces, end in " (deleted)", or be a
 * pseudo name ("[vdso]", "[anon:name]", "[heap]").
 */
#ifndef HC_SYM_PROCMAPS_H
#define HC_SYM_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PROCMAP_R	0x1
#define PROCMAP_W	0x2
#define PROCMAP_X	0x4
#define PROCMAP_SHARED	0x8	/* 's' instead of 'p' */

enum procmap_kind {
	PROCMAP_FILE,		/* path starts with '/' (incl. "/memfd:x", "/SYSV...") */
	PROCMAP_ANON,		/* no path, "[anon:...]", "[heap]", "[stack]" */
	PROCMAP_VDSO,		/* "[vdso]" */
	PROCMAP_SPECIAL,	/* other "[...]": "[vsyscall]", "[vvar]", "[uprobes]" */
	PROCMAP_OTHER,		/* anything else, e.g. "anon_inode:..." */
};

struct procmap {
	uint64_t start;		/* [start, end) */
	uint64_t end;
	uint64_t pgoff;		/* file offset of start, in bytes */
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	unsigned int perms;	/* PROCMAP_* bits */
	enum procmap_kind kind;
	bool deleted;		/* " (deleted)" was stripped from path */
	const char *path;	/* "" when absent; never NULL */
};

/*
 * Parse one maps line in place: the trailing newline and " (deleted)" are cut
 * off @line, and @m->path points into it. 0, or -EINVAL for a malformed line.
 */
int procmaps_parse_line(char *line, struct procmap *m);

struct procmaps;

#define PROCMAPS_EXEC_ONLY 0x1	/* keep only mappings with 'x' */

/*
 * Read every line of @f (not closed), skipping malformed ones, into a table
 * sorted by start. NULL + errno on read or allocation failure.
 */
struct procmaps *procmaps__parse(FILE *f, unsigned int flags);

/* Same from a path, e.g. "/proc/123/maps". errno ENOENT/ESRCH: no such process. */
struct procmaps *procmaps__load(const char *path, unsigned int flags);

void procmaps__free(struct procmaps *pm);	/* NULL is a no-op */

size_t procmaps__nr(const struct procmaps *pm);

/*
 * Mappings dropped since start, process-wide: past 256 Ki mappings or 16 MiB
 * of distinct paths in one process (consecutive mappings of a path share it).
 */
uint64_t procmaps_dropped(void);

/* Entry @i (< procmaps__nr()); valid as long as @pm. */
const struct procmap *procmaps__entry(const struct procmaps *pm, size_t i);

/* The mapping containing @addr, or NULL. */
const struct procmap *procmaps__find(const struct procmaps *pm, uint64_t addr);

#endif /* HC_SYM_PROCMAPS_H */
