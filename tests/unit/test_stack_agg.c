// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * stack/stack_agg.c: merging, no false merges, capacity, clear() and
 * for_each(). The module is included rather than linked so the tests can
 * degrade its hash and push every stack through one probe chain, which is
 * the only way to prove that equal hashes alone never merge two stacks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "stack/stack_agg.h"

struct stack_key;
static uint64_t test_hash(const struct stack_key *key, const uint64_t *words, size_t n);
#define STACK_AGG_HASH test_hash
#include "stack/stack_agg.c"

/* test_hash() = (real hash & hash_and) | hash_or */
static uint64_t hash_and = ~0ULL, hash_or;

static uint64_t test_hash(const struct stack_key *key, const uint64_t *words, size_t n)
{
	return (stack_hash(key, words, n) & hash_and) | hash_or;
}

static int reset_hash(void **state)
{
	(void)state;
	hash_and = ~0ULL;
	hash_or = 0;
	return 0;
}

static struct stack_key make_key(uint32_t kind, uint32_t tgid, uint32_t pid, uint16_t nr_kernel,
				 uint16_t nr_user, const char *comm)
{
	struct stack_key k;

	memset(&k, 0, sizeof(k));
	k.kind = kind;
	k.tgid = tgid;
	k.pid = pid;
	k.nr_kernel = nr_kernel;
	k.nr_user = nr_user;
	strncpy(k.comm, comm, sizeof(k.comm));
	strncpy(k.pcomm, comm, sizeof(k.pcomm));
	return k;
}

/* Look an entry up through the public API. */
struct find_arg {
	const struct stack_key *key;
	const uint64_t *words;
	const struct stack_entry *found;	/* points at a copy */
	struct stack_entry copy;
	size_t matches;
};

static int find_cb(const struct stack_entry *e, void *arg)
{
	struct find_arg *fa = arg;
	size_t n = (size_t)fa->key->nr_kernel + fa->key->nr_user;

	if (memcmp(&e->key, fa->key, sizeof(*fa->key)) || e->nr_words != n ||
	    (n && memcmp(e->words, fa->words, n * sizeof(uint64_t))))
		return 0;
	fa->copy = *e;
	fa->found = &fa->copy;
	fa->matches++;
	return 0;
}

static void assert_entry(const struct stack_agg *agg, const struct stack_key *key,
			 const uint64_t *words, uint64_t weight, uint64_t count)
{
	struct find_arg fa = { .key = key, .words = words };

	assert_int_equal(stack_agg__for_each(agg, find_cb, &fa), 0);
	assert_int_equal(fa.matches, 1);
	assert_true(fa.found->weight == weight);
	assert_true(fa.found->count == count);
	assert_int_equal(fa.found->nr_words, (size_t)key->nr_kernel + key->nr_user);
}

static void stack_agg_merges_identical_stacks_and_sums_weights(void **state)
{
	struct stack_agg *agg = stack_agg__new(16);
	struct stack_key k = make_key(1, 100, 101, 1, 2, "app");
	uint64_t w[] = { 0xffffffff81000000ULL, 0x401000, 0x401234 };

	(void)state;
	assert_non_null(agg);
	assert_int_equal(stack_agg__add(agg, &k, w, 1), 0);
	assert_int_equal(stack_agg__add(agg, &k, w, 2), 0);
	assert_int_equal(stack_agg__add(agg, &k, w, 39), 0);
	assert_int_equal(stack_agg__nr_entries(agg), 1);
	assert_true(stack_agg__total_weight(agg) == 42);
	assert_entry(agg, &k, w, 42, 3);
	assert_true(stack_agg__dropped(agg) == 0);
	stack_agg__free(agg);
}

static void stack_agg_copies_the_callers_words(void **state)
{
	struct stack_agg *agg = stack_agg__new(16);
	struct stack_key k = make_key(0, 1, 1, 0, 2, "a");
	uint64_t w[] = { 10, 20 }, orig[] = { 10, 20 };

	(void)state;
	assert_int_equal(stack_agg__add(agg, &k, w, 5), 0);
	w[1] = 99;
	assert_entry(agg, &k, orig, 5, 1);
	stack_agg__free(agg);
}

/* Every key field, including the kernel/user split of the same words. */
static void stack_agg_never_merges_same_words_under_different_keys(void **state)
{
	uint64_t w[] = { 1, 2 };
	struct stack_key keys[] = {
		make_key(0, 10, 11, 1, 1, "app"),
		make_key(1, 10, 11, 1, 1, "app"),	/* kind */
		make_key(0, 12, 11, 1, 1, "app"),	/* tgid */
		make_key(0, 10, 12, 1, 1, "app"),	/* pid */
		make_key(0, 10, 11, 0, 2, "app"),	/* all user */
		make_key(0, 10, 11, 2, 0, "app"),	/* all kernel */
		make_key(0, 10, 11, 1, 1, "app2"),	/* comm and pcomm */
		make_key(0, 10, 11, 1, 1, "app"),	/* pcomm only, below */
	};
	struct stack_agg *agg;
	size_t i, nr = sizeof(keys) / sizeof(keys[0]);

	(void)state;
	keys[nr - 1].pcomm[0] = 'b';
	agg = stack_agg__new(0);
	assert_non_null(agg);
	for (i = 0; i < nr; i++)
		assert_int_equal(stack_agg__add(agg, &keys[i], w, i + 1), 0);
	assert_int_equal(stack_agg__nr_entries(agg), nr);
	for (i = 0; i < nr; i++)
		assert_entry(agg, &keys[i], w, i + 1, 1);
	stack_agg__free(agg);
}

static void stack_agg_never_merges_same_key_with_different_words(void **state)
{
	struct stack_agg *agg = stack_agg__new(0);
	struct stack_key k = make_key(0, 1, 1, 1, 2, "app");
	const uint64_t w[][3] = { { 1, 2, 3 }, { 1, 2, 4 }, { 3, 2, 1 }, { 0, 2, 3 }, { 1, 0, 3 } };
	size_t i, nr = sizeof(w) / sizeof(w[0]);

	(void)state;
	for (i = 0; i < nr; i++)
		assert_int_equal(stack_agg__add(agg, &k, w[i], 10 * (i + 1)), 0);
	assert_int_equal(stack_agg__nr_entries(agg), nr);
	for (i = 0; i < nr; i++)
		assert_entry(agg, &k, w[i], 10 * (i + 1), 1);
	stack_agg__free(agg);
}

static void stack_agg_accepts_and_merges_empty_stacks(void **state)
{
	struct stack_agg *agg = stack_agg__new(4);
	struct stack_key k = make_key(0, 7, 7, 0, 0, "idle");
	struct find_arg fa = { .key = &k };

	(void)state;
	assert_int_equal(stack_agg__add(agg, &k, NULL, 3), 0);
	assert_int_equal(stack_agg__add(agg, &k, NULL, 4), 0);
	assert_int_equal(stack_agg__nr_entries(agg), 1);
	assert_int_equal(stack_agg__for_each(agg, find_cb, &fa), 0);
	assert_int_equal(fa.matches, 1);
	assert_true(fa.found->weight == 7 && fa.found->count == 2);
	assert_int_equal(fa.found->nr_words, 0);
	assert_non_null(fa.found->words);
	stack_agg__free(agg);
}

/*
 * Stack i: 1..40 words starting with i / 2; key kind = i % 2 and pid = i / 2 % 7.
 * So stacks 2j and 2j + 1 have the same words and differ only in the key, and
 * thousands of stacks share a key and differ only in their words.
 */
#define MANY 200000

static void many_stack(size_t i, struct stack_key *k, uint64_t *w)
{
	size_t depth = 1 + (i >> 1) % 40, j;

	*k = make_key(i & 1, 1000, (i >> 1) % 7, depth / 2, depth - depth / 2, "many");
	w[0] = i >> 1;
	for (j = 1; j < depth; j++)
		w[j] = 0x400000 + ((i >> 1) * 0x9e3779b9ULL) + j * 16;
}

static int many_check_cb(const struct stack_entry *e, void *arg)
{
	size_t *seen = arg;
	struct stack_key k;
	uint64_t w[40];
	size_t i = (e->words[0] << 1) | e->key.kind;

	many_stack(i, &k, w);
	assert_memory_equal(&e->key, &k, sizeof(k));
	assert_memory_equal(e->words, w, e->nr_words * sizeof(w[0]));
	/* stack i was added (i % 3 + 1) times with weight i + 1 each */
	assert_true(e->count == i % 3 + 1);
	assert_true(e->weight == (i % 3 + 1) * (i + 1));
	seen[i]++;
	return 0;
}

static void run_many(size_t nr)
{
	struct stack_agg *agg = stack_agg__new(nr);
	size_t *seen = calloc(nr, sizeof(*seen));
	uint64_t w[40], want_total = 0;
	struct stack_key k;
	size_t i, round;

	assert_non_null(agg);
	assert_non_null(seen);
	for (round = 0; round < 3; round++) {
		for (i = 0; i < nr; i++) {
			if (i % 3 < round)
				continue;
			many_stack(i, &k, w);
			assert_int_equal(stack_agg__add(agg, &k, w, i + 1), 0);
			want_total += i + 1;
		}
	}
	assert_int_equal(stack_agg__nr_entries(agg), nr);
	assert_true(stack_agg__total_weight(agg) == want_total);
	assert_int_equal(stack_agg__for_each(agg, many_check_cb, seen), 0);
	for (i = 0; i < nr; i++)
		assert_int_equal(seen[i], 1);
	free(seen);
	stack_agg__free(agg);
}

static void stack_agg_keeps_every_stack_exact_across_many_entries_and_growth(void **state)
{
	(void)state;
	run_many(MANY);
}

static void stack_agg_never_merges_on_equal_hashes_alone(void **state)
{
	(void)state;
	hash_and = 0;			/* one home slot, one tag: a single probe chain */
	hash_or = 0x123456789abcdefULL;
	run_many(3000);
}

static void stack_agg_never_merges_on_equal_tags_alone(void **state)
{
	(void)state;
	hash_and = 0xffffffffULL;	/* spread home slots, identical tags */
	run_many(20000);
}

/* The "[other stacks]" entry of @kind: its weight and count (0 if none). */
struct other_arg {
	uint32_t kind;
	uint64_t weight, count;
	size_t seen;
};

static int other_cb(const struct stack_entry *e, void *arg)
{
	struct other_arg *oa = arg;

	if (strncmp(e->key.comm, STACK_AGG_OTHER_NAME, sizeof(e->key.comm)) ||
	    e->key.kind != oa->kind)
		return 0;
	assert_int_equal(e->nr_words, 0);
	assert_int_equal(e->key.tgid, 0);
	oa->weight += e->weight;
	oa->count += e->count;
	oa->seen++;
	return 0;
}

static struct other_arg other_of(const struct stack_agg *agg, uint32_t kind)
{
	struct other_arg oa = { .kind = kind };

	assert_int_equal(stack_agg__for_each(agg, other_cb, &oa), 0);
	assert_true(oa.seen <= 1);
	return oa;
}

static void stack_agg_merges_lighter_new_stacks_into_other_stacks_when_full(void **state)
{
	struct stack_agg *agg = stack_agg__new(3);
	struct stack_key k = make_key(0, 1, 1, 0, 1, "x");
	struct other_arg oa;
	uint64_t w[1];
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		w[0] = i;
		assert_int_equal(stack_agg__add(agg, &k, w, 10), 0);
	}
	w[0] = 100;
	assert_int_equal(stack_agg__add(agg, &k, w, 7), -ENOSPC);
	w[0] = 101;
	assert_int_equal(stack_agg__add(agg, &k, w, 8), -ENOSPC);
	assert_int_equal(stack_agg__nr_entries(agg), 3);
	assert_true(stack_agg__dropped(agg) == 2);
	assert_true(stack_agg__dropped_weight(agg) == 15);
	assert_true(stack_agg__total_weight(agg) == 45);	/* nothing lost */
	oa = other_of(agg, 0);
	assert_true(oa.weight == 15 && oa.count == 2);
	assert_true(other_of(agg, 1).seen == 0);

	/* a full aggregator still merges stacks it already holds */
	w[0] = 1;
	assert_int_equal(stack_agg__add(agg, &k, w, 5), 0);
	assert_entry(agg, &k, w, 15, 2);
	assert_true(stack_agg__total_weight(agg) == 50);
	assert_true(stack_agg__dropped(agg) == 2);
	stack_agg__free(agg);
}

/* Index access: kept stacks in insertion order, then [other]; an eviction is counted. */
static void stack_agg_entry_indexes_kept_then_other_and_counts_evictions(void **state)
{
	struct stack_agg *agg = stack_agg__new(2);
	struct stack_key k = make_key(0, 1, 1, 0, 1, "x");
	struct stack_entry e;
	uint64_t w[1];

	(void)state;
	w[0] = 10;
	assert_int_equal(stack_agg__add(agg, &k, w, 5), 0);
	w[0] = 11;
	assert_int_equal(stack_agg__add(agg, &k, w, 7), 0);
	assert_int_equal(stack_agg__entry(agg, 0, &e), 0);
	assert_true(e.words[0] == 10 && e.weight == 5 && e.nr_words == 1);
	assert_int_equal(stack_agg__entry(agg, 1, &e), 0);
	assert_true(e.words[0] == 11 && e.weight == 7);
	assert_int_equal(stack_agg__entry(agg, 2, &e), -ENOENT);
	/* lighter than both: merged, nothing evicted */
	w[0] = 12;
	assert_int_equal(stack_agg__add(agg, &k, w, 1), -ENOSPC);
	assert_true(stack_agg__evicted(agg) == 0);
	assert_int_equal(stack_agg__nr_other(agg), 1);
	assert_int_equal(stack_agg__entry(agg, 2, &e), 0);
	assert_true(e.key.aux == STACK_AGG_OTHER_AUX && e.weight == 1);
	/* heavier than the lightest (index 0): its index now holds the new stack */
	w[0] = 13;
	assert_int_equal(stack_agg__add(agg, &k, w, 9), 0);
	assert_true(stack_agg__evicted(agg) == 1);
	assert_int_equal(stack_agg__entry(agg, 0, &e), 0);
	assert_true(e.words[0] == 13 && e.weight == 9);
	assert_int_equal(stack_agg__entry(agg, 2, &e), 0);
	assert_true(e.weight == 6);	/* 1 merged + 5 evicted */
	stack_agg__clear(agg);
	assert_true(stack_agg__evicted(agg) == 0);
	assert_int_equal(stack_agg__entry(agg, 0, &e), -ENOENT);
	stack_agg__free(agg);
}

static void stack_agg_with_one_entry_keeps_the_newest_of_equals_and_merges_the_rest(void **state)
{
	struct stack_agg *agg = stack_agg__new(1);
	struct stack_key a = make_key(0, 1, 1, 0, 0, "a"), b = make_key(0, 2, 2, 0, 0, "b");

	(void)state;
	assert_int_equal(stack_agg__add(agg, &a, NULL, 1), 0);
	/* as heavy: the older entry goes, so a recurring stack can get in */
	assert_int_equal(stack_agg__add(agg, &b, NULL, 1), 0);
	assert_entry(agg, &b, NULL, 1, 1);
	assert_int_equal(stack_agg__add(agg, &b, NULL, 1), 0);
	assert_int_equal(stack_agg__add(agg, &a, NULL, 1), -ENOSPC);	/* lighter than b's 2 */
	assert_int_equal(stack_agg__nr_entries(agg), 1);
	assert_entry(agg, &b, NULL, 2, 2);
	assert_true(other_of(agg, 0).weight == 2);
	assert_true(stack_agg__total_weight(agg) == 4);
	stack_agg__free(agg);
}

/* xorshift64*: the tests' streams are random but fixed */
static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545f4914f6cdd1dULL;
}

struct heavy_arg {
	uint64_t kept_weight;
	size_t heavy_kept, light_kept;
};

static int heavy_cb(const struct stack_entry *e, void *arg)
{
	struct heavy_arg *ha = arg;

	if (!strncmp(e->key.comm, STACK_AGG_OTHER_NAME, sizeof(e->key.comm)))
		return 0;
	ha->kept_weight += e->weight;
	if (e->words[0] >= 1000000)
		ha->heavy_kept++;
	else
		ha->light_kept++;
	return 0;
}

/*
 * --max-stacks 10 over 3000 light stacks (weight 1, seen once) and 10 heavy
 * ones (weight 1, seen 200 times each), the light ones first and then mixed
 * with the heavy ones at random: the 10 kept are the heavy ones (the old
 * first-come table kept 10 light ones), and kept + "[other stacks]" is the
 * exact total.
 */
static void stack_agg_with_max_10_keeps_the_10_heaviest_and_the_exact_total(void **state)
{
	struct stack_agg *agg = stack_agg__new(10);
	struct stack_key k = make_key(0, 5, 5, 0, 2, "mix");
	uint64_t w[2] = { 0, 0xabc }, total = 0;
	size_t heavy_left[10], nr_heavy = 2000, light = 0;
	struct heavy_arg ha = { 0 };
	struct other_arg oa;

	(void)state;
	for (size_t i = 0; i < 10; i++)
		heavy_left[i] = 200;
	for (; light < 1000; light++) {
		w[0] = light;
		stack_agg__add(agg, &k, w, 1);
		total++;
	}
	while (nr_heavy || light < 3000) {
		size_t h = rnd() % 10;

		if (nr_heavy && (light >= 3000 || rnd() % 2) && heavy_left[h]) {
			w[0] = 1000000 + h;
			heavy_left[h]--;
			nr_heavy--;
		} else if (light < 3000) {
			w[0] = light++;
		} else {
			continue;
		}
		assert_true(stack_agg__add(agg, &k, w, 1) != -ENOMEM);
		total++;
	}
	assert_int_equal(stack_agg__for_each(agg, heavy_cb, &ha), 0);
	oa = other_of(agg, 0);
	assert_int_equal(ha.heavy_kept, 10);
	assert_int_equal(ha.light_kept, 0);
	assert_true(stack_agg__total_weight(agg) == total);
	assert_true(ha.kept_weight + oa.weight == total);
	assert_true(oa.weight == stack_agg__dropped_weight(agg));
	/* each heavy stack lost at most its first few hits to evictions */
	assert_true(ha.kept_weight >= 10 * 190);
	stack_agg__free(agg);
}

/* Heavy stacks that arrive last, already summed (a drained BPF map), evict the light ones. */
static void stack_agg_keeps_late_heavy_stacks_with_their_exact_weight(void **state)
{
	struct stack_agg *agg = stack_agg__new(4);
	struct stack_key k = make_key(2, 5, 5, 0, 1, "late");
	uint64_t w[1];

	(void)state;
	for (w[0] = 0; w[0] < 100; w[0]++)
		stack_agg__add(agg, &k, w, w[0] % 3 + 1);
	for (w[0] = 1000; w[0] < 1004; w[0]++)
		assert_int_equal(stack_agg__add(agg, &k, w, 50 + w[0]), 0);
	for (w[0] = 1000; w[0] < 1004; w[0]++)
		assert_entry(agg, &k, w, 50 + w[0], 1);
	assert_int_equal(stack_agg__nr_entries(agg), 4);
	assert_true(other_of(agg, 2).weight == 199);	/* 33 * (1+2+3) + 1 */
	assert_true(stack_agg__total_weight(agg) == 199 + 4 * 1050 + 6);
	stack_agg__free(agg);
}

/*
 * Evictions take entries out of the open-addressing index: with every stack
 * in one probe chain (hash forced) or few, every kept stack is still found,
 * none twice, and the weights add up.
 */
static void evict_many(uint64_t and_mask)
{
	struct stack_agg *agg = stack_agg__new(50);
	struct stack_key k = make_key(1, 7, 7, 1, 1, "evict");
	uint64_t w[2], total = 0, kept[400] = { 0 };
	struct heavy_arg ha = { 0 };

	hash_and = and_mask;
	for (size_t round = 0; round < 20000; round++) {
		uint64_t id = rnd() % 400, weight = 1 + id % 5;

		w[0] = id;
		w[1] = id * 7;
		if (!stack_agg__add(agg, &k, w, weight))
			kept[id] += weight;
		total += weight;
	}
	assert_int_equal(stack_agg__nr_entries(agg), 50);
	for (uint64_t id = 0; id < 400; id++) {
		struct find_arg fa = { .key = &k, .words = w };

		w[0] = id;
		w[1] = id * 7;
		assert_int_equal(stack_agg__for_each(agg, find_cb, &fa), 0);
		assert_true(fa.matches <= 1);
		if (fa.matches)	/* its weight since it last got in */
			assert_true(fa.found->weight <= kept[id]);
	}
	assert_int_equal(stack_agg__for_each(agg, heavy_cb, &ha), 0);
	assert_int_equal(ha.light_kept, 50);
	assert_true(ha.kept_weight + other_of(agg, 1).weight == total);
	assert_true(stack_agg__total_weight(agg) == total);
	/* every kept stack is still found by add(): it merges, no new entry */
	for (uint64_t id = 0; id < 400; id++) {
		struct find_arg fa = { .key = &k, .words = w };

		w[0] = id;
		w[1] = id * 7;
		stack_agg__for_each(agg, find_cb, &fa);
		if (!fa.matches)
			continue;
		assert_int_equal(stack_agg__add(agg, &k, w, 0), 0);
		assert_int_equal(stack_agg__nr_entries(agg), 50);
	}
	stack_agg__free(agg);
}

static void stack_agg_evictions_keep_the_index_exact_even_in_one_probe_chain(void **state)
{
	(void)state;
	evict_many(~0ULL);
	evict_many(0x3);	/* four home slots: long chains that wrap around */
	evict_many(0);		/* one chain */
}

static int count_cb(const struct stack_entry *e, void *arg)
{
	(*(size_t *)arg)++;
	return 0;
}

static void stack_agg_clear_empties_resets_drops_and_keeps_memory(void **state)
{
	struct stack_agg *agg = stack_agg__new(5000);
	const struct agg_slot *slots_before;
	const struct arena_chunk *chunks_before;
	size_t mask_before, ents_cap_before, visited = 0, i;
	struct stack_key k = make_key(3, 9, 9, 2, 2, "clear");
	uint64_t w[4] = { 1, 2, 3, 0 };

	(void)state;
	for (i = 0; i < 6000; i++) {
		w[3] = i;
		stack_agg__add(agg, &k, w, 1);
	}
	assert_int_equal(stack_agg__nr_entries(agg), 5000);
	assert_true(stack_agg__dropped(agg) == 1000);	/* the 1000 oldest, evicted */
	slots_before = agg->slots;
	mask_before = agg->slot_mask;
	chunks_before = agg->chunks;
	ents_cap_before = agg->ents_cap;

	stack_agg__clear(agg);
	assert_int_equal(stack_agg__nr_entries(agg), 0);
	assert_true(stack_agg__total_weight(agg) == 0);
	assert_true(stack_agg__dropped(agg) == 0);
	assert_true(stack_agg__dropped_weight(agg) == 0);
	assert_int_equal(stack_agg__for_each(agg, count_cb, &visited), 0);
	assert_int_equal(visited, 0);

	/* refill with other stacks: same memory, no stale merges */
	for (i = 0; i < 5000; i++) {
		w[3] = i + 1000000;
		assert_int_equal(stack_agg__add(agg, &k, w, 2), 0);
	}
	assert_ptr_equal(agg->slots, slots_before);
	assert_int_equal(agg->slot_mask, mask_before);
	assert_ptr_equal(agg->chunks, chunks_before);
	assert_int_equal(agg->ents_cap, ents_cap_before);
	w[3] = 1000;
	/* the old stack is gone, and lighter than every new one */
	assert_int_equal(stack_agg__add(agg, &k, w, 1), -ENOSPC);
	w[3] = 1000000;
	assert_entry(agg, &k, w, 2, 1);
	assert_true(stack_agg__total_weight(agg) == 10001);
	stack_agg__free(agg);
}

/*
 * Deepest stacks the key allows. Round one leaves the arena as chunks of
 * 4096, 8192 and >= 131070 words; after clear() the deep stack comes first
 * and must skip the two small chunks rather than overrun them.
 */
static void stack_agg_stores_maximum_depth_stacks_across_clear(void **state)
{
	size_t n = 2 * 65535, i, round;
	uint64_t *w = malloc(n * sizeof(*w));
	struct stack_agg *agg = stack_agg__new(4096);
	struct stack_key small = make_key(0, 1, 1, 0, 3, "s");
	struct stack_key deep = make_key(0, 1, 2, 65535, 65535, "deep");

	(void)state;
	assert_non_null(w);
	for (i = 0; i < n; i++)
		w[i] = i * 7;
	for (round = 0; round < 2; round++) {
		if (round == 1)
			assert_int_equal(stack_agg__add(agg, &deep, w, 1), 0);
		for (i = 0; i < 2000; i++) {
			small.pid = i;
			assert_int_equal(stack_agg__add(agg, &small, w, 1), 0);
		}
		if (round == 0) {
			assert_int_equal(stack_agg__add(agg, &deep, w, 1), 0);
			assert_true(agg->chunks->cap < n && agg->chunks->next->cap < n);
		}
		w[0]++;
		assert_int_equal(stack_agg__add(agg, &deep, w, 1), 0);
		assert_entry(agg, &deep, w, 1, 1);
		w[0]--;
		assert_entry(agg, &deep, w, 1, 1);
		for (i = 0; i < 2000; i++) {
			small.pid = i;
			assert_entry(agg, &small, w, 1, 1);
		}
		stack_agg__clear(agg);
	}
	stack_agg__free(agg);
	free(w);
}

static void stack_agg_saturates_weights_instead_of_wrapping(void **state)
{
	struct stack_agg *agg = stack_agg__new(2);
	struct stack_key k = make_key(0, 1, 1, 0, 0, "sat");
	struct stack_key k2 = make_key(0, 2, 2, 0, 0, "sat");

	(void)state;
	assert_int_equal(stack_agg__add(agg, &k, NULL, UINT64_MAX - 1), 0);
	assert_int_equal(stack_agg__add(agg, &k, NULL, 5), 0);
	assert_entry(agg, &k, NULL, UINT64_MAX, 2);
	assert_true(stack_agg__total_weight(agg) == UINT64_MAX);
	assert_int_equal(stack_agg__add(agg, &k2, NULL, 1), 0);
	assert_true(stack_agg__total_weight(agg) == UINT64_MAX);
	stack_agg__free(agg);
}

static int stop_cb(const struct stack_entry *e, void *arg)
{
	size_t *visited = arg;

	return ++*visited == 2 ? -EINTR : 0;
}

static void stack_agg_for_each_stops_and_returns_the_callbacks_value(void **state)
{
	struct stack_agg *agg = stack_agg__new(0);
	struct stack_key k = make_key(0, 1, 1, 0, 1, "fe");
	size_t visited = 0;
	uint64_t w;

	(void)state;
	for (w = 0; w < 5; w++)
		assert_int_equal(stack_agg__add(agg, &k, &w, 1), 0);
	assert_int_equal(stack_agg__for_each(agg, stop_cb, &visited), -EINTR);
	assert_int_equal(visited, 2);
	stack_agg__free(agg);
}

static void stack_agg_new_rejects_absurd_sizes_and_free_accepts_null(void **state)
{
	(void)state;
	errno = 0;
	assert_null(stack_agg__new(SIZE_MAX));
	assert_int_equal(errno, EINVAL);
	stack_agg__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stack_agg_merges_identical_stacks_and_sums_weights),
		cmocka_unit_test(stack_agg_copies_the_callers_words),
		cmocka_unit_test(stack_agg_never_merges_same_words_under_different_keys),
		cmocka_unit_test(stack_agg_never_merges_same_key_with_different_words),
		cmocka_unit_test(stack_agg_accepts_and_merges_empty_stacks),
		cmocka_unit_test(stack_agg_keeps_every_stack_exact_across_many_entries_and_growth),
		cmocka_unit_test_teardown(stack_agg_never_merges_on_equal_hashes_alone, reset_hash),
		cmocka_unit_test_teardown(stack_agg_never_merges_on_equal_tags_alone, reset_hash),
		cmocka_unit_test(stack_agg_merges_lighter_new_stacks_into_other_stacks_when_full),
		cmocka_unit_test(stack_agg_with_one_entry_keeps_the_newest_of_equals_and_merges_the_rest),
		cmocka_unit_test(stack_agg_with_max_10_keeps_the_10_heaviest_and_the_exact_total),
		cmocka_unit_test(stack_agg_keeps_late_heavy_stacks_with_their_exact_weight),
		cmocka_unit_test_teardown(stack_agg_evictions_keep_the_index_exact_even_in_one_probe_chain,
					  reset_hash),
		cmocka_unit_test(stack_agg_clear_empties_resets_drops_and_keeps_memory),
		cmocka_unit_test(stack_agg_stores_maximum_depth_stacks_across_clear),
		cmocka_unit_test(stack_agg_saturates_weights_instead_of_wrapping),
		cmocka_unit_test(stack_agg_entry_indexes_kept_then_other_and_counts_evictions),
		cmocka_unit_test(stack_agg_for_each_stops_and_returns_the_callbacks_value),
		cmocka_unit_test(stack_agg_new_rejects_absurd_sizes_and_free_accepts_null),
	};

	return cmocka_run_group_tests_name("stack_agg", tests, NULL, NULL);
}
