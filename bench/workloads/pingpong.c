// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pingpong: a context-switch-bound workload for bench/sched.sh.
 *
 *   pingpong [-c CPU] [-w] SECONDS
 *
 * Two threads ("ping" and "pong") bounce a one-byte token through a pair of
 * pipes, both pinned to the same CPU (default: the last online CPU), so every
 * round trip is two blocking reads and two context switches:
 *
 *   ping: write(p2c) -> read(c2p) blocks -> switch to pong
 *   pong: read(p2c) returns -> write(c2p) wakes ping -> read(p2c) blocks -> switch
 *
 * Both threads are created, pinned and parked (blocked in read) before the
 * timed phase. With -w the process prints "ready PID" on stderr and waits for
 * SIGUSR1 before it starts the clock, so a tracer can attach with -p PID to a
 * process whose threads already exist; without -w it starts at once. With -w
 * it also waits for a second SIGUSR1 after printing its result before it
 * exits, so a tracer that stops when its target exits (hotcold -p, perf -p)
 * can still be inspected (BPF run-time stats) and stopped by the caller.
 *
 * After SECONDS of wall time it prints one line on stdout:
 *   RT_PER_S  ROUND_TRIPS  ELAPSED_S  CPU_S  VCSW  IVCSW  SLICE_MEDIAN_RT_PER_S
 * round trips per second of wall time (the throughput), their number, the
 * measured interval, the CPU time of the two threads together, their
 * voluntary / involuntary context switches over the interval (from
 * getrusage(RUSAGE_THREAD)), and the median over 100 ms slices of the
 * interval of round trips per second (ping reads the clock every 256 round
 * trips): on a shared machine, bursts of other work hit a few slices, not
 * the median. Built with frame pointers so FP unwinders get
 * the application frames above libc: start_thread -> ping_thread/pong_thread
 * -> bounce -> read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int p2c[2], c2p[2];	/* ping -> pong, pong -> ping */
static int go[2];		/* main -> ping: start */
static atomic_int stop_flag;
static int cpu = -1;

struct tstat {
	uint64_t round_trips;
	double t0, t1;		/* ping: the timed interval */
	double cpu_s;
	long vcsw, ivcsw;
};
static struct tstat ping_st, pong_st;

#define SLICE_S 0.1
#define MAX_SLICES 36000	/* one hour of 100 ms slices */
static double *slice_rate;
static unsigned nslices;

static double clock_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "pingpong: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void pin(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

static void full_read(int fd, char *c)
{
	ssize_t n;

	while ((n = read(fd, c, 1)) != 1) {
		if (n < 0 && errno == EINTR)
			continue;
		die(n == 0 ? "read: unexpected EOF" : "read");
	}
}

static void full_write(int fd, char c)
{
	while (write(fd, &c, 1) != 1) {
		if (errno == EINTR)
			continue;
		die("write");
	}
}

/* One leg: hand the token over, wait for it to come back. */
__attribute__((noinline)) static char bounce(int out, int in, char c)
{
	full_write(out, c);
	full_read(in, &c);
	return c;
}

static void thread_usage(struct tstat *st, int sign)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	st->vcsw += sign * ru.ru_nvcsw;
	st->ivcsw += sign * ru.ru_nivcsw;
	st->cpu_s += sign * clock_s(CLOCK_THREAD_CPUTIME_ID);
}

__attribute__((noinline)) static void *ping_thread(void *arg)
{
	char c;

	(void)arg;
	pin();
	full_read(go[0], &c);	/* parked until main says go */
	thread_usage(&ping_st, -1);
	ping_st.t0 = clock_s(CLOCK_MONOTONIC);
	double slice_t0 = ping_st.t0;
	uint64_t slice_n0 = 0;
	while (!atomic_load_explicit(&stop_flag, memory_order_relaxed)) {
		bounce(p2c[1], c2p[0], 'x');
		if ((++ping_st.round_trips & 255) == 0) {
			double t = clock_s(CLOCK_MONOTONIC);

			if (t - slice_t0 >= SLICE_S) {
				if (nslices < MAX_SLICES)
					slice_rate[nslices++] = (ping_st.round_trips - slice_n0) / (t - slice_t0);
				slice_t0 = t;
				slice_n0 = ping_st.round_trips;
			}
		}
	}
	ping_st.t1 = clock_s(CLOCK_MONOTONIC);
	thread_usage(&ping_st, +1);
	full_write(p2c[1], 'q');	/* tell pong to finish */
	return NULL;
}

__attribute__((noinline)) static void *pong_thread(void *arg)
{
	char c;
	int first = 1;

	(void)arg;
	pin();
	for (;;) {
		full_read(p2c[0], &c);
		if (first) {
			thread_usage(&pong_st, -1);
			first = 0;
		}
		if (c == 'q')
			break;
		full_write(c2p[1], c);
	}
	thread_usage(&pong_st, +1);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double slice_median(double whole)
{
	if (!nslices)
		return whole;	/* shorter than one slice */
	qsort(slice_rate, nslices, sizeof(*slice_rate), cmp_double);
	return nslices % 2 ? slice_rate[nslices / 2]
			   : (slice_rate[nslices / 2 - 1] + slice_rate[nslices / 2]) / 2;
}

static void sleep_s(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s, .tv_nsec = (long)((s - (time_t)s) * 1e9) };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

int main(int argc, char **argv)
{
	pthread_t ping, pong;
	int opt, wait_sig = 0;
	double secs;
	char *end;
	sigset_t usr1;

	while ((opt = getopt(argc, argv, "c:w")) != -1) {
		switch (opt) {
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'w':
			wait_sig = 1;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	secs = strtod(argv[optind], &end);
	if (*end || !(secs > 0))
		goto usage;
	if (cpu < 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		cpu = n > 0 ? (int)n - 1 : 0;
	}

	/* SIGUSR1 stays blocked in every thread; main takes it with sigwait */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);

	slice_rate = calloc(MAX_SLICES, sizeof(*slice_rate));
	if (!slice_rate)
		die("calloc");
	if (pipe(p2c) || pipe(c2p) || pipe(go))
		die("pipe");
	if (pthread_create(&pong, NULL, pong_thread, NULL) ||
	    pthread_create(&ping, NULL, ping_thread, NULL)) {
		fprintf(stderr, "pingpong: pthread_create failed\n");
		return 1;
	}
	if (wait_sig) {
		int sig;

		fprintf(stderr, "ready %d\n", (int)getpid());
		fflush(stderr);
		if (sigwait(&usr1, &sig))
			die("sigwait");
	}
	full_write(go[1], 'g');
	sleep_s(secs);
	atomic_store(&stop_flag, 1);
	pthread_join(ping, NULL);
	pthread_join(pong, NULL);

	double el = ping_st.t1 - ping_st.t0;

	printf("%.1f %llu %.6f %.6f %ld %ld %.1f\n", ping_st.round_trips / el,
	       (unsigned long long)ping_st.round_trips, el, ping_st.cpu_s + pong_st.cpu_s,
	       ping_st.vcsw + pong_st.vcsw, ping_st.ivcsw + pong_st.ivcsw,
	       slice_median(ping_st.round_trips / el));
	fflush(stdout);
	if (wait_sig) {
		int sig;

		if (sigwait(&usr1, &sig))
			die("sigwait");
	}
	return 0;
usage:
	fprintf(stderr, "usage: pingpong [-c CPU] [-w] SECONDS\n");
	return 2;
}
