// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "record/locks_holders.h"

struct got {
	size_t row;
	uint32_t tid;
	char text[32];
	uint64_t ns, waits;
};

struct gots {
	struct got v[16];
	size_t n;
};

static int take(size_t row, uint32_t tid, const char *comm, const char *text, uint64_t ns,
		uint64_t waits, void *arg)
{
	struct gots *g = arg;

	(void)comm;
	g->v[g->n] = (struct got){ .row = row, .tid = tid, .ns = ns, .waits = waits };
	strcpy(g->v[g->n].text, text ? text : "-");
	g->n++;
	return 0;
}

static const struct got *find(const struct gots *g, size_t row, uint32_t tid, const char *text)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->v[i].row == row && g->v[i].tid == tid && !strcmp(g->v[i].text, text))
			return &g->v[i];
	return NULL;
}

static void a_wakers_ended_time_is_shared_by_its_stacks_in_proportion_to_their_wakes(void **state)
{
	struct locks_holders h = { 0 };
	struct gots g = { .n = 0 };

	(void)state;
	/* thread 7 ended 400 ns of waits (4 of them) on row 0; sampled twice: 3 and 1 wakes */
	assert_int_equal(locks_holders_ended(&h, 0, 7, 300, 3), 0);
	assert_int_equal(locks_holders_ended(&h, 0, 7, 100, 1), 0);
	assert_int_equal(locks_holders_stack(&h, 0, 7, "w", "main;unlock_a", 3), 0);
	assert_int_equal(locks_holders_stack(&h, 0, 7, "w", "main;unlock_b", 1), 0);
	/* the same thread on another row is another holder */
	assert_int_equal(locks_holders_stack(&h, 1, 7, "w", "main;unlock_c", 5), 0);
	assert_int_equal(locks_holders_weigh(&h, take, &g), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(find(&g, 0, 7, "main;unlock_a")->ns, 300);
	assert_int_equal(find(&g, 0, 7, "main;unlock_a")->waits, 3);
	assert_int_equal(find(&g, 0, 7, "main;unlock_b")->ns, 100);
	/* row 1 ended no waits: its stack weighs nothing and is not shown */
	assert_null(find(&g, 1, 7, "main;unlock_c"));
	locks_holders_release(&h);
}

static void time_without_a_sampled_stack_or_a_known_waker_is_kept_without_a_stack(void **state)
{
	struct locks_holders h = { 0 };
	struct gots g = { .n = 0 };
	uint64_t sum = 0;

	(void)state;
	assert_int_equal(locks_holders_ended(&h, 0, 7, 500, 5), 0);
	assert_int_equal(locks_holders_ended(&h, 0, 9, 200, 2), 0);
	assert_int_equal(locks_holders_ended(&h, 0, 0, 50, 1), 0);
	assert_int_equal(locks_holders_stack(&h, 0, 7, "w", "main;unlock_a", 2), 0);
	assert_int_equal(locks_holders_weigh(&h, take, &g), 0);
	assert_int_equal(g.n, 3);
	assert_int_equal(find(&g, 0, 7, "main;unlock_a")->ns, 500);
	assert_int_equal(find(&g, 0, 9, "-")->ns, 200);
	assert_int_equal(find(&g, 0, 0, "-")->ns, 50);
	for (size_t i = 0; i < g.n; i++)
		sum += g.v[i].ns;
	assert_int_equal(sum, 750);	/* every ended nanosecond is someone's, or unknown */
	locks_holders_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_wakers_ended_time_is_shared_by_its_stacks_in_proportion_to_their_wakes),
		cmocka_unit_test(time_without_a_sampled_stack_or_a_known_waker_is_kept_without_a_stack),
	};

	return cmocka_run_group_tests_name("locks_holders", tests, NULL, NULL);
}
