// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* agent/http_cache.c: hits only for the same view and history, TTL, LRU, size bound. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/http_cache.h"

static bool get(struct http_cache *c, const char *key, const char *gen, int64_t now,
		const char *want)
{
	char *body = NULL, type[48], note[96];
	size_t len = 0;
	bool hit = http_cache_get(c, key, gen, now, &body, &len, type, sizeof(type), note,
				  sizeof(note));

	if (hit && want) {
		assert_int_equal(len, strlen(want));
		assert_memory_equal(body, want, len);
		assert_string_equal(type, "image/svg+xml");
		assert_string_equal(note, "3 of 3 intervals");
	}
	free(body);
	return hit;
}

static void put(struct http_cache *c, const char *key, const char *gen, int64_t now,
		const char *body)
{
	http_cache_put(c, key, gen, now, body, strlen(body), "image/svg+xml", "3 of 3 intervals");
}

static void a_view_hits_only_for_the_same_key_and_history(void **state)
{
	struct http_cache c;

	(void)state;
	assert_int_equal(http_cache_init(&c), 0);
	assert_false(get(&c, "flame oncpu 10", "3 a c", 1000, NULL));
	put(&c, "flame oncpu 10", "3 a c", 1000, "<svg/>");
	assert_true(get(&c, "flame oncpu 10", "3 a c", 1001, "<svg/>"));
	assert_false(get(&c, "flame oncpu 11", "3 a c", 1001, NULL));
	assert_false(get(&c, "flame oncpu 10", "4 a d", 1001, NULL));	/* a new interval */
	assert_false(get(&c, "flame oncpu 10", "3 a c", 1000 + HTTP_CACHE_TTL_MS, NULL));
	assert_false(get(&c, "flame oncpu 10", "3 a c", 999, NULL));	/* clock went back */
	/* a newer answer for the same view replaces the old one */
	put(&c, "flame oncpu 10", "4 a d", 2000, "<svg>new</svg>");
	assert_true(get(&c, "flame oncpu 10", "4 a d", 2001, "<svg>new</svg>"));
	assert_false(get(&c, "flame oncpu 10", "3 a c", 2001, NULL));
	assert_true(c.hits == 2);
	http_cache_release(&c);
}

static void the_least_recently_used_goes_first(void **state)
{
	struct http_cache c;
	char key[32];

	(void)state;
	assert_int_equal(http_cache_init(&c), 0);
	for (int i = 0; i < HTTP_CACHE_ENTRIES; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		put(&c, key, "g", 0, "body");
	}
	assert_true(get(&c, "k0", "g", 1, "body"));	/* k1 is now the least recent */
	put(&c, "new", "g", 2, "body");
	assert_true(get(&c, "k0", "g", 3, "body"));
	assert_false(get(&c, "k1", "g", 3, NULL));
	assert_true(get(&c, "new", "g", 3, "body"));
	for (int i = 2; i < HTTP_CACHE_ENTRIES; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		assert_true(get(&c, key, "g", 3, "body"));
	}
	http_cache_release(&c);
}

static void answers_over_the_entry_limit_are_not_kept(void **state)
{
	struct http_cache c;
	size_t n = HTTP_CACHE_ENTRY_MAX + 1;
	char *big = malloc(n);

	(void)state;
	assert_non_null(big);
	memset(big, 'x', n);
	assert_int_equal(http_cache_init(&c), 0);
	http_cache_put(&c, "big", "g", 0, big, n, "t", "");
	assert_false(get(&c, "big", "g", 1, NULL));
	http_cache_put(&c, "big", "g", 0, big, n - 1, "image/svg+xml", "3 of 3 intervals");
	assert_true(get(&c, "big", "g", 1, NULL));
	free(big);
	http_cache_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_view_hits_only_for_the_same_key_and_history),
		cmocka_unit_test(the_least_recently_used_goes_first),
		cmocka_unit_test(answers_over_the_entry_limit_are_not_kept),
	};

	return cmocka_run_group_tests_name("http_cache", tests, NULL, NULL);
}
