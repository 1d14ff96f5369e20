// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* annotate_select(), annotate_lines(): the pure parts of annotate (annotate.h). */
#include "analysis/annotate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool is_inline_name(const char *n)
{
	size_t l = strlen(n);

	return l >= 4 && !strcmp(n + l - 4, "_[i]");
}

static const char *loc_name(const struct pprof_data *d, const struct pprof_location *l)
{
	const struct pprof_function *f = l ? pprof_function(d, l->function_id) : NULL;

	return f ? f->name : "";
}

/* Which value is the sample count: type "samples", else the first. */
static size_t value_index(const struct pprof_data *d)
{
	for (size_t i = 0; i < d->nr_types; i++)
		if (!strcmp(d->types[i].type, "samples"))
			return i;
	return 0;
}

static int off_cmp(const void *a, const void *b)
{
	const struct annotate_sample *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * Mapping id holding most of @func's self weight; 0 if none has addresses.
 * Sorted (id, weight) runs: n log n, however many mappings the file has.
 */
static uint64_t heaviest_mapping(const uint64_t *self_map, const uint64_t *w, size_t n)
{
	struct annotate_sample *v = calloc(n ? n : 1, sizeof(*v));
	uint64_t best = 0, best_w = 0;
	size_t i, k = 0;

	if (!v)
		return 0;
	for (i = 0; i < n; i++)
		if (self_map[i]) {
			v[k].off = self_map[i];
			v[k++].weight = w[i];
		}
	if (k)
		qsort(v, k, sizeof(*v), off_cmp);
	for (i = 0; i < k;) {
		uint64_t id = v[i].off, sum = 0;

		for (; i < k && v[i].off == id; i++)
			sum += v[i].weight;
		if (sum > best_w || !best) {
			best_w = sum;
			best = id;
		}
	}
	free(v);
	return best;
}

int annotate_select(const struct pprof_data *d, const char *func, struct annotate_sel *s)
{
	size_t vi = value_index(d), n = d->nr_samples, i, k;
	uint64_t *self_map = calloc(n ? n : 1, sizeof(*self_map));
	uint64_t *self_addr = calloc(n ? n : 1, sizeof(*self_addr));
	uint64_t *w = calloc(n ? n : 1, sizeof(*w));
	const struct pprof_mapping *m;
	bool named = false;
	uint64_t map_id;
	int err = 0;

	memset(s, 0, sizeof(*s));
	if (!self_map || !self_addr || !w) {
		err = -ENOMEM;
		goto out;
	}
	if (d->nr_types) {
		s->type = d->types[vi].type;
		s->unit = d->types[vi].unit;
	}
	for (i = 0; i < n; i++) {
		const struct pprof_sample *sa = &d->samples[i];
		const struct pprof_location *leaf = NULL;
		int64_t v = vi < sa->nr_val ? sa->val[vi] : 0;
		bool in = false;

		w[i] = v > 0 ? (uint64_t)v : 0;
		s->profile_total += w[i];
		for (k = 0; k < sa->nr_loc; k++) {
			const struct pprof_location *l = pprof_location(d, sa->loc[k]);
			const char *name = loc_name(d, l);

			if (!leaf && l && !is_inline_name(name))
				leaf = l;
			in |= !strcmp(name, func);
		}
		named |= in;
		if (in)
			s->in_stacks += w[i];
		if (!leaf || strcmp(loc_name(d, leaf), func))
			continue;
		if (!leaf->address || !leaf->mapping_id) {
			s->no_addr += w[i];
			continue;
		}
		self_map[i] = leaf->mapping_id;
		self_addr[i] = leaf->address;
	}
	if (!named) {
		/* a function no sample reaches may still be a location: say "no samples" */
		for (i = 0; i < d->nr_locations && !named; i++)
			named = !strcmp(loc_name(d, &d->locations[i]), func);
		err = named ? -ESRCH : -ENOENT;
		goto out;
	}
	map_id = heaviest_mapping(self_map, w, n);
	m = pprof_mapping(d, map_id);
	if (!m) {
		err = s->no_addr ? -ENODATA : -ESRCH;
		goto out;
	}
	s->file = m->file;
	s->build_id = m->build_id;
	s->v = calloc(n, sizeof(*s->v));
	if (!s->v) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (self_map[i] != map_id || !w[i] || self_addr[i] < m->start)
			continue;
		s->v[s->nr].off = self_addr[i] - m->start + m->offset;
		s->v[s->nr++].weight = w[i];
		s->total += w[i];
	}
	qsort(s->v, s->nr, sizeof(*s->v), off_cmp);
	for (i = k = 0; i < s->nr; i++) {
		if (k && s->v[k - 1].off == s->v[i].off)
			s->v[k - 1].weight += s->v[i].weight;
		else
			s->v[k++] = s->v[i];
	}
	s->nr = k;
out:
	free(self_map);
	free(self_addr);
	free(w);
	if (err)
		annotate_sel_release(s);
	return err;
}

void annotate_sel_release(struct annotate_sel *s)
{
	free(s->v);
	free(s->owned_file);
	free(s->owned_bid);
	free(s->owned_type);
	free(s->owned_unit);
	s->owned_file = s->owned_bid = s->owned_type = s->owned_unit = NULL;
	s->v = NULL;
	s->nr = 0;
}

const char *annotate_intern(struct annotate_result *r, const char *s)
{
	char *c;

	for (size_t i = 0; i < r->nr_pool; i++)
		if (!strcmp(r->pool[i], s))
			return r->pool[i];
	if (r->nr_pool == r->cap_pool) {
		size_t cap = r->cap_pool ? r->cap_pool * 2 : 16;
		char **p = reallocarray(r->pool, cap, sizeof(*p));

		if (!p)
			return NULL;
		r->pool = p;
		r->cap_pool = cap;
	}
	c = strdup(s);
	if (c)
		r->pool[r->nr_pool++] = c;
	return c;
}

static int line_cmp(const void *a, const void *b)
{
	const struct annotate_line *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return x->first_addr < y->first_addr ? -1 : x->first_addr > y->first_addr;
}

int annotate_lines(struct annotate_result *r)
{
	free(r->lines);
	r->nr_lines = 0;
	r->no_line = 0;
	r->lines = calloc(r->nr_insns ? r->nr_insns : 1, sizeof(*r->lines));
	if (!r->lines)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_insns; i++) {
		const struct annotate_insn *in = &r->insns[i];
		size_t j;

		if (!in->file || !in->line) {
			r->no_line += in->weight;
			continue;
		}
		/* pool strings are unique: pointer equality is file equality */
		for (j = 0; j < r->nr_lines; j++)
			if (r->lines[j].file == in->file && r->lines[j].line == in->line)
				break;
		if (j == r->nr_lines) {
			r->lines[j].file = in->file;
			r->lines[j].line = in->line;
			r->lines[j].first_addr = in->addr;
			r->lines[j].inlined = in->inlined;
			r->nr_lines++;
		}
		r->lines[j].weight += in->weight;
	}
	qsort(r->lines, r->nr_lines, sizeof(*r->lines), line_cmp);
	return 0;
}

void annotate_result_release(struct annotate_result *r)
{
	for (size_t i = 0; i < r->nr_pool; i++)
		free(r->pool[i]);
	free(r->pool);
	free(r->obj_path);
	free(r->debug_path);
	free(r->symbol);
	free(r->insns);
	free(r->lines);
	free(r->branches);
	memset(r, 0, sizeof(*r));
}
