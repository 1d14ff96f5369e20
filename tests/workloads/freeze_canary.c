// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * freeze_canary SECONDS OUT: how long each CPU stood still. One SCHED_FIFO
 * thread per online CPU, pinned to it (root; else it says so and runs at
 * its own priority), sleeps 5 ms at a time for SECONDS; a real-time thread
 * is woken on time whatever the machine's CFS load, so a wakeup over
 * FREEZE_MS late means its CPU ran nothing: the host stopped that vCPU (on
 * this VM, ~100 ms at a time under load, as a CPU quota's 100 ms period
 * would; not reported to the guest as steal, so the thread it stopped is
 * charged the time as run time). Writes one line per such wakeup to OUT,
 * "<realtime ms at the wakeup> <ms late> <cpu>", and on stderr the count,
 * the total and the longest. The tests (t_real_servers) set what the
 * machine took against a deadline the profiler missed.
 */
#define _GNU_SOURCE	/* CPU_SET, pthread_setaffinity_np */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SLEEP_NS 5000000LL
#define FREEZE_MS 20

static long long ns_of(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long end_ns;
static FILE *out;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static long long total, longest;
static int count;

/* One CPU's canary: its late wakeups, from the first to the end. */
static void *watch(void *arg)
{
	long long next = ns_of(CLOCK_MONOTONIC), now, late;
	int cpu = (int)(long)arg;

	while ((next += SLEEP_NS) < end_ns) {
		struct timespec t = { next / 1000000000LL, next % 1000000000LL };

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
			;
		now = ns_of(CLOCK_MONOTONIC);
		late = (now - next) / 1000000;
		if (late < FREEZE_MS)
			continue;
		pthread_mutex_lock(&out_lock);
		count++;
		total += late;
		if (late > longest)
			longest = late;
		fprintf(out, "%lld %lld %d\n", ns_of(CLOCK_REALTIME) / 1000000, late, cpu);
		fflush(out);
		pthread_mutex_unlock(&out_lock);
		next = now;	/* from here: the freeze is counted once */
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = 50 };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t th[256];
	pthread_attr_t attr;
	int rt = 1, n = 0;

	if (argc != 3 || atof(argv[1]) <= 0) {
		fprintf(stderr, "usage: freeze_canary SECONDS OUT\n");
		return 2;
	}
	out = fopen(argv[2], "w");
	if (!out)
		return 1;
	end_ns = ns_of(CLOCK_MONOTONIC) + (long long)(atof(argv[1]) * 1e9);
	for (long c = 0; c < ncpu && c < 256; c++) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(c, &set);
		pthread_attr_init(&attr);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		pthread_attr_setschedparam(&attr, &sp);
		if (pthread_create(&th[n], &attr, watch, (void *)c)) {
			/* not allowed real-time: at the default priority */
			rt = 0;
			pthread_attr_setinheritsched(&attr, PTHREAD_INHERIT_SCHED);
			if (pthread_create(&th[n], &attr, watch, (void *)c))
				continue;
		}
		pthread_attr_destroy(&attr);
		n++;
	}
	if (!rt)
		fprintf(stderr, "freeze_canary: no SCHED_FIFO (%s): CFS load counts too\n",
			strerror(errno));
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	fclose(out);
	fprintf(stderr, "freeze_canary: %d CPUs, %d wakeups >= %d ms late, %lld ms in all, longest %lld ms%s\n",
		n, count, FREEZE_MS, total, longest, rt ? "" : " (not real-time)");
	return 0;
}
