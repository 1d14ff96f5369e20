/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The hand-off of finished intervals from the agent's loop to its writer
 * thread, as a pure state machine (the locking is writer.c's): at most
 * HANDOFF_SLOTS intervals wait while one is being written. A put into a
 * full queue is refused, so the loop never waits for the disk; what is
 * refused, failed or still waiting at the stop deadline is counted by cause.
 */
#ifndef HC_AGENT_HANDOFF_H
#define HC_AGENT_HANDOFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Two waiting (plus one being written): a write slower than two intervals
 * is a disk in trouble, and each waiting interval holds its named profile
 * in memory (a few MiB on a busy machine).
 */
#define HANDOFF_SLOTS 2

struct profile;

/* A finished interval: its window and what it holds, owned by whoever holds the job. */
struct interval_job {
	int64_t start_ms, end_ms;	/* Unix ms, as the loop saw its timer */
	bool partial;			/* cut short by a stop */
	struct profile *p;		/* named (profile__free); NULL: none */
	char *counters;			/* JSON (malloc'd); NULL: none */
	size_t counters_len;
};

struct handoff_stats {
	uint64_t queued;	/* handed to the writer */
	uint64_t written;	/* ... and written */
	uint64_t failed;	/* ... and not written (the store says why) */
	uint64_t skipped_full;	/* not handed over: the writer was HANDOFF_SLOTS behind */
	uint64_t lost_at_stop;	/* still waiting when the stop deadline came */
};

struct handoff {
	struct interval_job q[HANDOFF_SLOTS];	/* waiting, oldest at head */
	size_t head, nr;
	bool busy;				/* one taken, not done */
	bool stopping;				/* no more puts */
	struct handoff_stats st;
};

void handoff_init(struct handoff *h);
/*
 * Queue *@j (moved in: the queue owns it now). 0; -EBUSY: full (*@j stays
 * the caller's, nothing counted: the caller may wait and retry);
 * -ESHUTDOWN: stopping.
 */
int handoff_put(struct handoff *h, const struct interval_job *j);
/* The oldest waiting interval into *@out (the writer's now), busy. false: none waiting. */
bool handoff_take(struct handoff *h, struct interval_job *out);
/* The busy interval is done: written (@err 0) or not. */
void handoff_done(struct handoff *h, int err);
/* Nothing waiting and nothing being written. */
bool handoff_idle(const struct handoff *h);
/* No more puts; what waits is still taken. */
void handoff_stop(struct handoff *h);
/* Past the stop deadline: the oldest waiting interval into *@out, counted lost. false: none. */
bool handoff_drop(struct handoff *h, struct interval_job *out);

#endif /* HC_AGENT_HANDOFF_H */
