/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A hash map's entries moved out (lookup and delete) in batches, a turn's
 * budget at a time: the walk's cursor is kept between calls, so a large
 * map (per-thread sums under thread churn) is drained over several turns
 * of the loop instead of in one step that holds up its timers and signals.
 */
#ifndef HC_COLLECT_DRAIN_H
#define HC_COLLECT_DRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct budget;

/* One entry moved out of the map: 0 or -errno (stops the drain). */
typedef int (*map_drain_fn)(const void *key, const void *val, void *arg);

struct map_drain {
	int fd;			/* a BPF hash map */
	size_t key_size, val_size;
	void *keys, *vals;	/* room for MAP_DRAIN_BATCH of each */
	uint64_t cursor;	/* where the walk goes on (a bucket of the map) */
	bool resume;		/* a walk is under way: go on from cursor */
	bool no_batch;		/* the kernel has no batch ops here: one by one */
	uint64_t moved;		/* entries moved out, cumulative */
};

/* entries per batch: a batch taken out is handed over whole, past the budget */
#define MAP_DRAIN_BATCH 64

/* For map @fd with these sizes. 0 or -ENOMEM. */
int map_drain__init(struct map_drain *d, int fd, size_t key_size, size_t val_size);
void map_drain__release(struct map_drain *d);

/*
 * Move entries out to @fn, one item of @b per entry (NULL: no budget),
 * a batch at a time (a batch already taken out is always handed over
 * whole, so it may pass @b by up to a batch). Each entry goes atomically;
 * what programs add meanwhile lands in fresh entries, for a later walk.
 * Without @b, every entry: one whole walk from the first bucket (a walk
 * under way is abandoned, its cursor would miss entries added before it). 0: the walk is
 * complete; 1: @b ran out, the next call goes on; -errno.
 */
int map_drain__run(struct map_drain *d, struct budget *b, map_drain_fn fn, void *arg);

#endif /* HC_COLLECT_DRAIN_H */
