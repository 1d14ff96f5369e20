// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * churn SECONDS: thread churn with long blocks — rounds of 50 threads that
 * each sleep 1 ms five times and exit, for SECONDS. Many long blocks per
 * second, each waking its thread on the way back to user space, while
 * threads come and go.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define THREADS 50

static void *sleeper(void *arg)
{
	(void)arg;
	for (int i = 0; i < 5; i++)
		usleep(1000);
	return NULL;
}

int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 5);
	pthread_t th[THREADS];

	while (time(NULL) < end) {
		for (int i = 0; i < THREADS; i++)
			if (pthread_create(&th[i], NULL, sleeper, NULL))
				return 1;
		for (int i = 0; i < THREADS; i++)
			pthread_join(th[i], NULL);
	}
	return 0;
}
