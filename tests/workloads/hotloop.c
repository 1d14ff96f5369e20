// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One function with one hot source line, for `hotcold annotate`: hot_loop()
 * spends ~90% of its time on the line marked HOT (a xor-shift-multiply chain
 * the compiler cannot fold into a closed form, as it can a plain multiply-add)
 * and ~10% in mix(), inlined into it (line marked MIX). main() only calls
 * it until SECONDS pass. Built with -g like every workload.
 * usage: hotloop SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long mix(unsigned long x)
{
	return (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ul; /* MIX */
}

__attribute__((noinline)) unsigned long hot_loop(unsigned long n, unsigned long x)
{
	for (unsigned long i = 0; i < n; i++)
		x = (x ^ (x >> 7)) * 6364136223846793005ul + i; /* HOT */
	for (unsigned long i = 0; i < n / 9; i++)
		x = mix(x) + i;
	return x;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1);
	unsigned long x = 1;

	while (now() < end)
		x = hot_loop(1000000, x);
	sink = x;
	return 0;
}
