// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A turn's budget of items and time (budget.h). */
#include "util/budget.h"

#include "util/clock.h"

void budget_init(struct budget *b, uint64_t (*now)(void), size_t items, uint64_t ns)
{
	b->now = now ? now : clock_mono_ns;
	b->deadline_ns = ns ? b->now() + ns : 0;
	b->left = items ? items : SIZE_MAX;
	b->spent = 0;
	b->cut = false;
}

bool budget_take(struct budget *b)
{
	if (b->cut || !b->left || (b->deadline_ns && b->now() >= b->deadline_ns)) {
		b->cut = true;
		return false;
	}
	if (b->left != SIZE_MAX)
		b->left--;
	b->spent++;
	return true;
}
