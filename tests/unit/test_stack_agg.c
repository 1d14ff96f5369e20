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

static void stack_agg_refuses_new_stacks_when_full_and_counts_drops(void **state)
{
	struct stack_agg *agg = stack_agg__new(3);
	struct stack_key k = make_key(0, 1, 1, 0, 1, "x");
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
	assert_true(stack_agg__total_weight(agg) == 30);

	/* a full aggregator still merges stacks it already holds */
	w[0] = 1;
	assert_int_equal(stack_agg__add(agg, &k, w, 5), 0);
	assert_entry(agg, &k, w, 15, 2);
	assert_true(stack_agg__total_weight(agg) == 35);
	assert_true(stack_agg__dropped(agg) == 2);
	stack_agg__free(agg);
}

static void stack_agg_with_one_entry_holds_exactly_one_stack(void **state)
{
	struct stack_agg *agg = stack_agg__new(1);
	struct stack_key a = make_key(0, 1, 1, 0, 0, "a"), b = make_key(0, 2, 2, 0, 0, "b");

	(void)state;
	assert_int_equal(stack_agg__add(agg, &a, NULL, 1), 0);
	assert_int_equal(stack_agg__add(agg, &b, NULL, 1), -ENOSPC);
	assert_int_equal(stack_agg__add(agg, &a, NULL, 1), 0);
	assert_int_equal(stack_agg__nr_entries(agg), 1);
	stack_agg__free(agg);
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
	assert_true(stack_agg__dropped(agg) == 1000);
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
	w[3] = 0;
	assert_int_equal(stack_agg__add(agg, &k, w, 2), -ENOSPC);	/* old stack is gone */
	w[3] = 1000000;
	assert_entry(agg, &k, w, 2, 1);
	assert_true(stack_agg__total_weight(agg) == 10000);
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
		cmocka_unit_test(stack_agg_refuses_new_stacks_when_full_and_counts_drops),
		cmocka_unit_test(stack_agg_with_one_entry_holds_exactly_one_stack),
		cmocka_unit_test(stack_agg_clear_empties_resets_drops_and_keeps_memory),
		cmocka_unit_test(stack_agg_stores_maximum_depth_stacks_across_clear),
		cmocka_unit_test(stack_agg_saturates_weights_instead_of_wrapping),
		cmocka_unit_test(stack_agg_for_each_stops_and_returns_the_callbacks_value),
		cmocka_unit_test(stack_agg_new_rejects_absurd_sizes_and_free_accepts_null),
	};

	return cmocka_run_group_tests_name("stack_agg", tests, NULL, NULL);
}
