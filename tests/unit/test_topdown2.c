// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* analysis/topdown2.c: level 2 of each method from recorded counts; NaN, never 0, when not measured. */
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

#include "analysis/counters.h"
#include "analysis/topdown2.h"

#define EPS 1e-9

/* A Sapphire Rapids run of a pointer chase (recorded shape): backend-bound, mostly memory. */
static void intel_metrics_split_each_category(void **state)
{
	/* retiring, bad-spec, fe-bound, be-bound, heavy-ops, br-mispredict, fetch-lat, mem-bound */
	const double v[] = { 200, 50, 150, 600, 20, 40, 100, 450 };
	struct topdown l1 = { .retiring = 0.2, .bad_spec = 0.05, .frontend = 0.15, .backend = 0.6 };
	struct topdown2 t;

	(void)state;
	assert_int_equal(topdown2_compute(TOPDOWN2_INTEL_METRICS, &l1, v, 8, 0, &t), 0);
	assert_float_equal(t.heavy_ops, 0.02, EPS);
	assert_float_equal(t.light_ops, 0.18, EPS);
	assert_float_equal(t.br_mispredict, 0.04, EPS);
	assert_float_equal(t.machine_clears, 0.01, EPS);
	assert_float_equal(t.fetch_latency, 0.10, EPS);
	assert_float_equal(t.fetch_bandwidth, 0.05, EPS);
	assert_float_equal(t.memory_bound, 0.45, EPS);
	assert_float_equal(t.core_bound, 0.15, EPS);
	assert_non_null(strstr(topdown2_focus(&l1, &t), "memory bound"));
	/* too few counts, or nothing counted */
	assert_int_equal(topdown2_compute(TOPDOWN2_INTEL_METRICS, &l1, v, 7, 0, &t), -EINVAL);
	assert_true(isnan(t.memory_bound));
}

/* A level-2 count above its parent (rounding, multiplexing) is clamped to it: halves stay >= 0. */
static void a_split_never_exceeds_its_parent(void **state)
{
	const double v[] = { 200, 50, 150, 600, 20, 90, 100, 700 };
	struct topdown l1 = { .retiring = 0.2, .bad_spec = 0.05, .frontend = 0.15, .backend = 0.6 };
	struct topdown2 t;

	(void)state;
	assert_int_equal(topdown2_compute(TOPDOWN2_INTEL_METRICS, &l1, v, 8, 0, &t), 0);
	assert_float_equal(t.br_mispredict, 0.05, EPS);
	assert_float_equal(t.machine_clears, 0, EPS);
	assert_float_equal(t.memory_bound, 0.6, EPS);
	assert_float_equal(t.core_bound, 0, EPS);
}

/* A Zen 4 run (recorded shape): frontend-bound by latency (an i-cache-missing interpreter). */
static void amd_zen_splits_by_its_ratios(void **state)
{
	/* ex_ret_ops, ucode ops, brn_misp, resyncs, no-op-from-FE cycles, cycles,
	 * not_complete, load_not_complete */
	const double v[] = { 3e9, 3e8, 8e6, 2e6, 2.5e8, 1e9, 4e8, 1e8 };
	struct topdown l1 = { .retiring = 0.5, .bad_spec = 0.05, .frontend = 0.35, .backend = 0.10 };
	struct topdown2 t;

	(void)state;
	assert_int_equal(topdown2_compute(TOPDOWN2_AMD_ZEN, &l1, v, 8, 6, &t), 0);
	assert_float_equal(t.heavy_ops, 0.05, EPS);		/* 10% of retired ops are microcode */
	assert_float_equal(t.light_ops, 0.45, EPS);
	assert_float_equal(t.br_mispredict, 0.04, EPS);	/* 80% of 5% */
	assert_float_equal(t.machine_clears, 0.01, EPS);
	assert_float_equal(t.fetch_latency, 0.25, EPS);	/* 2.5e8 of 1e9 cycles delivered nothing */
	assert_float_equal(t.fetch_bandwidth, 0.10, EPS);
	assert_float_equal(t.memory_bound, 0.025, EPS);	/* a quarter of 10% */
	assert_float_equal(t.core_bound, 0.075, EPS);
	assert_non_null(strstr(topdown2_focus(&l1, &t), "fetch latency"));
	assert_int_equal(topdown2_compute(TOPDOWN2_AMD_ZEN, &l1, v, 8, 0, &t), -EINVAL);
}

/* Neoverse V1 (recorded shape): backend stalls mostly on memory; no retiring/bad-spec split. */
static void arm_splits_stalls_by_their_memory_share(void **state)
{
	/* stall_frontend, stall_frontend_mem, stall_backend, stall_backend_mem (cycles) */
	const double v[] = { 1e8, 2.5e7, 6e8, 4.5e8 };
	struct topdown l1 = { .retiring = 0.3, .bad_spec = 0.02, .frontend = 0.08, .backend = 0.6 };
	struct topdown2 t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(topdown2_compute(TOPDOWN2_ARM, &l1, v, 4, 0, &t), 0);
	assert_float_equal(t.fetch_latency, 0.02, EPS);
	assert_float_equal(t.fetch_bandwidth, 0.06, EPS);
	assert_float_equal(t.memory_bound, 0.45, EPS);
	assert_float_equal(t.core_bound, 0.15, EPS);
	assert_true(isnan(t.light_ops) && isnan(t.br_mispredict));	/* not measured, not 0 */
	assert_non_null(strstr(topdown2_focus(&l1, &t), "memory bound"));
	f = open_memstream(&buf, &len);
	assert_int_equal(topdown2_write_json(f, &t), 0);
	fclose(f);
	assert_string_equal(buf, "{\"light_ops\":null,\"heavy_ops\":null,\"br_mispredict\":null,"
				 "\"machine_clears\":null,\"fetch_latency\":0.020000,"
				 "\"fetch_bandwidth\":0.060000,\"memory_bound\":0.450000,"
				 "\"core_bound\":0.150000}");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(topdown2_write_text(f, &t, ""), 0);
	fclose(f);
	assert_non_null(strstr(buf, "retiring not measured"));
	assert_non_null(strstr(buf, "backend = memory 45.0% + core 15.0%"));
	free(buf);
	/* a bad-speculation focus with no split measured: no level-2 focus named */
	l1 = (struct topdown){ .retiring = 0.3, .bad_spec = 0.5, .frontend = 0.1, .backend = 0.1 };
	assert_null(topdown2_focus(&l1, &t));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(intel_metrics_split_each_category),
		cmocka_unit_test(a_split_never_exceeds_its_parent),
		cmocka_unit_test(amd_zen_splits_by_its_ratios),
		cmocka_unit_test(arm_splits_stalls_by_their_memory_share),
	};

	return cmocka_run_group_tests_name("topdown2", tests, NULL, NULL);
}
