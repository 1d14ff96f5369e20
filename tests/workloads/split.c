// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A CPU-bound workload with a designed split of CPU time: per round,
 * spin_alpha does 60 units, spin_beta 25 and recurse 15 (5 levels of 3).
 * Each function measures its own thread CPU time (outside the hot loops, so
 * libc is off the sampled path) and at exit writes its measured shares, the
 * ground truth the profile is checked against.
 *
 * usage: split SECONDS STATS_FILE [EXIT_CODE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define UNIT 20000	/* iterations of one work unit (~20-40 us) */

static volatile unsigned long sink;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The same arithmetic in every function, so time is proportional to units. */
#define BURN(units)                                                                   \
	do {                                                                          \
		unsigned long x = sink;                                               \
		for (long i = 0; i < (long)(units) * UNIT; i++)                       \
			x = x * 6364136223846793005ul + 1442695040888963407ul;      \
		sink = x;                                                             \
	} while (0)

__attribute__((noinline)) void spin_alpha(void)
{
	BURN(60);
}

__attribute__((noinline)) void spin_beta(void)
{
	BURN(25);
}

__attribute__((noinline)) void recurse(int depth)
{
	BURN(3);
	if (depth > 1)
		recurse(depth - 1);
	__asm__ volatile("" ::: "memory");	/* keep the call from becoming a jump */
}

int main(int argc, char **argv)
{
	double secs, t0, t, a = 0, b = 0, r = 0, start;
	int code = argc > 3 ? atoi(argv[3]) : 0;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: split SECONDS STATS_FILE [EXIT_CODE]\n");
		return 2;
	}
	secs = atof(argv[1]);
	start = cpu_now();
	while (cpu_now() - start < secs) {
		t0 = cpu_now();
		spin_alpha();
		t = cpu_now();
		a += t - t0;
		spin_beta();
		t0 = cpu_now();
		b += t0 - t;
		recurse(5);
		t = cpu_now();
		r += t - t0;
	}
	f = fopen(argv[2], "w");
	if (!f)
		return 1;
	fprintf(f, "spin_alpha %.4f\nspin_beta %.4f\nrecurse %.4f\n", 100 * a / (a + b + r),
		100 * b / (a + b + r), 100 * r / (a + b + r));
	fclose(f);
	return code;
}
