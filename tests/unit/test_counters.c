// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Derived counter numbers, the cost-model classifier, top-down level 1 and
 * the snapshot writers, on recorded counter values.
 *
 * Published fixture: Brendan Gregg, "BPF Performance Tools" (Addison-Wesley,
 * 2019), section 6.2.2, `perf stat -d gzip file1`: 14,863,135,172 cycles,
 * 18,320,918,801 instructions ("1.23 insn per cycle"), 3,876,390,410
 * branches, 135,062,519 branch-misses ("3.48% of all branches"), 1,411,636
 * LLC-load-misses, 3952.239208 msec task-clock. Every other value below is
 * derived by hand, with the arithmetic in the comment next to it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/counters.h"

#define GZ_CYCLES	14863135172.0
#define GZ_INSNS	18320918801.0
#define GZ_BRANCHES	3876390410.0
#define GZ_BR_MISSES	135062519.0
#define GZ_LLC_MISSES	1411636.0

static void assert_near(double got, double want, double tol)
{
	if (!(got >= want - tol && got <= want + tol))
		fail_msg("got %.9f, want %.9f +- %g", got, want, tol);
}

static void ipc_branch_miss_and_mpki_match_the_published_gzip_reading(void **state)
{
	(void)state;
	/* perf printed 1.23 insn per cycle and 3.48% of all branches */
	assert_near(counters_ipc(GZ_INSNS, GZ_CYCLES), 1.23, 0.005);
	assert_near(counters_branch_miss_pct(GZ_BR_MISSES, GZ_BRANCHES), 3.48, 0.005);
	/* 1,411,636 x 1000 / 18,320,918,801 = 0.07705 */
	assert_near(counters_llc_mpki(GZ_LLC_MISSES, GZ_INSNS), 0.07705, 0.00001);
}

static void zero_denominators_give_zero_not_nan(void **state)
{
	(void)state;
	assert_true(counters_ipc(1000, 0) == 0);
	assert_true(counters_branch_miss_pct(10, 0) == 0);
	assert_true(counters_llc_mpki(10, 0) == 0);
	assert_true(counters_branch_stall(10, 20, 0) == 0);
	assert_true(counters_memory_stall(10, 300, 5, 0) == 0);
	assert_true(counters_ipc(0, 0) == 0);
}

static void stall_fractions_follow_the_cost_model_and_clamp(void **state)
{
	(void)state;
	/* 135,062,519 x 20 / 14,863,135,172 = 0.18174 */
	assert_near(counters_branch_stall(GZ_BR_MISSES, 20, GZ_CYCLES), 0.18174, 0.00001);
	/* 1,411,636 x 300 / 5 / 14,863,135,172 = 0.0056985 */
	assert_near(counters_memory_stall(GZ_LLC_MISSES, 300, 5, GZ_CYCLES), 0.0056985, 1e-7);
	/* 1000 misses x 300 cycles / 1 / 1000 cycles = 300: clamped to 1 */
	assert_true(counters_memory_stall(1000, 300, 1, 1000) == 1);
	assert_true(counters_branch_stall(1000, 20, 1000) == 1);
	/* MLP below 1 is treated as 1: 1 x 300 / 1000 = 0.3 */
	assert_near(counters_memory_stall(1, 300, 0.5, 1000), 0.3, 1e-12);
	assert_true(counters_memory_stall(-5, 300, 5, 1000) == 0);
}

static void seed_statement_five_mpki_at_ipc_one_is_the_memory_threshold(void **state)
{
	double cycles = 1e9, insns = 1e9, misses = 5 * insns / 1000;

	(void)state;
	/* the default MLP is chosen so this lands exactly on 0.30 */
	assert_near(counters_memory_stall(misses, COUNTERS_DRAM_LATENCY, COUNTERS_MLP, cycles),
		    0.30, 1e-12);
}

static void classifier_boundaries_are_inclusive(void **state)
{
	(void)state;
	/* memory exactly 0.30 and >= branch: Memory */
	assert_int_equal(counters_classify(0.30, 0.30), COUNTERS_CLASS_MEMORY);
	assert_int_equal(counters_classify(0.30, 0.0), COUNTERS_CLASS_MEMORY);
	/* memory 0.30 but below branch: branch decides */
	assert_int_equal(counters_classify(0.30, 0.31), COUNTERS_CLASS_BRANCH);
	/* branch exactly 0.15: Branch mispredict */
	assert_int_equal(counters_classify(0.0, 0.15), COUNTERS_CLASS_BRANCH);
	assert_int_equal(counters_classify(0.29, 0.15), COUNTERS_CLASS_BRANCH);
	/* just below both: Compute */
	assert_int_equal(counters_classify(0.2999, 0.1499), COUNTERS_CLASS_COMPUTE);
	assert_int_equal(counters_classify(0, 0), COUNTERS_CLASS_COMPUTE);
	assert_string_equal(counters_class_name(COUNTERS_CLASS_BRANCH), "Branch mispredict");
}

static void classifier_boundaries_hold_through_the_cost_model(void **state)
{
	(void)state;
	/* 1 miss x 300 / 1 / 1000 cycles = 0.30 exactly in double arithmetic */
	assert_true(counters_memory_stall(1, 300, 1, 1000) == 0.30);
	/* 15 misses x 10 / 1000 cycles = 0.15 */
	assert_true(counters_branch_stall(15, 10, 1000) == 0.15);
	assert_int_equal(counters_classify(counters_memory_stall(1, 300, 1, 1000),
					   counters_branch_stall(15, 10, 1000)),
			 COUNTERS_CLASS_MEMORY);
	assert_int_equal(counters_classify(counters_memory_stall(0, 300, 1, 1000),
					   counters_branch_stall(15, 10, 1000)),
			 COUNTERS_CLASS_BRANCH);
}

static struct counters_num ok(double v)
{
	return (struct counters_num){ v, true };
}

static void gzip_is_branch_mispredict_with_the_default_model(void **state)
{
	struct counters_input in = { ok(GZ_CYCLES), ok(GZ_INSNS), ok(GZ_BRANCHES),
				     ok(GZ_BR_MISSES), ok(GZ_LLC_MISSES) };
	struct counters_model m;
	struct counters_derived d;

	(void)state;
	counters_model_default(&m);
	counters_derive(&in, &m, &d);
	assert_true(d.ipc.ok && d.branch_miss_pct.ok && d.llc_mpki.ok);
	/* branch stall 0.18 >= 0.15, memory stall 0.006 < 0.30 */
	assert_int_equal(d.cls, COUNTERS_CLASS_BRANCH);
	/* a 15-cycle penalty gives 135,062,519 x 15 / 14,863,135,172 = 0.136: Compute */
	m.mispredict_penalty = 15;
	counters_derive(&in, &m, &d);
	assert_int_equal(d.cls, COUNTERS_CLASS_COMPUTE);
}

static void missing_counters_leave_derived_numbers_unknown(void **state)
{
	struct counters_input in = { 0 };
	struct counters_model m;
	struct counters_derived d;

	(void)state;
	counters_model_default(&m);
	counters_derive(&in, &m, &d);
	assert_false(d.ipc.ok || d.branch_miss_pct.ok || d.llc_mpki.ok || d.branch_stall.ok ||
		     d.memory_stall.ok);
	assert_int_equal(d.cls, COUNTERS_CLASS_NONE);
	/* counted zero cycles is a measurement: IPC 0, fractions 0, class Compute */
	in.cycles = ok(0);
	in.instructions = ok(0);
	in.branch_misses = ok(0);
	in.llc_misses = ok(0);
	counters_derive(&in, &m, &d);
	assert_true(d.ipc.ok && d.ipc.v == 0);
	assert_false(d.branch_miss_pct.ok);	/* branches not counted */
	assert_int_equal(d.cls, COUNTERS_CLASS_COMPUTE);
}

static void topdown_intel_metrics_divide_by_the_sum_of_the_four(void **state)
{
	/* slots 1010; metrics sum to 1000, so each is x / 1000 (perf's td_metric_ratio) */
	const double v[] = { 1010, 400, 100, 200, 300 };
	struct topdown td;

	(void)state;
	assert_int_equal(topdown_compute(TOPDOWN_INTEL_METRICS, v, 5, 0, &td), 0);
	assert_near(td.retiring, 0.4, 1e-12);
	assert_near(td.bad_spec, 0.1, 1e-12);
	assert_near(td.frontend, 0.2, 1e-12);
	assert_near(td.backend, 0.3, 1e-12);
}

static void topdown_intel_4wide_is_yasins_level_one(void **state)
{
	/*
	 * 1000 cycles: total slots 4000 (sysfs scale 4 applied), issued 2400,
	 * retired 2000, fetch bubbles 800, recovery 4 x 50 = 200.
	 * FE 800/4000 = 0.2; BadSpec (2400 - 2000 + 200)/4000 = 0.15;
	 * Retiring 2000/4000 = 0.5; Backend 1 - 0.85 = 0.15.
	 */
	const double v[] = { 4000, 2400, 2000, 800, 200 };
	struct topdown td;

	(void)state;
	assert_int_equal(topdown_compute(TOPDOWN_INTEL_4WIDE, v, 5, 0, &td), 0);
	assert_near(td.frontend, 0.2, 1e-12);
	assert_near(td.bad_spec, 0.15, 1e-12);
	assert_near(td.retiring, 0.5, 1e-12);
	assert_near(td.backend, 0.15, 1e-12);
}

static void topdown_amd_zen_uses_dispatch_slots(void **state)
{
	/*
	 * 1000 cycles x 6 = 6000 slots; retired ops 2400 -> 0.4; dispatched 3000
	 * -> bad speculation 600/6000 = 0.1; frontend 1200 -> 0.2; backend 1500
	 * -> 0.25; SMT 300 -> 0.05 (sums to 1).
	 */
	const double v[] = { 1000, 2400, 3000, 1200, 1500, 300 };
	struct topdown td;

	(void)state;
	assert_int_equal(topdown_compute(TOPDOWN_AMD_ZEN, v, 6, 6, &td), 0);
	assert_near(td.retiring, 0.4, 1e-12);
	assert_near(td.bad_spec, 0.1, 1e-12);
	assert_near(td.frontend, 0.2, 1e-12);
	assert_near(td.backend, 0.25, 1e-12);
	assert_near(td.smt, 0.05, 1e-12);
	/* without the SMT counter: the same, smt 0 */
	assert_int_equal(topdown_compute(TOPDOWN_AMD_ZEN, v, 5, 6, &td), 0);
	assert_true(td.smt == 0);
}

static void topdown_arm_slot_and_cycle_forms(void **state)
{
	/*
	 * Slots (sbsa.json): 1000 cycles x 8 = 8000; stall_slot 4000 -> busy 0.5;
	 * frontend 1600/8000 = 0.2; backend 2400/8000 = 0.3; op_retired/op_spec
	 * = 0.9 -> retiring 0.45, bad speculation 0.05.
	 */
	const double s[] = { 1000, 900, 1000, 4000, 1600, 2400 };
	/*
	 * Cycles (N1): stall_frontend 250 -> 0.25, stall_backend 350 -> 0.35,
	 * busy 0.4; 750/1000 retired -> retiring 0.3, bad speculation 0.1.
	 */
	const double c[] = { 1000, 750, 1000, 250, 350 };
	struct topdown td;

	(void)state;
	assert_int_equal(topdown_compute(TOPDOWN_ARM_SLOTS, s, 6, 8, &td), 0);
	assert_near(td.frontend, 0.2, 1e-12);
	assert_near(td.backend, 0.3, 1e-12);
	assert_near(td.retiring, 0.45, 1e-12);
	assert_near(td.bad_spec, 0.05, 1e-12);
	assert_int_equal(topdown_compute(TOPDOWN_ARM_CYCLES, c, 5, 0, &td), 0);
	assert_near(td.frontend, 0.25, 1e-12);
	assert_near(td.backend, 0.35, 1e-12);
	assert_near(td.retiring, 0.3, 1e-12);
	assert_near(td.bad_spec, 0.1, 1e-12);
}

static void topdown_refuses_no_slots_and_short_inputs(void **state)
{
	const double zero[] = { 0, 0, 0, 0, 0, 0 };
	struct topdown td;

	(void)state;
	assert_int_equal(topdown_compute(TOPDOWN_INTEL_METRICS, zero, 5, 0, &td), -EINVAL);
	assert_int_equal(topdown_compute(TOPDOWN_INTEL_4WIDE, zero, 5, 0, &td), -EINVAL);
	assert_int_equal(topdown_compute(TOPDOWN_AMD_ZEN, zero, 5, 6, &td), -EINVAL);
	assert_int_equal(topdown_compute(TOPDOWN_ARM_SLOTS, zero, 6, 8, &td), -EINVAL);
	assert_int_equal(topdown_compute(TOPDOWN_ARM_CYCLES, zero, 5, 0, &td), -EINVAL);
	assert_int_equal(topdown_compute(TOPDOWN_ARM_SLOTS, zero, 3, 8, &td), -EINVAL);
	assert_int_equal(topdown_compute((enum topdown_method)99, zero, 6, 8, &td), -EINVAL);
}

static void topdown_thresholds_pick_the_verdict(void **state)
{
	struct topdown td = { 0 };
	char buf[256];

	(void)state;
	td.retiring = 0.81;
	assert_int_equal(topdown_focus(&td), TOPDOWN_FOCUS_PEAK);
	td.retiring = 0.80;	/* "> 80%" is strict */
	assert_int_equal(topdown_focus(&td), TOPDOWN_FOCUS_NONE);
	td.bad_spec = 0.15;	/* "> 15%" is strict */
	td.frontend = 0.20;
	td.backend = 0.40;
	assert_int_equal(topdown_focus(&td), TOPDOWN_FOCUS_NONE);
	td.bad_spec = 0.16;
	assert_int_equal(topdown_focus(&td), TOPDOWN_FOCUS_BAD_SPEC);
	td.frontend = 0.21;
	assert_int_equal(topdown_focus(&td), TOPDOWN_FOCUS_FRONTEND);
	td.backend = 0.41;	/* the largest share over its mark wins */
	assert_int_equal(topdown_focus(&td), TOPDOWN_FOCUS_BACKEND);
	assert_non_null(strstr(topdown_verdict(&td, buf, sizeof(buf)), "Backend Bound 41.0%"));
	td.retiring = 0.9;
	assert_non_null(strstr(topdown_verdict(&td, buf, sizeof(buf)), "near peak"));
}

/* The software rows of a no-PMU run plus unsupported hardware ones. */
static void no_pmu_snapshot(struct counters_row *rows, struct counters_snapshot *s)
{
	static const char *const hw[] = { "cycles", "instructions", "branches", "branch-misses",
					  "LLC-load-misses" };

	memset(s, 0, sizeof(*s));
	rows[0] = (struct counters_row){ "task-clock", true, true, true, 2000e6, 1.0, NULL };
	rows[1] = (struct counters_row){ "page-faults", false, true, true, 104, 1.0, NULL };
	for (size_t i = 0; i < 5; i++)
		rows[2 + i] = (struct counters_row){ hw[i], false, false, false, 0, 0,
						     "No such file or directory" };
	s->target = "'split 2 x'";
	s->seconds = 2.0;
	s->interval_end = -1;
	s->rows = rows;
	s->nr = 7;
	s->topdown_status = "not available (no PMU)";
	counters_model_default(&s->model);
	counters_snapshot_derive(s);
}

static char *render(int (*fn)(FILE *, const struct counters_snapshot *),
		    const struct counters_snapshot *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fn(f, s), 0);
	fclose(f);
	return buf;
}

static void no_pmu_text_says_not_supported_and_never_prints_zero(void **state)
{
	struct counters_row rows[7];
	struct counters_snapshot s;
	char *t;

	(void)state;
	no_pmu_snapshot(rows, &s);
	assert_int_equal(s.derived.cls, COUNTERS_CLASS_NONE);
	t = render(counters_write_text, &s);
	assert_non_null(strstr(t, "2,000.00 msec"));
	assert_non_null(strstr(t, "1.000 CPUs utilized"));
	assert_non_null(strstr(t, "<not supported>       cycles"));
	assert_non_null(strstr(t, "not available (no hardware PMU)"));
	assert_non_null(strstr(t, "top-down: not available (no PMU)"));
	assert_null(strstr(t, " 0       cycles"));
	free(t);
}

static void no_pmu_json_has_nulls_and_errors(void **state)
{
	struct counters_row rows[7];
	struct counters_snapshot s;
	char *j;

	(void)state;
	no_pmu_snapshot(rows, &s);
	j = render(counters_write_json, &s);
	assert_non_null(strstr(j, "{\"event\":\"cycles\",\"unit\":\"\",\"value\":null,"
				  "\"running\":null,\"status\":\"not supported\","
				  "\"error\":\"No such file or directory\"}"));
	assert_non_null(strstr(j, "\"value\":2000.000"));
	assert_non_null(strstr(j, "\"ipc\":null"));
	assert_non_null(strstr(j, "\"class\":null"));
	assert_non_null(strstr(j, "\"topdown\":{\"status\":\"not available (no PMU)\"}"));
	assert_non_null(strstr(j, "\"interval_end\":null"));
	assert_int_equal(j[strlen(j) - 1], '\n');
	free(j);
}

static int csv_with_header(FILE *f, const struct counters_snapshot *s)
{
	return counters_write_csv(f, s, true);
}

static void csv_rows_leave_missing_values_empty(void **state)
{
	struct counters_row rows[7];
	struct counters_snapshot s;
	char *c;

	(void)state;
	no_pmu_snapshot(rows, &s);
	c = render(csv_with_header, &s);
	assert_true(!strncmp(c, "time,event,value,unit,running,status\n", 37));
	assert_non_null(strstr(c, "2.000,task-clock,2000.000,msec,1.0000,counted\n"));
	assert_non_null(strstr(c, "2.000,cycles,,,,not supported\n"));
	assert_non_null(strstr(c, "2.000,ipc,,,,not available\n"));
	assert_non_null(strstr(c, "2.000,class,,,,not available\n"));
	free(c);
}

static void gzip_snapshot_text_and_summary(void **state)
{
	struct counters_row rows[] = {
		{ "task-clock", true, true, true, 3952.239208e6, 1.0, NULL },
		{ "cycles", false, true, true, GZ_CYCLES, 0.6235, NULL },
		{ "instructions", false, true, true, GZ_INSNS, 0.7490, NULL },
		{ "branches", false, true, true, GZ_BRANCHES, 0.7490, NULL },
		{ "branch-misses", false, true, true, GZ_BR_MISSES, 0.7497, NULL },
		{ "LLC-load-misses", false, true, true, GZ_LLC_MISSES, 0.4987, NULL },
	};
	struct counters_snapshot s = { .target = "'gzip file1'", .seconds = 3.956,
				       .interval_end = -1, .rows = rows, .nr = 6, .pmu = true };
	char line[512], *t;

	(void)state;
	counters_model_default(&s.model);
	counters_snapshot_derive(&s);
	assert_int_equal(s.derived.cls, COUNTERS_CLASS_BRANCH);
	t = render(counters_write_text, &s);
	assert_non_null(strstr(t, "14,863,135,172       cycles"));
	/* 14,863,135,172 / 3.952239208e9 ns = 3.761 GHz, as perf printed */
	assert_non_null(strstr(t, "3.761 GHz"));
	assert_non_null(strstr(t, "1.23 insn per cycle"));
	assert_non_null(strstr(t, "3.48% of all branches"));
	assert_non_null(strstr(t, "( 62.35%)"));
	assert_non_null(strstr(t, "class: Branch mispredict"));
	free(t);
	counters_summary(&s, line, sizeof(line));
	assert_non_null(strstr(line, "IPC 1.23, branch-miss 3.48%, LLC MPKI 0.08, "
				     "class Branch mispredict"));
	assert_non_null(strstr(line, "(running 49.9%)"));
}

static void cache_misses_stand_in_for_llc_load_misses(void **state)
{
	struct counters_row rows[] = {
		{ "cycles", false, true, true, 1000, 1, NULL },
		{ "instructions", false, true, true, 1000, 1, NULL },
		{ "branch-misses", false, true, true, 0, 1, NULL },
		{ "LLC-load-misses", false, false, false, 0, 0, "No such file or directory" },
		{ "cache-misses", false, true, true, 5, 1, NULL },
	};
	struct counters_snapshot s = { .rows = rows, .nr = 5, .interval_end = -1 };

	(void)state;
	counters_model_default(&s.model);
	counters_snapshot_derive(&s);
	/* 5 x 300 / 5 / 1000 = 0.30: Memory */
	assert_true(s.derived.memory_stall.ok);
	assert_int_equal(s.derived.cls, COUNTERS_CLASS_MEMORY);
}

static void interval_text_prefixes_every_line_with_the_time(void **state)
{
	struct counters_row rows[7];
	struct counters_snapshot s;
	char *t, *line, *save = NULL;

	(void)state;
	no_pmu_snapshot(rows, &s);
	s.interval_end = 1.5;
	t = render(counters_write_text, &s);
	for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		assert_true(!strncmp(line, "       1.500 ", 13));
	free(t);
}

static struct counters_proc proc(uint32_t pid, uint32_t ppid, double v)
{
	struct counters_proc p = { .pid = pid, .ppid = ppid, .value = { v }, .counted = { true },
				   .running = { 1 } };

	snprintf(p.comm, sizeof(p.comm), "p%u", pid);
	return p;
}

static void process_tree_keeps_descendants_only(void **state)
{
	struct counters_proc p[] = { proc(10, 1, 5), proc(11, 10, 7), proc(12, 11, 9),
				     proc(20, 1, 100), proc(21, 20, 3), proc(13, 99, 1) };
	size_t n;

	(void)state;
	n = counters_procs_keep_tree(p, 6, 10);
	assert_int_equal(n, 3);
	counters_procs_sort(p, n);
	assert_int_equal(p[0].pid, 12);
	assert_int_equal(p[1].pid, 11);
	assert_int_equal(p[2].pid, 10);
}

static void process_tree_survives_parent_cycles(void **state)
{
	struct counters_proc p[] = { proc(5, 6, 1), proc(6, 5, 1), proc(7, 7, 1) };

	(void)state;
	assert_int_equal(counters_procs_keep_tree(p, 3, 10), 0);
}

static void process_table_sorts_uncounted_last_and_writes_text(void **state)
{
	struct counters_proc p[] = { proc(3, 1, 5e6), proc(2, 1, 9e6), proc(4, 1, 0) };
	struct counters_proc_table t = { .names = { "cpu-clock" }, .clock = { true },
					 .nr_events = 1, .procs = p, .nr = 3, .top = 2 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	p[2].counted[0] = false;
	counters_procs_sort(p, 3);
	assert_int_equal(p[0].pid, 2);
	assert_int_equal(p[2].pid, 4);
	assert_int_equal(counters_procs_keep_pids(p, 3, (uint32_t[]){ 4, 2 }, 2), 2);
	f = open_memstream(&buf, &len);
	assert_int_equal(counters_write_procs_text(f, &t), 0);
	fclose(f);
	assert_non_null(strstr(buf, "cpu-clock msec"));
	assert_non_null(strstr(buf, "9.00"));
	assert_non_null(strstr(buf, "<not counted>"));
	free(buf);
}

static void process_json_has_ipc_and_class_with_a_pmu(void **state)
{
	struct counters_proc p = proc(7, 1, 2000);
	struct counters_proc_table t = {
		.names = { "cycles", "instructions", "branch-misses", "LLC-load-misses" },
		.nr_events = 4, .procs = &p, .nr = 1,
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	counters_model_default(&t.model);
	p.value[1] = 3000;	/* IPC 1.5 */
	p.value[2] = 20;	/* 20 x 20 / 2000 = 0.2: Branch mispredict */
	p.value[3] = 0;
	for (int i = 1; i < 4; i++) {
		p.counted[i] = true;
		p.running[i] = 1;
	}
	f = open_memstream(&buf, &len);
	assert_int_equal(counters_write_procs_json(f, &t), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"ipc\":1.500000,\"class\":\"Branch mispredict\""));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ipc_branch_miss_and_mpki_match_the_published_gzip_reading),
		cmocka_unit_test(zero_denominators_give_zero_not_nan),
		cmocka_unit_test(stall_fractions_follow_the_cost_model_and_clamp),
		cmocka_unit_test(seed_statement_five_mpki_at_ipc_one_is_the_memory_threshold),
		cmocka_unit_test(classifier_boundaries_are_inclusive),
		cmocka_unit_test(classifier_boundaries_hold_through_the_cost_model),
		cmocka_unit_test(gzip_is_branch_mispredict_with_the_default_model),
		cmocka_unit_test(missing_counters_leave_derived_numbers_unknown),
		cmocka_unit_test(topdown_intel_metrics_divide_by_the_sum_of_the_four),
		cmocka_unit_test(topdown_intel_4wide_is_yasins_level_one),
		cmocka_unit_test(topdown_amd_zen_uses_dispatch_slots),
		cmocka_unit_test(topdown_arm_slot_and_cycle_forms),
		cmocka_unit_test(topdown_refuses_no_slots_and_short_inputs),
		cmocka_unit_test(topdown_thresholds_pick_the_verdict),
		cmocka_unit_test(no_pmu_text_says_not_supported_and_never_prints_zero),
		cmocka_unit_test(no_pmu_json_has_nulls_and_errors),
		cmocka_unit_test(csv_rows_leave_missing_values_empty),
		cmocka_unit_test(gzip_snapshot_text_and_summary),
		cmocka_unit_test(cache_misses_stand_in_for_llc_load_misses),
		cmocka_unit_test(interval_text_prefixes_every_line_with_the_time),
		cmocka_unit_test(process_tree_keeps_descendants_only),
		cmocka_unit_test(process_tree_survives_parent_cycles),
		cmocka_unit_test(process_table_sorts_uncounted_last_and_writes_text),
		cmocka_unit_test(process_json_has_ipc_and_class_with_a_pmu),
	};

	return cmocka_run_group_tests_name("counters", tests, NULL, NULL);
}
