/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The holder's side of a futex lock, weighted by the wait time it ended.
 * Every long wait knows which thread's wake ended it (abi/locks.h), exactly;
 * the wakers' stacks are sampled (one per address and millisecond, weighted
 * by the wakes since the previous one). Each waker thread's ended wait time
 * is shared among its sampled stacks in proportion to their wakes; a thread
 * with no sampled stack and waits ended by no known wake keep their time,
 * without a stack. Pure: no BPF, no symbols.
 */
#ifndef HC_RECORD_LOCKS_HOLDERS_H
#define HC_RECORD_LOCKS_HOLDERS_H

#include <stddef.h>
#include <stdint.h>

struct lh_ended {
	size_t row;
	uint32_t tid;		/* the waker; 0: unknown */
	uint64_t ns, waits;
};

struct lh_stack {
	size_t row;
	uint32_t tid;
	char comm[17];
	char *text;		/* owned */
	uint64_t wakes;
};

struct locks_holders {
	struct lh_ended *e;
	size_t ne, ce;
	struct lh_stack *s;
	size_t ns, cs;
};

/* @ns of waits (@waits of them) in table row @row ended by thread @tid's wakes. 0 or -ENOMEM. */
int locks_holders_ended(struct locks_holders *h, size_t row, uint32_t tid, uint64_t ns,
			uint64_t waits);

/* A sampled stack (@text, copied) of waker @tid on row @row standing for @wakes wakes. */
int locks_holders_stack(struct locks_holders *h, size_t row, uint32_t tid, const char *comm,
			const char *text, uint64_t wakes);

/*
 * Each holder's share: @text NULL for time with no sampled stack (@tid 0:
 * no known waker). Non-zero from @fn stops and is returned.
 */
typedef int (*locks_holders_fn)(size_t row, uint32_t tid, const char *comm, const char *text,
				uint64_t ns, uint64_t waits, void *arg);
int locks_holders_weigh(const struct locks_holders *h, locks_holders_fn fn, void *arg);

void locks_holders_release(struct locks_holders *h);	/* frees what it holds, not @h */

#endif /* HC_RECORD_LOCKS_HOLDERS_H */
