// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Protocol buffers wire format: base-128 varints and length-delimited fields. */
#include "output/protobuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void pb_buf__init(struct pb_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void pb_buf__release(struct pb_buf *b)
{
	free(b->data);
	pb_buf__init(b);
}

/* Room for @n more bytes; false (and b->err set) if there is none. */
static bool reserve(struct pb_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;
	uint8_t *d;

	if (b->err)
		return false;
	if (n <= b->cap - b->len)
		return true;
	while (cap - b->len < n) {
		if (cap > SIZE_MAX / 2) {
			b->err = -ENOMEM;
			return false;
		}
		cap *= 2;
	}
	d = realloc(b->data, cap);
	if (!d) {
		b->err = -ENOMEM;
		return false;
	}
	b->data = d;
	b->cap = cap;
	return true;
}

size_t pb_varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

void pb_put_varint(struct pb_buf *b, uint64_t v)
{
	if (!reserve(b, 10))
		return;
	while (v >= 0x80) {
		b->data[b->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->data[b->len++] = (uint8_t)v;
}

void pb_put_raw(struct pb_buf *b, const void *data, size_t n)
{
	if (!n || !reserve(b, n))
		return;
	memcpy(b->data + b->len, data, n);
	b->len += n;
}

void pb_put_key(struct pb_buf *b, uint32_t field, unsigned int wire)
{
	pb_put_varint(b, ((uint64_t)field << 3) | wire);
}

void pb_put_uint64(struct pb_buf *b, uint32_t field, uint64_t v)
{
	pb_put_key(b, field, PB_WIRE_VARINT);
	pb_put_varint(b, v);
}

void pb_put_int64(struct pb_buf *b, uint32_t field, int64_t v)
{
	pb_put_uint64(b, field, (uint64_t)v);
}

void pb_put_bool(struct pb_buf *b, uint32_t field, bool v)
{
	pb_put_uint64(b, field, v ? 1 : 0);
}

void pb_put_bytes(struct pb_buf *b, uint32_t field, const void *data, size_t n)
{
	pb_put_key(b, field, PB_WIRE_LEN);
	pb_put_varint(b, n);
	pb_put_raw(b, data, n);
}

void pb_put_string(struct pb_buf *b, uint32_t field, const char *s)
{
	pb_put_bytes(b, field, s, strlen(s));
}

void pb_put_message(struct pb_buf *b, uint32_t field, const struct pb_buf *msg)
{
	/* a failed sub-message fails its parent */
	if (msg->err && !b->err)
		b->err = msg->err;
	pb_put_bytes(b, field, msg->data, msg->len);
}

void pb_put_packed_uint64(struct pb_buf *b, uint32_t field, const uint64_t *v, size_t n)
{
	size_t len = 0, i;

	if (!n)
		return;
	for (i = 0; i < n; i++)
		len += pb_varint_len(v[i]);
	pb_put_key(b, field, PB_WIRE_LEN);
	pb_put_varint(b, len);
	for (i = 0; i < n; i++)
		pb_put_varint(b, v[i]);
}

void pb_put_packed_int64(struct pb_buf *b, uint32_t field, const int64_t *v, size_t n)
{
	size_t len = 0, i;

	if (!n)
		return;
	for (i = 0; i < n; i++)
		len += pb_varint_len((uint64_t)v[i]);
	pb_put_key(b, field, PB_WIRE_LEN);
	pb_put_varint(b, len);
	for (i = 0; i < n; i++)
		pb_put_varint(b, (uint64_t)v[i]);
}
