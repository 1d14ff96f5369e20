// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockbench: a lock-contention workload for bench/locks.sh (issue 6).
 *
 *   lockbench [-t THREADS] [-i IN_ITERS] [-o OUT_ITERS] [-w] SECONDS
 *   lockbench -C [-n NS_IN] [-N NS_OUT]     (calibrate, print "IN_ITERS OUT_ITERS NS_PER_ITER")
 *
 * THREADS threads (default 4) repeatedly lock ONE global pthread_mutex_t
 * (g_bench_mutex, default attributes: glibc's normal mutex, no spinning), do
 * IN_ITERS iterations of a dependent multiply-add chain inside the critical
 * section, unlock, and do OUT_ITERS iterations outside. With more threads than
 * CPUs most acquisitions find the lock taken and go through the futex: the
 * waiter sleeps in FUTEX_WAIT, the owner's unlock issues FUTEX_WAKE.
 *
 * The iteration counts are fixed by the caller (bench/locks.sh calibrates once
 * with -C and passes the same counts to every run) so that every arm does the
 * same work; -C times the chain and prints the counts for NS_IN (default 1000)
 * and NS_OUT (default 200) nanoseconds.
 *
 * Threads are created and parked in read() on a pipe before the timed phase.
 * With -w the process prints "ready PID" on stderr and waits for SIGUSR1
 * before it releases them, so a tracer can attach to threads that already
 * exist; after printing the result it waits for a second SIGUSR1 before it
 * exits, so a tracer that stops when its target exits can still be read.
 *
 * Result, one line on stdout:
 *   ACQ_PER_S  ACQUISITIONS  ELAPSED_S  CPU_S  VCSW  IVCSW
 * acquisitions per second of wall time (all threads), their number, the timed
 * interval (first release to last thread stopped), the threads' CPU time and
 * their voluntary / involuntary context switches over the interval.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 256

pthread_mutex_t g_bench_mutex = PTHREAD_MUTEX_INITIALIZER;
static uint64_t g_shared;		/* written under the lock */
static atomic_int stop_flag;
static int go[2];
static long in_iters = 300, out_iters = 60;

struct tstat {
	uint64_t acq;
	double t0, t1, cpu_s;
	long vcsw, ivcsw;
	uint64_t sink;
} __attribute__((aligned(64)));
static struct tstat st[MAX_THREADS];

static double clock_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "lockbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* n dependent multiply-adds: ~constant time per iteration, not optimised away */
__attribute__((noinline)) static uint64_t work(uint64_t x, long n)
{
	for (long i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

__attribute__((noinline)) static void critical_section(struct tstat *s)
{
	pthread_mutex_lock(&g_bench_mutex);
	g_shared = work(g_shared, in_iters);
	pthread_mutex_unlock(&g_bench_mutex);
	s->sink = work(s->sink, out_iters);
}

static void thread_usage(struct tstat *s, int sign)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	s->vcsw += sign * ru.ru_nvcsw;
	s->ivcsw += sign * ru.ru_nivcsw;
	s->cpu_s += sign * clock_s(CLOCK_THREAD_CPUTIME_ID);
}

__attribute__((noinline)) static void *locker_thread(void *arg)
{
	struct tstat *s = arg;
	char c;
	ssize_t n;

	while ((n = read(go[0], &c, 1)) != 1)	/* parked until main says go */
		if (n == 0 || errno != EINTR)
			die("read");
	thread_usage(s, -1);
	s->t0 = clock_s(CLOCK_MONOTONIC);
	while (!atomic_load_explicit(&stop_flag, memory_order_relaxed)) {
		critical_section(s);
		s->acq++;
	}
	s->t1 = clock_s(CLOCK_MONOTONIC);
	thread_usage(s, +1);
	return NULL;
}

static void sleep_s(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s, .tv_nsec = (long)((s - (time_t)s) * 1e9) };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/* best of 7 timings of the chain, ns per iteration */
static double ns_per_iter(void)
{
	const long n = 2000000;
	double best = 1e9;

	for (int k = 0; k < 7; k++) {
		double t0 = clock_s(CLOCK_MONOTONIC);
		uint64_t x = work(k, n);
		double t = (clock_s(CLOCK_MONOTONIC) - t0) * 1e9 / n;

		__asm__ volatile("" : : "r"(x));
		if (t < best)
			best = t;
	}
	return best;
}

int main(int argc, char **argv)
{
	pthread_t tid[MAX_THREADS];
	int opt, wait_sig = 0, calibrate = 0, nthreads = 4;
	double secs, ns_in = 1000, ns_out = 200;
	char *end;
	sigset_t usr1;

	while ((opt = getopt(argc, argv, "t:i:o:wCn:N:")) != -1) {
		switch (opt) {
		case 't': nthreads = atoi(optarg); break;
		case 'i': in_iters = atol(optarg); break;
		case 'o': out_iters = atol(optarg); break;
		case 'w': wait_sig = 1; break;
		case 'C': calibrate = 1; break;
		case 'n': ns_in = atof(optarg); break;
		case 'N': ns_out = atof(optarg); break;
		default: goto usage;
		}
	}
	if (calibrate) {
		double ns = ns_per_iter();

		printf("%ld %ld %.4f\n", (long)(ns_in / ns + 0.5), (long)(ns_out / ns + 0.5), ns);
		return 0;
	}
	if (optind != argc - 1 || nthreads < 1 || nthreads > MAX_THREADS || in_iters < 0 ||
	    out_iters < 0)
		goto usage;
	secs = strtod(argv[optind], &end);
	if (*end || !(secs > 0))
		goto usage;

	/* SIGUSR1 stays blocked in every thread; main takes it with sigwait */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);

	if (pipe(go))
		die("pipe");
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&tid[i], NULL, locker_thread, &st[i])) {
			fprintf(stderr, "lockbench: pthread_create failed\n");
			return 1;
		}
	if (wait_sig) {
		int sig;

		fprintf(stderr, "ready %d\n", (int)getpid());
		fflush(stderr);
		if (sigwait(&usr1, &sig))
			die("sigwait");
	}
	char gobuf[MAX_THREADS];

	memset(gobuf, 'g', sizeof(gobuf));
	if (write(go[1], gobuf, nthreads) != nthreads)
		die("write");
	sleep_s(secs);
	atomic_store(&stop_flag, 1);

	uint64_t acq = 0;
	double t0 = 1e300, t1 = 0, cpu = 0;
	long vcsw = 0, ivcsw = 0;

	for (int i = 0; i < nthreads; i++) {
		pthread_join(tid[i], NULL);
		acq += st[i].acq;
		if (st[i].t0 < t0)
			t0 = st[i].t0;
		if (st[i].t1 > t1)
			t1 = st[i].t1;
		cpu += st[i].cpu_s;
		vcsw += st[i].vcsw;
		ivcsw += st[i].ivcsw;
	}
	double el = t1 - t0;

	printf("%.1f %llu %.6f %.6f %ld %ld\n", acq / el, (unsigned long long)acq, el, cpu, vcsw,
	       ivcsw);
	fflush(stdout);
	if (wait_sig) {
		int sig;

		if (sigwait(&usr1, &sig))
			die("sigwait");
	}
	return 0;
usage:
	fprintf(stderr, "usage: lockbench [-t THREADS] [-i IN_ITERS] [-o OUT_ITERS] [-w] SECONDS\n"
			"       lockbench -C [-n NS_IN] [-N NS_OUT]\n");
	return 2;
}
