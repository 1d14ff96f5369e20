// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* pmu/events.c sampling-event names and pmu/sample_open.c attributes (record -e/-c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "pmu/sample_open.h"

static void software_names_and_aliases(void **state)
{
	struct pmu_sample_event e;

	assert_int_equal(pmu_sample_event_parse("page-faults", &e), 0);
	assert_int_equal(e.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(e.config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_false(e.clock);
	assert_false(e.hardware);
	assert_int_equal(pmu_sample_event_parse("faults", &e), 0);
	assert_string_equal(e.name, "page-faults");	/* the alias is canonicalized */
	assert_int_equal(pmu_sample_event_parse("cs", &e), 0);
	assert_int_equal(e.config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	assert_int_equal(pmu_sample_event_parse("minor-faults", &e), 0);
	assert_int_equal(e.config, PERF_COUNT_SW_PAGE_FAULTS_MIN);
	assert_int_equal(pmu_sample_event_parse("major-faults", &e), 0);
	assert_int_equal(e.config, PERF_COUNT_SW_PAGE_FAULTS_MAJ);
	assert_int_equal(pmu_sample_event_parse("migrations", &e), 0);
	assert_int_equal(e.config, PERF_COUNT_SW_CPU_MIGRATIONS);
	assert_int_equal(pmu_sample_event_parse("cpu-clock", &e), 0);
	assert_true(e.clock);
	/* every listed name parses */
	for (size_t i = 0; pmu_sample_event_names[i]; i++)
		assert_int_equal(pmu_sample_event_parse(pmu_sample_event_names[i], &e), 0);
}

static void hardware_and_raw(void **state)
{
	struct pmu_sample_event e;

	assert_int_equal(pmu_sample_event_parse("branch-misses", &e), 0);
	assert_int_equal(e.type, PERF_TYPE_HARDWARE);
	assert_int_equal(e.config, PERF_COUNT_HW_BRANCH_MISSES);
	assert_true(e.hardware);
	assert_int_equal(pmu_sample_event_parse("cpu-cycles", &e), 0);
	assert_string_equal(e.name, "cycles");
	assert_int_equal(pmu_sample_event_parse("r01c4", &e), 0);
	assert_int_equal(e.type, PERF_TYPE_RAW);
	assert_int_equal(e.config, 0x1c4);
	assert_int_equal(pmu_sample_event_parse("rC5", &e), 0);
	assert_int_equal(e.config, 0xc5);
	assert_int_equal(pmu_sample_event_parse("rffffffffffffffff", &e), 0);
	assert_int_equal(e.config, UINT64_MAX);
}

static void bad_names(void **state)
{
	struct pmu_sample_event e;
	const char *bad[] = { "", "r", "rxyz", "r1g", "r10000000000000000", "page-fault",
			      "Page-faults", "cycles ", "bogus", "0x1c4" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(pmu_sample_event_parse(bad[i], &e), -EINVAL);
}

static void periods_and_attrs(void **state)
{
	struct pmu_sample_event e;
	struct perf_event_attr a;

	assert_int_equal(pmu_sample_event_parse("page-faults", &e), 0);
	assert_int_equal(pmu_sample_default_period(&e), 1);
	pmu_sample_attr(&a, &e, 1, 99);
	assert_int_equal(a.freq, 0);
	assert_int_equal(a.sample_period, 1);
	assert_int_equal(a.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(pmu_sample_event_parse("cache-misses", &e), 0);
	assert_int_equal(pmu_sample_default_period(&e), 100003);
	assert_int_equal(pmu_sample_event_parse("task-clock", &e), 0);
	assert_int_equal(pmu_sample_default_period(&e), 0);
	pmu_sample_attr(&a, &e, 0, 99);
	assert_int_equal(a.freq, 1);
	assert_int_equal(a.sample_freq, 99);
	assert_int_equal(a.config, PERF_COUNT_SW_TASK_CLOCK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(software_names_and_aliases),
		cmocka_unit_test(hardware_and_raw),
		cmocka_unit_test(bad_names),
		cmocka_unit_test(periods_and_attrs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
