// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The CFI unwinder's workload: built WITHOUT frame pointers
 * (gcc -O2 -fomit-frame-pointer -g, by tests/integration/t_unwind.sh and
 * bench/unwind.sh, not by the Makefile), so neither this code nor Debian's
 * glibc can be walked by %rbp. Each stage_* function spins for a fixed time
 * calling one libc path; the expected stacks are
 *
 *   main thread:   _start ... main -> stage_X -> <libc> ...
 *   second thread: clone3 -> start_thread -> worker -> stage_Y -> <libc> ...
 *
 * Order: warmup (CPU burn; the process's first sample is walked by frame
 * pointer before its tables are loaded), a pause for the loader, then the
 * stages, main thread and worker thread in parallel. Time is kept by a clock
 * thread that polls every 10 ms and bumps a counter, so no stage but
 * stage_vdso calls into the vdso.
 *
 * Two stages cover code that appears after the process started or that
 * lives outside any file: stage_vdso spins on time(), which glibc resolves
 * to the vdso's __vdso_time (a leaf without a frame pointer), and
 * stage_dlopen, run only when GLIBC_CALLS_PLUGIN names a shared object
 * (tests/workloads/nofp/plugin.c), dlopen()s it once the stages have begun
 * and spins in plugin_entry -> plugin_burn.
 *
 * usage: glibc_calls [STAGE_MS [DIR [DEPTH_ONLY]]]
 *   STAGE_MS   time per stage (default 1000)
 *   DIR        where stage_fsync creates its file (default /tmp)
 *   DEPTH_ONLY 10 or 40: run only stage_deep10 / stage_deep for STAGE_MS
 *              (the benchmark's fixed-depth workloads), no warm-up pause
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define KEEP_FRAME() asm volatile("" ::: "memory")	/* no tail call, no merge */

static volatile unsigned long ticks;	/* 10 ms units, from clock_main */
static volatile int clock_stop;
static volatile unsigned long sink;
static unsigned long stage_ticks = 100;
static const char *dir = "/tmp";

/* Poll, not nanosleep: the nanosleep stage owns that libc path. */
static void *clock_main(void *arg)
{
	(void)arg;
	while (!clock_stop) {
		poll(NULL, 0, 10);
		ticks++;
	}
	return NULL;
}

static NOINLINE void die(const char *what)
{
	perror(what);
	exit(1);
}

NOINLINE void warmup(unsigned long n)
{
	unsigned long end = ticks + n;

	while (ticks < end)
		sink = sink * 33 + 1;
	KEEP_FRAME();
}

/* Timer slack 1 ns: nanosleep(0) returns at once instead of sleeping 50 us off-CPU. */
NOINLINE void stage_nanosleep(void)
{
	struct timespec zero = { 0, 0 };
	unsigned long end = ticks + stage_ticks;

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	while (ticks < end)
		nanosleep(&zero, NULL);
	KEEP_FRAME();
}

NOINLINE void stage_epoll(void)
{
	struct epoll_event ev;
	unsigned long end = ticks + stage_ticks;
	int fd = epoll_create1(EPOLL_CLOEXEC);

	if (fd < 0)
		die("epoll_create1");
	while (ticks < end)
		epoll_wait(fd, &ev, 1, 0);
	close(fd);
	KEEP_FRAME();
}

/*
 * A clean-file fsync returns without I/O (CPU only); the file is dirtied once
 * per 10 ms tick, so at most 100 fsyncs per second reach the disk.
 */
NOINLINE void stage_fsync(void)
{
	unsigned long end = ticks + stage_ticks, dirtied = 0;
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/glibc_calls.fsync.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0)
		die("mkstemp");
	unlink(path);
	while (ticks < end) {
		if (dirtied != ticks) {
			dirtied = ticks;
			if (pwrite(fd, path, 64, 0) != 64)
				die("pwrite");
		}
		fsync(fd);
	}
	close(fd);
	KEEP_FRAME();
}

NOINLINE void stage_mutex(void)
{
	static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	unsigned long end = ticks + stage_ticks;

	while (ticks < end) {
		pthread_mutex_lock(&m);
		sink++;
		pthread_mutex_unlock(&m);
	}
	KEEP_FRAME();
}

/* An abstime in the past: every call times out at once (after a futex call). */
NOINLINE void stage_condwait(void)
{
	static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	struct timespec past = { 1, 0 };
	unsigned long end = ticks + stage_ticks;

	pthread_mutex_lock(&m);
	while (ticks < end)
		pthread_cond_timedwait(&c, &m, &past);
	pthread_mutex_unlock(&m);
	KEEP_FRAME();
}

NOINLINE int cmp_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

#define QSORT_N 4096

NOINLINE void stage_qsort(void)
{
	static int v[QSORT_N];
	unsigned long end = ticks + stage_ticks, seed = 1;

	while (ticks < end) {
		for (int i = 0; i < QSORT_N; i++) {
			seed = seed * 6364136223846793005ul + 1442695040888963407ul;
			v[i] = (int)(seed >> 33);
		}
		qsort(v, QSORT_N, sizeof(v[0]), cmp_ints);
	}
	KEEP_FRAME();
}

/* Burns until the deadline: the bottom of the deep chains. */
NOINLINE void leaf_burn(unsigned long end)
{
	while (ticks < end)
		for (int i = 0; i < 1000; i++)
			sink = sink * 31 + i;
	KEEP_FRAME();
}

/*
 * deep_01 -> deep_02 -> ... -> deep_40 -> leaf_burn, every one a real no-FP
 * frame (the asm after the call forbids the sibling call); the local
 * buffers of different sizes vary the CFA offsets.
 */
#define DEEP(n, next, pad)                                                               \
	NOINLINE void deep_##n(unsigned long end)                                        \
	{                                                                                \
		char buf[pad];                                                           \
		asm volatile("" : : "r"(buf) : "memory"); /* buf lives on the stack */   \
		next(end);                                                               \
		KEEP_FRAME();                                                            \
	}

DEEP(40, leaf_burn, 8)
DEEP(39, deep_40, 8) DEEP(38, deep_39, 24) DEEP(37, deep_38, 40) DEEP(36, deep_37, 56)
DEEP(35, deep_36, 8) DEEP(34, deep_35, 24) DEEP(33, deep_34, 40) DEEP(32, deep_33, 56)
DEEP(31, deep_32, 8) DEEP(30, deep_31, 24) DEEP(29, deep_30, 40) DEEP(28, deep_29, 56)
DEEP(27, deep_28, 8) DEEP(26, deep_27, 24) DEEP(25, deep_26, 40) DEEP(24, deep_25, 56)
DEEP(23, deep_24, 8) DEEP(22, deep_23, 24) DEEP(21, deep_22, 40) DEEP(20, deep_21, 56)
DEEP(19, deep_20, 8) DEEP(18, deep_19, 24) DEEP(17, deep_18, 40) DEEP(16, deep_17, 56)
DEEP(15, deep_16, 8) DEEP(14, deep_15, 24) DEEP(13, deep_14, 40) DEEP(12, deep_13, 56)
DEEP(11, deep_12, 8) DEEP(10, deep_11, 24) DEEP(09, deep_10, 40) DEEP(08, deep_09, 56)
DEEP(07, deep_08, 8) DEEP(06, deep_07, 24) DEEP(05, deep_06, 40) DEEP(04, deep_05, 56)
DEEP(03, deep_04, 8) DEEP(02, deep_03, 24) DEEP(01, deep_02, 40)

/* The 40-deep chain: 45 frames from _start to leaf_burn. */
NOINLINE void stage_deep(void)
{
	deep_01(ticks + stage_ticks);
	KEEP_FRAME();
}

/* 11 frames from _start: ... main -> stage_deep10 -> deep_36..deep_40 -> leaf_burn. */
NOINLINE void stage_deep10(void)
{
	deep_36(ticks + stage_ticks);
	KEEP_FRAME();
}

/* time() is an IFUNC that glibc resolves to the vdso's __vdso_time. */
NOINLINE void stage_vdso(void)
{
	unsigned long end = ticks + stage_ticks;

	while (ticks < end)
		sink += (unsigned long)time(NULL);
	KEEP_FRAME();
}

/* Code mapped after the first sample: the plugin's functions, via dlopen(). */
NOINLINE void stage_dlopen(const char *path)
{
	void (*entry)(volatile unsigned long *, unsigned long);
	void *h = dlopen(path, RTLD_NOW);

	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		exit(1);
	}
	*(void **)&entry = dlsym(h, "plugin_entry");
	if (!entry)
		die("dlsym plugin_entry");
	entry(&ticks, ticks + stage_ticks);
	KEEP_FRAME();
}

NOINLINE void *worker(void *arg)
{
	(void)arg;
	stage_mutex();
	stage_condwait();
	stage_deep();
	KEEP_FRAME();
	return NULL;
}

static void start(pthread_t *t, void *(*fn)(void *))
{
	int err = pthread_create(t, NULL, fn, NULL);

	if (err) {
		errno = err;
		die("pthread_create");
	}
}

int main(int argc, char **argv)
{
	const char *plugin = getenv("GLIBC_CALLS_PLUGIN");
	pthread_t clk, w;
	long depth_only = 0;

	if (argc > 1)
		stage_ticks = strtoul(argv[1], NULL, 10) / 10;
	if (argc > 2)
		dir = argv[2];
	if (argc > 3)
		depth_only = strtol(argv[3], NULL, 10);
	if (!stage_ticks)
		stage_ticks = 1;
	start(&clk, clock_main);
	if (depth_only == 10) {
		stage_deep10();
	} else if (depth_only == 40) {
		stage_deep();
	} else {
		warmup(15);		/* 150 ms: the first samples, walked by FP */
		poll(NULL, 0, 400);	/* the loader builds the tables meanwhile */
		start(&w, worker);
		stage_nanosleep();
		stage_epoll();
		stage_fsync();
		stage_qsort();
		stage_deep();
		stage_vdso();
		if (plugin && *plugin)
			stage_dlopen(plugin);
		pthread_join(w, NULL);
	}
	clock_stop = 1;
	pthread_join(clk, NULL);
	KEEP_FRAME();
	return 0;
}
