// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Budgeted, resumable drains of BPF hash maps (drain.h). */
#include "collect/drain.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "util/budget.h"

int map_drain__init(struct map_drain *d, int fd, size_t key_size, size_t val_size)
{
	*d = (struct map_drain){ .fd = fd, .key_size = key_size, .val_size = val_size };
	d->keys = calloc(MAP_DRAIN_BATCH, key_size);
	d->vals = calloc(MAP_DRAIN_BATCH, val_size);
	if (!d->keys || !d->vals) {
		map_drain__release(d);
		return -ENOMEM;
	}
	return 0;
}

void map_drain__release(struct map_drain *d)
{
	free(d->keys);
	free(d->vals);
	d->keys = d->vals = NULL;
}

static bool out_of_budget(struct budget *b)
{
	return b && !budget_take(b);
}

/*
 * Entry by entry, for kernels without batch ops on hash maps: deleting the
 * cursor's key invalidates it, so every entry restarts from the first (the
 * next call too: no cursor to keep).
 */
static int drain_one_by_one(struct map_drain *d, struct budget *b, map_drain_fn fn, void *arg)
{
	void *key = d->keys, *next = (char *)d->keys + d->key_size, *prev = NULL;
	int err;

	while (!bpf_map_get_next_key(d->fd, prev, next)) {
		if (out_of_budget(b))
			return 1;
		memcpy(key, next, d->key_size);
		prev = key;
		if (bpf_map_lookup_and_delete_elem(d->fd, key, d->vals))
			continue;	/* deleted since get_next_key: nothing lost */
		prev = NULL;
		d->moved++;
		err = fn(key, d->vals, arg);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Batches of lookup_and_delete: each bucket goes atomically, and the walk
 * does not restart from the first bucket after every entry as a
 * get_next_key cursor must (that was quadratic: 8 % of the agent's CPU
 * under thread churn).
 */
static int drain_batches(struct map_drain *d, struct budget *b, map_drain_fn fn, void *arg)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u64 in, out = 0;
	__u32 count;
	int err, ret;

	for (;;) {
		if (b && b->cut)
			return 1;	/* d->resume and cursor say where to go on */
		in = d->cursor;
		count = MAP_DRAIN_BATCH;
		err = bpf_map_lookup_and_delete_batch(d->fd, d->resume ? &in : NULL, &out, d->keys,
						      d->vals, &count, &opts);
		if (err && err != -ENOENT && !count) {
			/* -EINVAL/-ENOTSUPP: no batch ops; -ENOSPC: a bucket over the batch */
			d->resume = false;
			d->no_batch = err != -ENOSPC;
			return drain_one_by_one(d, b, fn, arg);
		}
		for (__u32 i = 0; i < count; i++) {
			if (b)
				budget_take(b);	/* taken out: handed over whatever the budget */
			d->moved++;
			ret = fn((char *)d->keys + i * d->key_size,
				 (char *)d->vals + i * d->val_size, arg);
			if (ret)
				return ret;
		}
		if (err) {
			d->resume = false;	/* -ENOENT: the walk is complete */
			return err == -ENOENT ? 0 : err;
		}
		d->cursor = out;
		d->resume = true;
	}
}

int map_drain__run(struct map_drain *d, struct budget *b, map_drain_fn fn, void *arg)
{
	/* without a budget, every entry: one whole walk, from the first bucket */
	if (!b)
		d->resume = false;
	return d->no_batch ? drain_one_by_one(d, b, fn, arg) : drain_batches(d, b, fn, arg);
}
