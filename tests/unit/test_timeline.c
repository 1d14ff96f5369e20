// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* agent/timeline_json.c and view_filter.c: the timeline's JSON, range arguments, the process filter. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/timeline.h"
#include "agent/view.h"

static int range(const char *s, char *from, char *to)
{
	memset(from, 'x', STORE_STAMP_LEN);
	memset(to, 'x', STORE_STAMP_LEN);
	return timeline_range_parse(s, from, to);
}

static void a_range_is_one_stamp_or_two_in_order(void **state)
{
	char f[STORE_STAMP_LEN], t[STORE_STAMP_LEN];

	assert_int_equal(range("20250102T030405.678Z", f, t), 0);
	assert_string_equal(f, "20250102T030405.678Z");
	assert_string_equal(t, "20250102T030405.678Z");
	assert_int_equal(range("20250102T030405.678Z..20250102T030410.001Z", f, t), 0);
	assert_string_equal(f, "20250102T030405.678Z");
	assert_string_equal(t, "20250102T030410.001Z");
	/* dragged right to left: the same range */
	assert_int_equal(range("20250102T030410.001Z..20250102T030405.678Z", f, t), 0);
	assert_string_equal(f, "20250102T030405.678Z");
	assert_string_equal(t, "20250102T030410.001Z");
}

static void a_bad_range_is_refused(void **state)
{
	char f[STORE_STAMP_LEN], t[STORE_STAMP_LEN];
	const char *bad[] = {
		"", "..", "20250102T030405.678Z..", "..20250102T030405.678Z",
		"20250102T030405.678Z...20250102T030410.001Z",	/* the second starts with '.' */
		"2025-01-02", "20250102T030405.678Z\"", "../../etc/passwd", "<script>",
		"20250102T030405.678Z..20250102T030405.678Z..20250102T030405.678Z",
		"123456789012345678901234",	/* STORE_STAMP_LEN characters: one too many */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (range(bad[i], f, t) != -EINVAL)
			fail_msg("'%s' accepted as a range", bad[i]);
	}
	assert_int_equal(timeline_range_parse(NULL, f, t), -EINVAL);
	/* the longest stamp that fits */
	assert_int_equal(range("12345678901234567890123", f, t), 0);
}

static char *json(const struct timeline_row *rows, size_t nr, bool complete)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(timeline_write_json(rows, nr, 10101010, complete, f), 0);
	fclose(f);
	return buf;
}

static void the_json_has_a_key_per_stored_kind_and_null_for_unread(void **state)
{
	struct timeline_row rows[2] = {
		{ .stamp = "20250102T030405.678Z", .start_ms = 1735787045678, .end_ms = 1735787046678,
		  .has = 1u << PROFILE_KIND_ONCPU | 1u << PROFILE_KIND_OFFCPU,
		  .known = 1u << PROFILE_KIND_ONCPU | 1u << PROFILE_KIND_OFFCPU,
		  .total = { 213, 64423000000ull } },
		/* partial, its off-CPU total not read yet, no runq nor lock file */
		{ .stamp = "20250102T030406.678Z", .start_ms = 1735787046678, .end_ms = 0,
		  .partial = true, .has = 1u << PROFILE_KIND_ONCPU | 1u << PROFILE_KIND_OFFCPU,
		  .known = 1u << PROFILE_KIND_ONCPU, .total = { 18446744073709551615ull, 7 } },
	};
	char *s = json(rows, 2, false);

	assert_string_equal(s,
		"{\"period_ns\":10101010,\"complete\":false,\"units\":{\"oncpu\":\"samples\","
		"\"offcpu\":\"nanoseconds\",\"runq\":\"nanoseconds\",\"lock\":\"nanoseconds\"},"
		"\"intervals\":[\n"
		"{\"t\":\"20250102T030405.678Z\",\"start_ms\":1735787045678,\"end_ms\":1735787046678,"
		"\"partial\":false,\"oncpu\":213,\"offcpu\":64423000000},\n"
		"{\"t\":\"20250102T030406.678Z\",\"start_ms\":1735787046678,\"end_ms\":0,"
		"\"partial\":true,\"oncpu\":18446744073709551615,\"offcpu\":null}]}\n");
	free(s);
	s = json(NULL, 0, true);
	assert_non_null(strstr(s, "\"complete\":true"));
	assert_non_null(strstr(s, "\"intervals\":[]}\n"));
	free(s);
}

static void add(struct profile *p, const char *root, const char *leaf, uint64_t w)
{
	struct profile_frame_in fr[2] = { { .name = root }, { .name = leaf } };
	struct profile_stack_in s = { .frames = fr, .nr_frames = 2, .weight = w,
				      .kind = PROFILE_KIND_ONCPU };

	assert_int_equal(profile__add(p, &s), 0);
}

static void the_filter_keeps_the_processes_whose_root_frame_matches(void **state)
{
	struct profile *p = profile__new(), *f = NULL;

	assert_non_null(p);
	profile__set_period_ns(p, 10101010);
	add(p, "nginx", "ngx_process_events", 30);
	add(p, "redis-server", "nginx_lookalike", 20);	/* a leaf matching is not the process */
	add(p, "bash", "main", 7);
	assert_int_equal(view_filter_root(p, "^(nginx|bash)$", &f), 0);
	assert_int_equal(profile__total(f, PROFILE_KIND_ONCPU), 37);
	assert_int_equal(profile__nr_stacks(f), 2);
	assert_int_equal(profile__period_ns(f), 10101010);
	profile__free(f);
	assert_int_equal(view_filter_root(p, "redis", &f), 0);
	assert_int_equal(profile__total(f, PROFILE_KIND_ONCPU), 20);
	profile__free(f);
	/* negative control: nothing matches, an empty profile (the page's empty state) */
	assert_int_equal(view_filter_root(p, "^no-such$", &f), 0);
	assert_int_equal(profile__nr_stacks(f), 0);
	profile__free(f);
	f = NULL;
	assert_int_equal(view_filter_root(p, "(", &f), -EINVAL);
	assert_null(f);
	assert_int_equal(view_filter_root(p, "^(a*)*\\1$", &f), -EINVAL);
	assert_null(f);
	/* an escaped backslash or dot is no back-reference */
	assert_int_equal(view_filter_root(p, "\\\\1|^bash$", &f), 0);
	assert_int_equal(profile__total(f, PROFILE_KIND_ONCPU), 7);
	profile__free(f);
	assert_int_equal(view_filter_root(p, "^redis\\-server$", &f), 0);
	assert_int_equal(profile__total(f, PROFILE_KIND_ONCPU), 20);
	profile__free(f);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_range_is_one_stamp_or_two_in_order),
		cmocka_unit_test(a_bad_range_is_refused),
		cmocka_unit_test(the_json_has_a_key_per_stored_kind_and_null_for_unread),
		cmocka_unit_test(the_filter_keeps_the_processes_whose_root_frame_matches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
