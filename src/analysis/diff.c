// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Two profiles merged into one frame/stack space (a profile of zero weights
 * whose stack indexes key the A and B weight arrays), per-frame deltas, and
 * the differential folded and table writers.
 */
#include "analysis/diff.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct diff {
	struct profile *u;		/* union of frames and stacks; weights unused */
	struct diff_stack *stacks;	/* index = stack index in @u */
	size_t nr_stacks, cap_stacks;
	uint64_t total_a, total_b;
	enum profile_kind kind;
};

static int add_side(struct diff *d, const struct profile *src, enum profile_kind kind, bool b)
{
	struct profile_stack_in in = { .kind = PROFILE_KIND_ONCPU };
	struct profile_frame_in *fr = NULL;
	const struct profile_stack *s;
	const struct profile_frame *f;
	size_t i, j, idx, cap = 0;
	int err = 0;

	for (i = 0; !err && i < profile__nr_stacks(src); i++) {
		s = profile__stack(src, i);
		if (s->kind != kind)
			continue;
		if (s->nr_frames > cap) {
			free(fr);
			cap = s->nr_frames;
			fr = calloc(cap, sizeof(*fr));
			if (!fr)
				return -ENOMEM;
		}
		/* match by text: the same function from two builds has other build-ids */
		for (j = 0; j < s->nr_frames; j++) {
			f = profile__frame(src, s->frames[j]);
			fr[j] = (struct profile_frame_in){ .name = f->name, .flags = f->flags };
		}
		in.frames = fr;
		in.nr_frames = s->nr_frames;
		err = profile__add_at(d->u, &in, &idx);
		if (!err && idx >= d->cap_stacks) {
			size_t n = d->cap_stacks ? d->cap_stacks * 2 : 64;
			struct diff_stack *v = reallocarray(d->stacks, n, sizeof(*v));

			if (!v) {
				err = -ENOMEM;
				break;
			}
			memset(v + d->cap_stacks, 0, (n - d->cap_stacks) * sizeof(*v));
			d->stacks = v;
			d->cap_stacks = n;
		}
		if (!err)
			*(b ? &d->stacks[idx].b_weight : &d->stacks[idx].a_weight) += s->weight;
	}
	free(fr);
	return err;
}

int diff__new(const struct profile *a, const struct profile *b, enum profile_kind kind,
	      struct diff **out)
{
	struct diff *d = calloc(1, sizeof(*d));
	const struct profile_stack *s;
	size_t i;
	int err = -ENOMEM;

	if (!d)
		return -ENOMEM;
	d->u = profile__new();
	if (!d->u)
		goto err;
	err = add_side(d, a, kind, false);
	if (!err)
		err = add_side(d, b, kind, true);
	if (err)
		goto err;
	d->nr_stacks = profile__nr_stacks(d->u);
	/* @u is complete: its frame arrays no longer move */
	for (i = 0; i < d->nr_stacks; i++) {
		s = profile__stack(d->u, i);
		d->stacks[i].frames = s->frames;
		d->stacks[i].nr_frames = s->nr_frames;
	}
	d->total_a = profile__total(a, kind);
	d->total_b = profile__total(b, kind);
	d->kind = kind;
	*out = d;
	return 0;
err:
	diff__free(d);
	return err;
}

static int load_one(const char *path, struct profile **out)
{
	bool is_stdin = !strcmp(path, "-");
	struct folded_read_stats st;
	FILE *f = is_stdin ? stdin : fopen(path, "re");
	struct profile *p;
	int err;

	if (!f)
		return -errno;
	p = profile__new();
	err = p ? profile__read_folded(p, f, PROFILE_KIND_ONCPU, &st) : -ENOMEM;
	if (!is_stdin)
		fclose(f);
	if (!err && st.lines == st.malformed)
		err = -ENODATA;
	if (err) {
		profile__free(p);
		return err;
	}
	*out = p;
	return 0;
}

int diff__load(const char *a, const char *b, struct diff **out)
{
	struct profile *pa = NULL, *pb = NULL;
	int err;

	err = load_one(a, &pa);
	if (!err)
		err = load_one(b, &pb);
	if (!err)
		err = diff__new(pa, pb, PROFILE_KIND_ONCPU, out);
	profile__free(pa);
	profile__free(pb);
	return err;
}

void diff__free(struct diff *d)
{
	if (!d)
		return;
	profile__free(d->u);
	free(d->stacks);
	free(d);
}

uint64_t diff__total_a(const struct diff *d)
{
	return d->total_a;
}

uint64_t diff__total_b(const struct diff *d)
{
	return d->total_b;
}

enum profile_kind diff__kind(const struct diff *d)
{
	return d->kind;
}

size_t diff__nr_stacks(const struct diff *d)
{
	return d->nr_stacks;
}

const struct diff_stack *diff__stack(const struct diff *d, size_t i)
{
	return i < d->nr_stacks ? &d->stacks[i] : NULL;
}

size_t diff__nr_frames(const struct diff *d)
{
	return profile__nr_frames(d->u);
}

const struct profile_frame *diff__frame(const struct diff *d, uint32_t id)
{
	return profile__frame(d->u, id);
}

const struct profile *diff__profile(const struct diff *d)
{
	return d->u;
}

double diff_share_delta(uint64_t a, uint64_t b, uint64_t total_a, uint64_t total_b)
{
	double sa = total_a ? (double)a * 100.0 / (double)total_a : 0.0;
	double sb = total_b ? (double)b * 100.0 / (double)total_b : 0.0;

	return sb - sa;
}

static int delta_cmp(const void *pa, const void *pb, void *p)
{
	const struct diff_frame *a = pa, *b = pb;
	double x = fabs(a->delta_pp), y = fabs(b->delta_pp);

	if (x != y)
		return x > y ? -1 : 1;
	return profile_frame_cmp(p, a->frame, b->frame);
}

/* Self and inclusive sums per frame id; seen[] stamps count recursion once per stack. */
static void frame_sums(const struct diff *d, struct diff_frame *v, size_t *seen)
{
	const struct diff_stack *s;
	size_t i, j;
	uint32_t id;

	for (i = 0; i < d->nr_stacks; i++) {
		s = &d->stacks[i];
		for (j = 0; j < s->nr_frames; j++) {
			id = s->frames[j];
			if (seen[id] == i + 1)
				continue;
			seen[id] = i + 1;
			v[id].a_incl += s->a_weight;
			v[id].b_incl += s->b_weight;
		}
		/* a waker's frames are not where the time went (profile.h) */
		id = s->frames[profile__self_frame(d->u, s->frames, s->nr_frames)];
		v[id].a_self += s->a_weight;
		v[id].b_self += s->b_weight;
	}
}

int diff__frames(const struct diff *d, struct diff_frame **out, size_t *nr)
{
	size_t n = diff__nr_frames(d), i, k = 0;
	struct diff_frame *v = calloc(n ? n : 1, sizeof(*v));
	size_t *seen = calloc(n ? n : 1, sizeof(*seen));

	if (!v || !seen) {
		free(v);
		free(seen);
		return -ENOMEM;
	}
	frame_sums(d, v, seen);
	free(seen);
	for (i = 0; i < n; i++) {
		if (!v[i].a_self && !v[i].b_self)
			continue;
		v[k] = v[i];
		v[k].frame = (uint32_t)i;
		v[k].delta_pp = diff_share_delta(v[k].a_self, v[k].b_self, d->total_a,
						 d->total_b);
		k++;
	}
	qsort_r(v, k, sizeof(*v), delta_cmp, d->u);
	*out = v;
	*nr = k;
	return 0;
}
