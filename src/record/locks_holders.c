// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Holders weighted by the wait time their wakes ended (see locks_holders.h). */
#include "record/locks_holders.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for one more of @size-byte elements in *@v (@nr used of *@cap). 0 or -ENOMEM. */
static int grow(void **v, size_t *cap, size_t nr, size_t size)
{
	size_t c = *cap ? *cap * 2 : 16;
	void *n;

	if (nr < *cap)
		return 0;
	n = realloc(*v, c * size);
	if (!n)
		return -ENOMEM;
	*v = n;
	*cap = c;
	return 0;
}

static struct lh_ended *ended_of(const struct locks_holders *h, size_t row, uint32_t tid)
{
	for (size_t i = 0; i < h->ne; i++)
		if (h->e[i].row == row && h->e[i].tid == tid)
			return &h->e[i];
	return NULL;
}

int locks_holders_ended(struct locks_holders *h, size_t row, uint32_t tid, uint64_t ns,
			uint64_t waits)
{
	struct lh_ended *e = ended_of(h, row, tid);

	if (!e) {
		if (grow((void **)&h->e, &h->ce, h->ne, sizeof(*h->e)))
			return -ENOMEM;
		e = &h->e[h->ne++];
		*e = (struct lh_ended){ .row = row, .tid = tid };
	}
	e->ns += ns;
	e->waits += waits;
	return 0;
}

int locks_holders_stack(struct locks_holders *h, size_t row, uint32_t tid, const char *comm,
			const char *text, uint64_t wakes)
{
	struct lh_stack *s;

	if (grow((void **)&h->s, &h->cs, h->ns, sizeof(*h->s)))
		return -ENOMEM;
	s = &h->s[h->ns];
	*s = (struct lh_stack){ .row = row, .tid = tid, .wakes = wakes };
	snprintf(s->comm, sizeof(s->comm), "%s", comm);
	s->text = strdup(text);
	if (!s->text)
		return -ENOMEM;
	h->ns++;
	return 0;
}

int locks_holders_weigh(const struct locks_holders *h, locks_holders_fn fn, void *arg)
{
	for (size_t i = 0; i < h->ne; i++) {
		const struct lh_ended *e = &h->e[i];
		uint64_t wakes = 0;
		int err;

		for (size_t k = 0; e->tid && k < h->ns; k++)
			if (h->s[k].row == e->row && h->s[k].tid == e->tid)
				wakes += h->s[k].wakes;
		if (!wakes) {
			err = fn(e->row, e->tid, "", NULL, e->ns, e->waits, arg);
			if (err)
				return err;
			continue;
		}
		/* shares in proportion to wakes (rounding loses under 1 ns per stack) */
		for (size_t k = 0; k < h->ns; k++) {
			const struct lh_stack *s = &h->s[k];
			uint64_t sn, sw;

			if (s->row != e->row || s->tid != e->tid || !s->wakes)
				continue;
			sn = (uint64_t)((double)e->ns * s->wakes / wakes);
			sw = (uint64_t)((double)e->waits * s->wakes / wakes + 0.5);
			err = fn(e->row, e->tid, s->comm, s->text, sn, sw, arg);
			if (err)
				return err;
		}
	}
	return 0;
}

void locks_holders_release(struct locks_holders *h)
{
	for (size_t i = 0; i < h->ns; i++)
		free(h->s[i].text);
	free(h->s);
	free(h->e);
	memset(h, 0, sizeof(*h));
}
