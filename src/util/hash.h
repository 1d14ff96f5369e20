/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Small hashes shared by the loader's tables. */
#ifndef HC_UTIL_HASH_H
#define HC_UTIL_HASH_H

#include <stdint.h>

/* FNV-1a of a NUL-terminated string. */
static inline uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* splitmix64's finalizer: every input bit moves the low bits an open-addressed table uses. */
static inline uint64_t hash_u64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

#endif /* HC_UTIL_HASH_H */
