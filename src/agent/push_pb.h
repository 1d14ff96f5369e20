/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Reading profile.proto for the pusher: field numbers and a field walker (push_split.c). */
#ifndef HC_AGENT_PUSH_PB_H
#define HC_AGENT_PUSH_PB_H

#include <stddef.h>
#include <stdint.h>

#include "output/pprof_proto.h"

struct span {
	const uint8_t *p;
	size_t len;
};

/* One varint at *@p (advanced). 0 or -EINVAL (truncated, too long). */
int push_pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *v);
/*
 * The next field at *@p (advanced): its number, wire type and, for LEN,
 * the bytes in @s; for VARINT the value in @v. 0 or -EINVAL.
 */
int push_pb_next(const uint8_t **p, const uint8_t *end, uint32_t *field, unsigned *wire,
		 struct span *s, uint64_t *v);

#endif /* HC_AGENT_PUSH_PB_H */
