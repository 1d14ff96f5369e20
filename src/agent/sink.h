/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the writer thread does with an interval (writer.h's write op):
 * encode it (split.h), admit it to the history (store.h) under the store's
 * lock, tell the pusher, and publish the store's counters for the loop's
 * metrics, so that the loop never touches the store nor waits for its lock.
 */
#ifndef HC_AGENT_SINK_H
#define HC_AGENT_SINK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "agent/handoff.h"
#include "agent/push.h"
#include "agent/store.h"

struct sink {
	struct store *st;
	/* @st: changed by the writer thread, read by the web view's threads */
	pthread_mutex_t store_mu;
	struct pusher *push;		/* NULL: no push */
	uint64_t slow_ns;		/* the writer's: a write this long is logged */
	pthread_mutex_t mu;		/* the fields below: the loop <-> the writer */
	struct store_stats snap;	/* the store after the last write */
	size_t snap_nr;
	struct retention keep;		/* a reload's retention, for the next write */
	bool keep_new;
};

/* @st is the caller's; the pusher is set later (it starts from the store). 0 or -errno. */
int sink_init(struct sink *k, struct store *st);
void sink_destroy(struct sink *k);
/* writer_ops: write @j (on the writer thread), release what a job owns. */
int sink_write(struct interval_job *j, void *arg);
void sink_release(struct interval_job *j);
/* A new retention, applied before the next write (the loop must not wait for the store). */
void sink_set_retention(struct sink *k, const struct retention *r);
/* The store's counters as of the last write. */
void sink_stats(struct sink *k, struct store_stats *ss, size_t *nr);

#endif /* HC_AGENT_SINK_H */
