// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A CPU-bound workload with a designed split of CPU time: per round,
 * spin_alpha does 60 units, spin_beta 25 and recurse 15 (5 levels of 3).
 * Each function measures its own thread CPU time (outside the hot loops, so
 * libc is off the sampled path) and at exit writes its measured shares, the
 * ground truth the profile is checked against.
 *
 * Each call's length is jittered (x0.5..x1.5, mean unchanged): a round of
 * fixed length (~3 ms) beats against a 999 Hz sampler and phase-locks it,
 * which moved 4 pp of samples from spin_alpha to spin_beta in one CI run
 * with no sampling error to speak of.  Random lengths break the lock.
 *
 * usage: split SECONDS STATS_FILE [EXIT_CODE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define UNIT 20000	/* iterations of one work unit (~20-40 us) */

static volatile unsigned long sink;
static unsigned long rng = 88172645463325252ul;

/* xorshift64: iterations for n units, uniform in n * UNIT * [0.5, 1.5) */
static long jitter(long n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n * UNIT / 2 + (long)(rng % (unsigned long)(n * UNIT));
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The same arithmetic in every function, so time is proportional to iterations. */
#define BURN(iters)                                                                   \
	do {                                                                          \
		unsigned long x = sink;                                               \
		for (long i = 0; i < (long)(iters); i++)                                \
			x = x * 6364136223846793005ul + 1442695040888963407ul;      \
		sink = x;                                                             \
	} while (0)

__attribute__((noinline)) void spin_alpha(long iters)
{
	BURN(iters);
}

__attribute__((noinline)) void spin_beta(long iters)
{
	BURN(iters);
}

__attribute__((noinline)) void recurse(int depth, long iters)
{
	BURN(iters);
	if (depth > 1)
		recurse(depth - 1, iters);
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
		spin_alpha(jitter(60));
		t = cpu_now();
		a += t - t0;
		spin_beta(jitter(25));
		t0 = cpu_now();
		b += t0 - t;
		recurse(5, jitter(3));
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
