// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* agent/timeline.c over a real store: totals per interval and kind, the byte budget, the memo. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/split.h"
#include "agent/timeline.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* One interval (at second @i) with gzip'd folded text per kind; NULL: no file. */
static void write_interval(struct store *st, int i, const char *oncpu, const char *offcpu)
{
	struct store_blob b[2];
	void *gz[2] = { NULL, NULL };
	size_t n = 0, len;

	if (oncpu) {
		assert_int_equal(gzip_buffer(oncpu, strlen(oncpu), &gz[n], &len), 0);
		b[n++] = (struct store_blob){ "oncpu", STORE_FOLDED, gz[0], len };
	}
	if (offcpu) {
		assert_int_equal(gzip_buffer(offcpu, strlen(offcpu), &gz[n], &len), 0);
		b[n] = (struct store_blob){ "offcpu", STORE_FOLDED, gz[n], len };
		n++;
	}
	assert_int_equal(store__write(st, 1700000000000ll + i * 1000ll,
				      1700000000000ll + i * 1000ll + 1000, false, b, n), 0);
	free(gz[0]);
	free(gz[1]);
}

static struct store *open_store(char *dir, const struct retention *r)
{
	struct store *st;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(store__open(&st, dir, r), 0);
	return st;
}

static void close_store(struct store *st, struct timeline_memo *m, const char *dir)
{
	char cmd[64];

	timeline_memo_release(m);
	store__free(st);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

#define ON  (1u << PROFILE_KIND_ONCPU)
#define OFF (1u << PROFILE_KIND_OFFCPU)

static void totals_per_interval_and_kind_as_the_merge_reads_them(void **state)
{
	char dir[] = "/tmp/hc-timeline-XXXXXX";
	struct retention r = { 0 };
	struct timeline_memo m = { 0 };
	struct timeline_row *rows;
	struct store *st = open_store(dir, &r);
	size_t nr;
	bool complete;

	/* a header in samples, a line malformed (skipped by the reader, so not counted) */
	write_interval(st, 0, "# hotcold folded v1 kind=oncpu unit=samples period_ns=10101010\n"
			      "a;b 5\na;c 7\nbroken line\n", "x;y_[k] 1000000\n");
	write_interval(st, 1, "a 3\n", NULL);
	write_interval(st, 2, NULL, "z 18446744073709551615\n");
	assert_int_equal(timeline_rows(st, &mu, &m, 1u << 20, &rows, &nr, &complete), 0);
	assert_int_equal(nr, 3);
	assert_true(complete);
	assert_int_equal(rows[0].start_ms, 1700000000000ll);
	assert_int_equal(rows[0].end_ms, 1700000001000ll);
	assert_int_equal(rows[0].has, ON | OFF);
	assert_int_equal(rows[0].known, ON | OFF);
	assert_int_equal(rows[0].total[PROFILE_KIND_ONCPU], 12);
	assert_int_equal(rows[0].total[PROFILE_KIND_OFFCPU], 1000000);
	assert_int_equal(rows[1].has, ON);
	assert_int_equal(rows[1].total[PROFILE_KIND_ONCPU], 3);
	assert_int_equal(rows[2].has, OFF);
	assert_int_equal(rows[2].total[PROFILE_KIND_OFFCPU], 18446744073709551615ull);
	assert_int_equal(m.nr, 4);	/* one entry per folded file */
	free(rows);
	close_store(st, &m, dir);
}

/*
 * A budget of 1 byte reads one file per request, newest first; the memo
 * keeps what was read, so every request adds one until all are known.
 */
static void the_budget_bounds_a_request_and_the_memo_carries_on(void **state)
{
	char dir[] = "/tmp/hc-timeline-XXXXXX", cmd[64];
	struct retention r = { 0 };
	struct timeline_memo m = { 0 };
	struct timeline_row *rows;
	struct store *st = open_store(dir, &r);
	size_t nr;
	bool complete;

	for (int i = 0; i < 4; i++)
		write_interval(st, i, "a 1\n", NULL);
	for (int call = 1; call <= 4; call++) {
		assert_int_equal(timeline_rows(st, &mu, &m, 1, &rows, &nr, &complete), 0);
		assert_int_equal(nr, 4);
		assert_int_equal(m.nr, call);
		assert_int_equal(complete, call == 4);
		for (int i = 0; i < 4; i++)	/* the newest @call known */
			assert_int_equal(!!(rows[i].known & ON), i >= 4 - call);
		free(rows);
	}
	/* retention deletes the two oldest: the memo forgets their files */
	r.max_intervals = 3;
	store__set_retention(st, &r);
	write_interval(st, 4, "b 2\n", NULL);
	assert_int_equal(store__nr(st), 3);
	assert_int_equal(timeline_rows(st, &mu, &m, 1u << 20, &rows, &nr, &complete), 0);
	assert_int_equal(nr, 3);
	assert_true(complete);
	assert_int_equal(m.nr, 3);
	assert_int_equal(rows[2].total[PROFILE_KIND_ONCPU], 2);
	free(rows);
	timeline_memo_release(&m);
	/* a file gone from under the store: unknown, not an error */
	snprintf(cmd, sizeof(cmd), "rm '%s'/*-oncpu.folded.gz", dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(timeline_rows(st, &mu, &m, 1u << 20, &rows, &nr, &complete), 0);
	assert_false(complete);
	assert_int_equal(rows[0].has, ON);
	assert_int_equal(rows[0].known, 0);
	free(rows);
	close_store(st, &m, dir);
}

static void an_empty_history_has_no_rows(void **state)
{
	char dir[] = "/tmp/hc-timeline-XXXXXX";
	struct retention r = { 0 };
	struct timeline_memo m = { 0 };
	struct timeline_row *rows = (void *)1;
	struct store *st = open_store(dir, &r);
	size_t nr = 7;
	bool complete = false;

	assert_int_equal(timeline_rows(st, &mu, &m, 1u << 20, &rows, &nr, &complete), 0);
	assert_int_equal(nr, 0);
	assert_true(complete);
	free(rows);
	close_store(st, &m, dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(totals_per_interval_and_kind_as_the_merge_reads_them),
		cmocka_unit_test(the_budget_bounds_a_request_and_the_memo_carries_on),
		cmocka_unit_test(an_empty_history_has_no_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
