// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The executable of tests/integration/t_lld.sh: half its time in the
 * library's loop (main -> lib_outer -> lib_inner), half in its own callback
 * called from the library (main -> lib_call -> app_cb). Before that it
 * burns 100 ms in warmup() so the profiler sees it, then pauses 300 ms
 * while its unwind tables are built (until then, stacks are walked by frame
 * pointer, a separately counted startup case).
 * usage: lldmain SECONDS
 */
#include <stdlib.h>
#include <time.h>

void lib_outer(long iters);
void lib_call(void (*cb)(long), long iters);
extern volatile unsigned long lld_sink;

__attribute__((noinline)) static void app_cb(long iters)
{
	unsigned long x = lld_sink;

	for (long i = 0; i < iters; i++)
		x = x * 2862933555777941757ul + 3037000493ul;
	lld_sink = x;
}

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec - t0->tv_sec + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

__attribute__((noinline)) static void warmup(void)
{
	struct timespec t0;
	unsigned long x = 1;

	/* its own loop, not app_cb: its stacks cut short before the tables exist stay apart */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (since(&t0) < 0.1)
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005ul + 1;
	lld_sink = x;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2;
	struct timespec t0, pause = { 0, 300 * 1000000 };

	warmup();
	nanosleep(&pause, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		lib_outer(200000);
		lib_call(app_cb, 200000);
	} while (since(&t0) < secs);
	return 0;
}
