// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One stored pprof -> one pprof per service (push.h). Samples are grouped by
 * the service their "comm" label maps to; each group's pprof is the input
 * with only that group's samples (tables kept whole: pprof allows entries no
 * sample refers to, and the back end drops them). Pure: bytes in, bytes out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent/push.h"
#include "output/protobuf.h"

/* profile.proto field numbers */
#define PF_SAMPLE 2
#define PF_STRING_TABLE 6
#define SA_LABEL 3
#define LA_KEY 1
#define LA_STR 2

struct span {
	const uint8_t *p;
	size_t len;
};

static int get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
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
static int next_field(const uint8_t **p, const uint8_t *end, uint32_t *field, unsigned *wire,
		      struct span *s, uint64_t *v)
{
	uint64_t key, n;

	if (get_varint(p, end, &key))
		return -EINVAL;
	*field = key >> 3;
	*wire = key & 7;
	switch (*wire) {
	case PB_WIRE_VARINT:
		return get_varint(p, end, v);
	case PB_WIRE_LEN:
		if (get_varint(p, end, &n) || n > (uint64_t)(end - *p))
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

bool push_rule_match(const char *pattern, const char *comm)
{
	size_t n = strlen(pattern);

	if (n && pattern[n - 1] == '*')
		return !strncmp(pattern, comm, n - 1);
	return !strcmp(pattern, comm);
}

const char *push_service_of(const struct push_rules *r, const char *comm, const char *fallback)
{
	for (size_t i = 0; i < r->nr; i++)
		if (push_rule_match(r->rule[i].comm, comm ? comm : ""))
			return r->rule[i].service;
	if (fallback)
		return fallback;
	return comm && *comm ? comm : "unknown";
}

int push_rules_parse(const char *text, struct push_rules *r, char *err, size_t errlen)
{
	const char *p = text;

	r->nr = 0;
	while (*p) {
		const char *end = strchr(p, ','), *eq;
		size_t len;

		while (*p == ' ')
			p++;
		len = end ? (size_t)(end - p) : strlen(p);
		while (len && p[len - 1] == ' ')
			len--;
		eq = memchr(p, '=', len);
		if (!eq || eq == p || eq == p + len - 1) {
			snprintf(err, errlen, "push rule '%.*s': want COMM=SERVICE", (int)len, p);
			return -EINVAL;
		}
		if (r->nr == PUSH_MAX_RULES || (size_t)(eq - p) >= sizeof(r->rule[0].comm) ||
		    (size_t)(p + len - eq - 1) >= sizeof(r->rule[0].service)) {
			snprintf(err, errlen, "push rules: at most %d, names of at most 63 bytes",
				 PUSH_MAX_RULES);
			return -E2BIG;
		}
		snprintf(r->rule[r->nr].comm, sizeof(r->rule[0].comm), "%.*s", (int)(eq - p), p);
		snprintf(r->rule[r->nr].service, sizeof(r->rule[0].service), "%.*s",
			 (int)(p + len - eq - 1), eq + 1);
		r->nr++;
		if (!end)
			break;
		p = end + 1;
	}
	return 0;
}

/* The "comm" label's string index of a sample, or -1. */
static int64_t comm_of(struct span smp, int64_t comm_key)
{
	const uint8_t *p = smp.p, *end = smp.p + smp.len;
	struct span s, ls;
	uint32_t f, lf;
	unsigned w, lw;
	uint64_t v, lv;

	while (p < end) {
		if (next_field(&p, end, &f, &w, &s, &v))
			return -1;
		if (f != SA_LABEL || w != PB_WIRE_LEN)
			continue;
		const uint8_t *q = s.p, *qe = s.p + s.len;
		int64_t key = -1, str = -1;

		while (q < qe && !next_field(&q, qe, &lf, &lw, &ls, &lv)) {
			if (lw == PB_WIRE_VARINT && lf == LA_KEY)
				key = lv;
			else if (lw == PB_WIRE_VARINT && lf == LA_STR)
				str = lv;
		}
		if (key == comm_key)
			return str;
	}
	return -1;
}

static int cmp_group(const void *a, const void *b)
{
	return strcmp(((const struct push_group *)a)->service,
		      ((const struct push_group *)b)->service);
}

void push_groups_free(struct push_group *g, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(g[i].samples);
	free(g);
}

static struct push_group *group_for(struct push_group **g, size_t *nr, size_t *cap,
				    const char *svc)
{
	char name[64];

	push_label_value(svc, name, sizeof(name));
	for (size_t i = 0; i < *nr; i++)
		if (!strcmp((*g)[i].service, name))
			return &(*g)[i];
	if (*nr >= PUSH_MAX_GROUPS - 1 && strcmp(name, "other"))
		return group_for(g, nr, cap, "other");	/* the last slot: everything else */
	if (*nr == *cap) {
		size_t c = *cap ? 2 * *cap : 8;
		struct push_group *n = realloc(*g, c * sizeof(*n));

		if (!n)
			return NULL;
		*g = n;
		*cap = c;
	}
	memset(&(*g)[*nr], 0, sizeof(**g));
	strcpy((*g)[*nr].service, name);
	return &(*g)[(*nr)++];
}

int push_groups(const void *pb, size_t len, const struct push_rules *r, const char *fallback,
		struct push_group **out, size_t *nr_out)
{
	const uint8_t *p = pb, *end = p + len;
	struct span *strs = NULL, s;
	size_t nr_strs = 0, cap_strs = 0, nr = 0, cap = 0;
	struct push_group *g = NULL, *grp;
	int64_t comm_key = -1, ci;
	char comm[64];
	uint32_t f;
	unsigned w;
	uint64_t v;
	int err = 0;

	/* pass 1: the string table (anywhere in the message) */
	while (!err && p < end) {
		err = next_field(&p, end, &f, &w, &s, &v);
		if (err || f != PF_STRING_TABLE || w != PB_WIRE_LEN)
			continue;
		if (nr_strs == cap_strs) {
			struct span *n = realloc(strs, (cap_strs = cap_strs ? 2 * cap_strs : 256) *
							       sizeof(*n));
			if (!n) {
				err = -ENOMEM;
				break;
			}
			strs = n;
		}
		if (s.len == 4 && !memcmp(s.p, "comm", 4))
			comm_key = nr_strs;
		strs[nr_strs++] = s;
	}
	/* pass 2: each sample to its service's group */
	for (p = pb; !err && p < end;) {
		err = next_field(&p, end, &f, &w, &s, &v);
		if (err || f != PF_SAMPLE || w != PB_WIRE_LEN)
			continue;
		ci = comm_key >= 0 ? comm_of(s, comm_key) : -1;
		comm[0] = '\0';
		if (ci >= 0 && (size_t)ci < nr_strs)
			snprintf(comm, sizeof(comm), "%.*s", (int)strs[ci].len, (const char *)strs[ci].p);
		grp = group_for(&g, &nr, &cap, push_service_of(r, comm, fallback));
		if (!grp) {
			err = -ENOMEM;
			break;
		}
		if (grp->nr == grp->cap) {
			size_t c = grp->cap ? 2 * grp->cap : 16;
			struct push_sample *n = realloc(grp->samples, c * sizeof(*n));

			if (!n) {
				err = -ENOMEM;
				break;
			}
			grp->samples = n;
			grp->cap = c;
		}
		/* the whole field: key, length and message */
		grp->samples[grp->nr++] = (struct push_sample){ s.p - (const uint8_t *)pb, s.len };
	}
	free(strs);
	if (err) {
		push_groups_free(g, nr);
		return err;
	}
	if (nr)		/* qsort(NULL, 0) is undefined (UBSan) */
		qsort(g, nr, sizeof(*g), cmp_group);
	*out = g;
	*nr_out = nr;
	return 0;
}

int push_group_encode(const void *pb, size_t len, const struct push_group *grp,
		      struct pb_buf *out)
{
	const uint8_t *p = pb, *end = p + len, *start;
	struct span s;
	uint32_t f;
	unsigned w;
	uint64_t v;

	while (p < end) {
		start = p;
		if (next_field(&p, end, &f, &w, &s, &v))
			return -EINVAL;
		if (f != PF_SAMPLE)
			pb_put_raw(out, start, p - start);
	}
	for (size_t i = 0; i < grp->nr; i++)
		pb_put_bytes(out, PF_SAMPLE, (const uint8_t *)pb + grp->samples[i].off,
			     grp->samples[i].len);
	return out->err;
}
