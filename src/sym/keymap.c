// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Two-word-key hash map, linear probing (see keymap.h). */
#include "sym/keymap.h"

#include <errno.h>
#include <stdlib.h>

static uint64_t mix64(uint64_t x)
{
	/* splitmix64 finalizer: pids and inodes are sequential, spread them */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

static size_t slot_of(const struct keymap *m, uint64_t a, uint64_t b)
{
	return mix64(a ^ mix64(b)) & (m->cap - 1);
}

void keymap__init(struct keymap *m)
{
	m->slots = NULL;
	m->cap = 0;
	m->nr = 0;
}

void keymap__release(struct keymap *m)
{
	free(m->slots);
	keymap__init(m);
}

static struct keymap_slot *find(const struct keymap *m, uint64_t a, uint64_t b)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = slot_of(m, a, b);; i = (i + 1) & (m->cap - 1)) {
		struct keymap_slot *s = &m->slots[i];

		if (!s->used)
			return NULL;
		if (s->a == a && s->b == b)
			return s;
	}
}

static void insert_new(struct keymap *m, uint64_t a, uint64_t b, uint64_t val)
{
	size_t i = slot_of(m, a, b);

	while (m->slots[i].used)
		i = (i + 1) & (m->cap - 1);
	m->slots[i] = (struct keymap_slot){ .a = a, .b = b, .val = val, .used = true };
	m->nr++;
}

static int grow(struct keymap *m)
{
	struct keymap_slot *old = m->slots;
	size_t old_cap = m->cap, i;

	m->cap = old_cap ? old_cap * 2 : 64;
	m->slots = calloc(m->cap, sizeof(*m->slots));
	if (!m->slots) {
		m->slots = old;
		m->cap = old_cap;
		return -ENOMEM;
	}
	m->nr = 0;
	for (i = 0; i < old_cap; i++) {
		if (old[i].used)
			insert_new(m, old[i].a, old[i].b, old[i].val);
	}
	free(old);
	return 0;
}

int keymap__put(struct keymap *m, uint64_t a, uint64_t b, uint64_t val)
{
	struct keymap_slot *s = find(m, a, b);
	int err;

	if (s) {
		s->val = val;
		return 0;
	}
	/* keep the load factor under 1/2: probes stay short */
	if ((m->nr + 1) * 2 > m->cap) {
		err = grow(m);
		if (err)
			return err;
	}
	insert_new(m, a, b, val);
	return 0;
}

bool keymap__get(const struct keymap *m, uint64_t a, uint64_t b, uint64_t *val)
{
	const struct keymap_slot *s = find(m, a, b);

	if (!s)
		return false;
	if (val)
		*val = s->val;
	return true;
}

bool keymap__del(struct keymap *m, uint64_t a, uint64_t b, uint64_t *val)
{
	struct keymap_slot *s = find(m, a, b);
	size_t hole, i, home;

	if (!s)
		return false;
	if (val)
		*val = s->val;
	hole = (size_t)(s - m->slots);
	/* backward shift: pull later members of the probe run into the hole */
	for (i = (hole + 1) & (m->cap - 1); m->slots[i].used; i = (i + 1) & (m->cap - 1)) {
		home = slot_of(m, m->slots[i].a, m->slots[i].b);
		/* movable unless its home lies cyclically in (hole, i] */
		if ((i > hole && (home <= hole || home > i)) ||
		    (i < hole && home <= hole && home > i)) {
			m->slots[hole] = m->slots[i];
			hole = i;
		}
	}
	m->slots[hole].used = false;
	m->nr--;
	return true;
}

bool keymap__next(const struct keymap *m, size_t *iter, uint64_t *val)
{
	while (*iter < m->cap) {
		const struct keymap_slot *s = &m->slots[(*iter)++];

		if (s->used) {
			*val = s->val;
			return true;
		}
	}
	return false;
}
