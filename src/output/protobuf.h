/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A minimal protocol buffers encoder: varints and length-delimited fields
 * into a growable buffer. Errors are sticky (checked once at the end), so a
 * message is built without a check after every field.
 */
#ifndef HC_OUTPUT_PROTOBUF_H
#define HC_OUTPUT_PROTOBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PB_WIRE_VARINT	0
#define PB_WIRE_LEN	2

struct pb_buf {
	uint8_t *data;
	size_t len, cap;
	int err;	/* 0, or the first -errno (-ENOMEM); later writes are dropped */
};

/* Empty buffer; no allocation until the first write. */
void pb_buf__init(struct pb_buf *b);
void pb_buf__release(struct pb_buf *b);		/* frees; b is reusable after init */
static inline void pb_buf__reset(struct pb_buf *b)	/* keep the memory, drop the bytes */
{
	b->len = 0;
}

/* Bytes a varint of @v takes (1..10). */
size_t pb_varint_len(uint64_t v);

void pb_put_varint(struct pb_buf *b, uint64_t v);
void pb_put_raw(struct pb_buf *b, const void *data, size_t n);

/* Field key: (@field << 3) | @wire. */
void pb_put_key(struct pb_buf *b, uint32_t field, unsigned int wire);

/*
 * Scalar fields. int64 is written as its two's complement varint (negative
 * values take 10 bytes), as protobuf's int64 type is. These always write,
 * even 0: skipping proto3 defaults is the caller's choice.
 */
void pb_put_uint64(struct pb_buf *b, uint32_t field, uint64_t v);
void pb_put_int64(struct pb_buf *b, uint32_t field, int64_t v);
void pb_put_bool(struct pb_buf *b, uint32_t field, bool v);

/* Length-delimited: bytes, a string (without its NUL), an encoded sub-message. */
void pb_put_bytes(struct pb_buf *b, uint32_t field, const void *data, size_t n);
void pb_put_string(struct pb_buf *b, uint32_t field, const char *s);
void pb_put_message(struct pb_buf *b, uint32_t field, const struct pb_buf *msg);

/* A packed repeated varint field (omitted when @n is 0, as encoders do). */
void pb_put_packed_uint64(struct pb_buf *b, uint32_t field, const uint64_t *v, size_t n);
void pb_put_packed_int64(struct pb_buf *b, uint32_t field, const int64_t *v, size_t n);

#endif /* HC_OUTPUT_PROTOBUF_H */
