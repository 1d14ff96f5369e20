// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The loader's process lifecycle (proclife.h). A process that lives a few
 * milliseconds is usually gone before its maps could be read; its records
 * cannot be normalized yet, so they are held, in ring order, until its exit
 * maps and exit record arrive (or its deferred read succeeds, or the
 * interval ends), then replayed once through the host's sample path.
 */
#include "record/proclife.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sym/keymap.h"
#include "util/hash.h"

struct held_rec {
	struct held_rec *next;
	struct sample_view v;	/* pointers into the tail below */
	char comm[16];
	char pcomm[16];
	uint64_t ips[];		/* kernel ips, then user ips */
};

struct proclife {
	struct proclife_host h;
	bool eager;
	bool replaying;			/* a hold now would be a re-hold: refused */
	struct keymap gone;		/* (tgid, 0): records held until its exit or read */
	struct keymap to_read;		/* (tgid, 0) -> tgid: read at the end of the batch */
	struct keymap comm_read;	/* (comm hash, 0) -> when one of that name was read */
	struct held_rec *head, **tail;	/* in ring order */
	size_t nr_held;
	struct proclife_stats st;
};

struct proclife *proclife__new(const struct proclife_host *h, bool eager)
{
	struct proclife *pl = calloc(1, sizeof(*pl));

	if (!pl)
		return NULL;
	pl->h = *h;
	pl->eager = eager;
	pl->tail = &pl->head;
	keymap__init(&pl->gone);
	keymap__init(&pl->to_read);
	keymap__init(&pl->comm_read);
	return pl;
}

void proclife__free(struct proclife *pl)
{
	struct held_rec *r;

	if (!pl)
		return;
	while ((r = pl->head)) {
		pl->head = r->next;
		free(r);
	}
	keymap__release(&pl->gone);
	keymap__release(&pl->to_read);
	keymap__release(&pl->comm_read);
	free(pl);
}

static bool is_gone(const struct proclife *pl, uint32_t tgid)
{
	return pl->gone.nr && keymap__get(&pl->gone, tgid, 0, NULL);
}

/* Read @tgid's maps now; gone: mark it so its records wait for its exit maps. */
static int read_now(struct proclife *pl, uint32_t tgid)
{
	int err;

	pl->st.reads++;
	err = pl->h.read(tgid, pl->h.arg);
	if (err == -ESRCH) {
		pl->st.late++;
		/* no memory: its records are named now, as far as they can be */
		keymap__put(&pl->gone, tgid, 0, 1);
	}
	return err;
}

/* Keep a copy of @v (of a process marked gone) for later; false: process it now. */
static bool hold(struct proclife *pl, const struct sample_view *v)
{
	size_t n = v->nr_kips + v->nr_uips;
	struct held_rec *r;

	if (v->kind == SAMPLE_WAKER || !v->nr_uips || !is_gone(pl, v->tgid))
		return false;
	/* only the host's sample path runs in a replay; this is a guard, not a path */
	if (pl->replaying) {
		pl->st.refused++;
		return false;
	}
	if (pl->nr_held >= PROCLIFE_MAX_HELD) {
		pl->st.dropped++;
		return false;
	}
	r = malloc(sizeof(*r) + n * sizeof(r->ips[0]));
	if (!r) {
		pl->st.dropped++;
		return false;
	}
	r->next = NULL;
	r->v = *v;
	memcpy(r->ips, v->kips, v->nr_kips * sizeof(r->ips[0]));
	memcpy(&r->ips[v->nr_kips], v->uips, v->nr_uips * sizeof(r->ips[0]));
	strncpy(r->comm, v->comm, sizeof(r->comm) - 1);
	r->comm[sizeof(r->comm) - 1] = '\0';
	strncpy(r->pcomm, v->pcomm, sizeof(r->pcomm) - 1);
	r->pcomm[sizeof(r->pcomm) - 1] = '\0';
	r->v.kips = r->ips;
	r->v.uips = &r->ips[v->nr_kips];
	r->v.comm = r->comm;
	r->v.pcomm = r->pcomm;
	r->v.new_tgid = false;
	*pl->tail = r;
	pl->tail = &r->next;
	pl->nr_held++;
	pl->st.held++;
	return true;
}

/*
 * Replay up to @budget held records of @tgid (every tgid: @all), in ring
 * order, through the host's sample path. The list is detached first and
 * nothing can be held meanwhile, so the walk ends after the records held at
 * entry: each one is either replayed and freed or put back, exactly once.
 */
static size_t replay(struct proclife *pl, uint32_t tgid, bool all, size_t budget)
{
	struct held_rec *r = pl->head, *next;
	size_t done = 0;

	pl->head = NULL;
	pl->tail = &pl->head;
	pl->replaying = true;
	for (; r; r = next) {
		next = r->next;
		if ((!all && r->v.tgid != tgid) || done >= budget) {
			r->next = NULL;
			*pl->tail = r;
			pl->tail = &r->next;
			continue;
		}
		pl->nr_held--;
		done++;
		pl->h.sample(&r->v, pl->h.arg);
		pl->st.replayed++;
		free(r);
	}
	pl->replaying = false;
	return done;
}

/* @tgid has no more records coming under its old image (exit, exec, pid reuse). */
static void finish(struct proclife *pl, uint32_t tgid)
{
	keymap__del(&pl->to_read, tgid, 0, NULL);
	if (pl->gone.nr && keymap__del(&pl->gone, tgid, 0, NULL)) {
		/* no maps to read now, only its exit maps */
		if (!pl->h.known(tgid, pl->h.arg))
			pl->h.gone(tgid, pl->h.arg);
		replay(pl, tgid, false, SIZE_MAX);
	}
	pl->h.forget(tgid, pl->h.arg);
}

/*
 * A stack record of @tgid, first seen without a stack and not read then:
 * hold its records and read its maps after the batch in hand, unless its
 * exit (and exit maps) came in that batch: no failed read.
 */
static void defer_read(struct proclife *pl, uint32_t tgid)
{
	if (keymap__put(&pl->to_read, tgid, 0, tgid) || keymap__put(&pl->gone, tgid, 0, 1)) {
		keymap__del(&pl->to_read, tgid, 0, NULL);
		read_now(pl, tgid);	/* no memory to defer: now */
	}
}

int proclife__sample(struct proclife *pl, const struct sample_view *v)
{
	if (v->kthread) {
		/* kernel threads have no maps */
	} else if (v->new_tgid) {
		/* a new process under a tgid still marked gone: the old one's exit was lost */
		if (is_gone(pl, v->tgid)) {
			pl->st.reused++;
			finish(pl, v->tgid);
		}
		read_now(pl, v->tgid);
	} else if (v->nr_uips && !pl->h.known(v->tgid, pl->h.arg)) {
		defer_read(pl, v->tgid);
	}
	if (hold(pl, v))
		return 0;
	return pl->h.sample(v, pl->h.arg);
}

/*
 * First sight of @tgid without a stack (it blocked). Reading its maps now
 * costs ~20 us and, under process churn (a shell loop's /bin/true), is
 * mostly wasted: most such processes exit without a stack record. What a
 * read buys is the files opened while it lives, so that later instances,
 * gone before a read, are named through their exit maps. So read the first
 * process of each name, and again every PROCLIFE_COMM_REREAD_NS; the others
 * are read at their first stack record, if they have one.
 */
void proclife__seen(struct proclife *pl, uint32_t tgid, const char *comm, uint64_t now_ns)
{
	uint64_t h = hash_str(comm), t;

	if (pl->eager || !keymap__get(&pl->comm_read, h, 0, &t) ||
	    now_ns - t >= PROCLIFE_COMM_REREAD_NS) {
		/* bounded: a name storm only costs reads again */
		if (pl->comm_read.nr >= PROCLIFE_MAX_COMMS) {
			keymap__release(&pl->comm_read);
			keymap__init(&pl->comm_read);
		}
		/* a name is known once one of its processes was read alive */
		if (!read_now(pl, tgid))
			keymap__put(&pl->comm_read, h, 0, now_ns);
		return;
	}
	pl->st.lazy++;
}

void proclife__exit_maps(struct proclife *pl, uint32_t tgid, const struct procmap *m, size_t n)
{
	if (is_gone(pl, tgid))
		pl->h.exit_maps(tgid, m, n, pl->h.arg);
}

void proclife__exec(struct proclife *pl, uint32_t tgid)
{
	finish(pl, tgid);
}

void proclife__exit(struct proclife *pl, uint32_t tgid)
{
	finish(pl, tgid);
}

size_t proclife__end_batch(struct proclife *pl)
{
	uint32_t due[PROCLIFE_READS_PER_BATCH];
	size_t it = 0, nr = 0;
	uint64_t v;

	/* collected first: the keymap must not change during the walk */
	while (nr < PROCLIFE_READS_PER_BATCH && keymap__next(&pl->to_read, &it, &v))
		due[nr++] = (uint32_t)v;
	for (size_t i = 0; i < nr; i++) {
		keymap__del(&pl->to_read, due[i], 0, NULL);
		/* exited in this batch: replayed already, with its exit maps */
		if (!keymap__del(&pl->gone, due[i], 0, NULL))
			continue;
		/* gone after all: marked again by read_now(), its exit maps will come */
		if (read_now(pl, due[i]) != -ESRCH)
			replay(pl, due[i], false, SIZE_MAX);
	}
	return pl->to_read.nr;
}

size_t proclife__release(struct proclife *pl, size_t budget)
{
	/* one batch of reads (bounded); the rest are named by the sample path's own read */
	proclife__end_batch(pl);
	/*
	 * Exits not seen yet (still running a moment ago, or their exit record
	 * lost): name what we can. The sets start over, so lost exits do not
	 * pile up in an agent that runs for months.
	 */
	if (pl->gone.nr || pl->to_read.nr) {
		keymap__release(&pl->gone);
		keymap__init(&pl->gone);
		keymap__release(&pl->to_read);
		keymap__init(&pl->to_read);
	}
	replay(pl, 0, true, budget);
	return pl->nr_held;
}

size_t proclife__nr_held(const struct proclife *pl)
{
	return pl->nr_held;
}

void proclife__stats(const struct proclife *pl, struct proclife_stats *st)
{
	*st = pl->st;
}
