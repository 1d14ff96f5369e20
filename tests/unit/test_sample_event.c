// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* pmu/events.c sampling-event names and pmu/sample_open.c attributes (record -e/-c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* record -b: the branch stack of every taken user branch, on top of the sampling attr */
static void branch_stack_attr_is_any_user(void **state)
{
	struct pmu_sample_event e;
	struct perf_event_attr a;

	assert_int_equal(pmu_sample_event_parse("cycles", &e), 0);
	pmu_sample_attr(&a, &e, PMU_BRANCH_DEFAULT_PERIOD, 99);
	assert_int_equal(a.sample_type & PERF_SAMPLE_BRANCH_STACK, 0);
	pmu_sample_attr_branches(&a);
	assert_int_equal(a.sample_type & PERF_SAMPLE_BRANCH_STACK, PERF_SAMPLE_BRANCH_STACK);
	assert_int_equal(a.branch_sample_type, PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER);
	assert_int_equal(a.sample_period, 10000019);
	assert_int_equal(a.type, PERF_TYPE_HARDWARE);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* stat --mode names: generic, generic cache, raw, and an Arm PMU's sysfs event. */
static void resolve_counting_names(void **state)
{
	char root[] = "/tmp/hc-sysfs-XXXXXX", path[256];
	struct pmu_event_desc d;

	assert_int_equal(pmu_event_resolve("/nonexistent", "cycles", &d), 0);
	assert_int_equal(d.type, PERF_TYPE_HARDWARE);
	assert_int_equal(pmu_event_resolve("/nonexistent", "L1-dcache-load-misses", &d), 0);
	assert_int_equal(d.type, PERF_TYPE_HW_CACHE);
	assert_int_equal(d.config[0], PERF_COUNT_HW_CACHE_L1D |
			 PERF_COUNT_HW_CACHE_OP_READ << 8 | PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
	assert_int_equal(pmu_event_resolve("/nonexistent", "dTLB-loads", &d), 0);
	assert_int_equal(d.config[0], PERF_COUNT_HW_CACHE_DTLB);
	assert_int_equal(pmu_event_resolve("/nonexistent", "r03", &d), 0);
	assert_int_equal(d.type, PERF_TYPE_RAW);
	/* no PMU: a sysfs name is "not here", a path is not a name */
	assert_int_equal(pmu_event_resolve("/nonexistent", "l1d_cache_refill", &d), -ENOENT);
	assert_int_equal(pmu_event_resolve("/nonexistent", "../../etc/passwd", &d), -EINVAL);
	assert_int_equal(pmu_event_resolve("/nonexistent", "", &d), -EINVAL);

	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/armv8_pmuv3_0", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/armv8_pmuv3_0/events", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/armv8_pmuv3_0/format", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/armv8_pmuv3_0/type", root);
	write_file(path, "8\n");
	snprintf(path, sizeof(path), "%s/armv8_pmuv3_0/format/event", root);
	write_file(path, "config:0-15\n");
	snprintf(path, sizeof(path), "%s/armv8_pmuv3_0/events/l1d_cache_refill", root);
	write_file(path, "event=0x0003\n");
	assert_int_equal(pmu_event_resolve(root, "l1d_cache_refill", &d), 0);
	assert_int_equal(d.type, 8);
	assert_int_equal(d.config[0], 3);
	assert_int_equal(pmu_event_resolve(root, "l2d_cache", &d), -ENOENT);
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		assert_int_equal(system(cmd), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(software_names_and_aliases),
		cmocka_unit_test(hardware_and_raw),
		cmocka_unit_test(bad_names),
		cmocka_unit_test(periods_and_attrs),
		cmocka_unit_test(branch_stack_attr_is_any_user),
		cmocka_unit_test(resolve_counting_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
