// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Two named threads burning CPU in distinct functions, for -t filtering.
 * Prints "TID_A TID_B" on stdout once both run, then burns for SECONDS.
 * usage: threads SECONDS
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static double secs;
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
	while (now() < end)
		which ? burn_in_b() : burn_in_a();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	secs = argc > 1 ? atof(argv[1]) : 5;
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
