// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One stored pprof -> one pprof per series (push.h). Samples are grouped by
 * the service their process maps to (its comm, cmdline and cgroup labels)
 * and the container or unit its cgroup names; each group's pprof is the
 * input with only that group's samples, each with only the labels pushed
 * (tables kept whole: pprof allows entries no sample refers to, and the back
 * end drops them). Pure: bytes in, bytes out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent/push.h"
#include "agent/push_pb.h"
#include "output/protobuf.h"

/* profile.proto field numbers */


int push_pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned s = 0; s < 64; s += 7) {
		if (*p >= end)
			return -EINVAL;
		x |= (uint64_t)(**p & 0x7f) << s;
		if (!(*(*p)++ & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -EINVAL;
}

/* The next field: its number, wire type and, for LEN, the bytes; VARINT: @v. */
int push_pb_next(const uint8_t **p, const uint8_t *end, uint32_t *field, unsigned *wire,
		 struct span *s, uint64_t *v)
{
	uint64_t key, n;

	if (push_pb_varint(p, end, &key))
		return -EINVAL;
	*field = key >> 3;
	*wire = key & 7;
	switch (*wire) {
	case PB_WIRE_VARINT:
		return push_pb_varint(p, end, v);
	case PB_WIRE_LEN:
		if (push_pb_varint(p, end, &n) || n > (uint64_t)(end - *p))
			return -EINVAL;
		s->p = *p;
		s->len = n;
		*p += n;
		return 0;
	case 1:	/* fixed64 */
		if (end - *p < 8)
			return -EINVAL;
		*p += 8;
		return 0;
	case 5:	/* fixed32 */
		if (end - *p < 4)
			return -EINVAL;
		*p += 4;
		return 0;
	default:
		return -EINVAL;
	}
}

/* The string index of each label key's value in sample @smp (-1: none). */
static void sample_labels(struct span smp, const int64_t *keys, int64_t *val)
{
	const uint8_t *p = smp.p, *end = smp.p + smp.len;
	struct span s, ls;
	uint32_t f, lf;
	unsigned w, lw;
	uint64_t v, lv;

	for (int i = 0; i < PUSH_L_NR; i++)
		val[i] = -1;
	while (p < end) {
		if (push_pb_next(&p, end, &f, &w, &s, &v))
			return;
		if (f != SA_LABEL || w != PB_WIRE_LEN)
			continue;
		const uint8_t *q = s.p, *qe = s.p + s.len;
		int64_t key = -1, str = -1;

		while (q < qe && !push_pb_next(&q, qe, &lf, &lw, &ls, &lv)) {
			if (lw == PB_WIRE_VARINT && lf == LA_KEY)
				key = lv;
			else if (lw == PB_WIRE_VARINT && lf == LA_STR)
				str = lv;
		}
		for (int i = 0; i < PUSH_L_NR; i++)
			if (key >= 0 && key == keys[i])
				val[i] = str;
	}
}

static int cmp_group(const void *a, const void *b)
{
	const struct push_group *x = a, *y = b;
	int c = strcmp(x->service, y->service);

	if (!c)
		c = strcmp(x->container, y->container);
	return c ? c : strcmp(x->unit, y->unit);
}

void push_split_free(struct push_split *s)
{
	for (size_t i = 0; i < s->nr; i++)
		free(s->g[i].samples);
	free(s->g);
	push_index_free(s->ix);
	memset(s, 0, sizeof(*s));
}

static struct push_group *group_for(struct push_split *sp, size_t *cap, const char *svc,
				    const char *container, const char *unit)
{
	struct push_group *g;
	char name[PUSH_SVC_LEN], ct[72], un[128];

	push_label_value(svc, name, sizeof(name));
	push_label_value(container, ct, sizeof(ct));
	push_label_value(unit, un, sizeof(un));
	if (!*container)
		ct[0] = '\0';	/* push_label_value() names an empty value "unknown" */
	if (!*unit)
		un[0] = '\0';
	for (size_t i = 0; i < sp->nr; i++) {
		g = &sp->g[i];
		if (!strcmp(g->service, name) && !strcmp(g->container, ct) && !strcmp(g->unit, un))
			return g;
	}
	if (sp->nr >= PUSH_MAX_GROUPS - 1 && (strcmp(name, "other") || *ct || *un))
		return group_for(sp, cap, "other", "", "");	/* the last slot: everything else */
	if (sp->nr == *cap) {
		size_t c = *cap ? 2 * *cap : 8;
		struct push_group *n = realloc(sp->g, c * sizeof(*n));

		if (!n)
			return NULL;
		sp->g = n;
		*cap = c;
	}
	g = &sp->g[sp->nr++];
	memset(g, 0, sizeof(*g));
	strcpy(g->service, name);
	strcpy(g->container, ct);
	strcpy(g->unit, un);
	return g;
}

/* Pass 1: the string table and the label keys' indices. */
static int read_strings(const uint8_t *pb, size_t len, struct push_split *sp,
			struct span **strs_out)
{
	const uint8_t *p = pb, *end = pb + len;
	struct span *strs = NULL, s;
	size_t cap = 0;
	uint32_t f;
	unsigned w;
	uint64_t v;

	for (int i = 0; i < PUSH_L_NR; i++)
		sp->key[i] = -1;
	while (p < end) {
		if (push_pb_next(&p, end, &f, &w, &s, &v)) {
			free(strs);
			return -EINVAL;
		}
		if (f != PF_STRING_TABLE || w != PB_WIRE_LEN)
			continue;
		if (sp->nr_strs == cap) {
			struct span *n = realloc(strs, (cap = cap ? 2 * cap : 256) * sizeof(*n));

			if (!n) {
				free(strs);
				return -ENOMEM;
			}
			strs = n;
		}
		for (int i = 0; i < PUSH_L_NR; i++)
			if (s.len == strlen(push_label_name(i)) &&
			    !memcmp(s.p, push_label_name(i), s.len))
				sp->key[i] = sp->nr_strs;
		strs[sp->nr_strs++] = s;
	}
	*strs_out = strs;
	return 0;
}

static int add_sample(struct push_group *grp, size_t off, size_t len)
{
	if (grp->nr == grp->cap) {
		size_t c = grp->cap ? 2 * grp->cap : 16;
		struct push_sample *n = realloc(grp->samples, c * sizeof(*n));

		if (!n)
			return -ENOMEM;
		grp->samples = n;
		grp->cap = c;
	}
	grp->samples[grp->nr++] = (struct push_sample){ off, len };
	return 0;
}

int push_groups(const void *pb, size_t len, const struct push_rules *r, const char *fallback,
		struct push_split *out)
{
	const uint8_t *p = pb, *end = p + len;
	struct push_split sp = { 0 };
	struct span *strs = NULL, s;
	size_t cap = 0;
	struct push_group *grp;
	char str[PUSH_L_NR][PUSH_RULE_LEN + 1], ct[72], un[128];
	int64_t val[PUSH_L_NR];
	uint32_t f;
	unsigned w;
	uint64_t v;
	int err = read_strings(pb, len, &sp, &strs);

	/* pass 2: each sample to its series' group */
	for (p = pb; !err && p < end;) {
		err = push_pb_next(&p, end, &f, &w, &s, &v);
		if (err || w != PB_WIRE_LEN || f != PF_SAMPLE)
			continue;
		sample_labels(s, sp.key, val);
		for (int i = 0; i < PUSH_L_NR; i++) {
			str[i][0] = '\0';
			if (val[i] >= 0 && (size_t)val[i] < sp.nr_strs)
				snprintf(str[i], sizeof(str[i]), "%.*s", (int)strs[val[i]].len,
					 (const char *)strs[val[i]].p);
		}
		struct push_proc pr = {
			str[PUSH_L_COMM][0] ? str[PUSH_L_COMM] : NULL,
			str[PUSH_L_CMDLINE][0] ? str[PUSH_L_CMDLINE] : NULL,
			str[PUSH_L_CGROUP][0] ? str[PUSH_L_CGROUP] : NULL,
		};
		push_container_of(pr.cgroup, ct, sizeof(ct), un, sizeof(un));
		grp = group_for(&sp, &cap, push_service_of(r, &pr, fallback), ct, un);
		err = grp ? add_sample(grp, s.p - (const uint8_t *)pb, s.len) : -ENOMEM;
	}
	free(strs);
	if (err) {
		push_split_free(&sp);
		return err;
	}
	if (sp.nr)	/* qsort(NULL, 0) is undefined (UBSan) */
		qsort(sp.g, sp.nr, sizeof(*sp.g), cmp_group);
	err = push_index_build(pb, len, &sp.ix);
	if (err) {
		push_split_free(&sp);
		return err;
	}
	*out = sp;
	return 0;
}

