// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Bounded (key, words[]) -> weight aggregation on the drain hot path.
 *
 * Layout: a dense array of entries in insertion order, an open-addressing
 * index of 8-byte slots {entry index + 1, upper 32 hash bits} with linear
 * probing, and the stack words in a chunked arena. The tag in the slot lets a
 * probe skip a non-matching entry without touching its cache line; a hit costs
 * one hash, one tag compare and one memcmp of key and words, and never
 * allocates.
 *
 * Why an arena and not one malloc per stack: no per-allocation header or size
 * rounding, no malloc on the insert path except once per chunk, and clear()
 * reuses the chunks. Chunks never move, so entries point straight at their
 * words (a growing realloc'd array would need offsets and could double its
 * footprint while copying).
 *
 * Memory per distinct stack: 72 bytes of entry (+ <2x slack in the doubling
 * array), 8 * nr_words of arena, and 8 bytes per slot at a load of at most
 * 3/4 (about 11-21 bytes per entry).
 */
#include "stack/stack_agg.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The key is hashed and compared as raw bytes: it must have no padding. */
_Static_assert(sizeof(struct stack_key) == 56, "stack_key has padding or changed size");

#define STACK_AGG_DEFAULT_MAX	(1UL << 20)
/* slot index is uint32_t with 0 meaning empty; stay well clear of that */
#define STACK_AGG_LIMIT		(1UL << 30)
#define STACK_AGG_MIN_SLOTS	64
#define ARENA_MIN_WORDS		4096	/* 32 KiB: small aggregators stay small */
#define ARENA_MAX_WORDS		(1UL << 17)	/* 1 MiB, above 2 * 65535 words */

struct agg_entry {
	struct stack_key key;
	uint64_t weight;
	uint64_t count;
	const uint64_t *words;
};

struct agg_slot {
	uint32_t idx;		/* entry index + 1; 0 = empty */
	uint32_t tag;		/* hash >> 32; the low bits pick the home slot */
};

struct arena_chunk {
	struct arena_chunk *next;
	size_t cap;		/* in words */
	size_t used;
	uint64_t words[];
};

struct stack_agg {
	size_t max_entries;
	struct agg_entry *ents;
	size_t nr_ents;
	size_t ents_cap;
	struct agg_slot *slots;
	size_t slot_mask;	/* nr slots - 1; nr slots is a power of two */
	struct arena_chunk *chunks;	/* list head, kept across clear() */
	struct arena_chunk *cur;	/* chunk being filled */
	uint64_t total_weight;
	uint64_t dropped;
	uint64_t dropped_weight;
};

/*
 * wyhash-style mixing: a 64x64->128 multiply folded to 64 bits spreads every
 * input bit over the result, two words per multiply. Not DoS-resistant (the
 * input is our own kernel's stack ids and addresses), just fast and well mixed.
 */
#define HASH_P0 0xa0761d6478bd642fULL
#define HASH_P1 0xe7037ed1a0b428dbULL
#define HASH_P2 0x8ebc6af09c88c6e3ULL
#define HASH_P3 0x589965cc75374cc3ULL

static inline uint64_t mum(uint64_t a, uint64_t b)
{
	unsigned __int128 r = (unsigned __int128)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static inline uint64_t hash_words(uint64_t h, const uint64_t *w, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		h = mum(w[i] ^ HASH_P1, w[i + 1] ^ h);
	if (i < n)
		h = mum(w[i] ^ HASH_P2, h ^ HASH_P3);
	return h;
}

static inline uint64_t stack_hash(const struct stack_key *key, const uint64_t *words, size_t n)
{
	uint64_t k[sizeof(*key) / 8];
	uint64_t h;

	memcpy(k, key, sizeof(k));	/* the key may not be 8-byte aligned */
	h = hash_words(HASH_P0 ^ n, k, sizeof(k) / 8);
	h = hash_words(h, words, n);
	return mum(h ^ HASH_P0, n ^ HASH_P1);
}

/* Tests that include this file define it to force every stack to collide. */
#ifndef STACK_AGG_HASH
#define STACK_AGG_HASH stack_hash
#endif

static size_t slots_for(size_t nr_entries)
{
	size_t n = STACK_AGG_MIN_SLOTS;

	while (n / 4 * 3 < nr_entries)
		n <<= 1;
	return n;
}

static int slots_alloc(struct stack_agg *agg, size_t nr)
{
	struct agg_slot *slots = calloc(nr, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	free(agg->slots);
	agg->slots = slots;
	agg->slot_mask = nr - 1;
	return 0;
}

struct stack_agg *stack_agg__new(size_t max_entries)
{
	struct stack_agg *agg;

	if (max_entries == 0)
		max_entries = STACK_AGG_DEFAULT_MAX;
	if (max_entries > STACK_AGG_LIMIT) {
		errno = EINVAL;
		return NULL;
	}
	agg = calloc(1, sizeof(*agg));
	if (!agg) {
		errno = ENOMEM;
		return NULL;
	}
	agg->max_entries = max_entries;
	if (slots_alloc(agg, STACK_AGG_MIN_SLOTS)) {
		free(agg);
		errno = ENOMEM;
		return NULL;
	}
	return agg;
}

void stack_agg__free(struct stack_agg *agg)
{
	struct arena_chunk *c, *next;

	if (!agg)
		return;
	for (c = agg->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	free(agg->slots);
	free(agg->ents);
	free(agg);
}

static void slot_place(struct stack_agg *agg, uint64_t h, uint32_t idx)
{
	size_t pos = h & agg->slot_mask;

	while (agg->slots[pos].idx)
		pos = (pos + 1) & agg->slot_mask;
	agg->slots[pos].idx = idx + 1;
	agg->slots[pos].tag = (uint32_t)(h >> 32);
}

/*
 * Double the index and re-insert every entry. Hashes are recomputed instead
 * of stored: growth happens log2(max_entries / 48) times at most, so this
 * costs about two hashes per entry in total and saves 8 bytes per entry.
 */
static int slots_grow(struct stack_agg *agg)
{
	const struct agg_entry *e;
	size_t i;
	int err;

	err = slots_alloc(agg, (agg->slot_mask + 1) * 2);
	if (err)
		return err;
	for (i = 0; i < agg->nr_ents; i++) {
		e = &agg->ents[i];
		slot_place(agg, STACK_AGG_HASH(&e->key, e->words,
					       e->key.nr_kernel + e->key.nr_user), i);
	}
	return 0;
}

static int ents_grow(struct stack_agg *agg)
{
	size_t cap = agg->ents_cap ? agg->ents_cap * 2 : 64;
	struct agg_entry *ents;

	if (cap > agg->max_entries)
		cap = agg->max_entries;
	ents = realloc(agg->ents, cap * sizeof(*ents));
	if (!ents)
		return -ENOMEM;
	agg->ents = ents;
	agg->ents_cap = cap;
	return 0;
}

/* Room for @n words; reuses chunks kept by clear() before allocating. */
static uint64_t *arena_alloc(struct stack_agg *agg, size_t n)
{
	struct arena_chunk *c = agg->cur, *fresh;
	size_t cap;

	if (c && c->cap - c->used >= n)
		goto out;
	/* chunks after cur were emptied by clear(); skip any too small for n */
	while (c && c->next) {
		c = c->next;
		c->used = 0;
		if (c->cap >= n)
			goto out;
	}
	cap = c ? c->cap * 2 : ARENA_MIN_WORDS;
	if (cap > ARENA_MAX_WORDS)
		cap = ARENA_MAX_WORDS;
	if (cap < n)
		cap = n;
	fresh = malloc(sizeof(*fresh) + cap * sizeof(fresh->words[0]));
	if (!fresh)
		return NULL;
	fresh->next = NULL;
	fresh->cap = cap;
	fresh->used = 0;
	if (c)
		c->next = fresh;
	else
		agg->chunks = fresh;
	c = fresh;
out:
	agg->cur = c;
	c->used += n;
	return c->words + c->used - n;
}

static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static int insert_new(struct stack_agg *agg, const struct stack_key *key, const uint64_t *words,
		      size_t n, uint64_t h, size_t pos, uint64_t weight)
{
	static const uint64_t no_words[1];
	struct agg_entry *e;
	uint64_t *copy = NULL;

	if (agg->nr_ents >= agg->max_entries) {
		agg->dropped++;
		agg->dropped_weight = sat_add(agg->dropped_weight, weight);
		return -ENOSPC;
	}
	if (agg->nr_ents == agg->ents_cap && ents_grow(agg))
		return -ENOMEM;
	if (slots_for(agg->nr_ents + 1) > agg->slot_mask + 1) {
		if (slots_grow(agg))
			return -ENOMEM;
		pos = SIZE_MAX;		/* the probe position is stale */
	}
	if (n) {
		copy = arena_alloc(agg, n);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, words, n * sizeof(*words));
	}

	e = &agg->ents[agg->nr_ents];
	e->key = *key;
	e->weight = weight;
	e->count = 1;
	e->words = n ? copy : no_words;	/* never NULL, so memcpy(dst, e->words, 0) is fine */
	if (pos == SIZE_MAX) {
		slot_place(agg, h, agg->nr_ents);
	} else {
		agg->slots[pos].idx = agg->nr_ents + 1;
		agg->slots[pos].tag = (uint32_t)(h >> 32);
	}
	agg->nr_ents++;
	agg->total_weight = sat_add(agg->total_weight, weight);
	return 0;
}

int stack_agg__add(struct stack_agg *agg, const struct stack_key *key, const uint64_t *words,
		   uint64_t weight)
{
	size_t n = (size_t)key->nr_kernel + key->nr_user;
	uint64_t h = STACK_AGG_HASH(key, words, n);
	uint32_t tag = (uint32_t)(h >> 32);
	size_t pos = h & agg->slot_mask;
	const struct agg_slot *s;
	struct agg_entry *e;

	for (;; pos = (pos + 1) & agg->slot_mask) {
		s = &agg->slots[pos];
		if (!s->idx)
			break;
		if (s->tag != tag)
			continue;
		e = &agg->ents[s->idx - 1];
		/* equal keys imply equal nr_words, so the words compare is in bounds */
		if (memcmp(&e->key, key, sizeof(*key)) ||
		    (n && memcmp(e->words, words, n * sizeof(*words))))
			continue;
		e->weight = sat_add(e->weight, weight);
		e->count++;
		agg->total_weight = sat_add(agg->total_weight, weight);
		return 0;
	}
	return insert_new(agg, key, words, n, h, pos, weight);
}

int stack_agg__for_each(const struct stack_agg *agg,
			int (*fn)(const struct stack_entry *e, void *arg), void *arg)
{
	const struct agg_entry *ae;
	struct stack_entry e;
	size_t i;
	int ret;

	for (i = 0; i < agg->nr_ents; i++) {
		ae = &agg->ents[i];
		e.key = ae->key;
		e.weight = ae->weight;
		e.count = ae->count;
		e.nr_words = (size_t)ae->key.nr_kernel + ae->key.nr_user;
		e.words = ae->words;
		ret = fn(&e, arg);
		if (ret)
			return ret;
	}
	return 0;
}

size_t stack_agg__nr_entries(const struct stack_agg *agg)
{
	return agg->nr_ents;
}

uint64_t stack_agg__total_weight(const struct stack_agg *agg)
{
	return agg->total_weight;
}

uint64_t stack_agg__dropped(const struct stack_agg *agg)
{
	return agg->dropped;
}

uint64_t stack_agg__dropped_weight(const struct stack_agg *agg)
{
	return agg->dropped_weight;
}

void stack_agg__clear(struct stack_agg *agg)
{
	memset(agg->slots, 0, (agg->slot_mask + 1) * sizeof(*agg->slots));
	agg->nr_ents = 0;
	agg->cur = agg->chunks;
	if (agg->cur)
		agg->cur->used = 0;
	agg->total_weight = 0;
	agg->dropped = 0;
	agg->dropped_weight = 0;
}
