/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Open-addressing hash map from a two-word key to a 64-bit value, for the
 * symbolizer's (dev, inode) -> object and tgid -> process tables. Linear
 * probing with backward-shift deletion, so there are no tombstones.
 */
#ifndef HC_SYM_KEYMAP_H
#define HC_SYM_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct keymap_slot {
	uint64_t a;
	uint64_t b;
	uint64_t val;
	bool used;
};

struct keymap {
	struct keymap_slot *slots;
	size_t cap;		/* power of two, or 0 before the first put */
	size_t nr;
};

void keymap__init(struct keymap *m);
void keymap__release(struct keymap *m);	/* frees the slots; values are the caller's */

/* Insert or replace. 0 or -ENOMEM. */
int keymap__put(struct keymap *m, uint64_t a, uint64_t b, uint64_t val);

/* true and *@val (optional) if present. */
bool keymap__get(const struct keymap *m, uint64_t a, uint64_t b, uint64_t *val);

/* Remove; true and *@val (optional) if it was present. */
bool keymap__del(struct keymap *m, uint64_t a, uint64_t b, uint64_t *val);

/*
 * Iterate: start with *@iter = 0; returns false at the end. The map must not
 * change during the walk.
 */
bool keymap__next(const struct keymap *m, size_t *iter, uint64_t *val);

#endif /* HC_SYM_KEYMAP_H */
