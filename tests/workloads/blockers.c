// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Threads that block in known ways for known times, each measuring the time
 * it spent blocked over its blocking loop: wall time minus its own CPU time
 * (fsync, for one, also burns CPU in the kernel) minus the time it waited
 * for a CPU (schedstat's run_delay: after wakeups and preemptions), and that
 * wait apart. That is the ground truth for hotcold's per-thread off-CPU
 * totals (blocked) and their [cpu wait] frames:
 *   futex-10ms   futex wait with a 10 ms timeout (nobody wakes it)
 *   epoll-20ms   epoll_wait on an empty epoll set, 20 ms timeout
 *   fsync        4 KiB write + fsync on a file in DIR
 *   sleep-5ms    nanosleep 5 ms
 * usage: blockers SECONDS DIR RESULTS
 *   RESULTS: "name tid reason blocked_ns calls run_delay_ns steal_ns life_run_delay_ns"
 * life_run_delay_ns: the thread's run_delay since it was created (schedstat
 * at its end): its CPU waits include the one from creation to its first
 * run, before the measured loop, which a profiler sees too.
 * steal_ns: the machine's steal time over the run (all CPUs, /proc/stat): a
 * guest's CPU taken by the host while a thread runs is in no clock of the
 * thread's CPU time (clock_task leaves it out, PARAVIRT_TIME_ACCOUNTING), so
 * wall - CPU - run_delay counts it as blocked and hotcold does not; at most
 * this much of it for any thread.
 * HOTCOLD_BLOCKERS_CFS=1 leaves the threads in SCHED_OTHER (the saturated test).
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
	uint64_t ns, calls, rd, rd_life;
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

/* This thread's run_delay (ns waiting on a run queue) from schedstat; 0 if unreadable. */
static uint64_t run_delay_ns(pid_t tid)
{
	unsigned long long cpu, rd = 0;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu %llu", &cpu, &rd) != 2)
		rd = 0;
	fclose(f);
	return rd;
}

/* Steal time of all CPUs so far (/proc/stat "cpu" line, 8th value), in ns; 0 if unknown. */
static uint64_t steal_ns(void)
{
	unsigned long long v[8] = { 0 };
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		return 0;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]) != 8)
		v[7] = 0;
	fclose(f);
	return hz > 0 ? v[7] * (1000000000ull / hz) : 0;
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
	uint64_t end, t0, c0, r0;
	char path[4096];

	j->tid = syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), j->name);
	/*
	 * Time waiting for a CPU is measured (run_delay) and taken out, but
	 * SCHED_FIFO keeps it small for the test that is not about it (as
	 * root; else it stays CFS).
	 */
	if (!getenv("HOTCOLD_BLOCKERS_CFS"))
		pthread_setschedparam(pthread_self(), SCHED_FIFO,
				      &(struct sched_param){ .sched_priority = 1 });
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
	r0 = run_delay_ns(j->tid);
	t0 = now_ns();
	c0 = cpu_ns();
	end = t0 + (uint64_t)(j->secs * 1e9);
	while (now_ns() < end) {
		j->block(j);
		j->calls++;
	}
	j->ns = (now_ns() - t0) - (cpu_ns() - c0);
	/* read last: it lags by nothing that matters (this thread is running) */
	j->rd_life = run_delay_ns(j->tid);
	j->rd = j->rd_life - r0;
	j->ns -= j->rd < j->ns ? j->rd : j->ns;
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
	uint64_t st0;
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
	st0 = steal_ns();
	for (int i = 0; i < 4; i++) {
		jobs[i].secs = atof(argv[1]);
		jobs[i].dir = argv[2];
		pthread_create(&t[i], NULL, run, &jobs[i]);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	/* a tick (1/USER_HZ) more: the counter moves in ticks */
	st0 = steal_ns() - st0 + 1000000000ull / sysconf(_SC_CLK_TCK);
	f = fopen(argv[3], "w");
	if (!f)
		return 1;
	for (int i = 0; i < 4; i++)
		fprintf(f, "%s %d %s %llu %llu %llu %llu %llu\n", jobs[i].name, jobs[i].tid,
			jobs[i].reason, (unsigned long long)jobs[i].ns,
			(unsigned long long)jobs[i].calls, (unsigned long long)jobs[i].rd,
			(unsigned long long)st0, (unsigned long long)jobs[i].rd_life);
	return fclose(f) ? 1 : 0;
}
