// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * shortblocks N TRUTH: on SIGUSR1, call nanosleep(20 us) N times, write
 * "<blocks> <ns off the CPU (wall - CPU)>" to TRUTH, a line "run_delay <ns>"
 * (the part of it spent waiting for a CPU: after wakeups, and after
 * preemptions, which are no block), a line "wall <ns>" (the loop's span)
 * and a line "long <calls> <ns>":
 * the calls that took 1 ms or more (on a host that steals the CPU, a 20 us
 * sleep can last that long: a block a profiler's --min-block 1ms then counts
 * as long, with a stack of its own), then sleep in pause() until killed (a block
 * that never ends, so nothing flushes on its switch-in). A recording of it
 * that stops meanwhile holds its short blocks and run-queue waits only in
 * per-task state (fewer than the BPF side's batch): they reach the output
 * only through the flush at stop.
 */
#define _GNU_SOURCE	/* RUSAGE_THREAD */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

/*
 * This thread's run-queue wait so far (ns, /proc/thread-self/schedstat's
 * second field): after its wakeups and after preemptions; 0 if unreadable.
 */
static unsigned long long run_delay(void)
{
	unsigned long long run = 0, delay = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (!f)
		return 0;
	if (fscanf(f, "%llu %llu", &run, &delay) != 2)
		delay = 0;
	fclose(f);
	return delay;
}

static unsigned long long ns_of(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct timespec d = { 0, 20000 };
	unsigned long long w0, c0, w1, c1, d0, d1, t, long_ns = 0;
	int nlong = 0;
	struct rusage r0, r1;
	sigset_t none;
	FILE *f;
	int n;

	if (argc != 3 || (n = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: shortblocks N TRUTH\n");
		return 2;
	}
	signal(SIGUSR1, on_usr1);
	sigemptyset(&none);
	while (!go)
		sigsuspend(&none);
	d0 = run_delay();
	w0 = ns_of(CLOCK_MONOTONIC);
	c0 = ns_of(CLOCK_THREAD_CPUTIME_ID);
	getrusage(RUSAGE_THREAD, &r0);
	for (int i = 0; i < n; i++) {
		t = ns_of(CLOCK_MONOTONIC);	/* the vDSO: no block of its own */
		nanosleep(&d, NULL);
		t = ns_of(CLOCK_MONOTONIC) - t;
		if (t >= 1000000) {
			nlong++;
			long_ns += t;
		}
	}
	getrusage(RUSAGE_THREAD, &r1);
	w1 = ns_of(CLOCK_MONOTONIC);
	c1 = ns_of(CLOCK_THREAD_CPUTIME_ID);
	d1 = run_delay();
	/*
	 * Blocks, not calls: a 20 us timer that fires before the task gets to
	 * schedule() (an interrupt in between, on a busy machine) returns
	 * without blocking. One CI run had 39 of 40.
	 */
	n = (int)(r1.ru_nvcsw - r0.ru_nvcsw);
	f = fopen(argv[2], "w");
	if (!f)
		return 1;
	fprintf(f, "%d %llu\nlong %d %llu\nrun_delay %llu\nwall %llu\n", n, (w1 - w0) - (c1 - c0),
		nlong, long_ns, d1 - d0, w1 - w0);
	fclose(f);
	for (;;)
		pause();
}
