// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Dithered on-CPU sampling: tick rate for a sampling rate, random tick re-draws. */
#include "pmu/dither.h"

#define NSEC_PER_SEC 1000000000ull

void pmu_dither_plan(uint64_t freq_hz, struct pmu_dither *out)
{
	uint64_t period = NSEC_PER_SEC / freq_hz, k = period / PMU_DITHER_MIN_TICK_NS;

	if (k > PMU_DITHER_TICKS)
		k = PMU_DITHER_TICKS;
	if (k < 2) {
		*out = (struct pmu_dither){ .period_ns = 0, .tick_hz = freq_hz };
		return;
	}
	out->period_ns = period;
	out->tick_hz = freq_hz * k;
	/*
	 * Ticks come every 1.25 nominal ticks at the slowest, and a re-draw
	 * restarts the timer (up to two ticks' gap): 3 ticks is late.
	 */
	out->max_late_ns = 3 * (NSEC_PER_SEC / out->tick_hz);
	/*
	 * The kernel's sum_exec_runtime of a running thread lags by up to a
	 * scheduler tick; the ticks' own estimate may lead it by two ticks
	 * (a late one, a re-draw) before it is charging someone else's time.
	 */
	out->max_ahead_ns = PMU_DITHER_JIFFY_NS + 2 * (NSEC_PER_SEC / out->tick_hz);
}

uint64_t pmu_dither_redraw(const struct pmu_dither *d, enum pmu_event ev, uint32_t rnd)
{
	/* factor = 0.75 + rnd / 2^33, in 1/2^32 units: 3 * 2^30 + rnd / 2 */
	uint64_t f = 3ull * (1ull << 30) + rnd / 2;

	if (ev == PMU_EV_CYCLES)	/* frequency mode: the rate is divided by the factor */
		return ((d->tick_hz << 32) + f / 2) / f;
	return ((NSEC_PER_SEC / d->tick_hz) * f) >> 32;
}
