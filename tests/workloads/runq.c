// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * More runnable threads than CPUs: THREADS spinning threads pinned to CPU 0
 * for SECONDS. Each reads the kernel's own run-queue wait for itself
 * (/proc/self/task/TID/schedstat, 2nd field: ns waiting on a run queue) at
 * start and end and writes "tid wait_ns" to RESULTS: the ground truth for
 * hotcold runqlat -L.
 * usage: runq THREADS SECONDS RESULTS
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct job {
	double secs;
	pid_t tid;
	unsigned long long wait_ns;
};

static volatile unsigned long sink;

static unsigned long long run_delay(pid_t tid)
{
	unsigned long long run, delay = 0;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu %llu", &run, &delay) != 2)
		abort();
	fclose(f);
	return delay;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *spin(void *arg)
{
	struct job *j = arg;
	unsigned long long d0;
	double end;

	j->tid = syscall(SYS_gettid);
	d0 = run_delay(j->tid);
	end = now() + j->secs;
	while (now() < end)
		for (int i = 0; i < 10000; i++)
			sink += i;
	j->wait_ns = run_delay(j->tid) - d0;
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	struct job jobs[64];
	pthread_t t[64];
	cpu_set_t set;
	FILE *f;

	if (argc < 4 || n < 1 || n > 64) {
		fprintf(stderr, "usage: runq THREADS SECONDS RESULTS\n");
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	/* threads inherit the affinity: all compete for CPU 0 */
	if (sched_setaffinity(0, sizeof(set), &set))
		return 1;
	for (int i = 0; i < n; i++) {
		jobs[i].secs = atof(argv[2]);
		pthread_create(&t[i], NULL, spin, &jobs[i]);
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	f = fopen(argv[3], "w");
	if (!f)
		return 1;
	for (int i = 0; i < n; i++)
		fprintf(f, "%d %llu\n", jobs[i].tid, jobs[i].wait_ns);
	return fclose(f) ? 1 : 0;
}
