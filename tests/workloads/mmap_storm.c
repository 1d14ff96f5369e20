// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * THREADS threads map, touch and unmap memory in a loop for SECONDS: they
 * contend on the process's mmap_lock (a kernel rwsem), the kernel lock
 * contention hotcold locks must see.
 * usage: mmap_storm THREADS SECONDS
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double secs;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void map_touch_unmap(void)
{
	char *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		abort();
	for (int i = 0; i < (1 << 20); i += 4096)
		p[i] = 1;	/* page faults take mmap_lock for read against munmap's write */
	munmap(p, 1 << 20);
	__asm__ volatile("" ::: "memory");
}

static void *run(void *arg)
{
	double end = now() + secs;

	while (now() < end)
		map_touch_unmap();
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t t[64];

	secs = argc > 2 ? atof(argv[2]) : 2;
	if (n < 1 || n > 64)
		return 2;
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, run, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
