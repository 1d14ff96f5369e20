/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The process lifecycle as the loader sees it through the event ring: first
 * sight, exec, exit, records of processes gone before their maps were read
 * (held, then replayed once), deferred maps reads, exit maps, the gone set
 * and pid reuse. Pure logic: what touches /proc, the symbolizer, the
 * unwinder and the aggregation is the host's, given as callbacks, so the
 * state machine is unit-tested on its own (tests/unit/test_proclife.c).
 *
 * Termination, by construction: a held record is replayed by calling the
 * host's sample callback directly, never proclife__sample(), and a hold is
 * refused while a replay runs (counted). Every replay walks a list detached
 * at its start, so it takes at most the records held when it began, and at
 * most @budget of them.
 */
#ifndef HC_RECORD_PROCLIFE_H
#define HC_RECORD_PROCLIFE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/collector.h"

struct procmap;

#define PROCLIFE_MAX_HELD 4096		/* records held at once */
#define PROCLIFE_MAX_COMMS 4096		/* names in the first-sight cache */
#define PROCLIFE_COMM_REREAD_NS (10 * 1000000000ull)
/*
 * Deferred maps reads per proclife__end_batch(), the rest on the next: a
 * read is ~20-35 us on a quiet machine but ~0.4 ms under process churn
 * (t_agent_churn: 0.1 s of CPU for a batch of 256, 1.3 s of wall time with
 * the agent short of CPU); 64 keep a turn's reads near 25 ms of CPU.
 */
#define PROCLIFE_READS_PER_BATCH 64

struct proclife_host {
	/* The sample path: aggregate @v. Its return value is passed on. */
	int (*sample)(const struct sample_view *v, void *arg);
	/*
	 * Read @tgid's maps now (symbolizer and unwinder). 0: read; -ESRCH: the
	 * process is gone (or a zombie) and the host has noted that; another
	 * -errno: unreadable, named as far as the host can.
	 */
	int (*read)(uint32_t tgid, void *arg);
	/* True if the host has @tgid's maps, or knows it is gone. */
	bool (*known)(uint32_t tgid, void *arg);
	/* @tgid exited unread: name its held records from its exit maps only. */
	void (*gone)(uint32_t tgid, void *arg);
	/* @tgid's executable mappings as BPF read them at its exit. */
	void (*exit_maps)(uint32_t tgid, const struct procmap *m, size_t n, void *arg);
	/* @tgid exited or exec'd: drop the host's state for it (after its replay). */
	void (*forget)(uint32_t tgid, void *arg);
	void *arg;
};

struct proclife_stats {
	uint64_t late;		/* processes gone before their maps were read */
	uint64_t lazy;		/* first sights not read at once */
	uint64_t held;		/* records held */
	uint64_t replayed;	/* ... and replayed (each at most once) */
	uint64_t dropped;	/* not held (limit or memory): processed at once */
	uint64_t reused;	/* a new process under a tgid still marked gone (lost exit) */
	uint64_t refused;	/* holds refused during a replay (the old livelock) */
	uint64_t reads;		/* maps reads asked of the host */
};

struct proclife;

/* @h is copied. @eager: read every first sight at once (maps at exec). NULL + errno. */
struct proclife *proclife__new(const struct proclife_host *h, bool eager);
/* Free held records unreplayed. NULL is a no-op. */
void proclife__free(struct proclife *pl);

/*
 * A stack record from the ring: read, defer or hold as its process's state
 * says, else hand it to the sample path. Returns the sample path's result,
 * or 0 when held.
 */
int proclife__sample(struct proclife *pl, const struct sample_view *v);
/* First sight of @tgid without a stack (CLOCK_MONOTONIC @now_ns). */
void proclife__seen(struct proclife *pl, uint32_t tgid, const char *comm, uint64_t now_ns);
/* Exit maps (HC_REC_MAPS) of @tgid, ahead of its exit record. */
void proclife__exit_maps(struct proclife *pl, uint32_t tgid, const struct procmap *m, size_t n);
/* @tgid exec'd: its old image's held records are replayed, then forgotten. */
void proclife__exec(struct proclife *pl, uint32_t tgid);
/* @tgid exited: the same. */
void proclife__exit(struct proclife *pl, uint32_t tgid);
/*
 * End of a batch of records: read up to PROCLIFE_READS_PER_BATCH deferred
 * processes and replay their records; the rest wait for the next batch.
 * Returns how many reads are still pending.
 */
size_t proclife__end_batch(struct proclife *pl);
/*
 * Interval end or stop: exits may never come (lost, or still running).
 * Read what is deferred, forget the gone set, and replay up to @budget
 * held records, oldest first. Returns how many are still held (the caller
 * calls again on its next turn; each call strictly lowers the count).
 */
size_t proclife__release(struct proclife *pl, size_t budget);

size_t proclife__nr_held(const struct proclife *pl);
void proclife__stats(const struct proclife *pl, struct proclife_stats *st);

#endif /* HC_RECORD_PROCLIFE_H */
