// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* analysis/counters_drill.c: every ratio, band and verdict from recorded counter values, Arm and x86. */
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

#include "analysis/counters_drill.h"

struct rec {
	const char *name;
	double v, running;
};

static bool look(void *ctx, const char *name, double *v, double *running)
{
	for (const struct rec *r = ctx; r->name; r++)
		if (!strcmp(r->name, name)) {
			*v = r->v;
			*running = r->running;
			return true;
		}
	return false;
}

static const struct drill_row *row(const struct drill_row *rows, size_t nr, const char *name)
{
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(rows[i].m->name, name))
			return &rows[i];
	fail_msg("no row %s", name);
	return NULL;
}

/* A Neoverse N1 run of a pointer chase (recorded shape): L1d and dTLB bad, iTLB fine. */
static const struct rec neoverse[] = {
	{ "l1d_cache", 1e9, 1 },	  { "l1d_cache_refill", 1.5e8, 1 },	/* 15%: investigate */
	{ "l1d_cache_lmiss_rd", 6e7, 1 },	/* 40% of refills: watch */
	{ "l2d_cache", 2e8, 0.5 },	  { "l2d_cache_refill", 1e7, 0.5 },	/* 5%: healthy */
	{ "l2d_cache_lmiss_rd", 5e6, 0.5 },	/* 50%: investigate */
	{ "mem_access", 1e9, 1 },	  { "dtlb_walk", 3e7, 1 },		/* 3%: investigate */
	{ "l1i_cache", 5e8, 1 },	  { "itlb_walk", 1e5, 1 },		/* 0.02%: healthy */
	{ "br_pred", 2e8, 1 },		  { "br_mis_pred", 6e6, 1 },		/* 3%: watch */
	{ "br_retired", 1.5e8, 1 },	  { "br_mis_pred_retired", 1e6, 1 },	/* 0.67%: healthy */
	{ "inst_retired", 1e9, 1 },	/* density 15%: healthy */
	{ NULL, 0, 0 },
};

static void arm_cache(void **state)
{
	struct drill_row rows[DRILL_MAX_METRICS];
	size_t nr = drill_compute(DRILL_CACHE, DRILL_ARM, look, (void *)neoverse, rows);

	assert_int_equal(nr, 6);
	assert_int_equal(row(rows, nr, "L1d miss rate")->verdict, DRILL_INVESTIGATE);
	assert_true(fabs(row(rows, nr, "L1d miss rate")->value - 0.15) < 1e-12);
	assert_int_equal(row(rows, nr, "L1d->L2 miss")->verdict, DRILL_WATCH);
	assert_int_equal(row(rows, nr, "L2 miss rate")->verdict, DRILL_HEALTHY);
	assert_true(row(rows, nr, "L2 miss rate")->running == 0.5);	/* multiplexed */
	assert_int_equal(row(rows, nr, "L2->LLC/DRAM")->verdict, DRILL_INVESTIGATE);
	assert_int_equal(row(rows, nr, "dTLB miss")->verdict, DRILL_INVESTIGATE);
	assert_int_equal(row(rows, nr, "iTLB miss")->verdict, DRILL_HEALTHY);
}

static void arm_branches(void **state)
{
	struct drill_row rows[DRILL_MAX_METRICS];
	size_t nr = drill_compute(DRILL_BRANCHES, DRILL_ARM, look, (void *)neoverse, rows);

	assert_int_equal(nr, 3);
	assert_int_equal(row(rows, nr, "speculative mispredict")->verdict, DRILL_WATCH);
	assert_int_equal(row(rows, nr, "retired mispredict")->verdict, DRILL_HEALTHY);
	assert_int_equal(row(rows, nr, "branch density")->verdict, DRILL_HEALTHY);
	assert_true(fabs(row(rows, nr, "branch density")->value - 0.15) < 1e-12);
}

/* x86 (Intel or AMD through perf's generic events): the Arm-only ratios are not available. */
static void x86(void **state)
{
	static const struct rec skx[] = {
		{ "L1-dcache-loads", 1e9, 0.8 }, { "L1-dcache-load-misses", 8e7, 0.8 },	/* 8% watch */
		{ "dTLB-loads", 1e9, 1 },	  { "dTLB-load-misses", 1e6, 1 },	/* 0.1% */
		{ "iTLB-loads", 1e7, 1 },	  { "iTLB-load-misses", 2e5, 1 },	/* 2% */
		{ "branches", 3.5e8, 1 },	  { "branch-misses", 1.4e7, 1 },	/* 4% */
		{ "instructions", 1e9, 1 },	/* density 35% */
		{ NULL, 0, 0 },
	};
	struct drill_row rows[DRILL_MAX_METRICS];
	size_t nr = drill_compute(DRILL_CACHE, DRILL_X86, look, (void *)skx, rows);

	assert_int_equal(row(rows, nr, "L1d miss rate")->verdict, DRILL_WATCH);
	assert_int_equal(row(rows, nr, "L2 miss rate")->verdict, DRILL_NA);
	assert_string_equal(row(rows, nr, "L2 miss rate")->why, "no generic x86 event");
	assert_int_equal(row(rows, nr, "dTLB miss")->verdict, DRILL_HEALTHY);
	assert_int_equal(row(rows, nr, "iTLB miss")->verdict, DRILL_INVESTIGATE);
	nr = drill_compute(DRILL_BRANCHES, DRILL_X86, look, (void *)skx, rows);
	assert_int_equal(row(rows, nr, "retired mispredict")->verdict, DRILL_INVESTIGATE);
	assert_int_equal(row(rows, nr, "branch density")->verdict, DRILL_INVESTIGATE);
	assert_int_equal(row(rows, nr, "speculative mispredict")->verdict, DRILL_NA);
}

/* Band edges: exactly at a threshold is "watch" (healthy is strictly below, investigate above). */
static void band_edges(void **state)
{
	static const struct rec edge[] = {
		{ "branches", 100, 1 }, { "branch-misses", 1, 1 }, { "instructions", 1000, 1 },
		{ NULL, 0, 0 },
	};
	static const struct rec none[] = { { "branches", 0, 1 }, { "branch-misses", 0, 1 },
					   { NULL, 0, 0 } };
	struct drill_row rows[DRILL_MAX_METRICS];
	size_t nr = drill_compute(DRILL_BRANCHES, DRILL_X86, look, (void *)edge, rows);

	assert_int_equal(row(rows, nr, "retired mispredict")->verdict, DRILL_WATCH);	/* 1% */
	assert_int_equal(row(rows, nr, "branch density")->verdict, DRILL_HEALTHY);	/* 10% */
	/* no PMU: nothing counted, so nothing is a 0 */
	nr = drill_compute(DRILL_BRANCHES, DRILL_X86, look, (void *)none, rows);
	assert_int_equal(row(rows, nr, "retired mispredict")->verdict, DRILL_NA);
	assert_string_equal(row(rows, nr, "retired mispredict")->why, "denominator 0");
	assert_int_equal(row(rows, nr, "branch density")->verdict, DRILL_NA);
	assert_string_equal(row(rows, nr, "branch density")->why, "instructions");
}

static void names_and_events(void **state)
{
	const char *names[DRILL_MAX_EVENTS];
	enum drill_mode m;

	assert_int_equal(drill_mode_parse("cache", &m), 0);
	assert_int_equal(m, DRILL_CACHE);
	assert_int_equal(drill_mode_parse("tlb", &m), 0);
	assert_int_equal(drill_mode_parse("branches", &m), 0);
	assert_int_equal(m, DRILL_BRANCHES);
	assert_int_equal(drill_mode_parse("topdown2", &m), -EINVAL);
	/* distinct events: l1d_cache_refill is shared by three ratios */
	assert_int_equal(drill_events(DRILL_CACHE, DRILL_ARM, names), 10);
	assert_int_equal(drill_events(DRILL_BRANCHES, DRILL_ARM, names), 5);
	assert_int_equal(drill_events(DRILL_CACHE, DRILL_X86, names), 6);
	assert_int_equal(drill_events(DRILL_BRANCHES, DRILL_X86, names), 3);
}

static void text_output(void **state)
{
	struct drill_row rows[DRILL_MAX_METRICS];
	size_t nr = drill_compute(DRILL_CACHE, DRILL_ARM, look, (void *)neoverse, rows), len = 0;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(drill_write_text(f, DRILL_CACHE, rows, nr), 0);
	fclose(f);
	assert_non_null(strstr(buf, "15.00%"));
	assert_non_null(strstr(buf, "investigate: struct layout"));
	assert_non_null(strstr(buf, "( 50.0%)"));
	free(buf);
}

static void json_output(void **state)
{
	struct drill_row rows[DRILL_MAX_METRICS];
	static const struct rec partial[] = {	/* x86 without the dTLB events */
		{ "L1-dcache-loads", 1e9, 1 }, { "L1-dcache-load-misses", 2e7, 0.5 }, { NULL, 0, 0 },
	};
	size_t nr = drill_compute(DRILL_CACHE, DRILL_X86, look, (void *)partial, rows), len = 0;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(drill_write_json(f, DRILL_CACHE, rows, nr, NULL), 0);
	fclose(f);
	assert_non_null(strstr(buf, "{\"mode\":\"cache\",\"available\":true,\"metrics\":[{\"name\":"
				    "\"L1d miss rate\",\"value\":0.020000,\"running\":0.5000,"
				    "\"healthy_below\":0.05,\"investigate_above\":0.1,"
				    "\"verdict\":\"healthy\""));
	/* a ratio whose events were not counted is null with its reason, never 0 */
	assert_non_null(strstr(buf, "\"name\":\"dTLB miss\",\"value\":null,\"running\":null"));
	assert_non_null(strstr(buf, "\"verdict\":\"not available\",\"why\":\""));
	assert_int_equal(buf[len - 1], '}');
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(drill_write_json(f, DRILL_BRANCHES, rows, 0, "no hardware PMU"), 0);
	fclose(f);
	assert_string_equal(buf, "{\"mode\":\"branches\",\"available\":false,\"why\":\"no hardware "
				 "PMU\",\"metrics\":[]}");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(arm_cache),	cmocka_unit_test(arm_branches),
		cmocka_unit_test(x86),		cmocka_unit_test(band_edges),
		cmocka_unit_test(names_and_events), cmocka_unit_test(text_output),
		cmocka_unit_test(json_output),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
