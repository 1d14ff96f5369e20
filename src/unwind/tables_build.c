// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The builder thread of the unwind tables: parsing an object's CFI (libdw)
 * and laying out its B+ tree takes from a millisecond to most of a second
 * (libLLVM), too long for the loop that drains the event ring. Jobs wait
 * here, the one mapped by the most newly seen processes first; the loop
 * collects finished ones and loads them into the BPF maps
 * (uobj_collect_built()). Until then those mappings are walked by frame
 * pointer. Only the job list is shared, under one mutex.
 */
#include "unwind/tables_int.h"

#include <errno.h>
#include <gelf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/log.h"

struct ubuilder {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_cond_t job_done;	/* CLOCK_MONOTONIC; broadcast at each job's end */
	size_t nr_urgent;		/* urgent jobs queued or in hand */
	bool busy;			/* a job in hand */
	pthread_t thread;
	bool stop;
	const struct unwind_tables_opts *o;
	struct ubuild_job *queue;	/* unordered; taken by priority */
	struct ubuild_job *done, **done_tail;
	size_t nr;			/* queued + in hand */
};

static void compute_job(const struct unwind_tables_opts *o, struct ubuild_job *job)
{
	struct obj_src src = { .fd = job->fd, .tgid = job->tgid, .path = job->path };
	Elf *elf = elf_begin(job->fd, ELF_C_READ, NULL);

	if (!elf) {
		job->b.err = -ENOEXEC;
		return;
	}
	uobj_compute(o, elf, &src, &job->b);
	elf_end(elf);
}

/* The queued job of highest priority, unlinked; the oldest among equals. */
static struct ubuild_job *take_best(struct ubuilder *bld)
{
	struct ubuild_job **best = NULL, **pp;

	/* the list is newest first: >= keeps the oldest of a tie; a re-read's first */
	for (pp = &bld->queue; *pp; pp = &(*pp)->next)
		if (!best || (*pp)->urgent > (*best)->urgent ||
		    ((*pp)->urgent == (*best)->urgent && (*pp)->prio >= (*best)->prio))
			best = pp;
	if (best) {
		struct ubuild_job *job = *best;

		*best = job->next;
		job->next = NULL;
		return job;
	}
	return NULL;
}

static void *builder_main(void *arg)
{
	struct ubuilder *bld = arg;
	struct ubuild_job *job;

	pthread_setname_np(pthread_self(), "hotcold-tables");	/* its CPU apart in top -H */

	pthread_mutex_lock(&bld->lock);
	while (!bld->stop) {
		job = take_best(bld);
		if (!job) {
			pthread_cond_wait(&bld->wake, &bld->lock);
			continue;
		}
		bld->busy = true;
		pthread_mutex_unlock(&bld->lock);
		compute_job(bld->o, job);
		close(job->fd);
		job->fd = -1;
		pthread_mutex_lock(&bld->lock);
		*bld->done_tail = job;
		bld->done_tail = &job->next;
		bld->nr_urgent -= job->urgent;
		bld->busy = false;
		pthread_cond_broadcast(&bld->job_done);
	}
	pthread_mutex_unlock(&bld->lock);
	return NULL;
}

struct ubuilder *ubuilder_new(const struct unwind_tables_opts *o)
{
	struct ubuilder *bld = calloc(1, sizeof(*bld));
	pthread_condattr_t ca;
	int err;

	if (!bld)
		return NULL;
	bld->o = o;
	bld->done_tail = &bld->done;
	pthread_mutex_init(&bld->lock, NULL);
	pthread_cond_init(&bld->wake, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&bld->job_done, &ca);
	pthread_condattr_destroy(&ca);
	err = pthread_create(&bld->thread, NULL, builder_main, bld);
	if (err) {
		pr_debug("unwind: no builder thread (%s): tables built in line\n", strerror(err));
		pthread_cond_destroy(&bld->job_done);
		pthread_cond_destroy(&bld->wake);
		pthread_mutex_destroy(&bld->lock);
		free(bld);
		return NULL;
	}
	return bld;
}

void ubuild_job_free(struct ubuild_job *job)
{
	if (!job)
		return;
	if (job->fd >= 0)
		close(job->fd);
	cfi_tree_release(&job->b.tr);
	free(job->path);
	free(job);
}

static void free_list(struct ubuild_job *job)
{
	struct ubuild_job *next;

	for (; job; job = next) {
		next = job->next;
		ubuild_job_free(job);
	}
}

void ubuilder_free(struct ubuilder *bld)
{
	if (!bld)
		return;
	pthread_mutex_lock(&bld->lock);
	bld->stop = true;
	pthread_cond_signal(&bld->wake);
	pthread_mutex_unlock(&bld->lock);
	/* a job in hand runs to its end: under a second even for libLLVM */
	pthread_join(bld->thread, NULL);
	free_list(bld->queue);
	free_list(bld->done);
	pthread_cond_destroy(&bld->job_done);
	pthread_cond_destroy(&bld->wake);
	pthread_mutex_destroy(&bld->lock);
	free(bld);
}

int ubuild_submit(struct ubuilder *bld, struct ubuild_job *job)
{
	pthread_mutex_lock(&bld->lock);
	job->next = bld->queue;
	bld->queue = job;
	bld->nr++;
	bld->nr_urgent += job->urgent;
	pthread_cond_signal(&bld->wake);
	pthread_mutex_unlock(&bld->lock);
	return 0;
}

void ubuild_bump(struct ubuilder *bld, uint64_t key_a, uint64_t inode, uint32_t n)
{
	pthread_mutex_lock(&bld->lock);
	for (struct ubuild_job *job = bld->queue; job; job = job->next) {
		if (job->key_a == key_a && job->inode == inode) {
			job->prio = job->prio > UINT32_MAX - n ? UINT32_MAX : job->prio + n;
			break;
		}
	}
	pthread_mutex_unlock(&bld->lock);
}

struct ubuild_job *ubuild_collect(struct ubuilder *bld)
{
	struct ubuild_job *list, *j;

	pthread_mutex_lock(&bld->lock);
	list = bld->done;
	bld->done = NULL;
	bld->done_tail = &bld->done;
	for (j = list; j; j = j->next)
		bld->nr--;
	pthread_mutex_unlock(&bld->lock);
	return list;
}

size_t ubuild_pending(struct ubuilder *bld)
{
	size_t nr;

	pthread_mutex_lock(&bld->lock);
	nr = bld->nr;
	pthread_mutex_unlock(&bld->lock);
	return nr;
}

/* Wait at most @ns until @all jobs (else the urgent ones) are done; true if they are. */
static bool wait_done(struct ubuilder *bld, uint64_t ns, bool all)
{
	struct timespec ts;
	uint64_t end;
	bool done;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + ns;
	ts.tv_sec = (time_t)(end / 1000000000ull);
	ts.tv_nsec = (long)(end % 1000000000ull);
	pthread_mutex_lock(&bld->lock);
	/* bounded: a timed wait per wakeup, to one deadline */
	while (!(done = all ? !bld->queue && !bld->busy : !bld->nr_urgent) && !bld->stop &&
	       pthread_cond_timedwait(&bld->job_done, &bld->lock, &ts) != ETIMEDOUT)
		;
	done = all ? !bld->queue && !bld->busy : !bld->nr_urgent;
	pthread_mutex_unlock(&bld->lock);
	return done;
}

bool ubuild_wait_urgent(struct ubuilder *bld, uint64_t ns)
{
	return wait_done(bld, ns, false);
}

bool ubuild_wait_idle(struct ubuilder *bld, uint64_t ns)
{
	return wait_done(bld, ns, true);
}
