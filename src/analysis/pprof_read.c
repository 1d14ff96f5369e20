// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pprof decoding in two passes over the message: the string table first
 * (encoders put it last, and every other field refers to it by index),
 * then everything else, resolving each index as it is read. Repeated
 * arrays grow by doubling; their size is bounded by the input's.
 */
#include "analysis/pprof_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

struct rd {
	const uint8_t *p, *end;
};

static int rd_varint(struct rd *r, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned int shift = 0; shift < 70; shift += 7) {
		if (r->p >= r->end)
			return -EBADMSG;
		x |= (uint64_t)(*r->p & 0x7f) << shift;
		if (!(*r->p++ & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -EBADMSG;	/* more than 10 bytes */
}

/* One field: its number and wire type; for LEN, @sub gets the bytes; for VARINT, @v. */
static int rd_field(struct rd *r, uint32_t *field, unsigned int *wire, uint64_t *v, struct rd *sub)
{
	uint64_t key, n;

	if (rd_varint(r, &key) || (key >> 3) == 0 || (key >> 3) > UINT32_MAX)
		return -EBADMSG;
	*field = (uint32_t)(key >> 3);
	*wire = key & 7;
	switch (*wire) {
	case 0:
		return rd_varint(r, v);
	case 1:
		n = 8;
		break;
	case 2:
		if (rd_varint(r, &n))
			return -EBADMSG;
		break;
	case 5:
		n = 4;
		break;
	default:
		return -EBADMSG;
	}
	if (n > (uint64_t)(r->end - r->p))
		return -EBADMSG;
	sub->p = r->p;
	sub->end = r->p + n;
	r->p += n;
	return 0;
}

/* Append @v to a growable array of @size-byte items. */
static int push(void **arr, size_t *nr, size_t *cap, size_t size, const void *v)
{
	if (*nr == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		void *a = reallocarray(*arr, c, size);

		if (!a)
			return -ENOMEM;
		*arr = a;
		*cap = c;
	}
	memcpy((char *)*arr + *nr * size, v, size);
	(*nr)++;
	return 0;
}

/* A repeated varint field, packed (LEN) or not (VARINT). */
static int rd_repeated(unsigned int wire, uint64_t v, struct rd *sub, uint64_t **arr,
		       size_t *nr, size_t *cap)
{
	if (wire == 0)
		return push((void **)arr, nr, cap, sizeof(v), &v);
	if (wire != 2)
		return -EBADMSG;
	while (sub->p < sub->end) {
		int err = rd_varint(sub, &v);

		if (!err)
			err = push((void **)arr, nr, cap, sizeof(v), &v);
		if (err)
			return err;
	}
	return 0;
}

static int str_at(const struct pprof_data *d, uint64_t idx, const char **s)
{
	if (idx >= d->nr_strings)
		return -EBADMSG;
	*s = d->strings[idx];
	return 0;
}

static int rd_strings(struct rd r, struct pprof_data *d)
{
	size_t cap = 0;
	uint32_t f;
	unsigned int w;
	uint64_t v;
	struct rd sub;

	while (r.p < r.end) {
		char *s;
		int err = rd_field(&r, &f, &w, &v, &sub);

		if (err)
			return err;
		if (f != 6)
			continue;
		if (w != 2)
			return -EBADMSG;
		s = strndup((const char *)sub.p, (size_t)(sub.end - sub.p));
		if (!s)
			return -ENOMEM;
		/* a NUL inside would cut the name silently: refuse it */
		if (strlen(s) != (size_t)(sub.end - sub.p)) {
			free(s);
			return -EBADMSG;
		}
		err = push((void **)&d->strings, &d->nr_strings, &cap, sizeof(s), &s);
		if (err) {
			free(s);
			return err;
		}
	}
	return 0;
}

static int rd_value_type(struct rd r, const struct pprof_data *d, struct pprof_value_type *vt)
{
	uint32_t f;
	unsigned int w;
	uint64_t v;
	struct rd sub;
	int err = 0;

	vt->type = vt->unit = "";
	while (!err && r.p < r.end) {
		err = rd_field(&r, &f, &w, &v, &sub);
		if (!err && w == 0 && f == 1)
			err = str_at(d, v, &vt->type);
		else if (!err && w == 0 && f == 2)
			err = str_at(d, v, &vt->unit);
	}
	return err;
}

/* One Label (key 1, str 2, num 3; num_unit ignored); a label without a key is dropped. */
static int rd_label(struct rd r, const struct pprof_data *d, struct pprof_label *l, bool *keep)
{
	uint32_t f;
	unsigned int w;
	uint64_t v, key = 0, str = 0;
	struct rd sub;
	int err = 0;

	l->num = 0;
	while (!err && r.p < r.end) {
		err = rd_field(&r, &f, &w, &v, &sub);
		if (err || w != 0)
			continue;
		if (f == 1)
			key = v;
		else if (f == 2)
			str = v;
		else if (f == 3)
			l->num = (int64_t)v;
	}
	*keep = key != 0;	/* index 0 is "": no key */
	if (!err)
		err = str_at(d, key, &l->key);
	if (!err)
		err = str_at(d, str, &l->str);
	if (!err && !str)
		l->str = NULL;	/* str 0 ("") is how a numeric label says it has no string */
	return err;
}

static int rd_sample(struct rd r, const struct pprof_data *d, struct pprof_sample *s)
{
	size_t cap_loc = 0, cap_val = 0, cap_lab = 0;
	struct pprof_label l;
	uint32_t f;
	unsigned int w;
	uint64_t v;
	struct rd sub;
	bool keep;
	int err = 0;

	while (!err && r.p < r.end) {
		err = rd_field(&r, &f, &w, &v, &sub);
		if (!err && f == 1)
			err = rd_repeated(w, v, &sub, &s->loc, &s->nr_loc, &cap_loc);
		else if (!err && f == 2)
			err = rd_repeated(w, v, &sub, (uint64_t **)&s->val, &s->nr_val, &cap_val);
		else if (!err && f == 3 && w == 2 && !(err = rd_label(sub, d, &l, &keep)) && keep)
			err = push((void **)&s->labels, &s->nr_labels, &cap_lab, sizeof(l), &l);
	}
	return err;
}

static int rd_mapping(struct rd r, const struct pprof_data *d, struct pprof_mapping *m)
{
	uint32_t f;
	unsigned int w;
	uint64_t v;
	struct rd sub;
	int err = 0;

	m->file = m->build_id = "";
	while (!err && r.p < r.end) {
		err = rd_field(&r, &f, &w, &v, &sub);
		if (err || w != 0)
			continue;
		switch (f) {
		case 1: m->id = v; break;
		case 2: m->start = v; break;
		case 3: m->limit = v; break;
		case 4: m->offset = v; break;
		case 5: err = str_at(d, v, &m->file); break;
		case 6: err = str_at(d, v, &m->build_id); break;
		}
	}
	return err;
}

static int rd_location(struct rd r, struct pprof_location *l)
{
	uint32_t f;
	unsigned int w;
	uint64_t v;
	struct rd sub;
	int err = 0;

	while (!err && r.p < r.end) {
		err = rd_field(&r, &f, &w, &v, &sub);
		if (err)
			break;
		if (w == 0 && f == 1)
			l->id = v;
		else if (w == 0 && f == 2)
			l->mapping_id = v;
		else if (w == 0 && f == 3)
			l->address = v;
		else if (w == 2 && f == 4) {
			/*
			 * Line: function_id is field 1. Lines go innermost first (the
			 * functions inlined at the address, hotcold's pprof writes
			 * them): the last one is the function whose code this is.
			 */
			while (!err && sub.p < sub.end) {
				struct rd s2;
				uint32_t f2;
				unsigned int w2;
				uint64_t v2;

				err = rd_field(&sub, &f2, &w2, &v2, &s2);
				if (!err && w2 == 0 && f2 == 1)
					l->function_id = v2;
			}
		}
	}
	return err;
}

static int rd_function(struct rd r, const struct pprof_data *d, struct pprof_function *fn)
{
	uint32_t f;
	unsigned int w;
	uint64_t v;
	struct rd sub;
	int err = 0;

	fn->name = "";
	while (!err && r.p < r.end) {
		err = rd_field(&r, &f, &w, &v, &sub);
		if (!err && w == 0 && f == 1)
			fn->id = v;
		else if (!err && w == 0 && f == 2)
			err = str_at(d, v, &fn->name);
	}
	return err;
}

struct caps {
	size_t types, samples, mappings, locations, functions;
};

static int rd_top(struct rd r, struct pprof_data *d)
{
	struct caps c = { 0 };
	uint32_t f;
	unsigned int w;
	uint64_t v;
	struct rd sub;
	int err = 0;

	while (!err && r.p < r.end) {
		err = rd_field(&r, &f, &w, &v, &sub);
		if (err)
			break;
		if (w == 2 && f == 1) {
			struct pprof_value_type vt;

			err = rd_value_type(sub, d, &vt);
			if (!err)
				err = push((void **)&d->types, &d->nr_types, &c.types, sizeof(vt), &vt);
		} else if (w == 2 && f == 2) {
			struct pprof_sample s = { 0 };

			err = rd_sample(sub, d, &s);
			if (!err)
				err = push((void **)&d->samples, &d->nr_samples, &c.samples,
					   sizeof(s), &s);
			if (err) {
				free(s.loc);
				free(s.val);
				free(s.labels);
			}
		} else if (w == 2 && f == 3) {
			struct pprof_mapping m = { 0 };

			err = rd_mapping(sub, d, &m);
			if (!err)
				err = push((void **)&d->mappings, &d->nr_mappings, &c.mappings,
					   sizeof(m), &m);
		} else if (w == 2 && f == 4) {
			struct pprof_location l = { 0 };

			err = rd_location(sub, &l);
			if (!err)
				err = push((void **)&d->locations, &d->nr_locations, &c.locations,
					   sizeof(l), &l);
		} else if (w == 2 && f == 5) {
			struct pprof_function fn = { 0 };

			err = rd_function(sub, d, &fn);
			if (!err)
				err = push((void **)&d->functions, &d->nr_functions, &c.functions,
					   sizeof(fn), &fn);
		} else if (w == 2 && f == 11) {
			err = rd_value_type(sub, d, &d->period_type);
		} else if (w == 0 && f == 12) {
			d->period = (int64_t)v;
		}
	}
	return err;
}

/* Every item type starts with its uint64 id: one comparator for all three. */
static int id_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int pprof_decode(const uint8_t *buf, size_t len, struct pprof_data *d)
{
	struct rd r = { buf, buf + len };
	int err;

	memset(d, 0, sizeof(*d));
	err = rd_strings(r, d);
	if (!err && !d->nr_strings)
		err = -EBADMSG;	/* string_table[0] = "" is mandatory */
	if (!err)
		err = rd_top(r, d);
	if (err) {
		pprof_data_release(d);
		return err;
	}
	/* qsort/bsearch want non-NULL arrays even when empty */
	if (d->nr_mappings)
		qsort(d->mappings, d->nr_mappings, sizeof(*d->mappings), id_cmp);
	if (d->nr_locations)
		qsort(d->locations, d->nr_locations, sizeof(*d->locations), id_cmp);
	if (d->nr_functions)
		qsort(d->functions, d->nr_functions, sizeof(*d->functions), id_cmp);
	return 0;
}

void pprof_data_release(struct pprof_data *d)
{
	for (size_t i = 0; i < d->nr_strings; i++)
		free(d->strings[i]);
	for (size_t i = 0; i < d->nr_samples; i++) {
		free(d->samples[i].loc);
		free(d->samples[i].val);
		free(d->samples[i].labels);
	}
	free(d->strings);
	free(d->types);
	free(d->samples);
	free(d->mappings);
	free(d->locations);
	free(d->functions);
	memset(d, 0, sizeof(*d));
}

static const void *by_id(const void *arr, size_t nr, size_t size, uint64_t id)
{
	return id && nr ? bsearch(&id, arr, nr, size, id_cmp) : NULL;
}

const struct pprof_mapping *pprof_mapping(const struct pprof_data *d, uint64_t id)
{
	return by_id(d->mappings, d->nr_mappings, sizeof(*d->mappings), id);
}

const struct pprof_location *pprof_location(const struct pprof_data *d, uint64_t id)
{
	return by_id(d->locations, d->nr_locations, sizeof(*d->locations), id);
}

const struct pprof_label *pprof_sample_label(const struct pprof_sample *s, const char *key)
{
	for (size_t i = 0; i < s->nr_labels; i++)
		if (!strcmp(s->labels[i].key, key))
			return &s->labels[i];
	return NULL;
}

const struct pprof_function *pprof_function(const struct pprof_data *d, uint64_t id)
{
	return by_id(d->functions, d->nr_functions, sizeof(*d->functions), id);
}

/* Whole file, inflated if gzip (auto-detected by zlib: windowBits 15 + 32). */
static int slurp(int fd, uint8_t **out, size_t *out_len)
{
	uint8_t in[65536];
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	z_stream zs = { 0 };
	bool gz = false, first = true, done = false;
	int err = 0;

	if (inflateInit2(&zs, 15 + 32) != Z_OK)
		return -ENOMEM;
	while (!err && !done) {
		ssize_t n = read(fd, in, sizeof(in));

		if (n < 0) {
			err = errno == EINTR ? 0 : -errno;
			continue;
		}
		if (n == 0)
			break;
		if (first)
			gz = n >= 2 && in[0] == 0x1f && in[1] == 0x8b;
		first = false;
		zs.next_in = in;
		zs.avail_in = (unsigned int)n;
		do {
			if (cap - len < 65536) {
				size_t c = cap ? cap * 2 : 1 << 20;
				uint8_t *b;

				if (c > PPROF_READ_MAX_BYTES + 65536ull) {
					err = -EFBIG;
					break;
				}
				b = realloc(buf, c);
				if (!b) {
					err = -ENOMEM;
					break;
				}
				buf = b;
				cap = c;
			}
			if (!gz) {
				memcpy(buf + len, zs.next_in, zs.avail_in);
				len += zs.avail_in;
				zs.avail_in = 0;
				break;
			}
			zs.next_out = buf + len;
			zs.avail_out = (unsigned int)(cap - len);
			int rc = inflate(&zs, Z_NO_FLUSH);

			len = cap - zs.avail_out;
			if (rc == Z_STREAM_END)
				done = true;
			else if (rc != Z_OK && rc != Z_BUF_ERROR)
				err = -EBADMSG;
		} while (!err && !done && zs.avail_in);
		if (!err && len > PPROF_READ_MAX_BYTES)
			err = -EFBIG;
	}
	if (!err && gz && !done)
		err = -EBADMSG;	/* truncated gzip stream */
	inflateEnd(&zs);
	if (err) {
		free(buf);
		return err;
	}
	*out = buf;
	*out_len = len;
	return 0;
}

int pprof_read_file(const char *path, struct pprof_data *d)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint8_t *buf = NULL;
	size_t len = 0;
	int err;

	memset(d, 0, sizeof(*d));
	if (fd < 0)
		return -errno;
	err = slurp(fd, &buf, &len);
	close(fd);
	if (!err)
		err = pprof_decode(buf, len, d);
	free(buf);
	return err;
}
