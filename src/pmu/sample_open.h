/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Per-CPU sampling on any named event (record -e EVENT [-c PERIOD]). No BPF. */
#ifndef HC_PMU_SAMPLE_OPEN_H
#define HC_PMU_SAMPLE_OPEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

#include "pmu/events.h"

/*
 * Default period for an event without -c: every event for the software ones
 * (they are rare enough: faults, switches, migrations), a prime 100003 for
 * hardware ones (as `perf record -c`'s usual choice: no lockstep with loops).
 * 0 for clocks: they stay frequency-sampled at -F.
 */
uint64_t pmu_sample_default_period(const struct pmu_sample_event *ev);

/* @attr for @ev: period sampling when @period > 0, else frequency @freq_hz. */
void pmu_sample_attr(struct perf_event_attr *attr, const struct pmu_sample_event *ev,
		     uint64_t period, uint64_t freq_hz);

/*
 * One event per online CPU (all tasks), as pmu_open_sampling() does for
 * cycles/cpu-clock. A hardware event where the PMU is missing fails with a
 * message naming the software events that work. 0 or -errno; on error no
 * fd stays open.
 */
int pmu_open_sample_event(const struct pmu_sample_event *ev, uint64_t period, uint64_t freq_hz,
			  const bool *online, size_t nr_cpus, int *fds);

#endif /* HC_PMU_SAMPLE_OPEN_H */
