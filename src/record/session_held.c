// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Records of processes that were gone before their maps could be read
 * (a shell loop's children live a few milliseconds; the loader reads maps
 * on a wakeup that may come later). Their user frames cannot be normalized
 * yet: they are held, in ring order, until the process's exit maps
 * (HC_REC_MAPS, read by BPF in the exit tracepoint) and exit record arrive,
 * then replayed against a snapshot built from those maps. Bounded: past
 * SESSION_MAX_HELD records a new one is processed at once (its frames stay
 * unknown) and counted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/session_int.h"
#include "sym/symbolizer.h"

struct held_rec {
	struct held_rec *next;
	struct sample_view v;	/* pointers into the tail below */
	char comm[16];
	char pcomm[16];
	uint64_t ips[];		/* kernel ips, then user ips */
};

void session_mark_gone(struct session *s, uint32_t tgid)
{
	/* no memory: its records are named now, as far as they can be */
	keymap__put(&s->gone, tgid, 0, 1);
}

bool session_hold(struct session *s, const struct sample_view *v)
{
	struct held_rec *h;
	size_t n = v->nr_kips + v->nr_uips;

	if (!s->gone.nr || v->kind == SAMPLE_WAKER || !v->nr_uips ||
	    !keymap__get(&s->gone, v->tgid, 0, NULL))
		return false;
	if (s->nr_held >= SESSION_MAX_HELD) {
		s->held_dropped++;
		return false;
	}
	h = malloc(sizeof(*h) + n * sizeof(h->ips[0]));
	if (!h) {
		s->held_dropped++;
		return false;
	}
	h->next = NULL;
	h->v = *v;
	memcpy(h->ips, v->kips, v->nr_kips * sizeof(h->ips[0]));
	memcpy(&h->ips[v->nr_kips], v->uips, v->nr_uips * sizeof(h->ips[0]));
	strncpy(h->comm, v->comm, sizeof(h->comm) - 1);
	h->comm[sizeof(h->comm) - 1] = '\0';
	strncpy(h->pcomm, v->pcomm, sizeof(h->pcomm) - 1);
	h->pcomm[sizeof(h->pcomm) - 1] = '\0';
	h->v.kips = h->ips;
	h->v.uips = &h->ips[v->nr_kips];
	h->v.comm = h->comm;
	h->v.pcomm = h->pcomm;
	h->v.new_tgid = false;
	*s->held_tail = h;
	s->held_tail = &h->next;
	s->nr_held++;
	return true;
}

/*
 * Replay the held records of @tgid (every tgid: all == true), in ring order.
 * They are unlinked first: replaying one can mark its process gone again
 * (session_defer_read) and hold it anew at the tail, and a walk of the live
 * list then met it again, for ever (an agent spun in session__flush).
 */
static void replay(struct session *s, uint32_t tgid, bool all)
{
	struct held_rec **pp = &s->held_head, *h, *list = NULL, **lt = &list;

	while ((h = *pp)) {
		if (!all && h->v.tgid != tgid) {
			pp = &h->next;
			continue;
		}
		*pp = h->next;
		s->nr_held--;
		h->next = NULL;
		*lt = h;
		lt = &h->next;
	}
	s->held_tail = pp;	/* the loop ends on the last link */
	while ((h = list)) {
		list = h->next;
		session_sample(s, &h->v);
		s->held_replayed++;
		free(h);
	}
}

void session_defer_read(struct session *s, uint32_t tgid)
{
	/* no memory: read now */
	if (keymap__put(&s->to_read, tgid, 0, tgid) || keymap__put(&s->gone, tgid, 0, 1)) {
		keymap__del(&s->to_read, tgid, 0, NULL);
		session_add_process(s, tgid);
	}
}

void session_read_deferred(struct session *s)
{
	uint32_t due[256];
	size_t it = 0, nr = 0;
	uint64_t v;

	/* collected first: the keymap must not change during the walk */
	while (nr < sizeof(due) / sizeof(due[0]) && keymap__next(&s->to_read, &it, &v))
		due[nr++] = (uint32_t)v;
	for (size_t i = 0; i < nr; i++) {
		keymap__del(&s->to_read, due[i], 0, NULL);
		/* exited in this batch: replayed already, with its exit maps */
		if (!keymap__del(&s->gone, due[i], 0, NULL))
			continue;
		if (session_add_process(s, due[i]))
			replay(s, due[i], false);
		/* gone after all: marked again, its exit maps will come */
	}
}

void session_exit_maps(struct session *s, uint32_t tgid, const struct procmap *m, size_t n)
{
	if (keymap__get(&s->gone, tgid, 0, NULL))
		symbolizer__add_exit_maps(s->sym, tgid, m, n);
}

void session_gone_exit(struct session *s, uint32_t tgid)
{
	if (!s->gone.nr || !keymap__del(&s->gone, tgid, 0, NULL))
		return;
	/* exited (or exec'd a new image): no maps to read now, only exit maps */
	if (!symbolizer__knows(s->sym, tgid))
		symbolizer__add_gone(s->sym, tgid);
	replay(s, tgid, false);
}

void session_release_held(struct session *s)
{
	/*
	 * Exits not seen yet (still running a moment ago, or their exit record
	 * lost): name what we can. The set starts over, so lost exits do not
	 * pile up in an agent that runs for months.
	 */
	if (s->gone.nr) {
		keymap__release(&s->gone);
		keymap__init(&s->gone);
	}
	replay(s, 0, true);
}

void session_free_held(struct session *s)
{
	struct held_rec *h;

	while ((h = s->held_head)) {
		s->held_head = h->next;
		free(h);
	}
	s->held_tail = &s->held_head;
	s->nr_held = 0;
	keymap__release(&s->gone);
}
