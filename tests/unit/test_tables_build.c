// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The unwind tables' builder thread (unwind/tables_build.c) with a fake
 * uobj_compute() that records the order of the jobs and can hold the
 * thread: the job mapped by the most processes goes first (ties: oldest),
 * bumps count, every job comes back once, and freeing the builder with jobs
 * still queued releases them.
 */
#include "unwind/tables_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static bool hold, held;		/* the fake blocks while hold; held: it is blocked */
static uint64_t order[16];	/* inodes in the order computed */
static size_t nr_order;

/* The fake: no CFI work, just the order, and a gate. */
void uobj_compute(const struct unwind_tables_opts *o, Elf *elf, const struct obj_src *src,
		  struct ubuilt *b)
{
	(void)o;
	(void)elf;
	memset(b, 0, sizeof(*b));
	pthread_mutex_lock(&mu);
	order[nr_order++] = (uint64_t)src->tgid;	/* the test puts the inode in tgid */
	held = true;
	pthread_cond_broadcast(&cv);
	while (hold)
		pthread_cond_wait(&cv, &mu);
	held = false;
	pthread_mutex_unlock(&mu);
	b->nr_rows = src->tgid;
}

static struct ubuild_job *job(uint64_t inode, uint32_t prio)
{
	struct ubuild_job *j = calloc(1, sizeof(*j));

	assert_non_null(j);
	j->key_a = 1;
	j->inode = inode;
	j->tgid = (uint32_t)inode;
	j->prio = prio;
	j->path = strdup("x");
	/* any ELF file: the fake does not read it */
	j->fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	assert_true(j->fd >= 0);
	return j;
}

static void set_hold(bool v)
{
	pthread_mutex_lock(&mu);
	hold = v;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

/* Until the thread is inside the fake (10 s at most: a test must not hang). */
static void wait_held(void)
{
	struct timespec until;
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	pthread_mutex_lock(&mu);
	while (!held && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&cv, &mu, &until);
	pthread_mutex_unlock(&mu);
	assert_true(held);
}

/* Collect until @n jobs are back (10 s at most); their inodes in completion order. */
static size_t collect(struct ubuilder *bld, uint64_t *got, size_t n)
{
	size_t k = 0;

	for (int i = 0; i < 1000 && k < n; i++) {
		struct ubuild_job *j = ubuild_collect(bld), *next;

		for (; j; j = next) {
			next = j->next;
			assert_int_equal(j->b.nr_rows, j->inode);
			got[k++] = j->inode;
			ubuild_job_free(j);
		}
		if (k < n)
			usleep(10000);
	}
	return k;
}

static void most_awaited_job_goes_first_and_ties_go_oldest_first(void **state)
{
	const struct unwind_tables_opts o = { 0 };
	struct ubuilder *bld = ubuilder_new(&o);
	uint64_t got[8];

	(void)state;
	assert_non_null(bld);
	nr_order = 0;
	set_hold(true);
	ubuild_submit(bld, job(100, 1));	/* taken at once: the thread waits in it */
	wait_held();
	ubuild_submit(bld, job(1, 1));
	ubuild_submit(bld, job(2, 5));
	ubuild_submit(bld, job(3, 1));
	ubuild_submit(bld, job(4, 1));
	ubuild_bump(bld, 1, 4, 9);		/* 4: mapped by 9 more processes */
	ubuild_bump(bld, 1, 77, 50);		/* no such job: nothing happens */
	assert_int_equal(ubuild_pending(bld), 5);
	set_hold(false);
	assert_int_equal(collect(bld, got, 5), 5);
	assert_int_equal(ubuild_pending(bld), 0);
	/* computed: the held one, then by priority 10, 5, and the two 1s oldest first */
	assert_int_equal(nr_order, 5);
	assert_int_equal(order[0], 100);
	assert_int_equal(order[1], 4);
	assert_int_equal(order[2], 2);
	assert_int_equal(order[3], 1);
	assert_int_equal(order[4], 3);
	/* and they come back in that order */
	assert_memory_equal(got, order, 5 * sizeof(*got));
	ubuilder_free(bld);
}

static void freeing_the_builder_releases_queued_and_finished_jobs(void **state)
{
	const struct unwind_tables_opts o = { 0 };
	struct ubuilder *bld = ubuilder_new(&o);

	(void)state;
	assert_non_null(bld);
	nr_order = 0;
	set_hold(true);
	ubuild_submit(bld, job(10, 1));
	wait_held();
	ubuild_submit(bld, job(11, 1));
	ubuild_submit(bld, job(12, 1));
	set_hold(false);
	/* the job in hand finishes; the queued ones may or may not start: all are freed */
	ubuilder_free(bld);
	assert_true(nr_order >= 1 && order[0] == 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(most_awaited_job_goes_first_and_ties_go_oldest_first),
		cmocka_unit_test(freeing_the_builder_releases_queued_and_finished_jobs),
	};

	elf_version(EV_CURRENT);	/* as unwind_tables__new() does */
	return cmocka_run_group_tests_name("tables_build", tests, NULL, NULL);
}
