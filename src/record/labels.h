/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Root labels by command line (--label cmdline): per process, its
 * /proc/PID/cmdline as a one-line title (PostgreSQL's "postgres: walwriter",
 * "postgres: user db [local] COMMIT"), so processes that share a comm are
 * told apart. Read when the process is first read (the lifecycle's read)
 * or, if no path of the lifecycle read it, at its first sample; read
 * again at the loop's first look at least LABELS_SETTLE_NS later, and with
 * doubled gaps until a read finds it changed (it looks every
 * LABELS_SETTLE_NS / 2 and at drains: a forked server process sets its
 * title just after the fork, often after the first read, "just after" is
 * over a second on a loaded machine, and a short one may be gone by the
 * next drain); re-read for live processes at most
 * once per labels__refresh() (an agent interval, the end of a recording),
 * each with a bounded count, and kept after the exit until the profile
 * that needs it was written (labels__purge()).
 *
 * A label is looked up by tgid when the root frame is named, so a process
 * whose title changed within one interval is shown under its latest title
 * read; a process gone before it was read keeps its comm.
 */
#ifndef HC_RECORD_LABELS_H
#define HC_RECORD_LABELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LABELS_LEN 128			/* bytes of a label, without the NUL */
#define LABELS_MAX 16384		/* processes with a label at once (about 2.3 MiB) */
#define LABELS_REFRESH_MAX 4096		/* re-reads per call, ~10 us each */
/*
 * A new process's title is read again 100 ms after the first read, then
 * with gaps doubled until one changed it or the last gap (1.6 s: reads at
 * +0.1, 0.3, 0.7, 1.5 and 3.1 s) was read.
 */
#define LABELS_SETTLE_NS 100000000ull
#define LABELS_SETTLE_LAST_NS 1600000000ull
#define LABELS_CG_LEN 255		/* bytes of a cgroup path kept */

/*
 * @raw[0..@n): a cmdline (NUL-separated argv, maybe NUL-padded after a
 * title was set) -> @out (@outsz >= 1): arguments joined by one space,
 * trailing NULs and spaces dropped, control bytes and ';' (the folded
 * separator) replaced by '?', at most @outsz - 1 bytes without cutting a
 * UTF-8 sequence. Returns the length (0: nothing printable).
 */
size_t labels_format(const char *raw, size_t n, char *out, size_t outsz);

/*
 * @text[0..@n): /proc/PID/cgroup -> @out: the cgroup v2 path (the "0::"
 * line; on a v1-only host the name=systemd hierarchy's), control bytes and
 * ';' replaced by '?', cut at @outsz - 1. Its length; 0: none found.
 */
size_t labels_cgroup_parse(const char *text, size_t n, char *out, size_t outsz);

struct labels_stats {
	uint64_t reads;		/* cmdline reads (first sight and refresh) */
	uint64_t missed;	/* unreadable or empty (gone, zombie, kernel thread): comm kept */
	uint64_t full;		/* not kept, LABELS_MAX reached: comm kept */
};

struct labels;

struct labels *labels__new(void);	/* NULL + errno */
void labels__free(struct labels *l);	/* NULL is a no-op */

/*
 * Read @tgid's cmdline now (replaces an earlier label; a failed re-read
 * keeps it, an exited process's too: records after the exit read it again).
 * A first read that fails leaves an empty entry ("tried"), counted in missed.
 */
void labels__read(struct labels *l, uint32_t tgid);
/*
 * The sample path: read @tgid now unless it was read or tried already, so
 * every process with a stack has its read whatever path its records took
 * (one hash lookup per sample).
 */
void labels__ensure(struct labels *l, uint32_t tgid);
/* @tgid exited: its label is kept until the next labels__purge(). */
void labels__exit(struct labels *l, uint32_t tgid);
/* Re-read up to LABELS_REFRESH_MAX live processes' labels (titles change). */
void labels__refresh(struct labels *l);
/*
 * A look (CLOCK_MONOTONIC @now_ns): re-read the young labels whose settle
 * read is due (up to LABELS_REFRESH_MAX; the rest next time).
 */
void labels__settle(struct labels *l, uint64_t now_ns);
/* After a profile was written: drop the labels of processes that exited. */
void labels__purge(struct labels *l);
/* @tgid's label or NULL (none: name the root by its comm). */
const char *labels__get(const struct labels *l, uint32_t tgid);
void labels__stats(const struct labels *l, struct labels_stats *st);
/*
 * Read each process's cgroup (/proc/PID/cgroup) with its command line from
 * now on (the agent's --push: service rules and container labels).
 */
void labels__set_cgroups(struct labels *l, bool on);
/* @tgid's cgroup path or NULL (not read, or unreadable). */
const char *labels__cgroup(const struct labels *l, uint32_t tgid);

#endif /* HC_RECORD_LABELS_H */
