/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Naming an interval's stacks while it runs, so that its end has little
 * left to do (issue 12: one unbounded naming step stalled the agent's loop
 * for up to a second under process churn).
 *
 * A ledger over the aggregation's entries (stack_agg__entry() indices):
 * each turn names, within a budget, the entries added since the last turn
 * into the interval's profile, and remembers the profile stack and the
 * weight it had then. At the interval's end the weight added since goes to
 * that stack by index (no names looked up again); the entries not named yet
 * are named within the end's budget; what is still left is kept without
 * names (its weight under one "[unnamed]" stack per kind) and counted.
 *
 * Never a wrong name: an entry is named as its frames are known when the
 * ledger reaches it (a namer may refuse, -EAGAIN, to leave it to the end),
 * and an eviction (the index then names another stack) discards the ledger.
 */
#ifndef HC_RECORD_NAME_AHEAD_H
#define HC_RECORD_NAME_AHEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/budget.h"
#include "stack/stack_agg.h"

struct name_ahead_ops {
	/*
	 * Name @e with weight @w (not e->weight) into the interval's profile;
	 * *@idx gets the profile stack it went to. 0; -EAGAIN (only before
	 * @at_end): nothing added, its names may still change, name it at the
	 * end; or -errno.
	 */
	int (*name)(const struct stack_entry *e, uint64_t w, bool at_end, size_t *idx, void *arg);
	/* Add @w to profile stack @idx. 0 or -errno. */
	int (*add)(size_t idx, uint64_t w, void *arg);
	/* The end's budget ran out: keep @e's weight @w without names. 0 or -errno. */
	int (*unnamed)(const struct stack_entry *e, uint64_t w, void *arg);
	void *arg;
};

struct name_ahead_stats {
	uint64_t ahead;		/* entries named during their interval */
	uint64_t at_end;	/* named at the interval's end (new, or left for it) */
	uint64_t left;		/* -EAGAIN: the namer left them to the end */
	uint64_t discarded;	/* intervals whose ledger an eviction discarded */
	uint64_t unnamed;	/* entries kept without names: the end's budget ran out */
	uint64_t unnamed_weight;
};

struct name_ahead {
	uint32_t *idx;		/* entry -> profile stack, or NAME_AHEAD_LATER */
	uint64_t *w;		/* entry -> its weight when named */
	size_t upto;		/* entries [0, upto) are in the ledger */
	size_t cap;
	uint64_t evicted;	/* stack_agg__evicted() when the ledger was started */
	struct name_ahead_stats st;	/* cumulative */
};

#define NAME_AHEAD_LATER UINT32_MAX	/* in the ledger, named at the end */

/* An empty ledger (zeroed memory is one too). */
void name_ahead__init(struct name_ahead *na);
void name_ahead__release(struct name_ahead *na);
/* A new interval: @agg was just cleared (or the profile emptied). */
void name_ahead__reset(struct name_ahead *na, const struct stack_agg *agg);

/*
 * Name the kept entries of @agg added since the last call, one per item
 * of @b. 1: entries left for the next turn; 0: none left; -ESTALE: @agg
 * evicted an entry since the reset (the caller empties its profile and
 * resets); -errno from the ops.
 */
int name_ahead__step(struct name_ahead *na, const struct stack_agg *agg, struct budget *b,
		     const struct name_ahead_ops *ops);

/*
 * The interval ends: the weight every ledger entry gained since it was
 * named goes to its stack (not budgeted: an addition each), the rest of
 * @agg (new entries, those left for the end, "[other stacks]") is named one
 * per item of @b, and past @b kept through ops->unnamed (counted). 0,
 * -ESTALE (as above: nothing was added), or -errno. Reset before reuse.
 */
int name_ahead__finish(struct name_ahead *na, const struct stack_agg *agg, struct budget *b,
		       const struct name_ahead_ops *ops);

#endif /* HC_RECORD_NAME_AHEAD_H */
