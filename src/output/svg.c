// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Flame graph layout: which frames are drawn where. Stacks become key paths
 * (one key per distinct frame name, ranked alphabetically), the paths are
 * sorted, and one pass over them merges common prefixes into frames, as
 * flamegraph.pl does: only frames wide enough to draw are ever stored.
 */
#include "output/svg.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/svg_draw.h"
#include "util/log.h"

#define SVG_DEFAULT_WIDTH	1200
#define SVG_DEFAULT_MIN_WIDTH	0.1

/* One input profile and how its frames and weights map into the graph. */
struct svg_src {
	const struct profile *p;
	uint32_t *rank;			/* frame id -> rank of its (name, flags) */
	uint64_t mult[PROFILE_KIND_NR];	/* weight -> drawn units */
	bool base;			/* "before" of a differential graph */
};

struct svg_ref {
	const struct profile_frame *f;
	uint32_t *slot;
};

/* A stack as the sequence of keys from the root down to the frame it charges. */
struct svg_path {
	const uint32_t *keys;
	uint32_t len;
	bool base;
	enum profile_kind kind;
	uint64_t w;
};

/* A frame on the current path whose extent is not known yet. */
struct svg_open {
	uint32_t key;
	enum profile_kind kind;
	uint64_t x, w, self, base_w, base_self;
};

struct svg_build {
	const struct svg_opts *o;
	struct svg_src src[2];
	size_t nr_src;
	const char **names;		/* rank -> name */
	unsigned int *flags;		/* rank -> FRAME_F_* */
	size_t nr_ranks;
	struct svg_path *paths;
	size_t nr_paths;
	uint32_t *keys;
	struct svg_open *open;
	size_t nr_open;
	uint64_t x;
	double scale;
	size_t cap_nodes;
	struct svg_layout l;
};

static const char *const kind_names[PROFILE_KIND_NR] = {
	[PROFILE_KIND_ONCPU] = "on-CPU",
	[PROFILE_KIND_OFFCPU] = "off-CPU",
	[PROFILE_KIND_RUNQ] = "run queue",
	[PROFILE_KIND_LOCK] = "lock wait",
};

const char *svg_kind_name(enum profile_kind k)
{
	return (unsigned int)k < PROFILE_KIND_NR ? kind_names[k] : "?";
}

void svg_opts_init(struct svg_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->width = SVG_DEFAULT_WIDTH;
	o->min_width_px = SVG_DEFAULT_MIN_WIDTH;
}

/* strcmp() of the concatenations a1 a2 and b1 b2, without building them. */
static int cat_cmp(const char *a1, const char *a2, const char *b1, const char *b2)
{
	for (;;) {
		unsigned char x, y;

		if (!*a1 && *a2)
			a1 = a2, a2 = "";
		if (!*b1 && *b2)
			b1 = b2, b2 = "";
		x = (unsigned char)*a1;
		y = (unsigned char)*b1;
		if (x != y || !x)
			return (x > y) - (x < y);
		a1++;
		b1++;
	}
}

/* The order of every listing (profile_frame_cmp): folded text, then flags. */
static int ref_cmp(const void *a, const void *b)
{
	const struct profile_frame *x = ((const struct svg_ref *)a)->f;
	const struct profile_frame *y = ((const struct svg_ref *)b)->f;
	int c = cat_cmp(x->name ? x->name : "", profile_frame_suffix(x->flags),
			y->name ? y->name : "", profile_frame_suffix(y->flags));

	if (c)
		return c;
	return (x->flags > y->flags) - (x->flags < y->flags);
}

/* Rank every frame of every source by (name, flags): equal frames share a key. */
static int rank_frames(struct svg_build *b)
{
	struct svg_ref *refs;
	size_t nr = 0, n = 0;
	int err = -ENOMEM;

	for (size_t s = 0; s < b->nr_src; s++)
		nr += profile__nr_frames(b->src[s].p);
	refs = calloc(nr ? nr : 1, sizeof(*refs));
	b->names = calloc(nr ? nr : 1, sizeof(*b->names));
	b->flags = calloc(nr ? nr : 1, sizeof(*b->flags));
	if (!refs || !b->names || !b->flags)
		goto out;
	for (size_t s = 0; s < b->nr_src; s++) {
		size_t nf = profile__nr_frames(b->src[s].p);

		b->src[s].rank = calloc(nf ? nf : 1, sizeof(uint32_t));
		if (!b->src[s].rank)
			goto out;
		for (size_t i = 0; i < nf; i++) {
			refs[n].f = profile__frame(b->src[s].p, (uint32_t)i);
			refs[n++].slot = &b->src[s].rank[i];
		}
	}
	qsort(refs, nr, sizeof(*refs), ref_cmp);
	for (size_t i = 0; i < nr; i++) {
		if (!i || ref_cmp(&refs[i - 1], &refs[i])) {
			b->names[b->nr_ranks] = refs[i].f->name ? refs[i].f->name : "";
			b->flags[b->nr_ranks++] = refs[i].f->flags;
		}
		*refs[i].slot = (uint32_t)(b->nr_ranks - 1);
	}
	err = 0;
out:
	free(refs);
	return err;
}

static bool drawn(const struct svg_build *b, const struct profile_stack *s)
{
	return (unsigned int)s->kind < PROFILE_KIND_NR && (b->l.kinds & SVG_KIND(s->kind));
}

/* Which kinds are drawn, and the factor that makes their weights comparable. */
static int choose_kinds(struct svg_build *b)
{
	unsigned int want = b->o->kinds ? b->o->kinds : ~0u;

	for (size_t s = 0; s < b->nr_src; s++)
		for (int k = 0; k < PROFILE_KIND_NR; k++)
			if ((want & SVG_KIND(k)) && profile__total(b->src[s].p, k))
				b->l.kinds |= SVG_KIND(k);
	b->l.split = b->l.kinds & (b->l.kinds - 1);
	for (size_t s = 0; s < b->nr_src; s++) {
		struct svg_src *src = &b->src[s];
		uint64_t period = profile__period_ns(src->p);

		for (int k = 0; k < PROFILE_KIND_NR; k++)
			src->mult[k] = 1;
		if (!b->l.split || !profile__total(src->p, PROFILE_KIND_ONCPU))
			continue;
		if (!period) {
			pr_warn("svg: cannot draw on-CPU samples with wait times: "
				"sample period unknown\n");
			return -EINVAL;
		}
		src->mult[PROFILE_KIND_ONCPU] = period;
	}
	return 0;
}

static void fill_keys(const struct svg_build *b, const struct svg_src *src,
		      const struct profile_stack *s, uint32_t *keys)
{
	size_t n = s->nr_frames, off = 0;

	if (b->l.split)
		keys[off++] = s->kind;
	for (size_t i = 0; i < n; i++)
		keys[off + i] = src->rank[s->frames[b->o->reverse ? n - 1 - i : i]];
}

static int path_cmp(const void *a, const void *b)
{
	const struct svg_path *x = a, *y = b;
	uint32_t n = x->len < y->len ? x->len : y->len;

	for (uint32_t i = 0; i < n; i++)
		if (x->keys[i] != y->keys[i])
			return x->keys[i] < y->keys[i] ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return (int)x->base - (int)y->base;
}

/* One path per drawn stack, sorted so shared prefixes are adjacent. */
static int make_paths(struct svg_build *b)
{
	size_t nr = 0, nkeys = 0, off = 0;
	uint64_t *total;

	for (size_t s = 0; s < b->nr_src; s++)
		for (size_t i = 0; i < profile__nr_stacks(b->src[s].p); i++) {
			const struct profile_stack *st = profile__stack(b->src[s].p, i);

			if (!drawn(b, st) || !st->weight)
				continue;
			nr++;
			nkeys += st->nr_frames + b->l.split;
		}
	b->paths = calloc(nr ? nr : 1, sizeof(*b->paths));
	b->keys = calloc(nkeys ? nkeys : 1, sizeof(*b->keys));
	if (!b->paths || !b->keys)
		return -ENOMEM;
	for (size_t s = 0; s < b->nr_src; s++) {
		const struct svg_src *src = &b->src[s];

		total = src->base ? &b->l.base_total : &b->l.total;
		for (size_t i = 0; i < profile__nr_stacks(src->p); i++) {
			const struct profile_stack *st = profile__stack(src->p, i);
			struct svg_path *p = &b->paths[b->nr_paths];

			if (!drawn(b, st) || !st->weight)
				continue;
			if (st->nr_frames + b->l.split > UINT32_MAX ||
			    __builtin_mul_overflow(st->weight, src->mult[st->kind], &p->w) ||
			    __builtin_add_overflow(*total, p->w, total))
				return -EOVERFLOW;
			if (!src->base)
				b->l.kind_total[st->kind] += p->w;
			p->keys = b->keys + off;
			p->len = (uint32_t)(st->nr_frames + b->l.split);
			p->base = src->base;
			p->kind = st->kind;
			fill_keys(b, src, st, b->keys + off);
			off += p->len;
			b->nr_paths++;
		}
	}
	qsort(b->paths, b->nr_paths, sizeof(*b->paths), path_cmp);
	return 0;
}

static int keep_node(struct svg_build *b, const struct svg_open *o, unsigned int depth)
{
	struct svg_node *n;

	/* children are never wider than their parent, so dropping here drops subtrees */
	if (!o->w || (depth && (double)o->w * b->scale < b->o->min_width_px))
		return 0;
	if (b->l.nr == b->cap_nodes) {
		size_t cap = b->cap_nodes ? b->cap_nodes * 2 : 1024;
		void *p = realloc(b->l.nodes, cap * sizeof(*n));

		if (!p)
			return -ENOMEM;
		b->l.nodes = p;
		b->cap_nodes = cap;
	}
	n = &b->l.nodes[b->l.nr++];
	memset(n, 0, sizeof(*n));
	n->x = o->x;
	n->w = o->w;
	n->self = o->self;
	n->base_w = o->base_w;
	n->base_self = o->base_self;
	n->depth = depth;
	n->kind = o->kind;
	if (!depth) {
		n->type = SVG_NODE_ROOT;
		n->name = "all";
	} else if (b->l.split && depth == 1) {
		n->type = SVG_NODE_KIND;
		n->name = svg_kind_name(o->key);
	} else {
		n->type = SVG_NODE_FRAME;
		n->name = b->names[o->key];
		n->flags = b->flags[o->key];
	}
	if (depth > b->l.max_depth)
		b->l.max_depth = depth;
	return 0;
}

/* Close open frames until @keep remain (open[0] is the root). */
static int close_to(struct svg_build *b, size_t keep)
{
	while (b->nr_open > keep) {
		int err;

		b->nr_open--;
		err = keep_node(b, &b->open[b->nr_open], (unsigned int)b->nr_open);
		if (err)
			return err;
	}
	return 0;
}

static int flow_path(struct svg_build *b, const struct svg_path *p)
{
	size_t common = 0;
	int err;

	while (common < p->len && common + 1 < b->nr_open &&
	       b->open[common + 1].key == p->keys[common])
		common++;
	err = close_to(b, common + 1);
	if (err)
		return err;
	for (size_t d = common + 1; d <= p->len; d++) {
		memset(&b->open[d], 0, sizeof(b->open[d]));
		b->open[d].key = p->keys[d - 1];
		b->open[d].kind = p->kind;
		b->open[d].x = b->x;
	}
	b->nr_open = p->len + 1;
	for (size_t d = 0; d <= p->len; d++)
		*(p->base ? &b->open[d].base_w : &b->open[d].w) += p->w;
	*(p->base ? &b->open[p->len].base_self : &b->open[p->len].self) += p->w;
	if (!p->base)
		b->x += p->w;
	return 0;
}

static int node_cmp(const void *a, const void *b)
{
	const struct svg_node *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return (x->x > y->x) - (x->x < y->x);
}

static int flow(struct svg_build *b)
{
	uint32_t max_len = 0;
	int err = 0;

	for (size_t i = 0; i < b->nr_paths; i++)
		if (b->paths[i].len > max_len)
			max_len = b->paths[i].len;
	b->open = calloc((size_t)max_len + 1, sizeof(*b->open));
	if (!b->open)
		return -ENOMEM;
	b->open[0].kind = b->l.kinds ? (enum profile_kind)__builtin_ctz(b->l.kinds) : 0;
	b->nr_open = 1;
	b->scale = b->l.total ? (double)(b->o->width - 2 * SVG_XPAD) / (double)b->l.total : 0;
	for (size_t i = 0; i < b->nr_paths && !err; i++)
		err = flow_path(b, &b->paths[i]);
	if (!err)
		err = close_to(b, 0);
	if (err)
		return err;
	if (b->l.nr)	/* nodes is NULL when nothing was kept */
		qsort(b->l.nodes, b->l.nr, sizeof(*b->l.nodes), node_cmp);
	for (size_t i = 0; i < b->l.nr && b->l.diff; i++) {
		double d = svg_self_delta(&b->l, &b->l.nodes[i]);

		if (d < 0)
			d = -d;

		if (d > b->l.max_delta)
			b->l.max_delta = d;
	}
	return 0;
}

static int check_opts(const struct svg_opts *o)
{
	const char *bad = NULL;

	if (o->width < 200 || o->width > 100000)
		bad = "width not in 200..100000";
	else if (!(o->min_width_px >= 0) || !isfinite(o->min_width_px))
		bad = "minimum frame width not a number >= 0";
	else if ((unsigned int)o->palette > SVG_PALETTE_COLD)
		bad = "unknown palette";
	else if (o->kinds & ~(SVG_KIND(PROFILE_KIND_NR) - 1))
		bad = "unknown kind";
	if (!bad)
		return 0;
	pr_warn("svg: invalid options: %s\n", bad);
	return -EINVAL;
}

static int render(struct svg_build *b, FILE *out)
{
	int err;

	err = check_opts(b->o);
	if (err)
		return err;
	b->l.o = b->o;
	err = choose_kinds(b);
	if (!err)
		err = rank_frames(b);
	if (!err)
		err = make_paths(b);
	if (!err)
		err = flow(b);
	if (!err)
		err = svg_draw(&b->l, out);
	for (size_t s = 0; s < b->nr_src; s++)
		free(b->src[s].rank);
	free(b->names);
	free(b->flags);
	free(b->paths);
	free(b->keys);
	free(b->open);
	free(b->l.nodes);
	return err;
}

int svg_write(const struct profile *p, const struct svg_opts *o, FILE *out)
{
	struct svg_build b = { .o = o, .nr_src = 1 };

	b.src[0].p = p;
	b.l.period_ns = profile__period_ns(p);
	return render(&b, out);
}

int svg_write_diff(const struct profile *before, const struct profile *after,
		   const struct svg_opts *o, FILE *out)
{
	struct svg_build b = { .o = o, .nr_src = 2 };

	b.src[0].p = after;
	b.src[1].p = before;
	b.src[1].base = true;
	b.l.diff = true;
	b.l.period_ns = profile__period_ns(after);
	b.l.base_period_ns = profile__period_ns(before);
	return render(&b, out);
}
