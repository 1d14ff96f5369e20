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

/* Sizes the id sets: the largest id of each table. */
static int size_tables(const uint8_t *pb, size_t len, struct prune *pr, size_t nr_strs)
{
	const uint8_t *p = pb, *end = pb + len;
	uint64_t max[3] = { 0, 0, 0 }, v, id;
	struct span s;
	uint32_t f;
	unsigned w;
	int err;

	while (p < end) {
		if (push_pb_next(&p, end, &f, &w, &s, &v))
			return -EINVAL;
		if (w != PB_WIRE_LEN || f < PF_MAPPING || f > PF_FUNCTION)
			continue;
		id = entry_id(s);
		if (id > PRUNE_MAX_ID)
			return -EINVAL;
		if (id > max[f - PF_MAPPING])
			max[f - PF_MAPPING] = id;
	}
	err = bits_init(&pr->map, max[0] + 1);
	if (!err)
		err = bits_init(&pr->loc, max[1] + 1);
	if (!err)
		err = bits_init(&pr->fn, max[2] + 1);
	if (!err)
		err = bits_init(&pr->str, nr_strs + 1);
	return err;
}

/* What the kept samples refer to, through locations to functions, mappings and strings. */
static void mark_tables(const uint8_t *pb, size_t len, struct prune *pr)
{
	static const uint32_t vt[] = { VT_TYPE, VT_UNIT, 0 },
			      fn[] = { FU_NAME, FU_SYSTEM_NAME, FU_FILENAME, 0 },
			      ma[] = { MA_FILENAME, MA_BUILD_ID, 0 },
			      lo_map[] = { LO_MAPPING_ID, 0 }, ln_fn[] = { LI_FUNCTION_ID, 0 };
	const uint8_t *p, *end = pb + len, *q;
	struct span s, ls;
	uint32_t f, lf;
	unsigned w, lw;
	uint64_t v, lv;

	/* locations first: they name the functions and mappings kept */
	for (p = pb; p < end && !push_pb_next(&p, end, &f, &w, &s, &v);) {
		if (f != PF_LOCATION || w != PB_WIRE_LEN || !bits_get(&pr->loc, entry_id(s)))
			continue;
		mark_fields(s, lo_map, &pr->map);
		for (q = s.p; q < s.p + s.len && !push_pb_next(&q, s.p + s.len, &lf, &lw, &ls, &lv);)
			if (lf == LO_LINE && lw == PB_WIRE_LEN)
				mark_fields(ls, ln_fn, &pr->fn);
	}
	for (p = pb; p < end && !push_pb_next(&p, end, &f, &w, &s, &v);) {
		if (w == PB_WIRE_VARINT && (f == PF_DROP_FRAMES || f == PF_KEEP_FRAMES ||
					   f == PF_COMMENT || f == PF_DEFAULT_SAMPLE_TYPE))
			bits_set(&pr->str, v);
		if (w != PB_WIRE_LEN)
			continue;
		if (f == PF_SAMPLE_TYPE || f == PF_PERIOD_TYPE)
			mark_fields(s, vt, &pr->str);
		else if (f == PF_FUNCTION && bits_get(&pr->fn, entry_id(s)))
			mark_fields(s, fn, &pr->str);
		else if (f == PF_MAPPING && bits_get(&pr->map, entry_id(s)))
			mark_fields(s, ma, &pr->str);
		else if (f == PF_COMMENT)	/* packed */
			for (q = s.p; q < s.p + s.len && !push_pb_varint(&q, s.p + s.len, &lv);)
				bits_set(&pr->str, lv);
	}
	bits_set(&pr->str, 0);	/* "": pprof's first string */
}

/* Every field but the samples, tables pruned, strings not referred to blanked. */
static int put_tables(const uint8_t *pb, size_t len, const struct prune *pr, struct pb_buf *out)
{
	const uint8_t *p = pb, *end = pb + len, *start;
	uint64_t si = 0, v;
	struct span s;
	uint32_t f;
	unsigned w;

	while (p < end) {
		start = p;
		if (push_pb_next(&p, end, &f, &w, &s, &v))
			return -EINVAL;
		if (f == PF_SAMPLE)
			continue;
		if (w == PB_WIRE_LEN && ((f == PF_LOCATION && !bits_get(&pr->loc, entry_id(s))) ||
					 (f == PF_FUNCTION && !bits_get(&pr->fn, entry_id(s))) ||
					 (f == PF_MAPPING && !bits_get(&pr->map, entry_id(s)))))
			continue;
		if (f == PF_STRING_TABLE && !bits_get(&pr->str, si++))
			pb_put_bytes(out, PF_STRING_TABLE, "", 0);	/* the indices stay */
		else
			pb_put_raw(out, start, p - start);
	}
	return 0;
}

int push_group_encode(const void *pb, size_t len, const struct push_split *sp, size_t gi,
		      unsigned keep, struct pb_buf *out, uint64_t *capped)
{
	const struct push_group *grp = &sp->g[gi];
	struct seen *sn = calloc(1, sizeof(*sn));
	struct prune pr = { 0 };
	struct pb_buf smp, tmp;
	int err = sn ? size_tables(pb, len, &pr, sp->nr_strs) : -ENOMEM;

	pb_buf__init(&smp);
	pb_buf__init(&tmp);
	for (size_t i = 0; !err && i < grp->nr; i++) {
		struct span s = { (const uint8_t *)pb + grp->samples[i].off, grp->samples[i].len };

		pb_buf__reset(&tmp);
		err = filter_sample(s, sp, keep, sn, &pr, &tmp, capped);
		pb_put_bytes(&smp, PF_SAMPLE, tmp.data ? tmp.data : (const uint8_t *)"", tmp.len);
	}
	if (!err) {
		mark_tables(pb, len, &pr);
		err = put_tables(pb, len, &pr, out);
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
