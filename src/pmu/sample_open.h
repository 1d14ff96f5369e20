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
 * Branch records (record -b): every taken branch the PMU logs (Intel LBR,
 * AMD LbrExtV2, Arm BRBE), as `perf record -b` (its "any"): mispredicts
 * happen at conditional and indirect branches, which ANY_CALL or ANY_RETURN
 * would leave out. User space only (the priv bit): the report names user
 * code, and a user-only filter is allowed at perf_event_paranoid 2.
 */
#define PMU_BRANCH_SAMPLE_TYPE (PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER)
/* Add the branch stack to @attr (sample_type, branch_sample_type). */
void pmu_sample_attr_branches(struct perf_event_attr *attr);
/*
 * record -b without -c: one sample per this many events, a prime: ~300
 * samples/s per busy CPU at 3 GHz cycles, each with up to 32 branches
 * (~10^4 branches/s per CPU); the stack and the 800-byte branch record of
 * each sample stay well within the ring and the loader's time.
 */
#define PMU_BRANCH_DEFAULT_PERIOD 10000019

/*
 * One event per online CPU (all tasks), as pmu_open_sampling() does for
 * cycles/cpu-clock, with the branch stack when @branches. A hardware event
 * where the PMU is missing fails with a message naming the software events
 * that work; with @branches, one saying whether the PMU or only its branch
 * stack is missing. 0 or -errno; on error no fd stays open.
 */
int pmu_open_sample_event(const struct pmu_sample_event *ev, uint64_t period, uint64_t freq_hz,
			  bool branches, const bool *online, size_t nr_cpus, int *fds);

#endif /* HC_PMU_SAMPLE_OPEN_H */
