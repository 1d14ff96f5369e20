// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Burns CPU at the bottom of a recursion DEPTH frames deep for SECONDS, to
 * check that stacks deeper than the walk limit (127) are marked truncated.
 * usage: deep DEPTH SECONDS
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void descend(int depth, double end)
{
	if (depth > 1) {
		descend(depth - 1, end);
	} else {
		while (now() < end)
			for (int i = 0; i < 100000; i++)
				sink += i;
	}
	__asm__ volatile("" ::: "memory");	/* not a tail call */
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 200;
	double secs = argc > 2 ? atof(argv[2]) : 1;

	descend(depth, now() + secs);
	return 0;
}
