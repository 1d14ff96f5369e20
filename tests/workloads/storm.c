// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One process of a process storm: burns MS milliseconds of CPU in
 * storm_work, then exits. Its samples need the process's maps, which a
 * loader that is late (busy, or stopped by the test) reads only after exit.
 *
 * usage: storm MS
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

__attribute__((noinline)) void storm_work(long ns)
{
	long t0 = cpu_ns();

	do {
		for (int i = 0; i < 100000; i++)
			sink += i;
	} while (cpu_ns() - t0 < ns);
}

int main(int argc, char **argv)
{
	storm_work((argc > 1 ? atol(argv[1]) : 5) * 1000000L);
	return 0;
}
