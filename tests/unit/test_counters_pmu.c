// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Counter plumbing without a PMU: multiplex scaling, group-read decoding,
 * sysfs format/event encoding on fixture trees shaped like the kernel's
 * (Intel Ice Lake and Skylake, AMD Zen 3/4/5, Arm Neoverse), /proc/cpuinfo
 * identity, and the top-down plan each machine gets. Fixture event strings
 * are modelled on what the kernel exports (arch/x86/events/intel/core.c,
 * the Arm PMUv3 driver); AMD codes are perf's amdzen4/amdzen5 JSON.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmu/counters.h"
#include "pmu/events.h"

static void half_running_doubles_the_count(void **state)
{
	double v;

	(void)state;
	assert_true(pmu_scale(1000, 2000, 1000, &v));
	assert_true(v == 2000);
	assert_true(pmu_scale(1000, 1000, 1000, &v));
	assert_true(v == 1000);
	/* counted during 62.35% of the time it was enabled */
	assert_true(pmu_scale(6235, 10000, 6235, &v));
	assert_true(v == 10000);
}

static void never_running_is_not_counted(void **state)
{
	double v = 42;

	(void)state;
	assert_false(pmu_scale(1000, 5000, 0, &v));
	assert_true(v == 0);
	assert_false(pmu_scale(0, 0, 0, &v));
}

static void scaling_does_not_overflow_64_bits(void **state)
{
	double v;

	(void)state;
	/* 1e18 x 2^40 overflows uint64; the result, 2e18, does not */
	assert_true(pmu_scale(1000000000000000000ull, 1ull << 40, 1ull << 39, &v));
	assert_true(v > 1.99e18 && v < 2.01e18);
}

static void group_read_is_decoded_by_id(void **state)
{
	/* nr, time_enabled, time_running, { value, id } x 3 */
	const uint64_t buf[] = { 3, 1000, 500, 11, 101, 22, 102, 33, 103 };
	const uint64_t ids[] = { 103, 101 };
	uint64_t val[2], en, run;

	(void)state;
	assert_int_equal(pmu_group_decode(buf, 9, ids, 2, val, &en, &run), 0);
	assert_int_equal(val[0], 33);
	assert_int_equal(val[1], 11);
	assert_int_equal(en, 1000);
	assert_int_equal(run, 500);
}

static void group_read_rejects_short_and_unknown(void **state)
{
	const uint64_t buf[] = { 3, 1000, 500, 11, 101, 22, 102, 33, 103 };
	const uint64_t missing[] = { 104 };
	uint64_t val, en, run;

	(void)state;
	assert_int_equal(pmu_group_decode(buf, 2, missing, 0, &val, &en, &run), -EINVAL);
	/* nr says 3 but only 2 pairs fit */
	assert_int_equal(pmu_group_decode(buf, 7, missing, 0, &val, &en, &run), -EINVAL);
	assert_int_equal(pmu_group_decode(buf, 9, missing, 1, &val, &en, &run), -ENOENT);
}

static void formats_parse_ranges_and_registers(void **state)
{
	struct pmu_format f;

	(void)state;
	assert_int_equal(pmu_format_parse("event", "config:0-7,32-35\n", &f), 0);
	assert_string_equal(f.name, "event");
	assert_int_equal(f.nr, 2);
	assert_int_equal(f.range[1].lo, 32);
	assert_int_equal(f.range[1].hi, 35);
	assert_int_equal(pmu_format_parse("any", "config:21", &f), 0);
	assert_int_equal(f.range[0].lo, 21);
	assert_int_equal(f.range[0].hi, 21);
	assert_int_equal(pmu_format_parse("ldlat", "config1:0-15", &f), 0);
	assert_int_equal(f.range[0].reg, 1);
	assert_int_equal(pmu_format_parse("x", "config:", &f), -EINVAL);
	assert_int_equal(pmu_format_parse("x", "config3:0-7", &f), -EINVAL);
	assert_int_equal(pmu_format_parse("x", "config:9-3", &f), -EINVAL);
	assert_int_equal(pmu_format_parse("x", "config:64", &f), -EINVAL);
	assert_int_equal(pmu_format_parse("x", "config:1-2,", &f), -EINVAL);
	assert_int_equal(pmu_format_parse("x", "0-7", &f), -EINVAL);
}

static void terms_encode_through_split_fields(void **state)
{
	struct pmu_format f[3];
	uint64_t cfg[3] = { 0, 0, 0 };

	(void)state;
	pmu_format_parse("event", "config:0-7,32-35", &f[0]);
	pmu_format_parse("umask", "config:8-15", &f[1]);
	pmu_format_parse("any", "config:21", &f[2]);
	/* AMD PMCx1A0 umask 0x1e: 0xa0 low, 0x1 into bits 32-35 */
	assert_int_equal(pmu_terms_encode("event=0x1a0,umask=0x1e", f, 3, cfg), 0);
	assert_true(cfg[0] == 0x100001ea0ull);
	memset(cfg, 0, sizeof(cfg));
	assert_int_equal(pmu_terms_encode("event=0x3c,any", f, 3, cfg), 0);
	assert_true(cfg[0] == (0x3c | 1u << 21));
	memset(cfg, 0, sizeof(cfg));
	assert_int_equal(pmu_terms_encode("config=0x1234,config1=7", f, 3, cfg), 0);
	assert_true(cfg[0] == 0x1234 && cfg[1] == 7);
	memset(cfg, 0, sizeof(cfg));
	assert_int_equal(pmu_terms_encode("umask=0x1ff", f, 3, cfg), -ERANGE);
	assert_int_equal(pmu_terms_encode("cmask=1", f, 3, cfg), -ENOENT);
	assert_int_equal(pmu_terms_encode("event=zz", f, 3, cfg), -EINVAL);
	assert_true(cfg[0] == 0);	/* untouched on error */
}

static void generic_table_names_perf_events(void **state)
{
	struct pmu_event_desc d;
	enum pmu_generic id;

	(void)state;
	assert_int_equal(pmu_generic_find("LLC-load-misses", &id), 0);
	assert_int_equal(id, PMU_G_LLC_LOAD_MISSES);
	assert_true(pmu_generic(id)->hardware);
	assert_int_equal(pmu_generic_find("task-clock", &id), 0);
	assert_true(pmu_generic(id)->clock && !pmu_generic(id)->hardware);
	assert_int_equal(pmu_generic_find("bogus", &id), -ENOENT);
	assert_null(pmu_generic(PMU_G_NR));
	pmu_generic_desc(PMU_G_CYCLES, &d);
	assert_string_equal(d.name, "cycles");
	assert_true(d.scale == 1.0);
}

/* ---- sysfs fixture trees ----------------------------------------------- */

static char root[PATH_MAX];

static void put(const char *rel, const char *content)
{
	char path[PATH_MAX * 2], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", content);
	fclose(f);
}

static int tree_setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/hc-sysfs.XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int tree_teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) ? -1 : 0;
}

static void intel_formats(const char *pmu)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "%s/type", pmu);
	put(rel, "4");
	snprintf(rel, sizeof(rel), "%s/format/event", pmu);
	put(rel, "config:0-7");
	snprintf(rel, sizeof(rel), "%s/format/umask", pmu);
	put(rel, "config:8-15");
	snprintf(rel, sizeof(rel), "%s/format/any", pmu);
	put(rel, "config:21");
	snprintf(rel, sizeof(rel), "%s/format/cmask", pmu);
	put(rel, "config:24-31");
}

static void no_pmu_directory_means_no_topdown(void **state)
{
	struct pmu_topdown_plan plan;
	char name[64];

	(void)state;
	put("software/type", "1");	/* what this VM has: software, tracepoint, ... */
	assert_int_equal(pmu_core_find(root, name, sizeof(name)), -ENOENT);
	assert_int_equal(pmu_topdown_plan(root, NULL, &plan), 0);
	assert_int_equal(plan.method, PMU_TD_NONE);
	assert_string_equal(plan.why, "no PMU");
}

static void icelake_gets_the_slots_group(void **state)
{
	struct pmu_cpu_id cpu = { PMU_VENDOR_INTEL, 6, 106, 0 };
	struct pmu_topdown_plan plan;
	char name[64];

	(void)state;
	intel_formats("cpu");
	put("cpu/events/slots", "event=0x00,umask=0x4");
	put("cpu/events/topdown-retiring", "event=0x00,umask=0x80");
	put("cpu/events/topdown-bad-spec", "event=0x00,umask=0x81");
	put("cpu/events/topdown-fe-bound", "event=0x00,umask=0x82");
	put("cpu/events/topdown-be-bound", "event=0x00,umask=0x83");
	assert_int_equal(pmu_core_find(root, name, sizeof(name)), 0);
	assert_string_equal(name, "cpu");
	assert_int_equal(pmu_topdown_plan(root, &cpu, &plan), 0);
	assert_int_equal(plan.method, PMU_TD_INTEL_METRICS);
	assert_int_equal(plan.nr, 5);
	assert_string_equal(plan.ev[0].name, "slots");	/* the leader */
	assert_int_equal(plan.ev[0].type, 4);
	assert_true(plan.ev[0].config[0] == 0x400);
	assert_true(plan.ev[1].config[0] == 0x8000);
	assert_true(plan.ev[4].config[0] == 0x8300);
	/* Ice Lake has no level-2 metrics: said, not zeros */
	assert_int_equal(plan.l2, PMU_TD2_NONE);
	assert_int_equal(plan.nr_l2, 0);
	assert_non_null(strstr(plan.l2_why, "does not name"));
}

static void sapphire_rapids_adds_level_two_to_the_slots_group(void **state)
{
	struct pmu_cpu_id cpu = { PMU_VENDOR_INTEL, 6, 143, 0 };
	struct pmu_topdown_plan plan;

	(void)state;
	icelake_gets_the_slots_group(state);
	put("cpu/events/topdown-heavy-ops", "event=0x00,umask=0x84");
	put("cpu/events/topdown-br-mispredict", "event=0x00,umask=0x85");
	put("cpu/events/topdown-fetch-lat", "event=0x00,umask=0x86");
	put("cpu/events/topdown-mem-bound", "event=0x00,umask=0x87");
	assert_int_equal(pmu_topdown_plan(root, &cpu, &plan), 0);
	assert_int_equal(plan.l2, PMU_TD2_INTEL_METRICS);
	assert_int_equal(plan.nr_l2, 4);
	assert_string_equal(plan.ev[5].name, "topdown-heavy-ops");
	assert_true(plan.ev[8].config[0] == 0x8700);
}

static void skylake_gets_the_4wide_events_with_their_scale(void **state)
{
	struct pmu_cpu_id cpu = { PMU_VENDOR_INTEL, 6, 85, 0 };
	struct pmu_topdown_plan plan;

	(void)state;
	intel_formats("cpu");
	/* with HT: "any" and scale 2 (two threads share a core's 4 slots) */
	put("cpu/events/topdown-total-slots", "event=0x3c,umask=0x0,any=1");
	put("cpu/events/topdown-total-slots.scale", "2");
	put("cpu/events/topdown-slots-issued", "event=0xe,umask=0x1");
	put("cpu/events/topdown-slots-retired", "event=0xc2,umask=0x2");
	put("cpu/events/topdown-fetch-bubbles", "event=0x9c,umask=0x1");
	put("cpu/events/topdown-recovery-bubbles", "event=0xd,umask=0x3,any=1,cmask=1");
	put("cpu/events/topdown-recovery-bubbles.scale", "2");
	assert_int_equal(pmu_topdown_plan(root, &cpu, &plan), 0);
	assert_int_equal(plan.method, PMU_TD_INTEL_4WIDE);
	assert_true(plan.ev[0].config[0] == (0x3c | 1u << 21));
	assert_true(plan.ev[0].scale == 2.0);
	assert_true(plan.ev[1].scale == 1.0);
	assert_true(plan.ev[4].config[0] == (0x0d | 0x300 | 1u << 21 | 1u << 24));
}

static void amd_formats(void)
{
	put("cpu/type", "4");
	put("cpu/format/event", "config:0-7,32-35");
	put("cpu/format/umask", "config:8-15");
}

static void zen4_gets_dispatch_slot_events_from_builtin_codes(void **state)
{
	struct pmu_cpu_id cpu = { PMU_VENDOR_AMD, 0x19, 0x11, 0 };
	struct pmu_topdown_plan plan;

	(void)state;
	amd_formats();
	assert_int_equal(pmu_topdown_plan(root, &cpu, &plan), 0);
	assert_int_equal(plan.method, PMU_TD_AMD_ZEN);
	assert_true(plan.slots_per_cycle == 6);
	assert_int_equal(plan.nr, 5);
	assert_int_equal(plan.nr_extra, 1);
	assert_true(plan.ev[0].config[0] == 0x76);
	assert_true(plan.ev[2].config[0] == 0x7aa);
	assert_true(plan.ev[4].config[0] == 0x100001ea0ull);
	assert_true(plan.ev[5].config[0] == 0x1000060a0ull);
	/* level 2 needs cmask, which this fake PMU's format does not have */
	assert_int_equal(plan.l2, PMU_TD2_NONE);
	assert_non_null(strstr(plan.l2_why, "cannot be encoded"));
	put("cpu/format/cmask", "config:24-31");
	assert_int_equal(pmu_topdown_plan(root, &cpu, &plan), 0);
	assert_int_equal(plan.l2, PMU_TD2_AMD_ZEN);
	assert_int_equal(plan.nr_l2, 6);
	assert_true(plan.ev[6].config[0] == 0x1000000c1ull);		/* ex_ret_ucode_ops */
	/* no op from the frontend in a whole cycle: cmask = the dispatch width */
	assert_true(plan.ev[9].config[0] == (0x1000001a0ull & ~0xf00ull) + 0x100 + (6u << 24));
	assert_true(plan.ev[11].config[0] == 0x2d6);
	cpu.family = 0x1a;	/* Zen 5: 8 slots */
	assert_int_equal(pmu_topdown_plan(root, &cpu, &plan), 0);
	assert_true(plan.slots_per_cycle == 8);
	assert_true((plan.ev[9].config[0] >> 24 & 0xff) == 8);
}

static void zen3_has_no_level_one(void **state)
{
	struct pmu_cpu_id cpu = { PMU_VENDOR_AMD, 0x19, 0x21, 0 };
	struct pmu_topdown_plan plan;

	(void)state;
	amd_formats();
	assert_int_equal(pmu_topdown_plan(root, &cpu, &plan), 0);
	assert_int_equal(plan.method, PMU_TD_NONE);
	assert_non_null(strstr(plan.why, "no top-down events"));
}

static void arm_events(bool slots)
{
	put("armv8_pmuv3_0/type", "8");
	put("armv8_pmuv3_0/format/event", "config:0-15");
	put("armv8_pmuv3_0/events/cpu_cycles", "event=0x0011");
	put("armv8_pmuv3_0/events/op_retired", "event=0x003a");
	put("armv8_pmuv3_0/events/op_spec", "event=0x003b");
	put("armv8_pmuv3_0/events/stall_frontend", "event=0x0023");
	put("armv8_pmuv3_0/events/stall_backend", "event=0x0024");
	if (slots) {
		put("armv8_pmuv3_0/events/stall_slot_backend", "event=0x003d");
		put("armv8_pmuv3_0/events/stall_slot_frontend", "event=0x003e");
		put("armv8_pmuv3_0/events/stall_slot", "event=0x003f");
		put("armv8_pmuv3_0/caps/slots", "0x00000008");
	}
}

static void neoverse_n1_uses_stall_cycles(void **state)
{
	struct pmu_cpu_id cpu = { PMU_VENDOR_ARM, 0, 0, 0xd0c };
	struct pmu_topdown_plan plan;
	char name[64];

	(void)state;
	arm_events(false);
	assert_int_equal(pmu_core_find(root, name, sizeof(name)), 0);
	assert_string_equal(name, "armv8_pmuv3_0");
	assert_int_equal(pmu_topdown_plan(root, &cpu, &plan), 0);
	assert_int_equal(plan.method, PMU_TD_ARM_CYCLES);
	assert_int_equal(plan.ev[3].type, 8);
	assert_true(plan.ev[3].config[0] == 0x23);
}

static void neoverse_v1_uses_stall_slots_and_caps(void **state)
{
	struct pmu_cpu_id cpu = { PMU_VENDOR_ARM, 0, 0, 0xd40 };
	struct pmu_topdown_plan plan;

	(void)state;
	arm_events(true);
	assert_int_equal(pmu_topdown_plan(root, &cpu, &plan), 0);
	assert_int_equal(plan.method, PMU_TD_ARM_SLOTS);
	assert_true(plan.slots_per_cycle == 8);
	assert_int_equal(plan.nr, 6);
	assert_true(plan.ev[5].config[0] == 0x3d);
	assert_int_equal(plan.l2, PMU_TD2_NONE);	/* no STALL_*_MEM named */
	put("armv8_pmuv3_0/events/stall_frontend_mem", "event=0x4004");
	put("armv8_pmuv3_0/events/stall_backend_mem", "event=0x4005");
	assert_int_equal(pmu_topdown_plan(root, &cpu, &plan), 0);
	assert_int_equal(plan.l2, PMU_TD2_ARM);
	assert_int_equal(plan.nr_l2, 4);
	assert_true(plan.ev[6].config[0] == 0x23 && plan.ev[9].config[0] == 0x4005);
}

static void unknown_pmu_events_say_why(void **state)
{
	struct pmu_topdown_plan plan;
	struct pmu_event_desc d;

	(void)state;
	intel_formats("cpu");
	put("cpu/events/cpu-cycles", "event=0x3c");
	assert_int_equal(pmu_topdown_plan(root, NULL, &plan), 0);
	assert_int_equal(plan.method, PMU_TD_NONE);
	assert_non_null(strstr(plan.why, "PMU 'cpu'"));
	assert_int_equal(pmu_sysfs_event(root, "cpu", "nope", &d), -ENOENT);
	assert_int_equal(pmu_sysfs_event(root, "cpu", "cpu-cycles", &d), 0);
	assert_true(d.config[0] == 0x3c);
}

static const char intel_cpuinfo[] =
	"processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 106\n"
	"model name\t: Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz\nstepping\t: 6\n\n"
	"processor\t: 1\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n";

static void cpuinfo_identifies_the_first_processor(void **state)
{
	struct pmu_cpu_id id;

	(void)state;
	assert_int_equal(pmu_cpu_identify(intel_cpuinfo, &id), 0);
	assert_int_equal(id.vendor, PMU_VENDOR_INTEL);
	assert_int_equal(id.family, 6);
	assert_int_equal(id.model, 106);	/* "model name" is not "model" */
	assert_int_equal(pmu_cpu_identify("vendor_id\t: AuthenticAMD\ncpu family\t: 25\n"
					  "model\t\t: 17\n", &id), 0);
	assert_int_equal(id.vendor, PMU_VENDOR_AMD);
	assert_int_equal(id.family, 0x19);
	assert_int_equal(id.model, 0x11);
	assert_int_equal(pmu_cpu_identify("processor\t: 0\nBogoMIPS\t: 50.00\n"
					  "CPU implementer\t: 0x41\nCPU architecture: 8\n"
					  "CPU part\t: 0xd0c\n\n", &id), 0);
	assert_int_equal(id.vendor, PMU_VENDOR_ARM);
	assert_int_equal(id.part, 0xd0c);
	assert_int_equal(pmu_cpu_identify("vendor_id : HygonGenuine\n", &id), -ENOENT);
	assert_int_equal(pmu_cpu_identify("", &id), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(half_running_doubles_the_count),
		cmocka_unit_test(never_running_is_not_counted),
		cmocka_unit_test(scaling_does_not_overflow_64_bits),
		cmocka_unit_test(group_read_is_decoded_by_id),
		cmocka_unit_test(group_read_rejects_short_and_unknown),
		cmocka_unit_test(formats_parse_ranges_and_registers),
		cmocka_unit_test(terms_encode_through_split_fields),
		cmocka_unit_test(generic_table_names_perf_events),
		cmocka_unit_test_setup_teardown(no_pmu_directory_means_no_topdown, tree_setup,
						tree_teardown),
		cmocka_unit_test_setup_teardown(sapphire_rapids_adds_level_two_to_the_slots_group, tree_setup,
						tree_teardown),
		cmocka_unit_test_setup_teardown(icelake_gets_the_slots_group, tree_setup,
						tree_teardown),
		cmocka_unit_test_setup_teardown(skylake_gets_the_4wide_events_with_their_scale,
						tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(zen4_gets_dispatch_slot_events_from_builtin_codes,
						tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(zen3_has_no_level_one, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(neoverse_n1_uses_stall_cycles, tree_setup,
						tree_teardown),
		cmocka_unit_test_setup_teardown(neoverse_v1_uses_stall_slots_and_caps, tree_setup,
						tree_teardown),
		cmocka_unit_test_setup_teardown(unknown_pmu_events_say_why, tree_setup,
						tree_teardown),
		cmocka_unit_test(cpuinfo_identifies_the_first_processor),
	};

	return cmocka_run_group_tests_name("counters_pmu", tests, NULL, NULL);
}
