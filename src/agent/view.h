/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the web view shows, built from the history: merged windows, flame graphs, diffs. */
#ifndef HC_AGENT_VIEW_H
#define HC_AGENT_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "agent/store.h"
#include "analysis/profile.h"

/* Which stored intervals: one by stamp, or those overlapping [from_ms, to_ms). */
struct view_window {
	const char *stamp;	/* NULL: by time */
	int64_t from_ms, to_ms;
};

/*
 * Add the folded files of @kind (-1: every kind) of the intervals in @w to
 * @p. Returns the number of intervals read, or -errno.
 */
int view_load(const struct store *st, int kind, const struct view_window *w, struct profile *p);

/* The index page (HTML) listing the intervals, newest first. 0 or -errno. */
int view_index(const struct store *st, FILE *out);

#endif /* HC_AGENT_VIEW_H */
