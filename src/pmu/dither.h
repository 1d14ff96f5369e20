/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Dithered on-CPU sampling, the loader's half: how fast the sampling event
 * ticks for a requested rate and how its tick period is re-drawn. The BPF
 * half (bpf/oncpu.bpf.c) picks one tick per sampling interval.
 */
#ifndef HC_PMU_DITHER_H
#define HC_PMU_DITHER_H

#include <stdint.h>

#include "pmu/perf_event.h"

#define PMU_DITHER_TICKS	8		/* ticks per sampling interval, at most */
#define PMU_DITHER_MIN_TICK_NS	100000ull	/* no faster: 10 kHz of interrupts per CPU */
#define PMU_DITHER_JIFFY_NS	10000000ull	/* the longest scheduler tick (HZ=100) */

struct pmu_dither {
	uint64_t period_ns;	/* the sampling interval; 0: not dithered (too fast) */
	uint64_t tick_hz;	/* the event's nominal rate */
	uint64_t max_late_ns;	/* a tick later than this after an instant misses it */
	uint64_t max_ahead_ns;	/* tick-charged CPU time ahead of the kernel's, at most */
};

/*
 * The plan for sampling at @freq_hz (> 0): ticks at up to PMU_DITHER_TICKS
 * times that rate, none shorter than PMU_DITHER_MIN_TICK_NS; at rates where
 * fewer than 2 ticks fit in an interval, no dithering (period_ns = 0, one
 * tick per sample).
 */
void pmu_dither_plan(uint64_t freq_hz, struct pmu_dither *out);

/*
 * A new tick value for the event's next stretch: the nominal tick period
 * times a factor uniform in [0.75, 1.25) from @rnd, so the tick grid cannot
 * stay in step with periodic work either. Returned in the unit
 * PERF_EVENT_IOC_PERIOD takes for @ev: nanoseconds for cpu-clock (period
 * mode), Hz for cycles (frequency mode).
 */
uint64_t pmu_dither_redraw(const struct pmu_dither *d, enum pmu_event ev, uint32_t rnd);

#endif /* HC_PMU_DITHER_H */
