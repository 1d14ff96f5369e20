// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* pmu/groups.c: counters from recorded CPUID values; ratio pairs packed into groups no larger. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "analysis/counters_drill.h"
#include "pmu/groups.h"

static void counters_come_from_cpuid(void **state)
{
	(void)state;
	/* Skylake with HT: leaf 0xA EAX 0x07300404 (version 4, 4 counters, 48 bits) */
	assert_int_equal(pmu_counters_from_cpuid(true, 6, 0x07300404, 0), 4);
	/* Ice Lake server without HT: 8 counters */
	assert_int_equal(pmu_counters_from_cpuid(true, 6, 0x07300805, 0), 8);
	/* Zen 4 with PerfMonV2: EBX[3:0] = 6; Zen 2 without it: the family's 6; older AMD: 4 */
	assert_int_equal(pmu_counters_from_cpuid(false, 0x19, 0, 0x46), 6);
	assert_int_equal(pmu_counters_from_cpuid(false, 0x17, 0, 0), 6);
	assert_int_equal(pmu_counters_from_cpuid(false, 0x15, 0, 0), 4);
	/* a guest without a virtual PMU: 0, which the caller turns into the fallback */
	assert_int_equal(pmu_counters_from_cpuid(true, 6, 0, 0), 0);
}

static void this_machine_has_a_usable_bound(void **state)
{
	struct pmu_nr_counters c;

	(void)state;
	pmu_nr_counters(&c);
	assert_true(c.n >= 2 && c.n <= 32);
	assert_non_null(c.source);
}

static void pairs_share_a_group_and_no_group_exceeds_the_counters(void **state)
{
	/* the Arm cache mode's ratios: e0/e1, e2/e0, e3/e4, e5/e3, e6/e7, e8/e9 */
	const size_t a[] = { 1, 2, 4, 5, 6, 8 }, b[] = { 0, 1, 3, 4, 7, 9 };
	unsigned int g[10], size[10] = { 0 };
	size_t ng = pmu_pack_pairs(a, b, 6, 10, 4, g);

	(void)state;
	for (size_t e = 0; e < 10; e++)
		size[g[e]]++;
	for (size_t i = 0; i < ng; i++)
		assert_true(size[i] <= 4 && size[i] >= 1);
	assert_int_equal(g[0], g[1]);	/* l1d refill / l1d */
	assert_int_equal(g[3], g[4]);
	assert_int_equal(g[6], g[7]);
	assert_int_equal(g[8], g[9]);
	/* e2 joins e1's group (room); e5 joins e4's group (room) */
	assert_int_equal(g[2], g[1]);
	assert_int_equal(g[5], g[4]);
	assert_int_equal(ng, 3);
	/* two counters: every pair alone, the chained ones apart */
	ng = pmu_pack_pairs(a, b, 6, 10, 2, g);
	memset(size, 0, sizeof(size));
	for (size_t e = 0; e < 10; e++)
		size[g[e]]++;
	for (size_t i = 0; i < ng; i++)
		assert_true(size[i] <= 2);
	assert_int_equal(g[0], g[1]);
	assert_int_equal(g[8], g[9]);
}

static void every_event_gets_a_group(void **state)
{
	const size_t a[] = { 0 }, b[] = { 0 };	/* a ratio of one event with itself */
	unsigned int g[3];

	(void)state;
	assert_int_equal(pmu_pack_pairs(a, b, 1, 3, 4, g), 3);
	assert_int_equal(g[0], 0);
	assert_int_equal(g[1], 1);	/* in no pair: groups of their own */
	assert_int_equal(g[2], 2);
}

static void drill_pairs_index_the_event_list(void **state)
{
	const char *names[DRILL_MAX_EVENTS];
	size_t num[DRILL_MAX_METRICS], den[DRILL_MAX_METRICS];
	size_t n = drill_events(DRILL_CACHE, DRILL_X86, names);
	size_t np = drill_pairs(DRILL_CACHE, DRILL_X86, names, n, num, den);

	(void)state;
	/* x86 has 3 cache/TLB ratios with generic events: L1d, dTLB, iTLB */
	assert_int_equal(np, 3);
	assert_string_equal(names[num[0]], "L1-dcache-load-misses");
	assert_string_equal(names[den[0]], "L1-dcache-loads");
	n = drill_events(DRILL_CACHE, DRILL_ARM, names);
	assert_int_equal(drill_pairs(DRILL_CACHE, DRILL_ARM, names, n, num, den), 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counters_come_from_cpuid),
		cmocka_unit_test(this_machine_has_a_usable_bound),
		cmocka_unit_test(pairs_share_a_group_and_no_group_exceeds_the_counters),
		cmocka_unit_test(every_event_gets_a_group),
		cmocka_unit_test(drill_pairs_index_the_event_list),
	};

	return cmocka_run_group_tests_name("pmu_groups", tests, NULL, NULL);
}
