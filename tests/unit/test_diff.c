// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* analysis/diff.c and diff_write.c: matching, normalisation, deltas, difffolded output. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/diff.h"

static struct profile *folded(const char *text)
{
	struct profile *p = profile__new();
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_int_equal(profile__read_folded(p, f, PROFILE_KIND_ONCPU, NULL), 0);
	fclose(f);
	return p;
}

static struct diff *diff_of(const char *a, const char *b)
{
	struct profile *pa = folded(a), *pb = folded(b);
	struct diff *d;

	assert_int_equal(diff__new(pa, pb, PROFILE_KIND_ONCPU, &d), 0);
	profile__free(pa);	/* the diff keeps what it needs */
	profile__free(pb);
	return d;
}

static char *folded_of(const struct diff *d, bool normalize)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(diff__write_folded(d, f, normalize), 0);
	fclose(f);
	return buf;
}

static void stacks_of_either_profile_get_both_weights(void **state)
{
	struct diff *d = diff_of("app;a 3\napp;b 1\n", "app;a 5\napp;c 2\n");
	const struct diff_stack *s;
	size_t i, seen = 0;

	(void)state;
	assert_int_equal(diff__nr_stacks(d), 3);
	assert_int_equal(diff__total_a(d), 4);
	assert_int_equal(diff__total_b(d), 7);
	for (i = 0; i < diff__nr_stacks(d); i++) {
		s = diff__stack(d, i);
		const char *leaf = diff__frame(d, s->frames[s->nr_frames - 1])->name;

		if (!strcmp(leaf, "a"))
			seen += s->a_weight == 3 && s->b_weight == 5;
		if (!strcmp(leaf, "b"))
			seen += s->a_weight == 1 && s->b_weight == 0;
		if (!strcmp(leaf, "c"))
			seen += s->a_weight == 0 && s->b_weight == 2;
	}
	assert_int_equal(seen, 3);
	assert_null(diff__stack(d, 3));
	diff__free(d);
}

static void frames_match_by_text_not_by_module(void **state)
{
	struct profile_frame_in fa[] = { { .name = "app", .module = NULL, .build_id = NULL, .flags = 0 }, { .name = "f", .module = "/v1/lib.so", .build_id = "aa", .flags = 0 } };
	struct profile_frame_in fb[] = { { .name = "app", .module = NULL, .build_id = NULL, .flags = 0 }, { .name = "f", .module = "/v2/lib.so", .build_id = "bb", .flags = 0 } };
	struct profile_stack_in s = { .frames = fa, .nr_frames = 2, .weight = 1 };
	struct profile *a = profile__new(), *b = profile__new();
	struct diff *d;

	(void)state;
	assert_int_equal(profile__add(a, &s), 0);
	s.frames = fb;
	assert_int_equal(profile__add(b, &s), 0);
	assert_int_equal(diff__new(a, b, PROFILE_KIND_ONCPU, &d), 0);
	assert_int_equal(diff__nr_stacks(d), 1);
	assert_null(diff__frame(d, 1)->module);
	diff__free(d);
	profile__free(a);
	profile__free(b);
}

static void deltas_compare_shares_of_each_total(void **state)
{
	/* A: x is 50% of 100; B: x is 25% of 400 -> -25 points despite twice the samples */
	struct diff *d = diff_of("app;x 50\napp;y 50\n", "app;x 100\napp;y 300\n");
	struct diff_frame *v;
	size_t nr;

	(void)state;
	assert_int_equal(diff__frames(d, &v, &nr), 0);
	assert_int_equal(nr, 2);
	assert_string_equal(diff__frame(d, v[0].frame)->name, "x");	/* tie: name asc */
	assert_float_equal(v[0].delta_pp, -25.0, 1e-9);
	assert_float_equal(v[1].delta_pp, 25.0, 1e-9);
	assert_int_equal(v[0].a_self, 50);
	assert_int_equal(v[0].b_self, 100);
	free(v);
	diff__free(d);
}

static void frame_sums_count_recursion_once(void **state)
{
	struct diff *d = diff_of("app;f;f;f 4\n", "app;f;g 2\n");
	struct diff_frame *v;
	size_t nr, i;

	(void)state;
	assert_int_equal(diff__frames(d, &v, &nr), 0);
	for (i = 0; i < nr; i++) {
		if (!strcmp(diff__frame(d, v[i].frame)->name, "f")) {
			assert_int_equal(v[i].a_incl, 4);
			assert_int_equal(v[i].b_incl, 2);
			assert_int_equal(v[i].a_self, 4);
			assert_int_equal(v[i].b_self, 0);
		}
	}
	free(v);
	diff__free(d);
}

/* --wakers stacks: the time is the block's, not the waker's leaf (profile__self_frame) */
static void a_waker_leaf_gets_no_self_weight(void **state)
{
	struct diff *d = diff_of("app;wait_for;futex_wait_[k];[futex];--;try_to_wake_up_[k]_[w];"
				 "post_[w] 6\n",
				 "app;wait_for;futex_wait_[k];[futex] 3\n");
	struct diff_frame *v;
	size_t nr, i, seen = 0;

	(void)state;
	assert_int_equal(diff__frames(d, &v, &nr), 0);
	for (i = 0; i < nr; i++) {
		const char *name = diff__frame(d, v[i].frame)->name;

		if (!strcmp(name, "[futex]")) {
			assert_int_equal(v[i].a_self, 6);
			assert_int_equal(v[i].b_self, 3);
			seen++;
		}
		/* the list has frames with self weight only: no waker frame */
		assert_false(diff__frame(d, v[i].frame)->flags & FRAME_F_WAKER);
	}
	assert_int_equal(seen, 1);
	free(v);
	diff__free(d);
}

static void share_delta_treats_an_empty_profile_as_zero(void **state)
{
	(void)state;
	assert_float_equal(diff_share_delta(0, 5, 0, 10), 50.0, 1e-9);
	assert_float_equal(diff_share_delta(5, 0, 10, 0), -50.0, 1e-9);
}

static void differential_folded_is_stack_count_a_count_b(void **state)
{
	struct diff *d = diff_of("app;a 3\napp;b 1\n", "app;a 3\napp;c 1\n");
	char *out = folded_of(d, false);

	(void)state;
	assert_string_equal(out, "app;a 3 3\napp;c 0 1\napp;b 1 0\n");
	free(out);
	diff__free(d);
}

static void normalising_scales_a_to_b_total_like_difffolded(void **state)
{
	/* totals 3 and 10: countA * 10 / 3, truncated */
	struct diff *d = diff_of("app;a 2\napp;b 1\n", "app;a 4\napp;b 6\n");
	char *out = folded_of(d, true);

	(void)state;
	assert_string_equal(out, "app;b 3 6\napp;a 6 4\n");
	free(out);
	diff__free(d);
}

static void the_table_lists_the_biggest_changes_first(void **state)
{
	struct diff *d = diff_of("app;a 9\napp;b 1\n", "app;a 5\napp;b 5\n");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(diff__write_text(d, f, 1, "old", "new"), 0);
	fclose(f);
	assert_non_null(strstr(buf, "A: old, 10 samples"));
	assert_non_null(strstr(buf, "top 1 self-time changes (of 2 frames)"));
	assert_non_null(strstr(buf, "-40.00pp   90.00%   50.00%       9       5  a\n"));
	free(buf);
	diff__free(d);
}

static void load_reads_two_files_and_refuses_one_without_stacks(void **state)
{
	char a[] = "/tmp/hc-diff-a-XXXXXX", b[] = "/tmp/hc-diff-b-XXXXXX";
	int fa = mkstemp(a), fb = mkstemp(b);
	struct diff *d;

	(void)state;
	assert_true(fa >= 0 && fb >= 0);
	assert_int_equal(write(fa, "x;y 2\n", 6), 6);
	assert_int_equal(write(fb, "junk\n", 5), 5);
	close(fa);
	close(fb);
	assert_int_equal(diff__load(a, b, &d), -ENODATA);
	assert_int_equal(diff__load(a, "/nonexistent/x", &d), -ENOENT);
	assert_int_equal(diff__load(a, a, &d), 0);
	assert_int_equal(diff__total_b(d), 2);
	diff__free(d);
	unlink(a);
	unlink(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stacks_of_either_profile_get_both_weights),
		cmocka_unit_test(frames_match_by_text_not_by_module),
		cmocka_unit_test(deltas_compare_shares_of_each_total),
		cmocka_unit_test(frame_sums_count_recursion_once),
		cmocka_unit_test(share_delta_treats_an_empty_profile_as_zero),
		cmocka_unit_test(a_waker_leaf_gets_no_self_weight),
		cmocka_unit_test(differential_folded_is_stack_count_a_count_b),
		cmocka_unit_test(normalising_scales_a_to_b_total_like_difffolded),
		cmocka_unit_test(the_table_lists_the_biggest_changes_first),
		cmocka_unit_test(load_reads_two_files_and_refuses_one_without_stacks),
	};

	return cmocka_run_group_tests_name("diff", tests, NULL, NULL);
}
