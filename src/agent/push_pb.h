/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Reading profile.proto for the pusher: field numbers and a field walker (push_split.c). */
#ifndef HC_AGENT_PUSH_PB_H
#define HC_AGENT_PUSH_PB_H

#include <stddef.h>
#include <stdint.h>

/* profile.proto field numbers */
#define PF_SAMPLE_TYPE 1
#define PF_SAMPLE 2
#define PF_MAPPING 3
#define PF_LOCATION 4
#define PF_FUNCTION 5
#define PF_STRING_TABLE 6
#define PF_DROP_FRAMES 7
#define PF_KEEP_FRAMES 8
#define PF_PERIOD_TYPE 11
#define PF_COMMENT 13
#define PF_DEFAULT_SAMPLE_TYPE 14
#define SA_LOCATION_ID 1
#define SA_LABEL 3
#define LA_KEY 1
#define LA_STR 2
#define LO_MAPPING_ID 2
#define LO_LINE 4
#define LN_FUNCTION_ID 1

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
