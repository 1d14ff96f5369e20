/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A turn's budget: at most N items or until a monotonic deadline, whichever
 * comes first. Loops that name, drain or replay take one item at a time and
 * stop when it runs out; what is left continues on the next turn.
 */
#ifndef HC_UTIL_BUDGET_H
#define HC_UTIL_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct budget {
	uint64_t (*now)(void);	/* CLOCK_MONOTONIC ns (a fake clock in tests) */
	uint64_t deadline_ns;	/* 0: no time limit */
	size_t left;		/* items still allowed; SIZE_MAX: no count limit */
	size_t spent;		/* items taken */
	bool cut;		/* it ran out with work left */
};

/*
 * @items (0: no count limit) and @ns from now (0: no time limit); @now
 * NULL means clock_mono_ns().
 */
void budget_init(struct budget *b, uint64_t (*now)(void), size_t items, uint64_t ns);
/*
 * One more item, if the budget allows it: true, or false (b->cut set) when
 * the count is spent or the deadline passed. The clock is read per item:
 * an item is one stack or one map entry (microseconds), the read ~20 ns.
 */
bool budget_take(struct budget *b);

#endif /* HC_UTIL_BUDGET_H */
