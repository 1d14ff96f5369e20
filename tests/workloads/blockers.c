// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Threads that block in known ways for known times, each measuring the time
 * it spent off-CPU over its blocking loop: wall time minus its own CPU time
 * (fsync, for one, also burns CPU in the kernel). That is the ground truth
 * for hotcold's per-thread off-CPU totals:
 *   futex-10ms   futex wait with a 10 ms timeout (nobody wakes it)
 *   epoll-20ms   epoll_wait on an empty epoll set, 20 ms timeout
 *   fsync        4 KiB write + fsync on a file in DIR
 *   sleep-5ms    nanosleep 5 ms
 * usage: blockers SECONDS DIR RESULTS   (RESULTS: "name tid reason ns calls")
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct job {
	const char *name;
	const char *reason;
	void (*block)(struct job *j);
	double secs;
	const char *dir;
	int fd;
	uint64_t ns, calls;
	pid_t tid;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* keeps the blocking call a call, not a tail jump, so the wait_* frame stays */
#define KEEP_FRAME() __asm__ volatile("" ::: "memory")

static int futex_word;

__attribute__((noinline)) void wait_futex(struct job *j)
{
	struct timespec ts = { 0, 10000000 };

	syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
	KEEP_FRAME();
}

__attribute__((noinline)) void wait_epoll(struct job *j)
{
	struct epoll_event ev;

	epoll_wait(j->fd, &ev, 1, 20);
	KEEP_FRAME();
}

__attribute__((noinline)) void wait_fsync(struct job *j)
{
	static char buf[4096];

	if (pwrite(j->fd, buf, sizeof(buf), 0) != sizeof(buf))
		abort();
	fsync(j->fd);
	KEEP_FRAME();
}

__attribute__((noinline)) void wait_sleep(struct job *j)
{
	struct timespec ts = { 0, 5000000 };

	nanosleep(&ts, NULL);
	KEEP_FRAME();
}

static void *run(void *arg)
{
	struct job *j = arg;
	uint64_t end, t0, c0;
	char path[4096];

	j->tid = syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), j->name);
	/*
	 * Wall - CPU also counts time spent preempted (runnable, waiting for
	 * the CPU), which is run-queue time, not off-CPU blocking. On a loaded
	 * machine that is a few % for the busy fsync thread: SCHED_FIFO keeps
	 * ordinary tasks from preempting it (as root; else it stays CFS).
	 */
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &(struct sched_param){ .sched_priority = 1 });
	if (j->block == wait_epoll)
		j->fd = epoll_create1(0);
	if (j->block == wait_fsync) {
		snprintf(path, sizeof(path), "%s/fsync.dat", j->dir);
		j->fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	}
	/*
	 * Off-CPU time of the whole loop (wall - own CPU), not just inside the
	 * blocking call: the fsync thread also blocks briefly in pwrite, and
	 * hotcold's per-thread total rightly counts that too.
	 */
	t0 = now_ns();
	c0 = cpu_ns();
	end = t0 + (uint64_t)(j->secs * 1e9);
	while (now_ns() < end) {
		j->block(j);
		j->calls++;
	}
	j->ns = (now_ns() - t0) - (cpu_ns() - c0);
	return NULL;
}

int main(int argc, char **argv)
{
	struct job jobs[] = {
		{ "futex-10ms", "futex", wait_futex },
		{ "epoll-20ms", "poll", wait_epoll },
		{ "fsync", "fsync", wait_fsync },
		{ "sleep-5ms", "sleep", wait_sleep },
	};
	pthread_t t[4];
	FILE *f;

	if (argc < 4) {
		fprintf(stderr, "usage: blockers SECONDS DIR RESULTS\n");
		return 2;
	}
	/*
	 * Let the profiler see this process and publish its unwind tables before
	 * the measured threads block: blocks that end before that are walked by
	 * frame pointer (the exception t_offcpu states).
	 */
	usleep(200000);
	for (int i = 0; i < 4; i++) {
		jobs[i].secs = atof(argv[1]);
		jobs[i].dir = argv[2];
		pthread_create(&t[i], NULL, run, &jobs[i]);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	f = fopen(argv[3], "w");
	if (!f)
		return 1;
	for (int i = 0; i < 4; i++)
		fprintf(f, "%s %d %s %llu %llu\n", jobs[i].name, jobs[i].tid, jobs[i].reason,
			(unsigned long long)jobs[i].ns, (unsigned long long)jobs[i].calls);
	return fclose(f) ? 1 : 0;
}
