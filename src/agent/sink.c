// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* An interval's encoding and admission to the history, on the writer thread (see sink.h). */
#include "agent/sink.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "agent/split.h"
#include "analysis/profile.h"
#include "util/clock.h"
#include "util/log.h"

/*
 * A write longer than this is said (at info level), and again each time
 * the longest so far doubles: a disk this slow costs intervals (two wait,
 * the next is skipped) and delays the exit (the kernel keeps a process
 * until its fsync returns).
 */
#define SINK_SLOW_NS (1000 * 1000000ull)

int sink_init(struct sink *k, struct store *st)
{
	memset(k, 0, sizeof(*k));
	k->st = st;
	k->slow_ns = SINK_SLOW_NS;
	pthread_mutex_init(&k->store_mu, NULL);
	pthread_mutex_init(&k->mu, NULL);
	store__stats(st, &k->snap);
	k->snap_nr = store__nr(st);
	return 0;
}

void sink_destroy(struct sink *k)
{
	pthread_mutex_destroy(&k->mu);
	pthread_mutex_destroy(&k->store_mu);
}

void sink_release(struct interval_job *j)
{
	profile__free(j->p);
	free(j->counters);
	j->p = NULL;
	j->counters = NULL;
}

/* @j's profile per kind plus its counters into @so (the counters move). 0 or -errno. */
static int encode(struct interval_job *j, struct split_out *so)
{
	int err = j->p ? split_encode(j->p, so) : 0;

	/* the profile is encoded: its memory back before the disk is waited for */
	profile__free(j->p);
	j->p = NULL;
	if (!err && j->counters) {
		so->blobs[so->nr++] = (struct store_blob){ "counters", STORE_JSON, j->counters,
							   j->counters_len };
		j->counters = NULL;	/* split_release() frees it */
	}
	return err;
}

/* Under the store's lock: a reload's retention, the interval, the pusher told. */
static int admit(struct sink *k, const struct interval_job *j, const struct split_out *so)
{
	const struct store_interval *last;
	struct retention keep;
	bool keep_new;
	size_t nr;
	int err;

	pthread_mutex_lock(&k->mu);
	keep = k->keep;
	keep_new = k->keep_new;
	k->keep_new = false;
	pthread_mutex_unlock(&k->mu);
	pthread_mutex_lock(&k->store_mu);
	if (keep_new)
		store__set_retention(k->st, &keep);
	err = store__write(k->st, j->start_ms, j->end_ms, j->partial, so->blobs, so->nr);
	nr = store__nr(k->st);
	last = nr ? store__get(k->st, nr - 1) : NULL;
	if (!err && k->push && last && last->start_ms == j->start_ms)
		pusher__notify(k->push, last);
	pthread_mutex_lock(&k->mu);
	store__stats(k->st, &k->snap);
	k->snap_nr = nr;
	pthread_mutex_unlock(&k->mu);
	pthread_mutex_unlock(&k->store_mu);
	return err;
}

int sink_write(struct interval_job *j, void *arg)
{
	struct sink *k = arg;
	uint64_t t0 = clock_mono_ns(), t1, t2, c0 = clock_thread_cpu_ns();
	struct split_out so = { 0 };
	char stamp[STORE_STAMP_LEN];
	int err;

	err = encode(j, &so);
	t1 = clock_mono_ns();
	if (err)
		pr_warn("agent: cannot encode the interval: %s\n", strerror(-err));
	else
		err = admit(k, j, &so);
	split_release(&so);
	t2 = clock_mono_ns();
	store_stamp(j->start_ms, stamp, sizeof(stamp));
	log_printf(t2 - t0 >= k->slow_ns ? LOG_INFO : LOG_DEBUG, "agent: writing interval %s took "
		   "%.3f s: %.3f s encoding, %.3f s storing (%.3f s of CPU)\n", stamp,
		   (t2 - t0) / 1e9, (t1 - t0) / 1e9, (t2 - t1) / 1e9,
		   (clock_thread_cpu_ns() - c0) / 1e9);
	if (t2 - t0 >= k->slow_ns)
		k->slow_ns = 2 * (t2 - t0);
	/*
	 * The encoder's buffers and the profile are freed: give the memory
	 * back (the last interval's exit frees everything anyway)
	 */
	if (!j->partial)
		malloc_trim(0);
	return err;
}

void sink_set_retention(struct sink *k, const struct retention *r)
{
	pthread_mutex_lock(&k->mu);
	k->keep = *r;
	k->keep_new = true;
	pthread_mutex_unlock(&k->mu);
}

void sink_stats(struct sink *k, struct store_stats *ss, size_t *nr)
{
	pthread_mutex_lock(&k->mu);
	*ss = k->snap;
	*nr = k->snap_nr;
	pthread_mutex_unlock(&k->mu);
}
