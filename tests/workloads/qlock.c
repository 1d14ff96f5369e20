// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One logical lock built as a queue, the way PostgreSQL's LWLocks (and many
 * runtimes' mutexes) are: a waiter queues itself and sleeps on its *own*
 * semaphore, g_sem[me]; the releaser hands the lock to the first in line by
 * posting that waiter's semaphore. THREADS threads take it for HOLD_US
 * (spinning) for SECONDS, with a little work outside. Each measures its own
 * time inside sem_wait; the sum goes to RESULTS as "total_ns waits": the
 * ground truth for `hotcold locks`, whose futex rows are keyed by address
 * and so see THREADS different futexes for this one lock.
 * usage: qlock THREADS HOLD_US SECONDS RESULTS
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_THREADS 64

sem_t g_sem[MAX_THREADS];
static volatile int q_spin;		/* protects the queue: never a futex */
static int q_held, q_len, q_list[MAX_THREADS];
static double hold_s, secs;
static uint64_t wait_ns[MAX_THREADS], waits[MAX_THREADS];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void q_lock(void)
{
	while (__atomic_test_and_set(&q_spin, __ATOMIC_ACQUIRE))
		;
}

static void q_unlock(void)
{
	__atomic_clear(&q_spin, __ATOMIC_RELEASE);
}

#define KEEP_FRAME() __asm__ volatile("" ::: "memory")

/* take the lock, or queue up and sleep on our own semaphore until handed it */
__attribute__((noinline)) void lw_acquire(int me)
{
	double t0;

	q_lock();
	if (!q_held) {
		q_held = 1;
		q_unlock();
		return;
	}
	q_list[q_len++] = me;
	q_unlock();
	t0 = now();
	while (sem_wait(&g_sem[me]))
		;
	wait_ns[me] += (uint64_t)((now() - t0) * 1e9);
	waits[me]++;
	KEEP_FRAME();
}

/* hand the lock to the first waiter, or free it */
__attribute__((noinline)) void lw_release(void)
{
	int next = -1;

	q_lock();
	if (q_len) {
		next = q_list[0];
		for (int i = 1; i < q_len; i++)
			q_list[i - 1] = q_list[i];
		q_len--;
	} else {
		q_held = 0;
	}
	q_unlock();
	if (next >= 0)
		sem_post(&g_sem[next]);
	KEEP_FRAME();
}

static void spin_for(double s)
{
	double t = now() + s;

	while (now() < t)
		;
}

static void *worker(void *arg)
{
	int me = (int)(long)arg;
	double end = now() + secs;

	while (now() < end) {
		lw_acquire(me);
		spin_for(hold_s);
		lw_release();
		spin_for(hold_s / 4);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	uint64_t total = 0, nw = 0;
	pthread_t t[MAX_THREADS];
	FILE *f;

	if (argc < 5 || n < 1 || n > MAX_THREADS) {
		fprintf(stderr, "usage: qlock THREADS HOLD_US SECONDS RESULTS\n");
		return 2;
	}
	hold_s = atof(argv[2]) / 1e6;
	secs = atof(argv[3]);
	for (int i = 0; i < n; i++)
		sem_init(&g_sem[i], 0, 0);
	for (long i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		total += wait_ns[i];
		nw += waits[i];
	}
	f = fopen(argv[4], "w");
	if (!f)
		return 1;
	fprintf(f, "%llu %llu\n", (unsigned long long)total, (unsigned long long)nw);
	return fclose(f) ? 1 : 0;
}
