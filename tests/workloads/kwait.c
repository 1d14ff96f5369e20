// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Kernel lock owners with a known holder. One thread, kw_hold, writes to a
 * file from a page registered with userfaultfd: the write faults while it
 * holds the file's inode lock (i_rwsem, taken for writing), and sleeps in
 * handle_userfault until the kw_uffd thread fills the page HOLD_US later.
 * WAITERS threads (kw_wait) fchmod() the same file, which needs the same
 * lock, so they wait on a kernel rwsem whose owner is kw_hold, asleep in a
 * known kernel function. The same for a pipe's mutex: kw_phold writes a
 * faulting page into a pipe (pipe_write holds pipe->mutex across the copy)
 * while kw_pwait threads write a byte each and kw_read drains it.
 * Truth to RESULTS: one line per lock, "file|pipe HOLDER_TID HOLD_NS
 * WAIT_NS CALLS": the holder's tid, the time it spent in its writes (the
 * lock held) and the waiters' total time in fchmod/write.
 * usage: kwait DIR WAITERS HOLD_US SECONDS RESULTS
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096
#define MAX_WAITERS 16

static int g_uffd, g_file, g_pipe[2];
static char *g_src;			/* two uffd pages: [0] file, [1] pipe */
static char g_fill[PAGE];
static long g_hold_us;
static volatile int g_stop, g_srv_stop;	/* the server stops last: holders may be in a fault */
static uint64_t g_hold_ns[2], g_wait_ns[2], g_calls[2];
static pid_t g_holder_tid[2];
static pthread_mutex_t g_sum = PTHREAD_MUTEX_INITIALIZER;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Serve faults on the source pages HOLD_US late: the time the holders sleep holding a lock. */
static void *uffd_server(void *arg)
{
	struct pollfd p = { .fd = g_uffd, .events = POLLIN };
	struct uffd_msg msg;

	(void)arg;
	pthread_setname_np(pthread_self(), "kw_uffd");
	while (!g_srv_stop) {
		if (poll(&p, 1, 100) <= 0)
			continue;
		if (read(g_uffd, &msg, sizeof(msg)) != sizeof(msg) || msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		usleep(g_hold_us);
		struct uffdio_copy c = {
			.dst = msg.arg.pagefault.address & ~(uint64_t)(PAGE - 1),
			.src = (uint64_t)(uintptr_t)g_fill,
			.len = PAGE,
		};
		ioctl(g_uffd, UFFDIO_COPY, &c);
	}
	return NULL;
}

/* kw_hold (which 0) and kw_phold (1): each write faults on its page, holding the lock. */
static void *holder(void *arg)
{
	long which = (long)arg;
	char *page = g_src + which * PAGE;
	uint64_t t0;

	pthread_setname_np(pthread_self(), which ? "kw_phold" : "kw_hold");
	g_holder_tid[which] = (pid_t)syscall(SYS_gettid);
	while (!g_stop) {
		madvise(page, PAGE, MADV_DONTNEED);	/* missing again: the next write faults */
		t0 = now_ns();
		if (which ? write(g_pipe[1], page, PAGE) : pwrite(g_file, page, PAGE, 0)) {
		}
		g_hold_ns[which] += now_ns() - t0;
		usleep(200);	/* let the waiters through */
	}
	return NULL;
}

static void *waiter(void *arg)
{
	long which = (long)arg;
	uint64_t t0, sum = 0, n = 0;
	char c = 'w';

	pthread_setname_np(pthread_self(), which ? "kw_pwait" : "kw_wait");
	while (!g_stop) {
		t0 = now_ns();
		if (which) {
			if (write(g_pipe[1], &c, 1) < 0 && errno != EAGAIN)
				break;
		} else if (fchmod(g_file, n & 1 ? 0600 : 0644)) {
			break;
		}
		sum += now_ns() - t0;
		n++;
	}
	pthread_mutex_lock(&g_sum);
	g_wait_ns[which] += sum;
	g_calls[which] += n;
	pthread_mutex_unlock(&g_sum);
	return NULL;
}

static void *reader(void *arg)
{
	static char buf[65536];

	(void)arg;
	pthread_setname_np(pthread_self(), "kw_read");
	while (!g_stop)
		if (read(g_pipe[0], buf, sizeof(buf)) < 0 && errno != EAGAIN)
			break;
	return NULL;
}

static int setup(const char *dir)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	char path[4096];

	snprintf(path, sizeof(path), "%s/kwait.file", dir);
	g_file = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	g_uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (g_file < 0 || g_uffd < 0 || pipe2(g_pipe, O_NONBLOCK) ||
	    ioctl(g_uffd, UFFDIO_API, &api)) {
		perror("kwait: setup");
		return -1;
	}
	/* the reader blocks on an empty pipe; the writers never block on a full one */
	fcntl(g_pipe[0], F_SETFL, 0);
	g_src = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	reg.range.start = (uint64_t)(uintptr_t)g_src;
	reg.range.len = 2 * PAGE;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (g_src == MAP_FAILED || ioctl(g_uffd, UFFDIO_REGISTER, &reg)) {
		perror("kwait: userfaultfd register");
		return -1;
	}
	memset(g_fill, 'x', sizeof(g_fill));
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t srv, rd, hold[2], w[2][MAX_WAITERS];
	long nw, secs;
	FILE *f;

	if (argc != 6 || (nw = atol(argv[2])) < 1 || nw > MAX_WAITERS ||
	    (g_hold_us = atol(argv[3])) < 1 || (secs = atol(argv[4])) < 1) {
		fprintf(stderr, "usage: kwait DIR WAITERS HOLD_US SECONDS RESULTS\n");
		return 2;
	}
	if (setup(argv[1]))
		return 1;
	pthread_create(&srv, NULL, uffd_server, NULL);
	pthread_create(&rd, NULL, reader, NULL);
	for (long k = 0; k < 2; k++) {
		pthread_create(&hold[k], NULL, holder, (void *)k);
		for (long i = 0; i < nw; i++)
			pthread_create(&w[k][i], NULL, waiter, (void *)k);
	}
	sleep((unsigned int)secs);
	g_stop = 1;
	for (long k = 0; k < 2; k++) {
		pthread_join(hold[k], NULL);
		for (long i = 0; i < nw; i++)
			pthread_join(w[k][i], NULL);
	}
	close(g_pipe[1]);	/* the reader's read returns 0 */
	pthread_join(rd, NULL);
	g_srv_stop = 1;
	pthread_join(srv, NULL);
	f = fopen(argv[5], "w");
	if (!f)
		return 1;
	for (int k = 0; k < 2; k++)
		fprintf(f, "%s %d %llu %llu %llu\n", k ? "pipe" : "file", g_holder_tid[k],
			(unsigned long long)g_hold_ns[k], (unsigned long long)g_wait_ns[k],
			(unsigned long long)g_calls[k]);
	return fclose(f) ? 1 : 0;
}
