/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The agent's writer thread: the loop hands it each finished interval
 * (handoff.h) and starts the next one at once; the thread encodes and
 * writes it (@ops->write: split, gzip, store, fsync, index, retention), one
 * at a time, in order. The loop never waits for it while it samples: a
 * full queue refuses the interval, counted. At the stop the loop may wait,
 * up to a deadline, for room and for the writes to finish.
 */
#ifndef HC_AGENT_WRITER_H
#define HC_AGENT_WRITER_H

#include <stdint.h>

#include "agent/handoff.h"

struct writer_ops {
	/* On the writer thread: write @j. 0 or -errno (counted as failed). */
	int (*write)(struct interval_job *j, void *arg);
	/* Free what @j owns (any thread, NULL members allowed). */
	void (*release)(struct interval_job *j);
	void *arg;
};

struct writer_stats {
	struct handoff_stats h;
	uint64_t waiting;		/* intervals queued now */
	uint64_t last_ns, max_ns;	/* wall time of the last, the longest write */
	uint64_t cpu_ns;		/* the writer thread's CPU, all writes */
};

struct writer;

/* Start the thread. 0 or -errno. */
int writer__start(struct writer **out, const struct writer_ops *ops);
/*
 * Hand *@j over; the writer owns it whatever the result. With the queue full,
 * wait for room until the monotonic @wait_until_ns (0: not at all, as while
 * sampling). 0; -EBUSY: full, the interval released and counted
 * (skipped_full); -ESHUTDOWN: stopped, released, not counted.
 */
int writer__put(struct writer *w, struct interval_job *j, uint64_t wait_until_ns);
/*
 * Stop: the thread writes what is queued until the monotonic @deadline_ns;
 * what still waits then is released and counted (lost_at_stop); the final
 * statistics into *@st. 0: the thread ended and @w is freed. -ETIMEDOUT:
 * one interval is still being written; @w (and whatever @ops->write uses)
 * must stay alive, and a later call waits again. NULL is a no-op (0).
 */
int writer__stop(struct writer *w, uint64_t deadline_ns, struct writer_stats *st);
void writer__stats(struct writer *w, struct writer_stats *st);

#endif /* HC_AGENT_WRITER_H */
