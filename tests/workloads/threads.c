// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Two named threads burning CPU in distinct functions, for -t filtering.
 * Prints "TID_A TID_B" on stdout once both run, then burns for SECONDS.
 * With B_PERCENT (1..100, default 100), worker-b burns only that part of
 * each 30 ms period and sleeps the rest, so the two threads' CPU shares
 * differ (the agent's thread filter test; /proc's schedstat is its truth).
 * usage: threads SECONDS [B_PERCENT]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static double secs, b_duty = 1.0;
static volatile pid_t tids[2];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void burn_in_a(void)
{
	for (long i = 0; i < 2000000; i++)
		sink = sink * 31 + i;
}

__attribute__((noinline)) void burn_in_b(void)
{
	for (long i = 0; i < 2000000; i++)
		sink = sink * 37 + i;
}

static void *run(void *arg)
{
	long which = (long)arg;
	double end;

	tids[which] = syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), which ? "worker-b" : "worker-a");
	while (!tids[0] || !tids[1])
		;
	end = now() + secs;
	while (now() < end) {
		double t0 = now();

		if (!which) {
			burn_in_a();
			continue;
		}
		while (now() < t0 + b_duty * 0.03)
			burn_in_b();
		if (b_duty < 1.0) {
			double rest = t0 + 0.03 - now();

			if (rest > 0)
				usleep((useconds_t)(rest * 1e6));
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	secs = argc > 1 ? atof(argv[1]) : 5;
	if (argc > 2 && atoi(argv[2]) >= 1 && atoi(argv[2]) <= 100)
		b_duty = atoi(argv[2]) / 100.0;
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, run, (void *)i);
	while (!tids[0] || !tids[1])
		usleep(1000);
	printf("%d %d\n", tids[0], tids[1]);
	fflush(stdout);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
