/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The clocks the loader reads, in one place: monotonic and thread-CPU ns, wall ms. */
#ifndef HC_UTIL_CLOCK_H
#define HC_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC: intervals, deadlines, ages. */
static inline uint64_t clock_mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* CPU time of the calling thread: what the loader's own work costs. */
static inline uint64_t clock_thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* Unix time in ms: file names and the agent's index. */
static inline int64_t clock_unix_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#endif /* HC_UTIL_CLOCK_H */
