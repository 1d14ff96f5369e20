// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The branch site table: counting recorded branch stacks per (from, to) site (branch_sites.h). */
#include "stack/branch_sites.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"

void branch_table_init(struct branch_table *t)
{
	memset(t, 0, sizeof(*t));
}

void branch_table_release(struct branch_table *t)
{
	for (size_t i = 0; i < t->nr_pool; i++)
		free(t->pool[i]);
	free(t->pool);
	free(t->v);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

const char *branch_table_intern(struct branch_table *t, const char *s)
{
	char *dup;

	if (!s)
		return NULL;
	if (t->nr_pool == t->cap_pool) {
		size_t cap = t->cap_pool ? t->cap_pool * 2 : 64;
		char **p = realloc(t->pool, cap * sizeof(*p));

		if (!p)
			return NULL;
		t->pool = p;
		t->cap_pool = cap;
	}
	dup = strdup(s);
	if (dup)
		t->pool[t->nr_pool++] = dup;
	return dup;
}

static uint64_t site_hash(const struct branch_end *from, const struct branch_end *to)
{
	uint64_t h = hash_u64(from->off ^ ((uint64_t)from->obj << 40));

	return hash_u64(h ^ to->off ^ ((uint64_t)to->obj << 24));
}

static bool site_is(const struct branch_site *s, const struct branch_end *from,
		    const struct branch_end *to)
{
	return s->from.obj == from->obj && s->from.off == from->off && s->to.obj == to->obj &&
	       s->to.off == to->off;
}

/* Double the slots (load kept at or under 1/2) and re-place every site. */
static int slots_grow(struct branch_table *t)
{
	size_t n = t->nr_slots ? t->nr_slots * 2 : 1024;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->nr; i++) {
		size_t j = site_hash(&t->v[i].from, &t->v[i].to) & (n - 1);

		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nr_slots = n;
	return 0;
}

/*
 * The site (from, to), created when new. NULL: ENOMEM, or the table is at
 * BRANCH_MAX_SITES (*@full set).
 */
static struct branch_site *site_get(struct branch_table *t, const struct branch_end *from,
				    const struct branch_end *to, bool *full)
{
	struct branch_site *s;
	size_t j;

	*full = false;
	if ((t->nr + 1) * 2 > t->nr_slots && t->nr < BRANCH_MAX_SITES && slots_grow(t))
		return NULL;
	for (j = site_hash(from, to) & (t->nr_slots - 1); t->slots[j];
	     j = (j + 1) & (t->nr_slots - 1))
		if (site_is(&t->v[t->slots[j] - 1], from, to))
			return &t->v[t->slots[j] - 1];
	if (t->nr >= BRANCH_MAX_SITES) {
		*full = true;
		return NULL;
	}
	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct branch_site *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		t->v = v;
		t->cap = cap;
	}
	s = &t->v[t->nr];
	memset(s, 0, sizeof(*s));
	s->from = *from;
	s->to = *to;
	t->slots[j] = (uint32_t)++t->nr;
	return s;
}

int branch_table_add(struct branch_table *t, const struct branch_entry *e,
		     const struct branch_end *from, const struct branch_end *to, size_t nr)
{
	int err = 0;

	t->t.samples++;
	for (size_t i = 0; i < nr; i++) {
		struct branch_site *s;
		bool full;

		t->t.entries++;
		t->t.mispred += e[i].mispred;
		t->t.predicted += e[i].predicted;
		s = site_get(t, &from[i], &to[i], &full);
		if (!s) {
			if (full)
				t->t.dropped_sites++;
			else
				err = -ENOMEM;
			continue;
		}
		s->taken++;
		s->mispred += e[i].mispred;
		s->predicted += e[i].predicted;
		if (e[i].cycles) {
			s->cycles += e[i].cycles;
			s->cycles_n++;
		}
	}
	return err;
}

int branch_table_put(struct branch_table *t, const struct branch_site *in)
{
	struct branch_site *s;
	bool full;

	s = site_get(t, &in->from, &in->to, &full);
	if (!s)
		return full ? -E2BIG : -ENOMEM;
	if (s->taken)
		return -EEXIST;	/* a site twice in one file */
	*s = *in;
	return 0;
}

static int site_cmp(const void *pa, const void *pb)
{
	const struct branch_site *a = pa, *b = pb;

	if (a->mispred != b->mispred)
		return a->mispred < b->mispred ? 1 : -1;
	if (a->taken != b->taken)
		return a->taken < b->taken ? 1 : -1;
	if (a->from.obj != b->from.obj)
		return a->from.obj < b->from.obj ? -1 : 1;
	if (a->from.off != b->from.off)
		return a->from.off < b->from.off ? -1 : 1;
	if (a->to.obj != b->to.obj)
		return a->to.obj < b->to.obj ? -1 : 1;
	return a->to.off < b->to.off ? -1 : a->to.off > b->to.off;
}

void branch_table_sort(struct branch_table *t)
{
	if (t->nr)
		qsort(t->v, t->nr, sizeof(*t->v), site_cmp);
	/* the slots point at old positions: rebuild them (cannot fail to find room) */
	if (t->slots) {
		memset(t->slots, 0, t->nr_slots * sizeof(*t->slots));
		for (size_t i = 0; i < t->nr; i++) {
			size_t j = site_hash(&t->v[i].from, &t->v[i].to) & (t->nr_slots - 1);

			while (t->slots[j])
				j = (j + 1) & (t->nr_slots - 1);
			t->slots[j] = (uint32_t)i + 1;
		}
	}
}

double branch_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *file_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/*
 * The recorder names objects as mapped, a profile's reader may have them
 * under another path (a container's root, a copy): the file name decides.
 */
static bool same_object(const char *a, const char *b)
{
	return !strcmp(a, b) || !strcmp(file_name(a), file_name(b));
}

long branches_in_range(const struct branch_table *t, const char *module, uint64_t lo,
		       uint64_t hi, size_t **out)
{
	size_t *v = NULL, n = 0;

	*out = NULL;
	for (size_t i = 0; i < t->nr; i++) {
		const struct branch_end *f = &t->v[i].from;

		if (!f->module || f->off < lo || f->off >= hi || !same_object(f->module, module))
			continue;
		if (!v) {
			v = malloc(t->nr * sizeof(*v));
			if (!v)
				return -ENOMEM;
		}
		v[n++] = i;
	}
	*out = v;
	return (long)n;
}
