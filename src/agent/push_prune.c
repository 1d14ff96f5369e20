// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One series' pprof out of the interval's (push.h, push_group_encode): its
 * samples with the labels pushed, and only the locations, functions,
 * mappings and strings they refer to. An interval's pprof holds every
 * process's tables; sent whole to each of ~100 services of a busy host it
 * was ~60 KB per request (bench/RESULTS.md, issue 18). Pure: bytes in, bytes out.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "agent/push.h"
#include "agent/push_pb.h"
#include "output/protobuf.h"

/* Table IDs above this are not ours (the encoder numbers them from 1): refused. */
#define PRUNE_MAX_ID (1u << 24)

struct bits {
	uint64_t *w;
	uint64_t n;	/* bits */
};

static int bits_init(struct bits *b, uint64_t n)
{
	b->n = n;
	b->w = calloc(n / 64 + 1, sizeof(*b->w));
	return b->w ? 0 : -ENOMEM;
}

static void bits_set(struct bits *b, uint64_t i)
{
	if (i < b->n)
		b->w[i / 64] |= 1ull << (i % 64);
}

static bool bits_get(const struct bits *b, uint64_t i)
{
	return i < b->n && (b->w[i / 64] >> (i % 64) & 1);
}

struct prune {
	struct bits loc, fn, map, str;
};

/* Values seen per label key in one pushed profile, to bound them. */
struct seen {
	uint64_t v[PUSH_L_NR][PUSH_MAX_LABEL_VALUES];
	size_t nr[PUSH_L_NR];
};

/* May this label (key @k, value @v) go out? Records a new value. */
static bool admit(struct seen *sn, int k, uint64_t v)
{
	for (size_t i = 0; i < sn->nr[k]; i++)
		if (sn->v[k][i] == v)
			return true;
	if (sn->nr[k] == PUSH_MAX_LABEL_VALUES)
		return false;
	sn->v[k][sn->nr[k]++] = v;
	return true;
}

/* A label of a sample: kept? Marks its strings when it is. */
static bool keep_label(struct span s, const struct push_split *sp, unsigned keep, struct seen *sn,
		       struct prune *pr, uint64_t *capped)
{
	const uint8_t *q = s.p, *qe = s.p + s.len;
	uint64_t strs[3] = { 0, 0, 0 }, val = 0, lv;
	int64_t key = -1;
	struct span ls;
	uint32_t lf;
	unsigned lw;
	int k = -1;

	while (q < qe && !push_pb_next(&q, qe, &lf, &lw, &ls, &lv)) {
		if (lw != PB_WIRE_VARINT)
			continue;
		if (lf == LA_KEY)
			key = lv;
		else
			val = lv;	/* str or num: either identifies the value */
		if (lf == LA_KEY || lf == LA_STR || lf == LA_NUM_UNIT)
			strs[lf == LA_KEY ? 0 : lf == LA_STR ? 1 : 2] = lv;
	}
	for (int i = 0; i < PUSH_L_NR; i++)
		if (key >= 0 && key == sp->key[i])
			k = i;
	if (k >= 0 && !(keep & (1u << k)))
		return false;
	if (k >= 0 && !admit(sn, k, val)) {
		(*capped)++;
		return false;
	}
	for (int i = 0; i < 3; i++)
		bits_set(&pr->str, strs[i]);
	return true;
}

/* Sample @smp with only the labels kept into @tmp; marks its locations and strings. */
static int filter_sample(struct span smp, const struct push_split *sp, unsigned keep,
			 struct seen *sn, struct prune *pr, struct pb_buf *tmp, uint64_t *capped)
{
	const uint8_t *p = smp.p, *end = smp.p + smp.len, *start, *q;
	struct span s;
	uint32_t f;
	unsigned w;
	uint64_t v;

	while (p < end) {
		start = p;
		if (push_pb_next(&p, end, &f, &w, &s, &v))
			return -EINVAL;
		if (f == SA_LOCATION_ID && w == PB_WIRE_VARINT)
			bits_set(&pr->loc, v);
		for (q = s.p; f == SA_LOCATION_ID && w == PB_WIRE_LEN && q < s.p + s.len;) {
			if (push_pb_varint(&q, s.p + s.len, &v))	/* packed */
				return -EINVAL;
			bits_set(&pr->loc, v);
		}
		if (f == SA_LABEL && w == PB_WIRE_LEN && !keep_label(s, sp, keep, sn, pr, capped))
			continue;
		pb_put_raw(tmp, start, p - start);
	}
	return 0;
}

/* The varint fields @fields (a 0-ended list) of message @s into @b. */
static void mark_fields(struct span s, const uint32_t *fields, struct bits *b)
{
	const uint8_t *q = s.p, *qe = s.p + s.len;
	struct span ls;
	uint32_t f;
	unsigned w;
	uint64_t v;

	while (q < qe && !push_pb_next(&q, qe, &f, &w, &ls, &v))
		for (size_t i = 0; w == PB_WIRE_VARINT && fields[i]; i++)
			if (f == fields[i])
				bits_set(b, v);
}

/* A table entry's id (field 1). */
static uint64_t entry_id(struct span s)
{
	const uint8_t *q = s.p, *qe = s.p + s.len;
	struct span ls;
	uint32_t f;
	unsigned w;
	uint64_t v;

	while (q < qe && !push_pb_next(&q, qe, &f, &w, &ls, &v))
		if (f == 1 && w == PB_WIRE_VARINT)
			return v;
	return 0;
}

/*
 * The interval's pprof, walked once for all its series: every top-level
 * field but the samples, and each table entry by id, so a series costs what
 * it keeps, not the file's size (the pusher ran a pass per series before).
 */
struct ix_field {
	uint32_t field;
	unsigned int wire;
	size_t off, len;	/* the whole field, key included */
	struct span body;	/* LEN: the message; VARINT: empty */
	uint64_t v;		/* VARINT: the value */
};

struct push_index {
	struct ix_field *f;	/* file order */
	size_t nr, cap;
	size_t *strs;		/* f[] index of each string, in table order */
	size_t nr_strs, cap_strs;
	uint32_t *at[3];	/* mapping, location, function: id -> f[] index + 1 */
	uint64_t max[3];
};

void push_index_free(struct push_index *ix)
{
	if (!ix)
		return;
	free(ix->f);
	free(ix->strs);
	for (int t = 0; t < 3; t++)
		free(ix->at[t]);
	free(ix);
}

static int grow(void **v, size_t *cap, size_t nr, size_t size)
{
	void *n;

	if (nr < *cap)
		return 0;
	n = realloc(*v, (*cap ? 2 * *cap : 256) * size);
	if (!n)
		return -ENOMEM;
	*v = n;
	*cap = *cap ? 2 * *cap : 256;
	return 0;
}

/* Table of @f: 0 mapping, 1 location, 2 function; -1 none. */
static int table_of(uint32_t f, unsigned int w)
{
	return w == PB_WIRE_LEN && f >= PF_MAPPING && f <= PF_FUNCTION ? (int)(f - PF_MAPPING) : -1;
}

int push_index_build(const void *pb, size_t len, struct push_index **out)
{
	const uint8_t *p = pb, *end = p + len, *start;
	struct push_index *ix = calloc(1, sizeof(*ix));
	struct ix_field x;
	int err = ix ? 0 : -ENOMEM;

	while (!err && p < end) {
		start = p;
		memset(&x, 0, sizeof(x));
		if (push_pb_next(&p, end, &x.field, &x.wire, &x.body, &x.v)) {
			err = -EINVAL;
			break;
		}
		if (x.field == PF_SAMPLE)
			continue;
		x.off = start - (const uint8_t *)pb;
		x.len = p - start;
		if (x.field == PF_STRING_TABLE) {
			err = grow((void **)&ix->strs, &ix->cap_strs, ix->nr_strs, sizeof(size_t));
			if (!err)
				ix->strs[ix->nr_strs++] = ix->nr;
		}
		if (!err)
			err = grow((void **)&ix->f, &ix->cap, ix->nr, sizeof(*ix->f));
		if (!err)
			ix->f[ix->nr++] = x;
	}
	for (size_t i = 0; !err && i < ix->nr; i++) {
		int t = table_of(ix->f[i].field, ix->f[i].wire);
		uint64_t id = t < 0 ? 0 : entry_id(ix->f[i].body);

		if (id > PRUNE_MAX_ID)
			err = -EINVAL;	/* not ours: the encoder numbers from 1 */
		else if (t >= 0 && id > ix->max[t])
			ix->max[t] = id;
	}
	for (int t = 0; !err && t < 3; t++)
		if (!(ix->at[t] = calloc(ix->max[t] + 1, sizeof(uint32_t))))
			err = -ENOMEM;
	for (size_t i = 0; !err && i < ix->nr; i++) {
		int t = table_of(ix->f[i].field, ix->f[i].wire);

		if (t >= 0)
			ix->at[t][entry_id(ix->f[i].body)] = (uint32_t)i + 1;
	}
	if (err) {
		push_index_free(ix);
		return err;
	}
	*out = ix;
	return 0;
}

/* The entry of table @t with @id, or NULL. */
static const struct ix_field *entry(const struct push_index *ix, int t, uint64_t id)
{
	return id && id <= ix->max[t] && ix->at[t][id] ? &ix->f[ix->at[t][id] - 1] : NULL;
}

/* What the kept samples refer to, through locations to functions, mappings and strings. */
static void mark_tables(const struct push_index *ix, struct prune *pr)
{
	static const uint32_t vt[] = { VT_TYPE, VT_UNIT, 0 },
			      fn[] = { FU_NAME, FU_SYSTEM_NAME, FU_FILENAME, 0 },
			      ma[] = { MA_FILENAME, MA_BUILD_ID, 0 },
			      lo_map[] = { LO_MAPPING_ID, 0 }, ln_fn[] = { LI_FUNCTION_ID, 0 };
	const struct ix_field *e;
	const uint8_t *q;
	struct span ls;
	uint32_t lf;
	unsigned lw;
	uint64_t lv;

	/* locations first: they name the functions and mappings kept */
	for (uint64_t id = 1; id <= ix->max[1]; id++) {
		if (!bits_get(&pr->loc, id) || !(e = entry(ix, 1, id)))
			continue;
		mark_fields(e->body, lo_map, &pr->map);
		for (q = e->body.p; q < e->body.p + e->body.len &&
		     !push_pb_next(&q, e->body.p + e->body.len, &lf, &lw, &ls, &lv);)
			if (lf == LO_LINE && lw == PB_WIRE_LEN)
				mark_fields(ls, ln_fn, &pr->fn);
	}
	for (uint64_t id = 1; id <= ix->max[2]; id++)
		if (bits_get(&pr->fn, id) && (e = entry(ix, 2, id)))
			mark_fields(e->body, fn, &pr->str);
	for (uint64_t id = 1; id <= ix->max[0]; id++)
		if (bits_get(&pr->map, id) && (e = entry(ix, 0, id)))
			mark_fields(e->body, ma, &pr->str);
	for (size_t i = 0; i < ix->nr; i++) {
		e = &ix->f[i];
		if (e->wire == PB_WIRE_VARINT && (e->field == PF_DROP_FRAMES ||
						  e->field == PF_KEEP_FRAMES ||
						  e->field == PF_COMMENT ||
						  e->field == PF_DEFAULT_SAMPLE_TYPE))
			bits_set(&pr->str, e->v);
		if (e->wire != PB_WIRE_LEN)
			continue;
		if (e->field == PF_SAMPLE_TYPE || e->field == PF_PERIOD_TYPE)
			mark_fields(e->body, vt, &pr->str);
		else if (e->field == PF_COMMENT)	/* packed */
			for (q = e->body.p; q < e->body.p + e->body.len &&
			     !push_pb_varint(&q, e->body.p + e->body.len, &lv);)
				bits_set(&pr->str, lv);
	}
	bits_set(&pr->str, 0);	/* "": pprof's first string */
}

/* Every field but the samples, tables pruned, strings not referred to blanked. */
static void put_tables(const uint8_t *pb, const struct push_index *ix, const struct prune *pr,
		       struct pb_buf *out)
{
	uint64_t si = 0;

	for (size_t i = 0; i < ix->nr; i++) {
		const struct ix_field *e = &ix->f[i];
		int t = table_of(e->field, e->wire);

		if (t >= 0 && !bits_get(t == 0 ? &pr->map : t == 1 ? &pr->loc : &pr->fn,
					entry_id(e->body)))
			continue;
		if (e->field == PF_STRING_TABLE && !bits_get(&pr->str, si++))
			pb_put_bytes(out, PF_STRING_TABLE, "", 0);	/* the indices stay */
		else
			pb_put_raw(out, pb + e->off, e->len);
	}
}

int push_group_encode(const void *pb, size_t len, const struct push_split *sp, size_t gi,
		      unsigned keep, struct pb_buf *out, uint64_t *capped)
{
	const struct push_group *grp = &sp->g[gi];
	struct seen *sn = calloc(1, sizeof(*sn));
	const struct push_index *ix = sp->ix;
	struct prune pr = { 0 };
	struct pb_buf smp, tmp;
	int err = sn && ix ? 0 : -ENOMEM;

	if (!err)
		err = bits_init(&pr.map, ix->max[0] + 1);
	if (!err)
		err = bits_init(&pr.loc, ix->max[1] + 1);
	if (!err)
		err = bits_init(&pr.fn, ix->max[2] + 1);
	if (!err)
		err = bits_init(&pr.str, ix->nr_strs + 1);

	pb_buf__init(&smp);
	pb_buf__init(&tmp);
	for (size_t i = 0; !err && i < grp->nr; i++) {
		struct span s = { (const uint8_t *)pb + grp->samples[i].off, grp->samples[i].len };

		pb_buf__reset(&tmp);
		err = filter_sample(s, sp, keep, sn, &pr, &tmp, capped);
		pb_put_bytes(&smp, PF_SAMPLE, tmp.data ? tmp.data : (const uint8_t *)"", tmp.len);
	}
	if (!err) {
		mark_tables(ix, &pr);
		put_tables(pb, ix, &pr, out);
	}
	if (!err)
		pb_put_raw(out, smp.data, smp.len);
	if (!err)
		err = smp.err ? smp.err : tmp.err ? tmp.err : out->err;
	pb_buf__release(&smp);
	pb_buf__release(&tmp);
	free(pr.loc.w);
	free(pr.fn.w);
	free(pr.map.w);
	free(pr.str.w);
	free(sn);
	return err;
}
