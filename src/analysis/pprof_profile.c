// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pprof -> profile (pprof_profile.h). A sample's frame names go into one
 * growable text buffer, offsets first and pointers after, since the buffer
 * moves as it grows; profile__add() copies them.
 */
#include "analysis/pprof_profile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct conv {
	const struct pprof_data *d;
	char *text;
	size_t len, cap;
	struct profile_frame_in *fr;
	size_t *off;
	size_t cap_fr;
};

/* @n more bytes at the end of c->text. */
static char *text_room(struct conv *c, size_t n)
{
	if (c->len + n > c->cap) {
		size_t cap = c->cap ? c->cap : 4096;
		char *t;

		while (cap < c->len + n)
			cap *= 2;
		t = realloc(c->text, cap);
		if (!t)
			return NULL;
		c->text = t;
		c->cap = cap;
	}
	return c->text + c->len;
}

static int frames_room(struct conv *c, size_t n)
{
	struct profile_frame_in *fr;
	size_t *off;

	if (n <= c->cap_fr)
		return 0;
	fr = reallocarray(c->fr, n, sizeof(*fr));
	if (fr)
		c->fr = fr;
	off = fr ? reallocarray(c->off, n, sizeof(*off)) : NULL;
	if (!off)
		return -ENOMEM;
	c->off = off;
	c->cap_fr = n;
	return 0;
}

/* Frame @i's name (from location @id) into the text buffer, its flags into c->fr[i]. */
static int name_frame(struct conv *c, size_t i, uint64_t id)
{
	const struct pprof_location *l = pprof_location(c->d, id);
	const struct pprof_function *fn = l ? pprof_function(c->d, l->function_id) : NULL;
	const struct pprof_mapping *m = l ? pprof_mapping(c->d, l->mapping_id) : NULL;
	bool kernel = m && !strcmp(m->file, PROFILE_KERNEL_OBJECT);
	const char *base;
	char *dst;
	size_t n;

	if (!l)
		return -EBADMSG;
	if (fn && *fn->name) {
		n = strlen(fn->name);
		dst = text_room(c, n + 1);
		if (dst)
			memcpy(dst, fn->name, n + 1);
	} else if (m && !kernel) {
		/* no symbol: where it is in its object, as the symbolizer names it */
		base = strrchr(m->file, '/');
		base = base ? base + 1 : m->file;
		n = strlen(base) + 24;
		dst = text_room(c, n);
		if (dst)
			n = snprintf(dst, n, "%s+0x%" PRIx64, base,
				     l->address - m->start + m->offset);
	} else {
		n = strlen("[unknown]");
		dst = text_room(c, n + 1);
		if (dst)
			memcpy(dst, "[unknown]", n + 1);
	}
	if (!dst)
		return -ENOMEM;
	c->off[i] = c->len;
	c->fr[i] = (struct profile_frame_in){ 0 };
	c->fr[i].flags = profile_frame_text_flags(dst, &n) | (kernel ? FRAME_F_KERNEL : 0);
	c->len += n + 1;
	return 0;
}

/* Sample @s (leaf first) as a root-first stack of @w into @p. */
static int add_one(struct conv *c, const struct pprof_sample *s, enum profile_kind kind,
		   uint64_t w, struct profile *p)
{
	struct profile_stack_in in = { .weight = w, .kind = kind, .nr_frames = s->nr_loc };
	int err = frames_room(c, s->nr_loc);

	if (!s->nr_loc)
		return -EBADMSG;
	c->len = 0;
	for (size_t i = 0; !err && i < s->nr_loc; i++)
		err = name_frame(c, i, s->loc[s->nr_loc - 1 - i]);
	if (err)
		return err;
	for (size_t i = 0; i < s->nr_loc; i++)
		c->fr[i].name = c->text + c->off[i];
	in.frames = c->fr;
	return profile__add(p, &in);
}

int pprof_add_samples(const struct pprof_data *d, enum profile_kind kind, pprof_keep_fn keep,
		      void *arg, struct profile *p, struct pprof_add_stats *st)
{
	const char *type = profile_kind_pprof_type(kind);
	struct conv c = { .d = d };
	size_t vi = SIZE_MAX;
	int err = 0;

	memset(st, 0, sizeof(*st));
	for (size_t i = 0; type && i < d->nr_types && vi == SIZE_MAX; i++)
		if (!strcmp(d->types[i].type, type))
			vi = i;
	if (vi == SIZE_MAX)
		return -EBADMSG;
	for (size_t i = 0; !err && i < d->nr_samples; i++) {
		const struct pprof_sample *s = &d->samples[i];

		if (vi >= s->nr_val || s->val[vi] <= 0)
			continue;	/* another kind's sample, in a profile of several */
		st->samples++;
		if (keep && !keep(s, arg))
			continue;
		st->kept++;
		err = add_one(&c, s, kind, (uint64_t)s->val[vi], p);
	}
	free(c.text);
	free(c.fr);
	free(c.off);
	return err;
}
