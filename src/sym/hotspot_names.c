// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Segment map walk and Java names (see hotspot_names.h). */
#include "sym/hotspot_names.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

int hotspot_segmap_walk(const uint8_t *map, uint64_t first, size_t n, uint64_t *seg)
{
	uint64_t s = *seg;

	if (s < first || s - first >= n)
		return -EAGAIN;
	for (;;) {
		uint8_t tag = map[s - first];

		if (tag == 0) {
			*seg = s;
			return 0;
		}
		/* a free segment, or a step past the heap's first segment: not a block */
		if (tag == HOTSPOT_SEG_FREE || tag > s)
			return -ENOENT;
		s -= tag;
		if (s < first) {
			*seg = s;
			return -EAGAIN;
		}
	}
}

/* One byte of a name: what would split a folded line or hide in a terminal is '?'. */
static char safe(char c)
{
	unsigned char u = (unsigned char)c;

	return u < 0x20 || u == 0x7f || c == ';' ? '?' : c;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/*
 * The hidden-class suffix "/0x<hex>" at the end of @s[0..@n): its length,
 * else 0. Also "+0x<hex>": the VM's own Symbol spells the '/' as '+' (its
 * external name turns it back), and that is what its klass holds.
 */
static size_t hidden_suffix(const char *s, size_t n)
{
	size_t i = n;

	while (i > 0 && is_hex(s[i - 1]))
		i--;
	/* at least one hex digit after "/0x" */
	if (i < n && i >= 3 && s[i - 1] == 'x' && s[i - 2] == '0' && (s[i - 3] == '/' || s[i - 3] == '+'))
		return n - (i - 3);
	return 0;
}

void hotspot_java_name(const char *klass, size_t klen, const char *method, size_t mlen,
		       char *buf, size_t len)
{
	size_t o = 0;

	if (!len)
		return;
	/* hidden classes (lambdas) carry their address: one name for all of them */
	klen -= hidden_suffix(klass, klen);
	for (size_t i = 0; i < klen && o + 1 < len; i++)
		buf[o++] = klass[i] == '/' ? '.' : safe(klass[i]);
	if (klen && o + 1 < len)
		buf[o++] = '.';
	for (size_t i = 0; i < mlen && o + 1 < len; i++)
		buf[o++] = safe(method[i]);
	buf[o] = '\0';
}

void hotspot_blob_text(const char *name, char *buf, size_t len)
{
	size_t o = 0;

	if (!len)
		return;
	for (; *name && o + 1 < len; name++)
		buf[o++] = safe(*name);
	buf[o] = '\0';
}
