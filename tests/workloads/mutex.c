// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * THREADS threads contend one global pthread_mutex_t, g_queue_mutex, holding
 * it HOLD_US per acquisition (spinning, so the holder stays on CPU) for
 * SECONDS. Each measures its own time inside pthread_mutex_lock and the
 * total goes to RESULTS as "total_ns acquisitions": the ground truth for
 * `hotcold locks`. The lock is held and released in hold_queue_lock, the
 * function the holder's stacks must name.
 * usage: mutex THREADS HOLD_US SECONDS RESULTS
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

pthread_mutex_t g_queue_mutex = PTHREAD_MUTEX_INITIALIZER;
static double hold_s, secs;
static uint64_t wait_ns[64], acquired[64];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define KEEP_FRAME() __asm__ volatile("" ::: "memory")

__attribute__((noinline)) void take_queue_lock(long me)
{
	double t0 = now();

	pthread_mutex_lock(&g_queue_mutex);
	wait_ns[me] += (uint64_t)((now() - t0) * 1e9);
	KEEP_FRAME();
}

__attribute__((noinline)) void hold_queue_lock(long me)
{
	double t = now() + hold_s;

	while (now() < t)
		;
	acquired[me]++;
	pthread_mutex_unlock(&g_queue_mutex);
	KEEP_FRAME();
}

static void *worker(void *arg)
{
	long me = (long)arg;
	double end = now() + secs, t;

	while (now() < end) {
		take_queue_lock(me);
		hold_queue_lock(me);
		/* a little work outside the lock, so the waiters queue up again */
		t = now() + hold_s / 4;
		while (now() < t)
			;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	uint64_t total = 0, acq = 0;
	pthread_t t[64];
	FILE *f;

	if (argc < 5 || n < 1 || n > 64) {
		fprintf(stderr, "usage: mutex THREADS HOLD_US SECONDS RESULTS\n");
		return 2;
	}
	hold_s = atof(argv[2]) / 1e6;
	secs = atof(argv[3]);
	for (long i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		total += wait_ns[i];
		acq += acquired[i];
	}
	f = fopen(argv[4], "w");
	if (!f)
		return 1;
	fprintf(f, "%llu %llu\n", (unsigned long long)total, (unsigned long long)acq);
	return fclose(f) ? 1 : 0;
}
