// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* analysis/report.c, report_write.c, filter.c and util/json.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/filter.h"
#include "analysis/report.h"
#include "util/json.h"
#include "util/termsafe.h"

static struct profile *folded(const char *text)
{
	struct profile *p = profile__new();
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_int_equal(profile__read_folded(p, f, PROFILE_KIND_ONCPU, NULL), 0);
	fclose(f);
	return p;
}

static struct report *report_of(const struct profile *p, size_t top_n)
{
	struct report_opts o = { .kind = PROFILE_KIND_ONCPU, .top_n = top_n, .source = "t" };
	struct report *r;

	assert_int_equal(report__new(p, &o, &r), 0);
	return r;
}

static char *text_of(const struct report *r, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(json ? report__write_json(r, f) : report__write_text(r, f), 0);
	fclose(f);
	return buf;
}

static const char *name(const struct report *r, uint32_t id)
{
	return profile__frame(r->p, id)->name;
}

/*
 * record --off-cpu --wakers stacks go on past the block with who woke it;
 * the waker's outermost frame is the leaf, but the time was spent blocked:
 * its self weight goes to the frame before "--", as without --wakers (#29:
 * the report named asm_sysvec_apic_timer_interrupt_[k]_[w] the hottest).
 */
static void waker_frames_are_never_the_hottest(void **state)
{
	struct profile *p = folded(
		"app;main;nanosleep_[k];[sleep];--;try_to_wake_up_[k]_[w];"
		"asm_sysvec_apic_timer_interrupt_[k]_[w] 60\n"
		"app;main;wait;futex_wait_[k];[futex];--;try_to_wake_up_[k]_[w];"
		"signal_[w];[waker app-7 pid 7]_[w] 30\n"
		"app;main;wait;futex_wait_[k];[futex] 5\n"
		"app;worker;--_[w] 5\n");
	struct report *r = report_of(p, 0);
	char *text;

	(void)state;
	assert_int_equal(r->total, 100);
	assert_true(r->has_hottest);
	assert_string_equal(name(r, r->by_self[0].frame), "[sleep]");
	assert_int_equal(r->by_self[0].self, 60);
	assert_string_equal(name(r, r->by_self[1].frame), "[futex]");
	assert_int_equal(r->by_self[1].self, 35);
	/* a stack of waker frames alone above its root: the last other frame */
	assert_string_equal(name(r, r->by_self[2].frame), "worker");
	assert_int_equal(r->by_self[2].self, 5);
	for (size_t i = 0; i < r->nr_frames; i++) {
		const struct profile_frame *f = profile__frame(p, r->by_self[i].frame);

		if (f->flags & FRAME_F_WAKER)
			assert_int_equal(r->by_self[i].self, 0);
		/* waker frames keep their inclusive weight */
		if ((f->flags & FRAME_F_WAKER) && !strcmp(f->name, "try_to_wake_up"))
			assert_int_equal(r->by_self[i].inclusive, 90);
	}
	text = text_of(r, false);
	assert_non_null(strstr(text, "hottest: [sleep] 60.00% self"));
	free(text);
	report__free(r);
	profile__free(p);
}

static void tables_are_ordered_by_self_and_by_inclusive(void **state)
{
	struct profile *p = folded("app;main;a 5\napp;main;b 3\napp;main 2\n");
	struct report *r = report_of(p, 0);

	(void)state;
	assert_int_equal(r->total, 10);
	assert_int_equal(r->nr_frames, 4);
	assert_string_equal(name(r, r->by_self[0].frame), "a");
	assert_string_equal(name(r, r->by_self[1].frame), "b");
	assert_string_equal(name(r, r->by_self[2].frame), "main");
	assert_string_equal(name(r, r->by_incl[0].frame), "app");	/* tie: name asc */
	assert_string_equal(name(r, r->by_incl[1].frame), "main");
	assert_int_equal(r->by_incl[1].inclusive, 10);
	report__free(r);
	profile__free(p);
}

static void hottest_frame_is_shown_with_its_share(void **state)
{
	struct profile *p = folded("app;a 1\napp;b 3\n");
	struct report *r = report_of(p, 10);
	char *t = text_of(r, false);

	(void)state;
	assert_true(r->has_hottest);
	assert_float_equal(r->hottest_pct, 75.0, 1e-9);
	assert_non_null(strstr(t, "hottest: b 75.00% self (3 samples)"));
	free(t);
	report__free(r);
	profile__free(p);
}

static void per_process_totals_sum_the_root_frames(void **state)
{
	struct profile *p = folded("db;x 3\nweb;y 5\ndb;z 4\n");
	struct report *r = report_of(p, 0);

	(void)state;
	assert_int_equal(r->nr_procs, 2);
	assert_string_equal(name(r, r->procs[0].frame), "db");
	assert_int_equal(r->procs[0].weight, 7);
	assert_string_equal(name(r, r->procs[1].frame), "web");
	report__free(r);
	profile__free(p);
}

static void a_profile_without_a_frame_at_ten_percent_is_flat(void **state)
{
	char text[512] = "";
	struct profile *p;
	struct report *r;
	char *t;
	int i;

	(void)state;
	for (i = 0; i < 11; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "app;f%d 9\n", i);
	strcat(text, "app 1\n");	/* 100 samples, hottest 9% */
	p = folded(text);
	r = report_of(p, 5);
	t = text_of(r, false);
	assert_true(r->flat);
	assert_non_null(strstr(t, "profile is flat: no frame above 10% self"));
	free(t);
	report__free(r);
	profile__free(p);
}

static void a_frame_at_exactly_ten_percent_is_not_flat(void **state)
{
	struct profile *p = folded("app;hot 10\napp;rest 90\n");
	struct report *r = report_of(p, 5);

	(void)state;
	assert_false(r->flat);
	report__free(r);
	profile__free(p);
}

static void idle_frames_over_a_fifth_of_self_flag_a_contaminated_profile(void **state)
{
	/* 30% in a futex wait reached through kernel frames, 70% real work */
	struct profile *p = folded("pool;worker;futex_wait;entry_[k];__x64_sys_futex_[k] 30\n"
				   "pool;worker;compute 70\n");
	struct report *r = report_of(p, 5);
	char *t = text_of(r, false), *expr = report__idle_exclude(r);

	(void)state;
	assert_true(r->contaminated);
	assert_int_equal(r->idle_weight, 30);
	assert_int_equal(r->nr_idle, 1);
	assert_string_equal(name(r, r->idle[0].frame), "__x64_sys_futex");
	assert_non_null(strstr(t, "contaminated profile"));
	assert_non_null(strstr(t, "--exclude"));
	assert_string_equal(expr, "(^|;)(__x64_sys_futex)(_\\[[kjiw]\\])*(;|$)");
	free(expr);
	free(t);
	report__free(r);
	profile__free(p);
}

static void idle_frames_at_a_fifth_or_less_are_not_contamination(void **state)
{
	struct profile *p = folded("app;epoll_wait 20\napp;work 80\n");
	struct report *r = report_of(p, 5);

	(void)state;
	assert_int_equal(r->idle_weight, 20);
	assert_false(r->contaminated);
	report__free(r);
	profile__free(p);
}

static void only_leaf_side_frames_count_as_idle(void **state)
{
	/* a frame named poll that calls work: the user leaf is work, so it is not idle */
	struct profile *p = folded("app;poll;work 50\napp;napi_poll 50\n");
	struct report *r = report_of(p, 5);

	(void)state;
	assert_int_equal(r->idle_weight, 0);
	report__free(r);
	profile__free(p);
}

static void idle_patterns_know_the_common_waits(void **state)
{
	static const char *const idle[] = {
		"sched_yield", "futex_wait", "futex_wait_queue", "__futex_abstimed_wait_common",
		"__x64_sys_futex", "epoll_wait", "__GI_epoll_wait", "poll", "select",
		"nanosleep", "clock_nanosleep", "pthread_cond_wait", "__pthread_cond_wait",
		"___pthread_cond_timedwait64", "std::sys::unix::futex::futex_wait",
	};
	static const char *const busy[] = { "napi_poll", "memcpy", "__lll_lock_wait",
					    "epoll_ctl", "futex_wake" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(idle) / sizeof(idle[0]); i++)
		assert_true(report_is_idle_frame(idle[i]));
	for (i = 0; i < sizeof(busy) / sizeof(busy[0]); i++)
		assert_false(report_is_idle_frame(busy[i]));
}

static void the_suggested_exclude_removes_the_idle_stacks(void **state)
{
	struct profile *p = folded("app;poll 60\napp;do;work 40\napp;x.poll 5\n"), *q;
	struct report *r = report_of(p, 5);
	char *expr = report__idle_exclude(r);
	struct stack_filter f;

	(void)state;
	assert_int_equal(stack_filter__init(&f, NULL, expr), 0);
	assert_int_equal(stack_filter__apply(&f, p, &q), 0);
	/* "x.poll" survives: the dot is escaped and the frame must match whole */
	assert_int_equal(profile__total(q, PROFILE_KIND_ONCPU), 45);
	stack_filter__release(&f);
	profile__free(q);
	free(expr);
	report__free(r);
	profile__free(p);
}

static void grep_keeps_and_exclude_drops_whole_stacks(void **state)
{
	struct profile *p = folded("app;a;x 1\napp;b;x 2\napp;a;y 4\n"), *q;
	struct stack_filter f;

	(void)state;
	assert_int_equal(stack_filter__init(&f, ";a;", "y$"), 0);
	assert_true(stack_filter__active(&f));
	assert_int_equal(stack_filter__apply(&f, p, &q), 0);
	assert_int_equal(profile__total(q, PROFILE_KIND_ONCPU), 1);
	stack_filter__release(&f);
	profile__free(q);
	profile__free(p);
}

static void a_bad_regular_expression_is_refused(void **state)
{
	struct stack_filter f;

	(void)state;
	assert_int_equal(stack_filter__init(&f, "(", NULL), -EINVAL);
	assert_int_equal(stack_filter__init(&f, NULL, "[z-a]"), -EINVAL);
	stack_filter__release(&f);
}

static void an_empty_profile_reports_no_hottest_frame(void **state)
{
	struct profile *p = profile__new();
	struct report *r = report_of(p, 5);
	char *t = text_of(r, false), *j = text_of(r, true);

	(void)state;
	assert_false(r->has_hottest);
	assert_false(r->flat);
	assert_non_null(strstr(t, "hottest: none"));
	assert_non_null(strstr(j, "\"hottest\": null"));
	free(t);
	free(j);
	report__free(r);
	profile__free(p);
}

static void top_n_limits_the_rows(void **state)
{
	struct profile *p = folded("a;b 1\na;c 2\na;d 3\n");
	struct report *r = report_of(p, 1);
	char *t = text_of(r, false);

	(void)state;
	assert_non_null(strstr(t, "top 1 frames by self (of 4)"));
	assert_null(strstr(t, "  c\n"));
	free(t);
	report__free(r);
	profile__free(p);
}

static void json_has_the_report_fields(void **state)
{
	struct profile *p = folded("app;\"q\" 3\napp;b 1\n");
	struct report *r = report_of(p, 5);
	char *j = text_of(r, true);

	(void)state;
	assert_non_null(strstr(j, "\"total\": 4"));
	assert_non_null(strstr(j, "\"frame\": \"\\\"q\\\"\", \"self\": 3"));
	assert_non_null(strstr(j, "\"contaminated\": false"));
	assert_non_null(strstr(j, "\"processes\": ["));
	free(j);
	report__free(r);
	profile__free(p);
}

static void json_strings_escape_controls_and_replace_invalid_utf8(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(json_write_string(f, "a\"b\\c\n\x01\xc3\xa9\xff\xe2\x82"), 0);
	fclose(f);
	assert_string_equal(buf, "\"a\\\"b\\\\c\\u000a\\u0001\xc3\xa9\\ufffd\\ufffd\\ufffd\"");
	free(buf);
}

/* a process may name itself "\e]0;pwned\a": the text report shows it, never obeys it */
static void text_report_escapes_control_characters(void **state)
{
	struct profile *p = folded("ev\x1b]0;x\x07il;f\xc2\x9b" "2J;\xc3\xa9t\xe9 5\n");
	struct report *r = report_of(p, 10);
	char *t = text_of(r, false), buf[64];

	(void)state;
	for (const char *c = t; *c; c++)
		assert_false((*c > 0 && *c < 0x20 && *c != '\n') || *c == 0x7f);
	/* ';' splits the escape sequence into frames, each shown escaped */
	assert_non_null(strstr(t, "  ev\\x1b]0\n"));
	assert_non_null(strstr(t, "  x\\x07il\n"));
	assert_non_null(strstr(t, "f\\x9b2J"));
	/* UTF-8 and other high bytes pass */
	assert_non_null(strstr(t, "\xc3\xa9t\xe9"));
	assert_string_equal(termsafe_str("a\tb\x9b", buf, sizeof(buf)), "a\\x09b\\x9b");
	assert_string_equal(termsafe_str("abcdef", buf, 4), "abc");
	free(t);
	report__free(r);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tables_are_ordered_by_self_and_by_inclusive),
		cmocka_unit_test(hottest_frame_is_shown_with_its_share),
		cmocka_unit_test(per_process_totals_sum_the_root_frames),
		cmocka_unit_test(a_profile_without_a_frame_at_ten_percent_is_flat),
		cmocka_unit_test(a_frame_at_exactly_ten_percent_is_not_flat),
		cmocka_unit_test(idle_frames_over_a_fifth_of_self_flag_a_contaminated_profile),
		cmocka_unit_test(idle_frames_at_a_fifth_or_less_are_not_contamination),
		cmocka_unit_test(only_leaf_side_frames_count_as_idle),
		cmocka_unit_test(idle_patterns_know_the_common_waits),
		cmocka_unit_test(the_suggested_exclude_removes_the_idle_stacks),
		cmocka_unit_test(grep_keeps_and_exclude_drops_whole_stacks),
		cmocka_unit_test(a_bad_regular_expression_is_refused),
		cmocka_unit_test(an_empty_profile_reports_no_hottest_frame),
		cmocka_unit_test(top_n_limits_the_rows),
		cmocka_unit_test(text_report_escapes_control_characters),
		cmocka_unit_test(json_has_the_report_fields),
		cmocka_unit_test(waker_frames_are_never_the_hottest),
		cmocka_unit_test(json_strings_escape_controls_and_replace_invalid_utf8),
	};

	return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
