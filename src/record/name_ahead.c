// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The ledger of stacks named ahead of their interval's end (name_ahead.h). */
#include "record/name_ahead.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void name_ahead__init(struct name_ahead *na)
{
	memset(na, 0, sizeof(*na));
}

void name_ahead__release(struct name_ahead *na)
{
	free(na->idx);
	free(na->w);
	na->idx = NULL;
	na->w = NULL;
	na->upto = na->cap = 0;
}

void name_ahead__reset(struct name_ahead *na, const struct stack_agg *agg)
{
	na->upto = 0;
	na->evicted = stack_agg__evicted(agg);
}

static int grow(struct name_ahead *na, size_t need)
{
	size_t cap = na->cap ? na->cap : 256;
	uint32_t *idx;
	uint64_t *w;

	if (need <= na->cap)
		return 0;
	while (cap < need)
		cap *= 2;
	idx = realloc(na->idx, cap * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	na->idx = idx;
	w = realloc(na->w, cap * sizeof(*w));
	if (!w)
		return -ENOMEM;
	na->w = w;
	na->cap = cap;
	return 0;
}

/* Name entry @e (@i) now, into the ledger: named, or left for the end. */
static int name_one(struct name_ahead *na, size_t i, const struct stack_entry *e,
		    const struct name_ahead_ops *ops)
{
	size_t idx;
	int err;

	na->idx[i] = NAME_AHEAD_LATER;
	na->w[i] = 0;
	/* nothing to name yet (a run-queue wait's share not come), or "[other]"-like */
	if (!e->weight)
		return 0;
	err = ops->name(e, e->weight, false, &idx, ops->arg);
	if (err == -EAGAIN) {
		na->st.left++;
		return 0;
	}
	if (err)
		return err;
	if (idx >= NAME_AHEAD_LATER)
		return -E2BIG;	/* 4 G profile stacks: not from a bounded aggregation */
	na->idx[i] = (uint32_t)idx;
	na->w[i] = e->weight;
	na->st.ahead++;
	return 0;
}

int name_ahead__step(struct name_ahead *na, const struct stack_agg *agg, struct budget *b,
		     const struct name_ahead_ops *ops)
{
	size_t nr = stack_agg__nr_entries(agg);
	struct stack_entry e;
	int err;

	if (stack_agg__evicted(agg) != na->evicted) {
		na->st.discarded++;
		return -ESTALE;
	}
	if (na->upto >= nr)
		return 0;
	err = grow(na, nr);
	if (err)
		return err;
	while (na->upto < nr && budget_take(b)) {
		if (stack_agg__entry(agg, na->upto, &e))
			return -EINVAL;	/* nr said it exists */
		err = name_one(na, na->upto, &e, ops);
		if (err)
			return err;
		na->upto++;
	}
	return na->upto < nr;
}

/* One entry at the end: its growth by index, else named within @b, else unnamed. */
static int finish_one(struct name_ahead *na, size_t i, const struct stack_entry *e,
		      struct budget *b, const struct name_ahead_ops *ops)
{
	size_t idx;
	int err;

	if (i < na->upto && na->idx[i] != NAME_AHEAD_LATER) {
		/* a weight only grows (saturating): the difference is what came since */
		uint64_t dw = e->weight - na->w[i];

		return dw ? ops->add(na->idx[i], dw, ops->arg) : 0;
	}
	if (!e->weight)
		return 0;
	if (budget_take(b)) {
		err = ops->name(e, e->weight, true, &idx, ops->arg);
		na->st.at_end += !err;
		return err;
	}
	na->st.unnamed++;
	na->st.unnamed_weight += e->weight;
	return ops->unnamed(e, e->weight, ops->arg);
}

int name_ahead__finish(struct name_ahead *na, const struct stack_agg *agg, struct budget *b,
		       const struct name_ahead_ops *ops)
{
	struct stack_entry e;
	int err;

	if (stack_agg__evicted(agg) != na->evicted) {
		na->st.discarded++;
		return -ESTALE;
	}
	for (size_t i = 0; !stack_agg__entry(agg, i, &e); i++) {
		err = finish_one(na, i, &e, b, ops);
		if (err)
			return err;
	}
	return 0;
}
