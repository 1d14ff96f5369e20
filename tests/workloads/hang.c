// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Processes that block for longer than a recording window:
 *   hang sleep SECS   main -> hang_in_sleep(): one nanosleep of SECS
 *   hang signal       main -> hang_in_sigwait(): waits for SIGUSR1 (blocked, so
 *                     no handler runs: the wait returns like any syscall)
 *   hang mutex        two threads deadlocked: each holds one mutex and waits
 *                     in pthread_mutex_lock (lock_second()) for the other's;
 *                     main waits in pthread_join
 * Writes READY (the file named by $HANG_READY, if set) once blocked or about
 * to block, so a test can start recording after that.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define KEEP_FRAME() __asm__ volatile("" ::: "memory")

static pthread_mutex_t m[2] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };
static pthread_barrier_t both_hold;

static void ready(void)
{
	const char *p = getenv("HANG_READY");
	FILE *f = p ? fopen(p, "w") : NULL;

	if (f)
		fclose(f);
}

__attribute__((noinline)) void hang_in_sleep(double secs)
{
	struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };

	ready();
	nanosleep(&ts, NULL);
	KEEP_FRAME();
}

__attribute__((noinline)) void hang_in_sigwait(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	ready();
	sigwait(&set, &sig);
	KEEP_FRAME();
}

__attribute__((noinline)) void lock_second(long me)
{
	pthread_mutex_lock(&m[!me]);	/* held by the other thread for good */
	KEEP_FRAME();
}

static void *deadlock(void *arg)
{
	long me = (long)arg;

	pthread_mutex_lock(&m[me]);
	pthread_barrier_wait(&both_hold);
	lock_second(me);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	if (argc == 3 && !strcmp(argv[1], "sleep")) {
		hang_in_sleep(atof(argv[2]));
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "signal")) {
		hang_in_sigwait();
		return 0;
	}
	if (argc != 2 || strcmp(argv[1], "mutex")) {
		fprintf(stderr, "usage: hang sleep SECS | hang signal | hang mutex\n");
		return 2;
	}
	pthread_barrier_init(&both_hold, NULL, 2);
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, deadlock, (void *)i);
	usleep(100000);	/* both are in lock_second() by now */
	ready();
	pthread_join(t[0], NULL);
	return 0;
}
