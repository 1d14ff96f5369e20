/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the web view shows, built from the history: merged windows, flame graphs, diffs. */
#ifndef HC_AGENT_VIEW_H
#define HC_AGENT_VIEW_H

#include <pthread.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "agent/store.h"
#include "analysis/profile.h"

/*
 * Which stored intervals: one by stamp, those from stamp @from to stamp @to
 * (both included), or those overlapping [from_ms, to_ms).
 */
struct view_window {
	const char *stamp;	/* NULL: by range or time */
	const char *from, *to;	/* NULL: by time */
	int64_t from_ms, to_ms;
};

/*
 * A merged view reads at most this much folded text (uncompressed), or
 * uncompressed pprof for a thread filter, newest intervals first: it bounds
 * the time and the transient memory of one view (a profile costs a few times
 * its folded text; a decoded pprof, of which one is held at a time, a few
 * times its protobuf).
 */
#define VIEW_MAX_BYTES (32u << 20)

struct view_stats {
	size_t intervals;	/* in the window */
	size_t read;		/* of which read: all, or the newest ones when truncated */
	bool truncated;		/* VIEW_MAX_BYTES reached */
	uint64_t bytes;		/* folded text (or pprof) read */
	uint64_t unnamed;	/* thread filter: pprof samples without a thread name (none match) */
};

/*
 * Add the folded files of @kind (-1: every kind) of the intervals in @w to
 * @p, newest first, until VIEW_MAX_BYTES. With @thread, the pprof files
 * instead, only their samples whose thread view_thread_match()es it. @mu guards @st, which the
 * collection thread changes: it is held while listing the window and while
 * reading each file, never across the whole view, so a new interval waits at
 * most for one file. Returns the number of intervals read (also in @vs), or
 * -errno.
 */
int view_load(const struct store *st, pthread_mutex_t *mu, int kind, const struct view_window *w,
	      const regex_t *thread, struct profile *p, struct view_stats *vs);

/*
 * Compile the POSIX extended regular expression @re for matching only (no
 * sub-matches). -EINVAL for a bad one, or one with a back-reference (they
 * can take exponential time). Free with regfree().
 */
int view_regcomp(regex_t *rx, const char *re);

/*
 * Whether a thread named @name (NULL: unknown, never matches) with @tid (0:
 * unknown) matches @rx: by its name alone, or as "name-TID".
 */
bool view_thread_match(const regex_t *rx, const char *name, int64_t tid);

/*
 * The samples of @kind in the uncompressed pprof @pb (@len bytes, as the
 * agent stores it) whose thread matches @rx, added to @p (frames named as
 * its folded file names them: analysis/pprof_profile.h); those without a
 * thread name (none match) counted in *@unnamed. 0, -EBADMSG, -errno.
 */
int view_add_pprof(struct profile *p, const void *pb, size_t len, enum profile_kind kind,
		   const regex_t *rx, uint64_t *unnamed);

/*
 * A new profile with the stacks of @in whose root frame (the process, or its
 * command-line label) matches the POSIX extended regular expression @re;
 * labels, kinds and the period kept. 0, -EINVAL (a bad expression, or one
 * with a back-reference: they can take exponential time), -errno.
 */
int view_filter_root(const struct profile *in, const char *re, struct profile **out);

/* The index page (HTML) listing the intervals, newest first; caller holds the store lock. 0 or -errno. */
int view_index(const struct store *st, FILE *out);

/* view_page.c: the page around the table (timeline, controls, script). 0 or -EIO. */
int view_page_head(FILE *out);
int view_page_tail(FILE *out);

#endif /* HC_AGENT_VIEW_H */
