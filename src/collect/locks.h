/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The lock-contention collector's table, for `hotcold locks`. */
#ifndef HC_COLLECT_LOCKS_H
#define HC_COLLECT_LOCKS_H

#include <stddef.h>
#include <stdint.h>

#include "collect/collector.h"

/* One lock's totals over every wait (short ones included), exact from BPF. */
struct lock_row {
	uint32_t id;		/* locknames id: label, type, address */
	uint64_t count;
	uint64_t total_ns;
	uint64_t max_ns;
	char comm[17];		/* process of the first waiter */
};

/* Read every lock's totals; *rows is malloc'd (caller frees). 0 or -errno. */
int locks_collector_rows(struct collector *c, struct lock_row **rows, size_t *nr);

#endif /* HC_COLLECT_LOCKS_H */
