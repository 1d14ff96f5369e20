/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The rows of the lock table: per-lock totals (exact, from BPF) grouped by
 * lock site. Waits at one site spread over several futexes of a process
 * (queued locks: each waiter sleeps on its own semaphore) become one site
 * row; a lock alone at its site stays its own row, named by its symbol when
 * it has one. Pure: no BPF, no symbols.
 */
#ifndef HC_RECORD_LOCKS_GROUP_H
#define HC_RECORD_LOCKS_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/lockwait.h"

#define LOCKS_SITE_LEN 128

/* One lock (futex address or kernel lock) with what its stacks said. */
struct locks_member {
	uint32_t id;		/* locknames id */
	uint32_t tgid;		/* 0: kernel lock */
	uint64_t addr;
	uint64_t count, total_ns, max_ns;
	enum lockwait_class cls;
	char site[LOCKS_SITE_LEN];	/* "": no stack, or no frame outside libc */
	char comm[17];
};

struct locks_disp {
	size_t first;		/* members[first .. first + nr) after locks_group() */
	size_t nr;
	bool by_site;		/* a site row (nr >= 2), else one lock */
	size_t nr_procs;	/* processes among the members (sorted by pid within a row) */
	uint64_t count, total_ns, max_ns;
};

/*
 * Sort @m[0..n) so members of a row are adjacent and fill @rows (capacity
 * @n) with one row per group: with @by_site, user-lock members of one
 * process name (the processes of one program share locks) with the same
 * class and a non-empty site form one site row when there are two or more;
 * else every member is its own row. Rows of a class that is not
 * contention are left out unless @all_waits. Rows are ordered by @sort_key
 * (0 total, 1 max, 2 count), heaviest first. Returns the number of rows.
 */
size_t locks_group(struct locks_member *m, size_t n, bool by_site, bool all_waits,
		   unsigned int sort_key, struct locks_disp *rows);

#endif /* HC_RECORD_LOCKS_GROUP_H */
