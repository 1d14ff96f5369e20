// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * analysis/counters_stats.c: spread over runs, the JSON round trip, and the
 * A/B reasoning from recorded counter values (a PMU machine's and this
 * PMU-less one's).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/counters_stats.h"

/* One run: cycles, instructions, branches, branch-misses, LLC-load-misses, task-clock (ns). */
static void run(struct cstats *s, double cyc, double ins, double br, double bm, double llc,
		double tc, bool pmu)
{
	struct counters_row rows[] = {
		{ .name = "task-clock", .clock = true, .supported = true, .counted = true, .value = tc },
		{ .name = "page-faults", .supported = true, .counted = true, .value = 100 },
		{ .name = "cycles", .supported = pmu, .counted = pmu, .value = cyc },
		{ .name = "instructions", .supported = pmu, .counted = pmu, .value = ins },
		{ .name = "branches", .supported = pmu, .counted = pmu, .value = br },
		{ .name = "branch-misses", .supported = pmu, .counted = pmu, .value = bm },
		{ .name = "LLC-load-misses", .supported = pmu, .counted = pmu, .value = llc },
	};
	struct counters_snapshot snap = { .target = "'w'", .seconds = 1, .rows = rows, .nr = 7 };

	cstats_add(s, &snap);
}

static void spread(void **state)
{
	struct cstats s = { 0 };
	const struct cstats_counter *c;

	run(&s, 0, 0, 0, 0, 0, 2e9, false);
	run(&s, 0, 0, 0, 0, 0, 4e9, false);
	run(&s, 0, 0, 0, 0, 0, 6e9, false);
	cstats_finish(&s);
	assert_int_equal(s.runs, 3);
	c = cstats_find(&s, "task-clock");
	assert_non_null(c);
	assert_true(fabs(c->mean - 4e9) < 1);
	assert_true(fabs(c->stddev - 2e9) < 1);	/* sample sd of 2, 4, 6 */
	assert_true(c->min == 2e9 && c->max == 6e9);
	/* unsupported counters are absent, never zeros */
	assert_null(cstats_find(&s, "cycles"));
	assert_int_equal(s.nr, 2);
}

static void json_round_trip(void **state)
{
	struct cstats s = { 0 }, r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	run(&s, 1e9, 2e9, 4e8, 4e6, 1e6, 1e9, true);
	run(&s, 1.2e9, 2e9, 4e8, 4e6, 1e6, 1.2e9, true);
	cstats_finish(&s);
	assert_int_equal(cstats_write_json(f, &s), 0);
	fclose(f);
	assert_int_equal(cstats_parse_json(buf, &r), 0);
	assert_int_equal(r.runs, 2);
	assert_int_equal(r.nr, s.nr);
	for (size_t i = 0; i < s.nr; i++) {
		const struct cstats_counter *c = cstats_find(&r, s.c[i].name);

		assert_non_null(c);
		assert_true(fabs(c->mean - s.c[i].mean) <= 1e-6 * fabs(s.c[i].mean) + 1e-9);
		assert_true(fabs(c->stddev - s.c[i].stddev) <= 1e-6 * s.c[i].stddev + 1e-9);
		assert_int_equal(c->clock, s.c[i].clock);
	}
	free(buf);
}

/* What `stat --json` writes (one snapshot): nulls skipped, msec back to ns. */
static void parse_single_snapshot(void **state)
{
	const char *j = "{\"target\":\"'x'\",\"seconds\":0.1,\"interval_end\":null,\"pmu\":false,"
		"\"counters\":[{\"event\":\"task-clock\",\"unit\":\"msec\",\"value\":5.5,"
		"\"running\":1.0,\"status\":\"counted\"},{\"event\":\"page-faults\",\"unit\":\"\","
		"\"value\":2052,\"running\":1.0,\"status\":\"counted\"},{\"event\":\"cycles\","
		"\"unit\":\"\",\"value\":null,\"running\":null,\"status\":\"not supported\"}],"
		"\"derived\":{\"ipc\":null}}";
	struct cstats s;

	assert_int_equal(cstats_parse_json(j, &s), 0);
	assert_int_equal(s.runs, 1);
	assert_int_equal(s.nr, 2);
	assert_true(fabs(cstats_find(&s, "task-clock")->mean - 5.5e6) < 1e-3);
	assert_true(cstats_find(&s, "page-faults")->mean == 2052);
	assert_null(cstats_find(&s, "cycles"));
	assert_int_equal(cstats_parse_json("{\"counters\":[]}", &s), -EBADMSG);
	assert_int_equal(cstats_parse_json("not json", &s), -EBADMSG);
	assert_int_equal(cstats_parse_json("{\"counters\":[{\"event\":\"x\",\"value\":1", &s),
			 -EBADMSG);
}

static void compare_no_pmu(void **state)
{
	struct cstats a = { 0 }, b = { 0 };
	struct counters_model m;
	struct cstats_cmp c;

	counters_model_default(&m);
	for (int i = 0; i < 3; i++) {
		run(&a, 0, 0, 0, 0, 0, 1e9 + i * 1e7, false);
		run(&b, 0, 0, 0, 0, 0, 1e9 + i * 1e7, false);
	}
	/* b's page faults doubled by design */
	for (size_t i = 0; i < b.nr; i++)
		if (!strcmp(b.c[i].name, "page-faults"))
			b.c[i].mean = 200, b.c[i].min = b.c[i].max = 200;
	cstats_finish(&a);
	cstats_finish(&b);
	cstats_compare(&a, &b, &m, &c);
	assert_non_null(strstr(c.verdict, "no hardware PMU"));
	assert_non_null(strstr(c.verdict, "task-clock +0.0% (within the runs' spread)"));
	assert_non_null(strstr(c.verdict, "page-faults +100.0% (100 -> 200)"));
}

/* Recorded shape of a pointer-chasing regression: same instructions, LLC misses x4. */
/* B: 60% more cycles, same instructions, 4x the LLC misses (3 runs each). */
static void memory_ab(struct cstats *a, struct cstats *b, struct counters_model *m,
		      struct cstats_cmp *c)
{
	counters_model_default(m);
	for (int i = 0; i < 3; i++) {
		run(a, 1.00e9 + i * 1e6, 2.0e9, 4e8, 2e6, 1e6, 1e9, true);
		run(b, 1.60e9 + i * 1e6, 2.0e9, 4e8, 2e6, 4e6, 1.6e9, true);
	}
	cstats_finish(a);
	cstats_finish(b);
	cstats_compare(a, b, m, c);
}

static void compare_memory_class(void **state)
{
	struct cstats a = { 0 }, b = { 0 };
	struct counters_model m;
	struct cstats_cmp c;

	memory_ab(&a, &b, &m, &c);
	assert_non_null(strstr(c.verdict, "1. cycles +59.9%\n"));
	assert_non_null(strstr(c.verdict, "2. IPC 2.00 -> 1.25"));
	assert_non_null(strstr(c.verdict, "the memory class grew"));
	assert_null(strstr(c.verdict, "more instructions"));
}

static void compare_json(void **state)
{
	struct cstats a = { 0 }, b = { 0 };
	struct counters_model m;
	struct cstats_cmp c;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	memory_ab(&a, &b, &m, &c);
	f = open_memstream(&buf, &len);
	assert_int_equal(cstats_write_compare_json(f, &c, "A \"x\".json", "B.json"), 0);
	fclose(f);
	assert_non_null(strstr(buf, "{\"a\":\"A \\\"x\\\".json\",\"b\":\"B.json\",\"counters\":[{"));
	assert_non_null(strstr(buf, "{\"event\":\"cycles\",\"unit\":\"\",\"a\":1.001e+09,"
				    "\"b\":1.601e+09,\"delta_pct\":59.9401,\"noise\":"));
	assert_non_null(strstr(buf, "\"significant\":true}"));
	/* the verdict's lines, in order, each a string */
	assert_non_null(strstr(buf, "\"verdict\":[\"1. cycles +59.9%\",\"2. IPC 2.00 -> 1.25"));
	assert_memory_equal(buf + len - 3, "]}\n", 3);
	free(buf);
}

/* More work, same IPC: instructions rose with cycles; no stall class named. */
static void compare_more_instructions(void **state)
{
	struct cstats a = { 0 }, b = { 0 };
	struct counters_model m;
	struct cstats_cmp c;

	counters_model_default(&m);
	for (int i = 0; i < 3; i++) {
		run(&a, 1e9 + i * 1e6, 2e9 + i * 1e6, 4e8, 1e6, 1e5, 1e9, true);
		run(&b, 1.5e9 + i * 1e6, 3e9 + i * 1e6, 9e8, 1.5e6, 1.5e5, 1.5e9, true);
	}
	cstats_finish(&a);
	cstats_finish(&b);
	cstats_compare(&a, &b, &m, &c);
	assert_non_null(strstr(c.verdict, "more instructions: more work (branch density 20.0% -> 30.0%)"));
	assert_null(strstr(c.verdict, "IPC fell"));
}

/* Branch class: mispredicts x10 at the same instruction count. */
static void compare_branch_class(void **state)
{
	struct cstats a = { 0 }, b = { 0 };
	struct counters_model m;
	struct cstats_cmp c;

	counters_model_default(&m);
	for (int i = 0; i < 2; i++) {
		run(&a, 1e9 + i * 1e6, 2e9, 4e8, 2e6, 1e5, 1e9, true);
		run(&b, 1.4e9 + i * 1e6, 2e9, 4e8, 2e7, 1e5, 1.4e9, true);
	}
	cstats_finish(&a);
	cstats_finish(&b);
	cstats_compare(&a, &b, &m, &c);
	assert_non_null(strstr(c.verdict, "the branch-mispredict class grew"));
}

/* Single runs: a difference is reported but flagged as having no spread. */
static void compare_single_runs(void **state)
{
	struct cstats a = { 0 }, b = { 0 };
	struct counters_model m;
	struct cstats_cmp c;

	counters_model_default(&m);
	run(&a, 0, 0, 0, 0, 0, 1e9, false);
	run(&b, 0, 0, 0, 0, 0, 1.1e9, false);
	cstats_finish(&a);
	cstats_finish(&b);
	cstats_compare(&a, &b, &m, &c);
	assert_non_null(strstr(c.verdict, "single runs: no spread"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(spread),
		cmocka_unit_test(json_round_trip),
		cmocka_unit_test(parse_single_snapshot),
		cmocka_unit_test(compare_no_pmu),
		cmocka_unit_test(compare_memory_class),
		cmocka_unit_test(compare_json),
		cmocka_unit_test(compare_more_instructions),
		cmocka_unit_test(compare_branch_class),
		cmocka_unit_test(compare_single_runs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
