// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Futex waits that are not contention, next to one that is, in one process:
 * a thread waits on a condition variable (cond_waiter, ~MS ms until main
 * signals it), main waits in pthread_join for a thread that sleeps 2*MS ms
 * (sleeper), and two threads contend g_busy_mutex (busy_worker, holding it
 * ~1 ms at a time) for 2*MS ms.
 * usage: waits MS
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

pthread_mutex_t g_busy_mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t g_cv_mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static int signalled;
static long ms;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void *cond_waiter(void *arg)
{
	pthread_mutex_lock(&g_cv_mutex);
	while (!signalled)
		pthread_cond_wait(&g_cv, &g_cv_mutex);
	pthread_mutex_unlock(&g_cv_mutex);
	return arg;
}

__attribute__((noinline)) void *sleeper(void *arg)
{
	usleep(2 * ms * 1000);
	return arg;
}

__attribute__((noinline)) void *busy_worker(void *arg)
{
	double end = now() + 2 * ms / 1e3, t;

	while (now() < end) {
		pthread_mutex_lock(&g_busy_mutex);
		t = now() + 0.001;
		while (now() < t)
			;
		pthread_mutex_unlock(&g_busy_mutex);
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t cw, sl, b1, b2;

	ms = argc > 1 ? atol(argv[1]) : 300;
	pthread_create(&cw, NULL, cond_waiter, NULL);
	pthread_create(&sl, NULL, sleeper, NULL);
	pthread_create(&b1, NULL, busy_worker, NULL);
	pthread_create(&b2, NULL, busy_worker, NULL);
	usleep(ms * 1000);
	pthread_mutex_lock(&g_cv_mutex);
	signalled = 1;
	pthread_cond_signal(&g_cv);
	pthread_mutex_unlock(&g_cv_mutex);
	pthread_join(cw, NULL);
	pthread_join(sl, NULL);
	pthread_join(b1, NULL);
	pthread_join(b2, NULL);
	return 0;
}
