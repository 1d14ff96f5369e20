// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A waiter thread blocks on a condition variable in wait_for_token(); the
 * main thread sleeps 5 ms and wakes it from wake_the_waiter(), ROUNDS times.
 * usage: wakeup ROUNDS
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int token, done;

#define KEEP_FRAME() __asm__ volatile("" ::: "memory")

__attribute__((noinline)) void wait_for_token(void)
{
	pthread_mutex_lock(&mu);
	while (!token && !done)
		pthread_cond_wait(&cv, &mu);
	token = 0;
	pthread_mutex_unlock(&mu);
	KEEP_FRAME();
}

static void *waiter(void *arg)
{
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE))
		wait_for_token();
	return NULL;
}

__attribute__((noinline)) void wake_the_waiter(void)
{
	pthread_mutex_lock(&mu);
	token = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
	KEEP_FRAME();
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	struct timespec ts = { 0, 5000000 };
	pthread_t t;

	pthread_create(&t, NULL, waiter, NULL);
	for (int i = 0; i < rounds; i++) {
		nanosleep(&ts, NULL);
		wake_the_waiter();
	}
	pthread_mutex_lock(&mu);
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(t, NULL);
	return 0;
}
