// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Splitting an interval by kind and encoding it in memory, so its size is known before writing. */
#include "agent/split.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "output/folded.h"
#include "output/pprof.h"

int gzip_buffer(const void *data, size_t len, void **out, size_t *out_len)
{
	z_stream zs = { 0 };
	uLong cap;
	void *buf;
	int rc;

	/* windowBits 15 + 16: a gzip header, as gunzip and zcat expect */
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	cap = deflateBound(&zs, len) + 32;
	buf = malloc(cap);
	if (!buf) {
		deflateEnd(&zs);
		return -ENOMEM;
	}
	zs.next_in = (Bytef *)data;
	zs.avail_in = len;
	zs.next_out = buf;
	zs.avail_out = cap;
	rc = deflate(&zs, Z_FINISH);
	*out_len = zs.total_out;
	deflateEnd(&zs);
	if (rc != Z_STREAM_END) {
		free(buf);
		return -EIO;
	}
	*out = buf;
	return 0;
}

int profile_copy_kind(struct profile *dst, const struct profile *src, enum profile_kind kind)
{
	int err = 0;

	profile__copy_meta(dst, src);
	for (size_t i = 0; !err && i < profile__nr_stacks(src); i++) {
		const struct profile_stack *s = profile__stack(src, i);

		if (s->kind == kind)
			err = profile__copy_stack(dst, src, s);
	}
	return err;
}

/* pprof and gzip'd folded of one kind's profile into two blobs. */
static int encode_kind(const struct profile *k, const char *name, struct split_out *out)
{
	char *buf = NULL;
	size_t len = 0;
	void *gz;
	size_t gz_len;
	FILE *f;
	int err;

	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	err = pprof_write(k, f);
	if (fclose(f) && !err)
		err = -EIO;
	if (err) {
		free(buf);
		return err;
	}
	out->blobs[out->nr++] = (struct store_blob){ name, STORE_PPROF, buf, len };
	buf = NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	err = profile__write_folded(k, f);
	if (fclose(f) && !err)
		err = -EIO;
	if (!err)
		err = gzip_buffer(buf, len, &gz, &gz_len);
	free(buf);
	if (!err)
		out->blobs[out->nr++] = (struct store_blob){ name, STORE_FOLDED, gz, gz_len };
	return err;
}

int split_encode(const struct profile *p, struct split_out *out)
{
	int err = 0;

	memset(out, 0, sizeof(*out));
	for (int kind = 0; !err && kind < PROFILE_KIND_NR; kind++) {
		struct profile *k;

		if (!profile__has_kind(p, kind))
			continue;
		k = profile__new();
		if (!k)
			return -ENOMEM;
		err = profile_copy_kind(k, p, kind);
		if (!err)
			err = encode_kind(k, profile_kind_name(kind), out);
		profile__free(k);
	}
	if (err)
		split_release(out);
	return err;
}

void split_release(struct split_out *out)
{
	for (size_t i = 0; i < out->nr; i++)
		free((void *)out->blobs[i].data);
	out->nr = 0;
}
