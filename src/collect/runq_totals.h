/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Totals of every run-queue wait the sched collector histogrammed (see runq_totals.c). */
#ifndef HC_COLLECT_RUNQ_TOTALS_H
#define HC_COLLECT_RUNQ_TOTALS_H

#include <stdbool.h>
#include <stdint.h>

struct runq_totals {
	bool looked_up;
	int fd;		/* < 0: no histogram map (-errno) */
};

/*
 * Cumulative waits and their nanoseconds since the collector started, summed
 * over the histogram's entries. The map fd stays the collector's. 0 or -errno
 * (-ENOENT: run-queue collection is off).
 */
int runq_totals_read(struct runq_totals *rt, uint64_t *waits, uint64_t *ns);

#endif /* HC_COLLECT_RUNQ_TOTALS_H */
