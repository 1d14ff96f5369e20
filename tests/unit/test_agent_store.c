// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Retention: which intervals go, oldest first; the store holds its byte budget on disk. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/store.h"

#define MIN_MS 60000

static const struct retention_item ten[] = {
	{ 1 * MIN_MS, 100 }, { 2 * MIN_MS, 100 }, { 3 * MIN_MS, 100 }, { 4 * MIN_MS, 100 },
	{ 5 * MIN_MS, 100 }, { 6 * MIN_MS, 100 }, { 7 * MIN_MS, 100 }, { 8 * MIN_MS, 100 },
	{ 9 * MIN_MS, 100 }, { 10 * MIN_MS, 100 },
};

static void no_limits_delete_nothing(void **state)
{
	struct retention r = { 0 };

	(void)state;
	assert_int_equal(retention_victims(ten, 10, &r, 11 * MIN_MS, 100), 0);
}

static void age_deletes_intervals_that_ended_too_long_ago(void **state)
{
	struct retention r = { .max_age_ns = 5ull * MIN_MS * 1000000 };

	(void)state;
	/* at 11 min, ends before 6 min are older than 5 min */
	assert_int_equal(retention_victims(ten, 10, &r, 11 * MIN_MS, 0), 5);
}

static void count_keeps_room_for_the_new_interval(void **state)
{
	struct retention r = { .max_intervals = 4 };

	(void)state;
	assert_int_equal(retention_victims(ten, 10, &r, 11 * MIN_MS, 1), 7);
	assert_int_equal(retention_victims(ten, 10, &r, 11 * MIN_MS, 0), 6);
}

static void bytes_delete_oldest_until_the_new_one_fits(void **state)
{
	struct retention r = { .max_bytes = 550 };

	(void)state;
	/* 1000 + 250 incoming: keep at most 300 old bytes -> delete 7 */
	assert_int_equal(retention_victims(ten, 10, &r, 11 * MIN_MS, 250), 7);
	/* exactly at the budget is allowed */
	r.max_bytes = 1100;
	assert_int_equal(retention_victims(ten, 10, &r, 11 * MIN_MS, 100), 0);
	/* larger than the whole budget: everything goes (the caller refuses it) */
	r.max_bytes = 50;
	assert_int_equal(retention_victims(ten, 10, &r, 11 * MIN_MS, 100), 10);
}

static void the_strictest_limit_wins(void **state)
{
	struct retention r = { .max_age_ns = 8ull * MIN_MS * 1000000, .max_intervals = 6,
			       .max_bytes = 350 };

	(void)state;
	assert_int_equal(retention_victims(ten, 10, &r, 11 * MIN_MS, 100), 8);
}

static uint64_t dir_bytes(const char *dir, size_t *files)
{
	char path[512];
	struct dirent *de;
	struct stat sb;
	uint64_t sum = 0;
	DIR *d = opendir(dir);

	*files = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!stat(path, &sb)) {
			sum += sb.st_size;
			++*files;
		}
	}
	closedir(d);
	return sum;
}

static void the_store_never_exceeds_its_budget_on_disk(void **state)
{
	char dir[] = "/tmp/hc-store-XXXXXX", blob[700];
	struct retention r = { .max_bytes = 8192 };
	struct store_blob b[2] = { { "oncpu", STORE_PPROF, blob, 700 },
				    { "oncpu", STORE_FOLDED, blob, 300 } };
	struct store *st;
	size_t files;

	(void)state;
	memset(blob, 'x', sizeof(blob));
	assert_non_null(mkdtemp(dir));
	assert_int_equal(store__open(&st, dir, &r), 0);
	for (int i = 0; i < 40; i++) {
		assert_int_equal(store__write(st, 1700000000000ll + i * 1000,
					      1700000000000ll + i * 1000 + 1000, false, b, 2), 0);
		assert_true(dir_bytes(dir, &files) <= r.max_bytes);
	}
	assert_true(store__nr(st) >= 5);
	/* the newest are kept */
	assert_int_equal(store__get(st, store__nr(st) - 1)->start_ms, 1700000039000ll);
	assert_int_equal(files, 2 * store__nr(st) + 1);
	/* too big for the budget: refused, nothing deleted */
	b[0].len = 700;
	r.max_bytes = 1000;
	store__set_retention(st, &r);
	assert_int_equal(store__write(st, 1700000100000ll, 1700000101000ll, false, b, 2), -EFBIG);
	store__free(st);

	/* a restart finds what is there */
	r.max_bytes = 8192;
	assert_int_equal(store__open(&st, dir, &r), 0);
	assert_true(store__nr(st) >= 5);
	assert_int_equal(store__get(st, 0)->end_ms, store__get(st, 0)->start_ms + 1000);
	store__free(st);
	snprintf(blob, sizeof(blob), "rm -rf '%s'", dir);
	assert_int_equal(system(blob), 0);
}

/* The agent's counters file is a kind of its own, JSON, and found again after a restart. */
static void counters_json_is_stored_and_found_again(void **state)
{
	char dir[] = "/tmp/hc-store-XXXXXX", cmd[64];
	static const char json[] = "{\"seconds\":1,\"processes\":[]}\n";
	struct retention r = { 0 };
	struct store_blob b[3] = { { "oncpu", STORE_PPROF, "p", 1 }, { "oncpu", STORE_FOLDED, "f", 1 },
				   { "counters", STORE_JSON, json, sizeof(json) - 1 } };
	const struct store_interval *iv;
	struct store *st;
	char *data;
	size_t len;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(store__open(&st, dir, &r), 0);
	assert_int_equal(store__write(st, 1700000000000ll, 1700000001000ll, false, b, 3), 0);
	store__free(st);
	assert_int_equal(store__open(&st, dir, &r), 0);
	assert_int_equal(store__nr(st), 1);
	iv = store__get(st, 0);
	assert_int_equal(iv->nr_files, 3);
	for (size_t i = 0; i < iv->nr_files; i++) {
		if (strcmp(iv->files[i].kind, "counters"))
			continue;
		assert_int_equal(iv->files[i].format, STORE_JSON);
		assert_string_equal(iv->files[i].name, "20231114T221320.000Z-counters.json");
		assert_int_equal(store__read(st, iv->files[i].name, false, &data, &len), 0);
		assert_int_equal(len, sizeof(json) - 1);
		assert_memory_equal(data, json, len);
		free(data);
	}
	store__free(st);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_limits_delete_nothing),
		cmocka_unit_test(age_deletes_intervals_that_ended_too_long_ago),
		cmocka_unit_test(count_keeps_room_for_the_new_interval),
		cmocka_unit_test(bytes_delete_oldest_until_the_new_one_fits),
		cmocka_unit_test(the_strictest_limit_wins),
		cmocka_unit_test(the_store_never_exceeds_its_budget_on_disk),
		cmocka_unit_test(counters_json_is_stored_and_found_again),
	};

	return cmocka_run_group_tests_name("agent_store", tests, NULL, NULL);
}
