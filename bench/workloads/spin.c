// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * spin: a CPU-bound throughput workload for bench/oncpu.sh.
 *
 *   spin SECONDS [THREADS]
 *
 * Starts THREADS threads (default: one per online CPU), each running a fixed
 * integer loop (LCG step + xorshift, a dependent chain, no memory traffic)
 * for SECONDS of wall time, and prints one line on stdout with three numbers:
 *   OPS_PER_S  OPS_PER_CPU_S  CPU_S
 * the total loop iterations per second of wall time over all threads (the
 * throughput), the same per second of the threads' own CPU time (which
 * leaves out time other tasks took from the workload, but keeps in-context
 * costs such as a sampling interrupt and its BPF program: without
 * CONFIG_IRQ_TIME_ACCOUNTING, interrupt time is charged to the interrupted
 * task), and that CPU time in seconds. Built with frame pointers
 * so profilers get the same short, complete user stack every sample:
 * start_thread -> worker -> spin_chunk -> mix.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (1u << 16)	/* iterations between stop-flag checks (~0.1-0.2 ms) */

static atomic_int stop_flag;
static pthread_barrier_t start_bar;

struct worker {
	pthread_t thr;
	uint64_t seed;
	uint64_t ops;
	uint64_t sink;
	double cpu_s;
};

__attribute__((noinline)) static uint64_t mix(uint64_t x, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		x ^= x >> 29;
	}
	return x;
}

__attribute__((noinline)) static uint64_t spin_chunk(uint64_t x)
{
	x = mix(x, CHUNK / 2);
	return mix(x, CHUNK / 2);
}

static double clock_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

static void *worker(void *arg)
{
	struct worker *w = arg;
	uint64_t x = w->seed, ops = 0;
	double c0;

	pthread_barrier_wait(&start_bar);
	c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	while (!atomic_load_explicit(&stop_flag, memory_order_relaxed)) {
		x = spin_chunk(x);
		ops += CHUNK;
	}
	w->cpu_s = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
	w->ops = ops;
	w->sink = x;
	return NULL;
}

int main(int argc, char **argv)
{
	double secs, t0, t1, cpu = 0;
	long n;
	struct worker *w;
	struct timespec d;
	uint64_t total = 0, sink = 0;
	char *end;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s SECONDS [THREADS]\n", argv[0]);
		return 2;
	}
	secs = strtod(argv[1], &end);
	if (*end || !(secs > 0)) {
		fprintf(stderr, "spin: bad SECONDS '%s'\n", argv[1]);
		return 2;
	}
	n = argc == 3 ? strtol(argv[2], &end, 10) : sysconf(_SC_NPROCESSORS_ONLN);
	if ((argc == 3 && *end) || n < 1 || n > 4096) {
		fprintf(stderr, "spin: bad THREADS\n");
		return 2;
	}
	w = calloc(n, sizeof(*w));
	if (!w || pthread_barrier_init(&start_bar, NULL, n + 1)) {
		fprintf(stderr, "spin: out of memory\n");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		w[i].seed = 0x9e3779b97f4a7c15ULL * (i + 1);
		int err = pthread_create(&w[i].thr, NULL, worker, &w[i]);
		if (err) {
			fprintf(stderr, "spin: pthread_create: %s\n", strerror(err));
			return 1;
		}
	}
	pthread_barrier_wait(&start_bar);
	t0 = now();
	d.tv_sec = (time_t)secs;
	d.tv_nsec = (long)((secs - (double)d.tv_sec) * 1e9);
	while (nanosleep(&d, &d) && errno == EINTR)
		;
	atomic_store(&stop_flag, 1);
	for (long i = 0; i < n; i++) {
		pthread_join(w[i].thr, NULL);
		total += w[i].ops;
		sink ^= w[i].sink;
		cpu += w[i].cpu_s;
	}
	t1 = now();
	printf("%.0f %.0f %.6f\n", total / (t1 - t0), cpu > 0 ? total / cpu : 0.0, cpu);
	fprintf(stderr, "spin: %ld threads, %.3f s wall, %.3f s cpu, %llu ops (sink %llx)\n",
		n, t1 - t0, cpu, (unsigned long long)total, (unsigned long long)sink);
	free(w);
	return 0;
}
