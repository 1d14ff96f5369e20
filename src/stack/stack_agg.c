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
 * Memory per distinct stack: 80 bytes of entry (+ <2x slack in the doubling
 * array), 8 * nr_words of arena, and 8 bytes per slot at a load of at most
 * 3/4 (about 11-21 bytes per entry).
 *
 * Full: the heaviest stacks stay, the rest is merged. When the table first
 * fills, a min-heap of the entries by (weight, insertion order) is built
 * (16 more bytes per entry); from then on a new stack whose weight is at
 * least the lightest entry's evicts that entry, oldest first among equals
 * (so a recurring stack gets in and can grow before newer ones push it
 * out), and a lighter one is merged at once. Evicted and merged weight goes
 * to one "[other stacks]" entry per kind, so totals stay exact and the
 * truncation shows in the output. A weight only grows, so keeping the heap
 * is one sift-down per add to an existing entry, O(1) for the heavy entries
 * at its leaves. Not the exact top N of the whole stream (that needs every
 * stack in memory), but a stack heavier than the ones kept is only lost
 * while it is evicted before it recurs.
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
	uint64_t *words;
	bool owned;		/* words malloc'd by an eviction, not in the arena */
};

/* Weight merged from stacks not kept, per kind (the "[other stacks]" entries). */
struct agg_other {
	uint32_t kind;
	uint64_t weight;
	uint64_t count;
};

#define STACK_AGG_OTHER_KINDS	8	/* kinds beyond are merged into the first */

/* The words of an empty stack: never NULL, so memcpy(dst, words, 0) is fine; never written */
static const uint64_t agg_no_words[1];

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
	uint64_t evicted;	/* entries whose index now holds another stack */
	/* built when the table first fills (see the top) */
	uint32_t *heap;		/* entry indices, lightest (then oldest) first */
	uint32_t *hpos;		/* entry index -> position in heap */
	uint64_t *seq;		/* entry index -> insertion number */
	uint64_t next_seq;
	bool heap_built;
	struct agg_other other[STACK_AGG_OTHER_KINDS];
	size_t nr_other;
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

static void free_owned(struct stack_agg *agg)
{
	for (size_t i = 0; i < agg->nr_ents; i++)
		if (agg->ents[i].owned)
			free(agg->ents[i].words);
}

void stack_agg__free(struct stack_agg *agg)
{
	struct arena_chunk *c, *next;

	if (!agg)
		return;
	free_owned(agg);
	free(agg->heap);
	free(agg->hpos);
	free(agg->seq);
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

/* Lighter, or as heavy and older: evicted first. */
static inline bool heap_less(const struct stack_agg *agg, uint32_t a, uint32_t b)
{
	uint64_t wa = agg->ents[a].weight, wb = agg->ents[b].weight;

	return wa < wb || (wa == wb && agg->seq[a] < agg->seq[b]);
}

static inline void heap_set(struct stack_agg *agg, size_t pos, uint32_t idx)
{
	agg->heap[pos] = idx;
	agg->hpos[idx] = pos;
}

/* Restore the heap below @pos after its entry got heavier (weights only grow). */
static void heap_down(struct stack_agg *agg, size_t pos)
{
	size_t n = agg->nr_ents, c;
	uint32_t idx = agg->heap[pos];

	while ((c = 2 * pos + 1) < n) {
		if (c + 1 < n && heap_less(agg, agg->heap[c + 1], agg->heap[c]))
			c++;
		if (!heap_less(agg, agg->heap[c], idx))
			break;
		heap_set(agg, pos, agg->heap[c]);
		pos = c;
	}
	heap_set(agg, pos, idx);
}

/* The entries are in insertion order, so their index is their insertion number. */
static int heap_build(struct stack_agg *agg)
{
	size_t n = agg->max_entries;

	if (!agg->heap) {
		agg->heap = malloc(n * sizeof(*agg->heap));
		agg->hpos = malloc(n * sizeof(*agg->hpos));
		agg->seq = malloc(n * sizeof(*agg->seq));
		if (!agg->heap || !agg->hpos || !agg->seq) {
			free(agg->heap);
			free(agg->hpos);
			free(agg->seq);
			agg->heap = agg->hpos = NULL;
			agg->seq = NULL;
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < agg->nr_ents; i++) {
		agg->seq[i] = i;
		heap_set(agg, i, i);
	}
	agg->next_seq = agg->nr_ents;
	for (size_t i = agg->nr_ents / 2; i-- > 0;)
		heap_down(agg, i);
	agg->heap_built = true;
	return 0;
}

static void other_add(struct stack_agg *agg, uint32_t kind, uint64_t weight, uint64_t count)
{
	struct agg_other *o = NULL;

	for (size_t i = 0; i < agg->nr_other && !o; i++)
		if (agg->other[i].kind == kind)
			o = &agg->other[i];
	if (!o && agg->nr_other < STACK_AGG_OTHER_KINDS) {
		o = &agg->other[agg->nr_other++];
		*o = (struct agg_other){ .kind = kind };
	}
	if (!o)
		o = &agg->other[0];
	o->weight = sat_add(o->weight, weight);
	o->count += count;
	agg->dropped++;
	agg->dropped_weight = sat_add(agg->dropped_weight, weight);
}

/* An "[other stacks]" bucket as an entry: no words, the name as comm. */
static void other_entry(const struct agg_other *o, struct stack_entry *e)
{
	static const char name[STACK_AGG_COMM_LEN] = STACK_AGG_OTHER_NAME;

	memset(&e->key, 0, sizeof(e->key));
	e->key.kind = o->kind;
	e->key.aux = STACK_AGG_OTHER_AUX;
	memcpy(e->key.comm, name, sizeof(name));
	memcpy(e->key.pcomm, name, sizeof(name));
	e->weight = o->weight;
	e->count = o->count;
	e->nr_words = 0;
	e->words = agg_no_words;
}

/*
 * Take entry @idx out of the index: backward-shift deletion, so that every
 * other entry stays reachable from its home slot without tombstones.
 */
static void slot_remove(struct stack_agg *agg, uint32_t idx)
{
	const struct agg_entry *e = &agg->ents[idx];
	size_t mask = agg->slot_mask, i, j, home;
	uint64_t h = STACK_AGG_HASH(&e->key, e->words, e->key.nr_kernel + e->key.nr_user);

	for (i = h & mask; agg->slots[i].idx != idx + 1; i = (i + 1) & mask)
		;
	for (j = i;;) {
		j = (j + 1) & mask;
		if (!agg->slots[j].idx)
			break;
		e = &agg->ents[agg->slots[j].idx - 1];
		home = STACK_AGG_HASH(&e->key, e->words, e->key.nr_kernel + e->key.nr_user) & mask;
		/* the entry at j may move to i unless its home lies cyclically in (i, j] */
		if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		agg->slots[i] = agg->slots[j];
		i = j;
	}
	agg->slots[i].idx = 0;
}

/* Storage for @n words in place of @e's: its own when they fit, else fresh (*@fresh). */
static int entry_words_for(const struct agg_entry *e, size_t n, uint64_t **fresh)
{
	*fresh = NULL;
	if (!n || n <= (size_t)e->key.nr_kernel + e->key.nr_user)
		return 0;
	*fresh = malloc(n * sizeof(**fresh));
	return *fresh ? 0 : -ENOMEM;
}

static void entry_set_words(struct agg_entry *e, size_t n, uint64_t *fresh)
{
	if (!fresh && n)
		return;		/* reused in place */
	if (e->owned)
		free(e->words);
	e->words = fresh ? fresh : (uint64_t *)agg_no_words;
	e->owned = fresh != NULL;
}

/* The table is full: evict the lightest entry for this stack, or merge it (see the top). */
static int insert_full(struct stack_agg *agg, const struct stack_key *key, const uint64_t *words,
		       size_t n, uint64_t h, uint64_t weight)
{
	struct agg_entry *e;
	uint64_t *fresh;
	uint32_t victim;

	if (!agg->heap_built && heap_build(agg))
		return -ENOMEM;
	victim = agg->heap[0];
	e = &agg->ents[victim];
	agg->total_weight = sat_add(agg->total_weight, weight);
	if (weight < e->weight || entry_words_for(e, n, &fresh)) {
		/* lighter than everything kept (or no memory for it): merged */
		other_add(agg, key->kind, weight, 1);
		return -ENOSPC;
	}
	slot_remove(agg, victim);	/* hashes the old words: before they change */
	other_add(agg, e->key.kind, e->weight, e->count);
	agg->evicted++;
	entry_set_words(e, n, fresh);
	if (n)
		memcpy(e->words, words, n * sizeof(*words));
	e->key = *key;
	e->weight = weight;
	e->count = 1;
	agg->seq[victim] = agg->next_seq++;
	slot_place(agg, h, victim);
	heap_down(agg, 0);
	return 0;
}

static int insert_new(struct stack_agg *agg, const struct stack_key *key, const uint64_t *words,
		      size_t n, uint64_t h, size_t pos, uint64_t weight)
{
	struct agg_entry *e;
	uint64_t *copy = NULL;

	if (agg->nr_ents >= agg->max_entries)
		return insert_full(agg, key, words, n, h, weight);
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
	/* never NULL, so memcpy(dst, e->words, 0) is fine; never written through */
	e->words = n ? copy : (uint64_t *)agg_no_words;
	e->owned = false;
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
		if (agg->heap_built)
			heap_down(agg, agg->hpos[s->idx - 1]);
		return 0;
	}
	return insert_new(agg, key, words, n, h, pos, weight);
}

int stack_agg__entry(const struct stack_agg *agg, size_t i, struct stack_entry *e)
{
	const struct agg_entry *ae;

	if (i >= agg->nr_ents + agg->nr_other)
		return -ENOENT;
	if (i >= agg->nr_ents) {
		other_entry(&agg->other[i - agg->nr_ents], e);
		return 0;
	}
	ae = &agg->ents[i];
	e->key = ae->key;
	e->weight = ae->weight;
	e->count = ae->count;
	e->nr_words = (size_t)ae->key.nr_kernel + ae->key.nr_user;
	e->words = ae->words;
	return 0;
}

int stack_agg__for_each(const struct stack_agg *agg,
			int (*fn)(const struct stack_entry *e, void *arg), void *arg)
{
	struct stack_entry e;
	int ret;

	for (size_t i = 0; !stack_agg__entry(agg, i, &e); i++) {
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

size_t stack_agg__nr_other(const struct stack_agg *agg)
{
	return agg->nr_other;
}

uint64_t stack_agg__evicted(const struct stack_agg *agg)
{
	return agg->evicted;
}

void stack_agg__clear(struct stack_agg *agg)
{
	free_owned(agg);
	agg->heap_built = false;	/* the arrays are kept for the next fill */
	agg->nr_other = 0;
	memset(agg->slots, 0, (agg->slot_mask + 1) * sizeof(*agg->slots));
	agg->nr_ents = 0;
	agg->cur = agg->chunks;
	if (agg->cur)
		agg->cur->used = 0;
	agg->total_weight = 0;
	agg->dropped = 0;
	agg->dropped_weight = 0;
	agg->evicted = 0;
}
