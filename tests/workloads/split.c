// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A CPU-bound workload with a designed split of CPU time. Each function
 * measures its own thread CPU time (outside the hot loops, so libc is off
 * the sampled path) and at exit writes its measured shares, the ground
 * truth the profile is checked against, and the process's CPU time.
 *
 * Default mode: per round, spin_alpha does 60 units, spin_beta 25 and
 * recurse 15 (5 levels of 3), each call's length jittered (x0.5..x1.5, mean
 * unchanged) so the round length never repeats.
 *
 * Periodic mode (-P NS): no jitter; rounds are locked to CLOCK_MONOTONIC
 * periods of NS nanoseconds, like a game loop or a 100 Hz tick: spin_alpha
 * runs until 63% of the period, spin_beta until 90%, recurse (5 levels) to
 * the end; a thread preempted past a period skips to the next one. A
 * sampler whose interval is a near multiple of the period sees the same
 * phase again and again; this mode is how the tests show it does not.
 * Deadlines are read from the TSC inline (no call, no frame to unwind),
 * re-calibrated against CLOCK_MONOTONIC every period, so the periods keep
 * to the clock the kernel's sampling timers run on.
 *
 * SECONDS is CPU time per thread. The stats file also has cpu_seconds, the
 * process's own CPU time (getrusage).
 *
 * usage: split [-P PERIOD_NS] [-t THREADS] SECONDS STATS_FILE [EXIT_CODE]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define UNIT 20000	/* iterations of one work unit (~20-40 us) */
#define CHUNK 500	/* iterations between deadline checks (~1 us) */
#define MAX_THREADS 64

static volatile unsigned long sink;
static double secs;
static long period_ns;		/* 0: jittered rounds */
static unsigned long long cal_tick0, cal_ns0;	/* TSC and monotonic at the same instant */

struct thread_acc {
	pthread_t tid;
	double a, b, r;		/* CPU seconds in each function */
	unsigned long rng;
};

/* xorshift64: iterations for n units, uniform in n * UNIT * [0.5, 1.5) */
static long jitter(unsigned long *rng, long n)
{
	*rng ^= *rng << 13;
	*rng ^= *rng >> 7;
	*rng ^= *rng << 17;
	return n * UNIT / 2 + (long)(*rng % (unsigned long)(n * UNIT));
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* the deadline clock: inline TSC on x86 (no vDSO frame in the sampled loop) */
static inline unsigned long long ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	return mono_ns();
#endif
}

/* the deadline clock's value at monotonic @ns, by the calibration since the start */
static unsigned long long ticks_at(unsigned long long ns)
{
	unsigned long long c = ticks(), t = mono_ns();
	double per_ns = t > cal_ns0 ? (double)(c - cal_tick0) / (double)(t - cal_ns0) : 1;

	return c + (unsigned long long)(((double)ns - (double)t) * per_ns);
}

static void calibrate(void)
{
	cal_ns0 = mono_ns();
	cal_tick0 = ticks();
	while (mono_ns() - cal_ns0 < 20000000)
		;
}

/* The same arithmetic in every function, so time is proportional to iterations. */
#define BURN(iters)                                                                   \
	do {                                                                          \
		unsigned long x = sink;                                               \
		for (long i = 0; i < (long)(iters); i++)                                \
			x = x * 6364136223846793005ul + 1442695040888963407ul;      \
		sink = x;                                                             \
	} while (0)

/* iters > 0: that many iterations; else burn until the deadline clock passes -iters */
#define WORK(iters)                                                                   \
	do {                                                                          \
		if ((iters) > 0) {                                                    \
			BURN(iters);                                                  \
		} else {                                                              \
			while (ticks() < (unsigned long long)-(iters))                \
				BURN(CHUNK);                                          \
		}                                                                     \
	} while (0)

__attribute__((noinline)) void spin_alpha(long iters)
{
	WORK(iters);
}

__attribute__((noinline)) void spin_beta(long iters)
{
	WORK(iters);
}

/* periodic: each level burns its fifth of [start, end), deepest level last */
__attribute__((noinline)) void recurse(int depth, long iters, long end)
{
	if (iters < 0) {
		long start = -iters, step = (end - start) / depth;

		WORK(-(start + step));
		if (depth > 1)
			recurse(depth - 1, -(start + step), end);
	} else {
		WORK(iters);
		if (depth > 1)
			recurse(depth - 1, iters, 0);
	}
	__asm__ volatile("" ::: "memory");	/* keep the call from becoming a jump */
}

static void round_jittered(struct thread_acc *t)
{
	double t0, t1;

	t0 = cpu_now();
	spin_alpha(jitter(&t->rng, 60));
	t1 = cpu_now();
	t->a += t1 - t0;
	spin_beta(jitter(&t->rng, 25));
	t0 = cpu_now();
	t->b += t0 - t1;
	recurse(5, jitter(&t->rng, 3), 0);
	t1 = cpu_now();
	t->r += t1 - t0;
}

/* one period starting at monotonic @p0; returns the next period's start */
static unsigned long long round_periodic(struct thread_acc *t, unsigned long long p0)
{
	unsigned long long p = period_ns, next = p0 + p, now;
	long ea = ticks_at(p0 + p * 63 / 100), eb = ticks_at(p0 + p * 90 / 100);
	double t0, t1;

	t0 = cpu_now();
	spin_alpha(-ea);
	t1 = cpu_now();
	t->a += t1 - t0;
	spin_beta(-eb);
	t0 = cpu_now();
	t->b += t0 - t1;
	recurse(5, -eb, (long)ticks_at(next));
	t1 = cpu_now();
	t->r += t1 - t0;
	/* preempted past a whole period: on to the current one, same phase grid */
	now = mono_ns();
	if (now > next + p)
		next += (now - next) / p * p;
	return next;
}

static void *worker(void *arg)
{
	struct thread_acc *t = arg;
	double start = cpu_now();
	unsigned long long p0 = mono_ns();

	while (cpu_now() - start < secs) {
		if (period_ns)
			p0 = round_periodic(t, p0);
		else
			round_jittered(t);
	}
	return NULL;
}

static double process_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static int usage(void)
{
	fprintf(stderr, "usage: split [-P PERIOD_NS] [-t THREADS] SECONDS STATS_FILE [EXIT_CODE]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct thread_acc th[MAX_THREADS] = { 0 };
	double a = 0, b = 0, r = 0, sum;
	int nthreads = 1, opt, code;
	FILE *f;

	while ((opt = getopt(argc, argv, "P:t:")) != -1) {
		if (opt == 'P')
			period_ns = atol(optarg);
		else if (opt == 't')
			nthreads = atoi(optarg);
		else
			return usage();
	}
	if (argc - optind < 2 || period_ns < 0 || nthreads < 1 || nthreads > MAX_THREADS)
		return usage();
	secs = atof(argv[optind]);
	code = argc - optind > 2 ? atoi(argv[optind + 2]) : 0;
	if (period_ns)
		calibrate();
	for (int i = 0; i < nthreads; i++) {
		th[i].rng = 88172645463325252ul + i;
		if (i && pthread_create(&th[i].tid, NULL, worker, &th[i]))
			return 1;
	}
	worker(&th[0]);
	for (int i = 0; i < nthreads; i++) {
		if (i)
			pthread_join(th[i].tid, NULL);
		a += th[i].a;
		b += th[i].b;
		r += th[i].r;
	}
	sum = a + b + r;
	f = fopen(argv[optind + 1], "w");
	if (!f)
		return 1;
	fprintf(f, "spin_alpha %.4f\nspin_beta %.4f\nrecurse %.4f\ncpu_seconds %.6f\n",
		100 * a / sum, 100 * b / sum, 100 * r / sum, process_cpu());
	fclose(f);
	return code;
}
