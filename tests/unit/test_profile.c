// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* analysis/profile.c: one test per folded-format rule (SEEDS.md §1) and per model rule. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/profile.h"
#include "output/folded.h"

#define NR(a) (sizeof(a) / sizeof((a)[0]))

/* Read @text as on-CPU folded input into a new profile. */
static struct profile *read_text(const char *text, struct folded_read_stats *st)
{
	struct profile *p = profile__new();
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(p);
	assert_non_null(f);
	assert_int_equal(profile__read_folded(p, f, PROFILE_KIND_ONCPU, st), 0);
	fclose(f);
	return p;
}

static char *write_text(const struct profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(profile__write_folded(p, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static const char *leaf_name(const struct profile *p, size_t stack)
{
	const struct profile_stack *s = profile__stack(p, stack);

	return profile__frame(p, s->frames[s->nr_frames - 1])->name;
}

/* The total of the frame named @name (any flags), or asserts if absent. */
static struct frame_total totals_of(const struct profile *p, const char *name)
{
	struct frame_total *t, r;
	size_t nr, i;

	assert_int_equal(profile__frame_totals(p, PROFILE_KIND_ONCPU, &t, &nr), 0);
	for (i = 0; i < nr; i++) {
		if (!strcmp(profile__frame(p, t[i].frame)->name, name)) {
			r = t[i];
			free(t);
			return r;
		}
	}
	free(t);
	fail_msg("frame %s not found", name);
	return r;
}

static void reader_takes_the_count_after_the_last_space(void **state)
{
	struct profile *p = read_text("app;<String as core::fmt::Write>::write_str 7\n", NULL);

	(void)state;
	assert_int_equal(profile__nr_stacks(p), 1);
	assert_string_equal(leaf_name(p, 0), "<String as core::fmt::Write>::write_str");
	assert_int_equal(profile__stack(p, 0)->weight, 7);
	profile__free(p);
}

static void reader_ignores_surrounding_whitespace(void **state)
{
	struct profile *p = read_text("  \tapp;main 3 \t\r\n", NULL);

	(void)state;
	assert_int_equal(profile__nr_stacks(p), 1);
	assert_string_equal(profile__frame(p, profile__stack(p, 0)->frames[0])->name, "app");
	assert_string_equal(leaf_name(p, 0), "main");
	assert_int_equal(profile__total(p, PROFILE_KIND_ONCPU), 3);
	profile__free(p);
}

static void reader_accepts_a_tab_before_the_count(void **state)
{
	struct profile *p = read_text("app;main\t4\n", NULL);

	(void)state;
	assert_int_equal(profile__total(p, PROFILE_KIND_ONCPU), 4);
	assert_string_equal(leaf_name(p, 0), "main");
	profile__free(p);
}

static void reader_ignores_blank_lines_without_counting_them(void **state)
{
	struct folded_read_stats st;
	struct profile *p = read_text("\n   \n\t\r\napp;a 1\n\n", &st);

	(void)state;
	assert_int_equal(st.lines, 1);
	assert_int_equal(st.malformed, 0);
	assert_int_equal(st.first_bad_line, 0);
	profile__free(p);
}

static void reader_skips_counts_and_locates_malformed_lines(void **state)
{
	static const char text[] = "app;ok 1\n"
				   "app;nocount\n"	/* 2 */
				   "app;neg -3\n"	/* 3 */
				   "app;frac 1.5\n"	/* 4 */
				   "app;;empty 2\n"	/* 5 */
				   "app;junk 12x\n"	/* 6 */
				   " 5\n"		/* 7: no frames */
				   "app;b 2\n";
	struct folded_read_stats st;
	struct profile *p = read_text(text, &st);

	(void)state;
	assert_int_equal(st.lines, 8);
	assert_int_equal(st.malformed, 6);
	assert_int_equal(st.first_bad_line, 2);
	assert_int_equal(profile__nr_stacks(p), 2);
	assert_int_equal(profile__total(p, PROFILE_KIND_ONCPU), 3);
	profile__free(p);
}

/*
 * A line starting with "# " is a comment only without a count: a process
 * named "# x" is a stack (as flamegraph.pl reads it), and so is a line that
 * starts like the header but ends in a count. Found by fuzz_folded: such a
 * process's samples vanished when hotcold read its own file back.
 */
static void reader_takes_a_hash_line_with_a_count_as_a_stack(void **state)
{
	static const char text[] = "# a comment\n"
				   "# x;main 3\n"
				   "# hotcold folded  2\n"
				   "#\n"
				   "app;a 1\n";
	struct folded_read_stats st;
	struct profile *p = read_text(text, &st), *q;
	char *once, *twice;

	(void)state;
	assert_int_equal(st.malformed, 1);	/* "#": no count, not "# " */
	assert_int_equal(profile__total(p, PROFILE_KIND_ONCPU), 6);
	assert_int_equal(totals_of(p, "# x").inclusive, 3);
	assert_int_equal(totals_of(p, "# hotcold folded").inclusive, 2);
	/* and what hotcold writes of them it reads back the same */
	once = write_text(p);
	q = read_text(once, &st);
	assert_int_equal(st.malformed, 0);
	assert_int_equal(profile__total(q, PROFILE_KIND_ONCPU), 6);
	twice = write_text(q);
	assert_string_equal(once, twice);
	free(once);
	free(twice);
	profile__free(q);
	profile__free(p);
}

static void reader_treats_a_count_above_uint64_max_as_malformed(void **state)
{
	struct folded_read_stats st;
	struct profile *p = read_text("app;big 18446744073709551616\n"
				      "app;max 18446744073709551615\n", &st);

	(void)state;
	assert_int_equal(st.malformed, 1);
	assert_int_equal(st.first_bad_line, 1);
	assert_true(profile__total(p, PROFILE_KIND_ONCPU) == UINT64_MAX);
	profile__free(p);
}

static void reader_skips_a_line_that_would_overflow_the_total(void **state)
{
	struct folded_read_stats st;
	struct profile *p = read_text("app;a 18446744073709551615\napp;b 1\napp;a 1\n", &st);

	(void)state;
	assert_int_equal(st.malformed, 2);
	assert_int_equal(st.first_bad_line, 2);
	assert_true(profile__total(p, PROFILE_KIND_ONCPU) == UINT64_MAX);
	assert_int_equal(profile__nr_stacks(p), 1);
	profile__free(p);
}

/* text has no NUL: a binary file is refused whole, not read for its lucky "lines" */
static void reader_refuses_binary_input_at_a_nul_byte(void **state)
{
	static const char text[] = "app;b 1\napp;a\0b 1\napp;c 2\n";
	struct profile *p = profile__new();
	struct folded_read_stats st;
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");

	(void)state;
	assert_int_equal(profile__read_folded(p, f, PROFILE_KIND_ONCPU, &st), -EILSEQ);
	fclose(f);
	assert_int_equal(st.binary_line, 2);
	profile__free(p);
}

/* Read @text with @kind as the default into a new profile; the reader's return in *@err. */
static struct profile *read_kind(const char *text, enum profile_kind kind,
				 struct folded_read_stats *st, int *err)
{
	struct profile *p = profile__new();
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(p);
	assert_non_null(f);
	*err = profile__read_folded(p, f, kind, st);
	fclose(f);
	return p;
}

static void header_sets_kind_unit_period_and_times(void **state)
{
	struct folded_read_stats st;
	struct profile *p;
	int err;

	(void)state;
	p = read_kind("# hotcold folded v1 kind=offcpu unit=nanoseconds start_ns=5 "
		      "duration_ns=7\napp;read 1500\n", PROFILE_KIND_ONCPU, &st, &err);
	assert_int_equal(err, 0);
	assert_int_equal(st.header_kinds, 1u << PROFILE_KIND_OFFCPU);
	assert_int_equal(profile__total(p, PROFILE_KIND_OFFCPU), 1500);
	assert_int_equal(profile__total(p, PROFILE_KIND_ONCPU), 0);
	assert_int_equal(profile__start_ns(p), 5);
	assert_int_equal(profile__duration_ns(p), 7);
	profile__free(p);
	/* an old microsecond file, given a header by its user: scaled to ns */
	p = read_kind("# hotcold folded v1 kind=lock unit=microseconds\napp;w 3\n",
		      PROFILE_KIND_ONCPU, &st, &err);
	assert_int_equal(err, 0);
	assert_int_equal(profile__total(p, PROFILE_KIND_LOCK), 3000);
	profile__free(p);
}

static void an_event_header_is_read_back(void **state)
{
	struct folded_read_stats st;
	struct profile *p, *q;
	char *out = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	(void)state;
	p = read_kind("# hotcold folded v1 kind=oncpu unit=samples event=page-faults "
		      "event_period=10\nfaults;fault_pages 7\n", PROFILE_KIND_ONCPU, &st, &err);
	assert_int_equal(err, 0);
	assert_string_equal(profile__event(p), "page-faults");
	assert_int_equal(profile__event_period(p), 10);
	assert_int_equal(profile__period_ns(p), 0);
	/* round trip: written as read */
	f = open_memstream(&out, &len);
	assert_int_equal(profile__write_folded(p, f), 0);
	fclose(f);
	assert_non_null(strstr(out, "event=page-faults event_period=10"));
	q = read_kind(out, PROFILE_KIND_ONCPU, &st, &err);
	assert_string_equal(profile__event(q), "page-faults");
	profile__free(q);
	free(out);
	profile__free(p);
	/* a clock profile has none; a malformed name is refused */
	p = read_kind("# hotcold folded v1 kind=oncpu unit=samples period_ns=10101010\na;b 1\n",
		      PROFILE_KIND_ONCPU, &st, &err);
	assert_null(profile__event(p));
	profile__free(p);
	p = read_kind("# hotcold folded v1 kind=oncpu unit=samples event=a;b\na;b 1\n",
		      PROFILE_KIND_ONCPU, &st, &err);
	assert_int_equal(st.bad_header_line, 1);
	profile__free(p);
}

static void header_errors_are_refused_not_guessed(void **state)
{
	static const char *const bad[] = {
		"# hotcold folded v2 kind=oncpu unit=samples\n",
		"# hotcold folded v1 kind=heap unit=samples\n",
		"# hotcold folded v1 kind=offcpu unit=samples\n",
		"# hotcold folded v1 kind=oncpu unit=nanoseconds\n",	/* no period */
		"# hotcold folded v1 kind=offcpu\n",
		"# hotcold folded v1 kind=runq unit=nanoseconds period_ns=x1\n",
	};
	struct folded_read_stats st;
	int err;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct profile *p = read_kind(bad[i], PROFILE_KIND_ONCPU, &st, &err);

		assert_int_equal(err, -EPROTO);
		assert_int_equal(st.bad_header_line, 1);
		profile__free(p);
	}
}

/* a hot/cold profile: one section per kind, on-CPU as CPU time, read back exactly */
static void hot_cold_round_trips_through_sections(void **state)
{
	struct profile_frame_in f[] = { { .name = "app" }, { .name = "run" } };
	struct profile_stack_in s = { .frames = f, .nr_frames = 2, .weight = 3 };
	struct folded_read_stats st;
	struct profile *p = profile__new(), *q;
	char *out;
	int err;

	(void)state;
	profile__set_period_ns(p, 1000);
	assert_int_equal(profile__add(p, &s), 0);
	s.kind = PROFILE_KIND_OFFCPU;
	s.weight = 5000000;
	f[1].name = "read";
	assert_int_equal(profile__add(p, &s), 0);
	out = write_text(p);
	assert_string_equal(out, "# hotcold folded v1 kind=oncpu unit=nanoseconds period_ns=1000\n"
				 "app;run 3000\n"
				 "# hotcold folded v1 kind=offcpu unit=nanoseconds\n"
				 "app;read 5000000\n");
	q = read_kind(out, PROFILE_KIND_ONCPU, &st, &err);
	assert_int_equal(err, 0);
	assert_int_equal(profile__total(q, PROFILE_KIND_ONCPU), 3);
	assert_int_equal(profile__total(q, PROFILE_KIND_OFFCPU), 5000000);
	assert_int_equal(profile__period_ns(q), 1000);
	assert_int_equal(st.header_kinds, 3);
	free(out);
	profile__free(p);
	profile__free(q);
}

/*
 * The FlameGraph tools take the count after the last space and skip a line
 * without one (flamegraph.pl: /^(.*)\s+?(\d+(?:\.\d*)?)$/; inferno's
 * rfind(' ') then all digits; speedscope /^(.*) (\d+)$/): no header may end
 * in a bare number, whatever its fields.
 */
static void header_never_ends_in_a_count(void **state)
{
	struct profile_frame_in f[] = { { .name = "app" } };
	struct profile_stack_in s = { .frames = f, .nr_frames = 1, .weight = 1 };
	struct profile *p = profile__new();
	char *out, *nl, *sp;

	(void)state;
	profile__set_period_ns(p, 10101010);
	profile__set_time(p, 1700000000000000000ull, 5000000000ull);
	assert_int_equal(profile__add(p, &s), 0);
	out = write_text(p);
	nl = strchr(out, '\n');
	assert_non_null(nl);
	*nl = '\0';
	sp = strrchr(out, ' ');
	assert_non_null(sp);
	assert_true(strspn(sp + 1, "0123456789") < strlen(sp + 1));
	assert_string_equal(out, "# hotcold folded v1 kind=oncpu unit=samples period_ns=10101010 "
				 "start_ns=1700000000000000000 duration_ns=5000000000");
	free(out);
	profile__free(p);
}

static void reader_handles_a_line_longer_than_any_fixed_buffer(void **state)
{
	size_t frames = 200000, i, len = 0;
	char *text = malloc(frames * 6 + 32);
	struct profile *p;

	(void)state;
	assert_non_null(text);
	for (i = 0; i < frames; i++)
		len += sprintf(text + len, "%sf%zu", i ? ";" : "", i % 1000);
	strcpy(text + len, " 9\n");
	p = read_text(text, NULL);
	assert_int_equal(profile__stack(p, 0)->nr_frames, frames);
	assert_int_equal(profile__nr_frames(p), 1000);
	/* f0..f999 repeat 200 times: still one inclusive count each */
	assert_int_equal(totals_of(p, "f5").inclusive, 9);
	free(text);
	profile__free(p);
}

static void reader_treats_a_line_deeper_than_the_frame_bound_as_malformed(void **state)
{
	size_t n = FOLDED_MAX_FRAMES + 1, i;
	char *text = malloc(2 * n + 16);
	struct folded_read_stats st;
	struct profile *p;

	(void)state;
	assert_non_null(text);
	for (i = 0; i < n; i++)
		memcpy(text + 2 * i, "a;", 2);
	strcpy(text + 2 * n - 1, " 1\napp 2\n");
	p = read_text(text, &st);
	assert_int_equal(st.malformed, 1);
	assert_int_equal(profile__total(p, PROFILE_KIND_ONCPU), 2);
	free(text);
	profile__free(p);
}

static void reader_merges_identical_stacks(void **state)
{
	struct profile *p = read_text("app;a;b 2\napp;a;c 1\napp;a;b 5\n", NULL);

	(void)state;
	assert_int_equal(profile__nr_stacks(p), 2);
	assert_int_equal(profile__stack(p, 0)->weight, 7);
	assert_int_equal(profile__nr_frames(p), 4);
	profile__free(p);
}

static void reader_turns_suffixes_into_flags(void **state)
{
	struct profile *p = read_text("app;jit_[j];inl_[i];vfs_read_[k];wk_[w];_[k] 1\n", NULL);
	const struct profile_stack *s;

	(void)state;
	s = profile__stack(p, 0);
	assert_string_equal(profile__frame(p, s->frames[1])->name, "jit");
	assert_int_equal(profile__frame(p, s->frames[1])->flags, FRAME_F_JIT);
	assert_int_equal(profile__frame(p, s->frames[2])->flags, FRAME_F_INLINE);
	assert_string_equal(profile__frame(p, s->frames[3])->name, "vfs_read");
	assert_int_equal(profile__frame(p, s->frames[3])->flags, FRAME_F_KERNEL);
	assert_int_equal(profile__frame(p, s->frames[4])->flags, FRAME_F_WAKER);
	/* a bare suffix is a name, not an empty frame */
	assert_string_equal(profile__frame(p, s->frames[5])->name, "_[k]");
	assert_int_equal(profile__frame(p, s->frames[5])->flags, 0);
	profile__free(p);
}

static void reader_marks_frames_without_a_symbol_unknown(void **state)
{
	struct profile *p = read_text("app;libc.so.6+0x1a2f;[unknown];x+0xzz 1\n", NULL);
	const struct profile_stack *s;

	(void)state;
	s = profile__stack(p, 0);
	assert_int_equal(profile__frame(p, s->frames[0])->flags, 0);
	assert_int_equal(profile__frame(p, s->frames[1])->flags, FRAME_F_UNKNOWN);
	assert_int_equal(profile__frame(p, s->frames[2])->flags, FRAME_F_UNKNOWN);
	assert_int_equal(profile__frame(p, s->frames[3])->flags, 0);
	profile__free(p);
}

static void reader_keeps_a_zero_count_line_valid_but_adds_nothing(void **state)
{
	struct folded_read_stats st;
	struct profile *p = read_text("app;a 0\n", &st);

	(void)state;
	assert_int_equal(st.lines, 1);
	assert_int_equal(st.malformed, 0);
	assert_int_equal(profile__nr_stacks(p), 0);
	profile__free(p);
}

static void reader_reports_a_read_error(void **state)
{
	struct profile *p = profile__new();
	FILE *f = fopen("/", "r");	/* opens; reading a directory fails with EISDIR */

	(void)state;
	assert_non_null(f);
	assert_int_equal(profile__read_folded(p, f, PROFILE_KIND_ONCPU, NULL), -EIO);
	fclose(f);
	profile__free(p);
}

static void total_is_the_sum_of_valid_counts(void **state)
{
	struct profile *p = read_text("a;b 3\nbad line\na;c 4\nx 10\n", NULL);

	(void)state;
	assert_int_equal(profile__total(p, PROFILE_KIND_ONCPU), 17);
	assert_int_equal(profile__total(p, PROFILE_KIND_OFFCPU), 0);
	assert_true(profile__has_kind(p, PROFILE_KIND_ONCPU));
	assert_false(profile__has_kind(p, PROFILE_KIND_OFFCPU));
	profile__free(p);
}

static void self_weight_is_credited_to_the_leaf_only(void **state)
{
	struct profile *p = read_text("app;main;work 5\napp;main 2\n", NULL);

	(void)state;
	assert_int_equal(totals_of(p, "work").self, 5);
	assert_int_equal(totals_of(p, "main").self, 2);
	assert_int_equal(totals_of(p, "app").self, 0);
	profile__free(p);
}

static void inclusive_weight_counts_a_recursive_frame_once_per_stack(void **state)
{
	struct profile *p = read_text("app;fib;fib;fib 4\napp;fib;other 1\n", NULL);

	(void)state;
	assert_int_equal(totals_of(p, "fib").inclusive, 5);
	assert_int_equal(totals_of(p, "fib").self, 4);
	assert_int_equal(totals_of(p, "app").inclusive, 5);
	profile__free(p);
}

static void totals_are_ordered_by_self_desc_then_name_asc(void **state)
{
	struct profile *p = read_text("r;b 3\nr;a 3\nr;c 5\nr;a_[k] 3\n", NULL);
	static const char *const want[] = { "c", "a", "a_[k]", "b", "r" };
	struct frame_total *t;
	size_t nr, i;
	char name[64];

	(void)state;
	assert_int_equal(profile__frame_totals(p, PROFILE_KIND_ONCPU, &t, &nr), 0);
	assert_int_equal(nr, NR(want));
	for (i = 0; i < nr; i++) {
		const struct profile_frame *f = profile__frame(p, t[i].frame);

		snprintf(name, sizeof(name), "%s%s", f->name, profile_frame_suffix(f->flags));
		assert_string_equal(name, want[i]);
	}
	free(t);
	profile__free(p);
}

static void frames_differing_only_in_module_are_one_frame_in_totals(void **state)
{
	struct profile_frame_in a[] = { { .name = "app", .module = NULL, .build_id = NULL, .flags = 0 }, { .name = "f", .module = "liba.so", .build_id = NULL, .flags = 0 } };
	struct profile_frame_in b[] = { { .name = "app", .module = NULL, .build_id = NULL, .flags = 0 }, { .name = "f", .module = "libb.so", .build_id = NULL, .flags = 0 } };
	struct profile_stack_in s = { .frames = a, .nr_frames = 2, .weight = 2 };
	struct profile *p = profile__new();

	(void)state;
	assert_int_equal(profile__add(p, &s), 0);
	s.frames = b;
	assert_int_equal(profile__add(p, &s), 0);
	assert_int_equal(profile__nr_frames(p), 3);
	assert_int_equal(totals_of(p, "f").self, 4);
	profile__free(p);
}

static void hottest_is_most_self_with_ties_to_the_smallest_name(void **state)
{
	struct profile *p = read_text("r;zeta 3\nr;alpha 3\nr;mid 2\n", NULL);
	uint32_t id;
	double pct;

	(void)state;
	assert_true(profile__hottest(p, PROFILE_KIND_ONCPU, &id, &pct));
	assert_string_equal(profile__frame(p, id)->name, "alpha");
	assert_float_equal(pct, 37.5, 1e-9);
	profile__free(p);
}

static void an_empty_profile_has_no_hottest_frame(void **state)
{
	struct profile *p = read_text("\n\nnot valid\n", NULL);
	uint32_t id = 77;

	(void)state;
	assert_false(profile__hottest(p, PROFILE_KIND_ONCPU, &id, NULL));
	assert_int_equal(id, 77);
	profile__free(p);
}

static void writer_orders_by_count_desc_then_text_asc_with_suffixes(void **state)
{
	struct profile *p = read_text("r;c 3\nr;b 2\nr;vfs_[k] 9\nr;a 2\n  r;b 1\n", NULL);
	char *out = write_text(p);

	(void)state;
	assert_string_equal(out, "# hotcold folded v1 kind=oncpu unit=samples\n" "r;vfs_[k] 9\nr;b 3\nr;c 3\nr;a 2\n");
	free(out);
	profile__free(p);
}

static void writer_output_reads_back_to_the_same_text(void **state)
{
	struct profile *p = read_text("app;x y z;f_[i] 3\n[unknown] 2\nk;a_[k]_[w] 1\n", NULL);
	char *once = write_text(p), *twice;
	struct profile *q = read_text(once, NULL);

	(void)state;
	twice = write_text(q);
	assert_string_equal(once, twice);
	assert_string_equal(once, "# hotcold folded v1 kind=oncpu unit=samples\n" "app;x y z;f_[i] 3\n[unknown] 2\nk;a_[k]_[w] 1\n");
	free(once);
	free(twice);
	profile__free(p);
	profile__free(q);
}

static void add_merges_only_stacks_with_equal_frames_kind_and_labels(void **state)
{
	struct profile_frame_in f[] = { { .name = "app", .module = NULL, .build_id = NULL, .flags = 0 }, { .name = "main", .module = NULL, .build_id = NULL, .flags = 0 } };
	struct profile_stack_in s = { .frames = f, .nr_frames = 2, .weight = 1, .pid = 10,
				      .comm = "app" };
	struct profile *p = profile__new();

	(void)state;
	assert_int_equal(profile__add(p, &s), 0);
	assert_int_equal(profile__add(p, &s), 0);
	assert_int_equal(profile__nr_stacks(p), 1);
	assert_int_equal(profile__stack(p, 0)->weight, 2);
	assert_string_equal(profile__stack(p, 0)->comm, "app");
	s.pid = 11;
	assert_int_equal(profile__add(p, &s), 0);
	s.kind = PROFILE_KIND_OFFCPU;
	assert_int_equal(profile__add(p, &s), 0);
	assert_int_equal(profile__nr_stacks(p), 3);
	assert_int_equal(profile__total(p, PROFILE_KIND_ONCPU), 3);
	assert_int_equal(profile__total(p, PROFILE_KIND_OFFCPU), 1);
	profile__free(p);
}

static void add_refuses_an_overflowing_weight_and_changes_nothing(void **state)
{
	struct profile_frame_in f[] = { { .name = "app", .module = NULL, .build_id = NULL, .flags = 0 } };
	struct profile_stack_in s = { .frames = f, .nr_frames = 1, .weight = UINT64_MAX };
	struct profile *p = profile__new();

	(void)state;
	assert_int_equal(profile__add(p, &s), 0);
	s.weight = 1;
	assert_int_equal(profile__add(p, &s), -EOVERFLOW);
	assert_true(profile__stack(p, 0)->weight == UINT64_MAX);
	s.nr_frames = 0;
	assert_int_equal(profile__add(p, &s), -EINVAL);
	profile__free(p);
}

static void add_interns_strings_and_names_empty_frames_unknown(void **state)
{
	struct profile_frame_in f[] = { { .name = "a", .module = "m.so", .build_id = "ab12", .flags = 0 }, { .name = "", .module = NULL, .build_id = NULL, .flags = 0 },
					{ .name = NULL, .module = NULL, .build_id = NULL, .flags = 0 } };
	struct profile_stack_in s = { .frames = f, .nr_frames = 3, .weight = 1 };
	struct profile *p = profile__new();
	const struct profile_stack *st;

	(void)state;
	assert_int_equal(profile__add(p, &s), 0);
	st = profile__stack(p, 0);
	assert_string_equal(profile__frame(p, st->frames[0])->build_id, "ab12");
	assert_string_equal(profile__frame(p, st->frames[1])->name, "[unknown]");
	assert_int_equal(profile__frame(p, st->frames[1])->flags, FRAME_F_UNKNOWN);
	/* "" and NULL are the same unknown frame */
	assert_int_equal(st->frames[1], st->frames[2]);
	assert_null(profile__frame(p, 99));
	assert_null(profile__stack(p, 1));
	profile__free(p);
}

static void stack_text_joins_frames_with_their_suffixes(void **state)
{
	struct profile *p = read_text("app;x y;vfs_[k] 1\n", NULL);
	char *buf = NULL;
	size_t cap = 0, idx = 9;
	struct profile_frame_in f[] = { { .name = "app", .module = NULL, .build_id = NULL, .flags = 0 } };
	struct profile_stack_in s = { .frames = f, .nr_frames = 1, .weight = 1 };

	(void)state;
	assert_int_equal(profile_stack_text(p, profile__stack(p, 0), &buf, &cap), 0);
	assert_string_equal(buf, "app;x y;vfs_[k]");
	assert_int_equal(profile__add_at(p, &s, &idx), 0);
	assert_int_equal(idx, 1);
	assert_int_equal(profile__add_at(p, &s, &idx), 0);
	assert_int_equal(idx, 1);
	free(buf);
	profile__free(p);
}

/* A weight added by index is the same as re-adding the stack; totals stay bounded. */
static void add_weight_by_index_grows_the_stack_and_its_kind_total(void **state)
{
	struct profile_frame_in f[] = { { .name = "app" }, { .name = "run" } };
	struct profile_stack_in s = { .frames = f, .nr_frames = 2, .weight = 3,
				      .kind = PROFILE_KIND_OFFCPU };
	struct profile *p = profile__new();
	size_t i = 99;

	(void)state;
	assert_int_equal(profile__add_at(p, &s, &i), 0);
	assert_int_equal(i, 0);
	assert_int_equal(profile__add_weight(p, 0, 4), 0);
	assert_true(profile__stack(p, 0)->weight == 7);
	assert_true(profile__total(p, PROFILE_KIND_OFFCPU) == 7);
	assert_int_equal(profile__add_weight(p, 1, 4), -ENOENT);
	assert_int_equal(profile__add_weight(p, 0, UINT64_MAX), -EOVERFLOW);
	assert_true(profile__stack(p, 0)->weight == 7);		/* unchanged */
	assert_true(profile__total(p, PROFILE_KIND_OFFCPU) == 7);
	profile__free(p);
}

static void kind_names_parse_back(void **state)
{
	enum profile_kind k;
	int i;

	(void)state;
	for (i = 0; i < PROFILE_KIND_NR; i++) {
		assert_int_equal(profile_kind_parse(profile_kind_name(i), &k), 0);
		assert_int_equal(k, i);
	}
	assert_int_equal(profile_kind_parse("cpu", &k), -EINVAL);
	assert_string_equal(profile_kind_unit(PROFILE_KIND_ONCPU), "samples");
	assert_string_equal(profile_kind_unit(PROFILE_KIND_LOCK), "nanoseconds");
}

/* An empty recording still says what it held: the declared kind, not on-CPU. */
static void declared_kinds_head_an_empty_profile(void **state)
{
	struct profile *p = profile__new();
	char *out;

	(void)state;
	assert_non_null(p);
	out = write_text(p);
	assert_non_null(strstr(out, "kind=oncpu unit=samples"));	/* nothing declared */
	free(out);
	profile__declare_kinds(p, 1u << PROFILE_KIND_LOCK);
	assert_int_equal(profile__kinds(p), 1u << PROFILE_KIND_LOCK);
	out = write_text(p);
	assert_non_null(strstr(out, "kind=lock unit=nanoseconds"));
	assert_null(strstr(out, "kind=oncpu"));
	free(out);
	/* hot/cold with nothing off-CPU: still two sections, on-CPU as time */
	profile__declare_kinds(p, 1u << PROFILE_KIND_ONCPU | 1u << PROFILE_KIND_OFFCPU);
	profile__set_period_ns(p, 10101010);
	out = write_text(p);
	assert_non_null(strstr(out, "kind=oncpu unit=nanoseconds period_ns=10101010"));
	assert_non_null(strstr(out, "kind=offcpu unit=nanoseconds"));
	free(out);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reader_takes_the_count_after_the_last_space),
		cmocka_unit_test(reader_ignores_surrounding_whitespace),
		cmocka_unit_test(reader_accepts_a_tab_before_the_count),
		cmocka_unit_test(reader_ignores_blank_lines_without_counting_them),
		cmocka_unit_test(reader_skips_counts_and_locates_malformed_lines),
		cmocka_unit_test(reader_takes_a_hash_line_with_a_count_as_a_stack),
		cmocka_unit_test(reader_treats_a_count_above_uint64_max_as_malformed),
		cmocka_unit_test(reader_skips_a_line_that_would_overflow_the_total),
		cmocka_unit_test(reader_refuses_binary_input_at_a_nul_byte),
		cmocka_unit_test(header_sets_kind_unit_period_and_times),
		cmocka_unit_test(header_errors_are_refused_not_guessed),
		cmocka_unit_test(an_event_header_is_read_back),
		cmocka_unit_test(hot_cold_round_trips_through_sections),
		cmocka_unit_test(header_never_ends_in_a_count),
		cmocka_unit_test(reader_handles_a_line_longer_than_any_fixed_buffer),
		cmocka_unit_test(reader_treats_a_line_deeper_than_the_frame_bound_as_malformed),
		cmocka_unit_test(reader_merges_identical_stacks),
		cmocka_unit_test(reader_turns_suffixes_into_flags),
		cmocka_unit_test(reader_marks_frames_without_a_symbol_unknown),
		cmocka_unit_test(reader_keeps_a_zero_count_line_valid_but_adds_nothing),
		cmocka_unit_test(reader_reports_a_read_error),
		cmocka_unit_test(total_is_the_sum_of_valid_counts),
		cmocka_unit_test(self_weight_is_credited_to_the_leaf_only),
		cmocka_unit_test(inclusive_weight_counts_a_recursive_frame_once_per_stack),
		cmocka_unit_test(totals_are_ordered_by_self_desc_then_name_asc),
		cmocka_unit_test(frames_differing_only_in_module_are_one_frame_in_totals),
		cmocka_unit_test(hottest_is_most_self_with_ties_to_the_smallest_name),
		cmocka_unit_test(an_empty_profile_has_no_hottest_frame),
		cmocka_unit_test(writer_orders_by_count_desc_then_text_asc_with_suffixes),
		cmocka_unit_test(writer_output_reads_back_to_the_same_text),
		cmocka_unit_test(add_merges_only_stacks_with_equal_frames_kind_and_labels),
		cmocka_unit_test(add_refuses_an_overflowing_weight_and_changes_nothing),
		cmocka_unit_test(add_interns_strings_and_names_empty_frames_unknown),
		cmocka_unit_test(stack_text_joins_frames_with_their_suffixes),
		cmocka_unit_test(kind_names_parse_back),
		cmocka_unit_test(add_weight_by_index_grows_the_stack_and_its_kind_total),
		cmocka_unit_test(declared_kinds_head_an_empty_profile),
	};

	return cmocka_run_group_tests_name("profile", tests, NULL, NULL);
}
