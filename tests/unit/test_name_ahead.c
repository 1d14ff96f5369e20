// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * record/name_ahead.c and record/budget.c: stacks named during their
 * interval, the growth added at the end by index, the rest named within the
 * end's budget or kept unnamed and counted; evictions discard the ledger.
 * A fake namer stands in for the symbolizer: the "profile" is an array of
 * weights, a stack's profile index is its first word (so two entries with
 * the same first word merge, as stacks with the same names do).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/budget.h"
#include "record/name_ahead.h"
#include "stack/stack_agg.h"

#define NPROF 64

struct fake {
	uint64_t prof[NPROF];	/* profile stack -> weight */
	uint64_t unnamed;	/* weight kept without names */
	size_t names, names_at_end, adds;
	uint64_t unknown_word;	/* stacks with this first word: -EAGAIN ahead */
};

static int fake_name(const struct stack_entry *e, uint64_t w, bool at_end, size_t *idx, void *arg)
{
	struct fake *f = arg;

	f->names++;
	f->names_at_end += at_end;
	if (!at_end && e->words[0] == f->unknown_word)
		return -EAGAIN;
	*idx = e->words[0] % NPROF;
	f->prof[*idx] += w;
	return 0;
}

static int fake_add(size_t idx, uint64_t w, void *arg)
{
	struct fake *f = arg;

	f->adds++;
	f->prof[idx] += w;
	return 0;
}

static int fake_unnamed(const struct stack_entry *e, uint64_t w, void *arg)
{
	struct fake *f = arg;

	f->unnamed += w;
	return 0;
}

static struct name_ahead_ops ops_for(struct fake *f)
{
	return (struct name_ahead_ops){ fake_name, fake_add, fake_unnamed, f };
}

static void add(struct stack_agg *agg, uint64_t word, uint64_t w)
{
	struct stack_key k;

	memset(&k, 0, sizeof(k));
	k.nr_user = 1;
	assert_int_equal(stack_agg__add(agg, &k, &word, w), 0);
}

static uint64_t fake_total(const struct fake *f)
{
	uint64_t t = f->unnamed;

	for (size_t i = 0; i < NPROF; i++)
		t += f->prof[i];
	return t;
}

static uint64_t fake_clock_ns;

static uint64_t fake_now(void)
{
	return fake_clock_ns;
}

static void budget_stops_at_its_count_or_its_deadline_whichever_first(void **state)
{
	struct budget b;

	(void)state;
	fake_clock_ns = 1000;
	budget_init(&b, fake_now, 2, 0);
	assert_true(budget_take(&b) && budget_take(&b));
	assert_false(budget_take(&b));
	assert_true(b.cut && b.spent == 2);
	budget_init(&b, fake_now, 0, 50);	/* no count limit, 50 ns */
	for (int i = 0; i < 1000; i++)
		assert_true(budget_take(&b));
	fake_clock_ns = 1049;
	assert_true(budget_take(&b));
	fake_clock_ns = 1050;
	assert_false(budget_take(&b));
	fake_clock_ns = 0;	/* once cut, it stays cut */
	assert_false(budget_take(&b));
	assert_int_equal(b.spent, 1001);
}

/* An aggregation, a fake profile and a ledger over them. */
struct fx {
	struct stack_agg *agg;
	struct fake f;
	struct name_ahead_ops ops;
	struct name_ahead na;
};

static struct fx *fx_new(size_t max_stacks, uint64_t unknown_word)
{
	struct fx *x = calloc(1, sizeof(*x));

	assert_non_null(x);
	x->agg = stack_agg__new(max_stacks);
	assert_non_null(x->agg);
	x->f.unknown_word = unknown_word;
	x->ops = ops_for(&x->f);
	name_ahead__init(&x->na);
	name_ahead__reset(&x->na, x->agg);
	return x;
}

static void fx_free(struct fx *x)
{
	name_ahead__release(&x->na);
	stack_agg__free(x->agg);
	free(x);
}

/* A turn with a budget of @items (0: no limit). */
static int step(struct fx *x, size_t items)
{
	struct budget b;

	budget_init(&b, fake_now, items, 0);
	return name_ahead__step(&x->na, x->agg, &b, &x->ops);
}

static int finish(struct fx *x, size_t items)
{
	struct budget b;

	budget_init(&b, fake_now, items, 0);
	return name_ahead__finish(&x->na, x->agg, &b, &x->ops);
}

/* Three turns of two names each, then the end: only growth is added, nothing named twice. */
static void steps_name_new_entries_within_budget_and_the_end_adds_only_growth(void **state)
{
	struct fx *x = fx_new(0, 999);

	(void)state;
	for (uint64_t i = 1; i <= 5; i++)
		add(x->agg, i, 10 * i);
	assert_int_equal(step(x, 2), 1);	/* 3 left */
	add(x->agg, 1, 7);			/* grows after it was named */
	assert_int_equal(step(x, 2), 1);
	assert_int_equal(step(x, 2), 0);
	assert_int_equal(x->f.names, 5);
	add(x->agg, 6, 60);			/* new in the last turn */
	add(x->agg, 5, 1);
	assert_int_equal(finish(x, 0), 0);
	assert_int_equal(x->f.names, 6);	/* only the new one named at the end */
	assert_int_equal(x->f.names_at_end, 1);
	assert_int_equal(x->f.adds, 2);		/* stacks 1 and 5 grew */
	assert_true(x->f.prof[1] == 17 && x->f.prof[5] == 51 && x->f.prof[6] == 60 &&
		    x->f.prof[3] == 30);
	assert_true(fake_total(&x->f) == stack_agg__total_weight(x->agg));
	assert_true(x->na.st.ahead == 5 && x->na.st.at_end == 1 && x->na.st.unnamed == 0);
	fx_free(x);
}

/* Names that may still change (unknown frames) are taken at the end, with all their weight. */
static void entries_whose_names_may_change_are_named_at_the_end_with_their_whole_weight(void **state)
{
	struct fx *x = fx_new(0, 2);

	(void)state;
	add(x->agg, 1, 5);
	add(x->agg, 2, 6);
	assert_int_equal(step(x, 0), 0);
	assert_true(x->f.prof[2] == 0 && x->na.st.left == 1);
	add(x->agg, 2, 4);
	assert_int_equal(finish(x, 0), 0);
	assert_true(x->f.prof[1] == 5 && x->f.prof[2] == 10);
	assert_true(x->na.st.at_end == 1);
	fx_free(x);
}

/* Past the end's budget: every weight kept, the unnamed ones counted, no name wrong. */
static void the_end_keeps_what_its_budget_cannot_name_and_counts_it(void **state)
{
	struct fx *x = fx_new(0, 999);

	(void)state;
	add(x->agg, 1, 1);
	assert_int_equal(step(x, 0), 0);
	for (uint64_t i = 2; i <= 10; i++)
		add(x->agg, i, 100);
	add(x->agg, 1, 1);
	assert_int_equal(finish(x, 3), 0);	/* 3 of the 9 new ones */
	assert_true(x->f.prof[1] == 2);		/* growth is never left out */
	assert_true(x->na.st.at_end == 3 && x->na.st.unnamed == 6 &&
		    x->na.st.unnamed_weight == 600);
	assert_true(x->f.unnamed == 600);
	assert_true(fake_total(&x->f) == stack_agg__total_weight(x->agg));
	fx_free(x);
}

/* Two entries with the same names share a profile stack: each one's growth goes there. */
static void entries_merged_into_one_stack_each_add_their_own_growth(void **state)
{
	struct fx *x = fx_new(0, 999);

	(void)state;
	add(x->agg, 3, 1);
	add(x->agg, 3 + NPROF, 2);		/* other words, the same names */
	assert_int_equal(step(x, 0), 0);
	add(x->agg, 3, 10);
	add(x->agg, 3 + NPROF, 20);
	assert_int_equal(finish(x, 0), 0);
	assert_true(x->f.prof[3] == 33);
	fx_free(x);
}

/* An eviction reuses an index the ledger knows: discarded, never added to the wrong stack. */
static void an_eviction_discards_the_ledger_and_a_fresh_end_names_everything_once(void **state)
{
	struct fx *x = fx_new(2, 999);

	(void)state;
	add(x->agg, 1, 1);
	add(x->agg, 2, 5);
	assert_int_equal(step(x, 0), 0);
	add(x->agg, 3, 9);			/* evicts stack 1: index 0 is now stack 3 */
	assert_int_equal(step(x, 0), -ESTALE);
	assert_int_equal(finish(x, 0), -ESTALE);
	assert_true(x->na.st.discarded == 2);
	/* the caller empties its profile and starts over */
	memset(x->f.prof, 0, sizeof(x->f.prof));
	name_ahead__reset(&x->na, x->agg);
	assert_int_equal(finish(x, 0), 0);
	assert_true(x->f.prof[3] == 9 && x->f.prof[2] == 5);
	/* stack 1's weight went to "[other stacks]" (no words: named as profile stack 0) */
	assert_true(x->f.prof[0] == 1 && x->f.prof[1] == 0);
	assert_true(fake_total(&x->f) == stack_agg__total_weight(x->agg));
	fx_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(budget_stops_at_its_count_or_its_deadline_whichever_first),
		cmocka_unit_test(steps_name_new_entries_within_budget_and_the_end_adds_only_growth),
		cmocka_unit_test(entries_whose_names_may_change_are_named_at_the_end_with_their_whole_weight),
		cmocka_unit_test(the_end_keeps_what_its_budget_cannot_name_and_counts_it),
		cmocka_unit_test(entries_merged_into_one_stack_each_add_their_own_growth),
		cmocka_unit_test(an_eviction_discards_the_ledger_and_a_fresh_end_names_everything_once),
	};

	return cmocka_run_group_tests_name("name_ahead", tests, NULL, NULL);
}
