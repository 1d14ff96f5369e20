// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Branch records (record -b) without the hardware: ring records built as
 * bpf/oncpu.bpf.c emits them (the kernel's perf_branch_entry, bitfields
 * and all) decoded by collect/branches.c, counted per site
 * (stack/branch_sites.c), written and read back (analysis/branches_io.c)
 * and reported (analysis/branches_report.c).
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

#include <linux/perf_event.h>

#include "abi/branches.h"
#include "analysis/branches.h"
#include "collect/branches.h"

/* One entry as the PMU driver fills it and bpf_read_branch_records() copies it. */
static void put_entry(struct hc_branch_rec *r, size_t i, uint64_t from, uint64_t to, int mispred,
		      int predicted, unsigned int cycles)
{
	struct perf_branch_entry pe;

	memset(&pe, 0, sizeof(pe));
	pe.from = from;
	pe.to = to;
	pe.mispred = mispred;
	pe.predicted = predicted;
	pe.cycles = cycles;
	pe.type = PERF_BR_COND;
	pe.priv = PERF_BR_PRIV_USER;
	memcpy(&r->e[i], &pe, sizeof(pe));
}

static void rec_init(struct hc_branch_rec *r, uint32_t nr)
{
	memset(r, 0, sizeof(*r));
	r->hdr.type = HC_REC_BRANCH;
	r->hdr.size = sizeof(*r);
	r->tgid = 1234;
	r->pid = 1235;
	r->nr = nr;
	r->cpu = 1;
	r->time_ns = 5000;
}

static void decode_reads_the_kernels_branch_entry_flags(void **state)
{
	struct hc_branch_rec r;
	struct branch_sample s;

	rec_init(&r, 3);
	put_entry(&r, 0, 0x401130, 0x401150, 1, 0, 17);
	put_entry(&r, 1, 0x401160, 0x401120, 0, 1, 0xffff);
	put_entry(&r, 2, 0x7f0000001000, 0x7f0000002000, 0, 0, 0);
	assert_int_equal(branch_rec_decode(&r, sizeof(r), &s), 0);
	assert_int_equal(s.tgid, 1234);
	assert_int_equal(s.pid, 1235);
	assert_int_equal(s.nr, 3);
	assert_int_equal(s.e[0].from, 0x401130);
	assert_int_equal(s.e[0].to, 0x401150);
	assert_true(s.e[0].mispred);
	assert_false(s.e[0].predicted);
	assert_int_equal(s.e[0].cycles, 17);
	assert_false(s.e[1].mispred);
	assert_true(s.e[1].predicted);
	assert_int_equal(s.e[1].cycles, 0xffff);	/* all 16 bits of the field */
	assert_false(s.e[2].mispred || s.e[2].predicted);
	assert_int_equal(s.e[2].from, 0x7f0000001000);
	/* the flags word is the kernel's: mispred is bit 0, predicted bit 1, cycles bits 4-19 */
	assert_int_equal(r.e[0].flags & 0xfffff, 0x1 | 17 << 4);
	assert_int_equal(r.e[1].flags & 0xfffff, 0x2 | 0xffff << 4);
}

static void decode_rejects_bad_and_truncated_records(void **state)
{
	struct hc_branch_rec r;
	struct branch_sample s;
	size_t head = offsetof(struct hc_branch_rec, e);

	rec_init(&r, 4);
	for (size_t i = 0; i < 4; i++)
		put_entry(&r, i, 0x1000 + i, 0x2000, 0, 1, 1);
	assert_int_equal(branch_rec_decode(&r, head + 4 * sizeof(r.e[0]), &s), 0);
	/* cut inside the entries: the record says 4, holds 3 */
	assert_int_equal(branch_rec_decode(&r, head + 3 * sizeof(r.e[0]), &s), -EINVAL);
	/* shorter than its header */
	assert_int_equal(branch_rec_decode(&r, head - 1, &s), -EINVAL);
	assert_int_equal(branch_rec_decode(&r, 4, &s), -EINVAL);
	r.nr = 0;	/* BPF never sends an empty stack */
	assert_int_equal(branch_rec_decode(&r, sizeof(r), &s), -EINVAL);
	r.nr = HC_MAX_BRANCHES + 1;
	assert_int_equal(branch_rec_decode(&r, sizeof(r), &s), -EINVAL);
	r.nr = 4;
	r.hdr.type = HC_REC_STACK;
	assert_int_equal(branch_rec_decode(&r, sizeof(r), &s), -EINVAL);
}

/*
 * The recorded loop: in every sample's 32 entries, even ones are the
 * data-dependent `if` at loop+0x10 (app.c:42), mispredicted 1 time in 4,
 * odd ones the loop's back edge at loop+0x40, always predicted.
 */
#define LOOP_SAMPLES 100
#define OBJ_APP 7

static void end_at(struct branch_end *e, uint64_t off)
{
	memset(e, 0, sizeof(*e));
	e->obj = OBJ_APP;
	e->off = off;
}

static void feed_loop(struct branch_table *t)
{
	unsigned int if_seen = 0;

	for (int smp = 0; smp < LOOP_SAMPLES; smp++) {
		struct hc_branch_rec r;
		struct branch_sample s;
		struct branch_end from[BRANCH_MAX_ENTRIES], to[BRANCH_MAX_ENTRIES];

		rec_init(&r, HC_MAX_BRANCHES);
		for (size_t i = 0; i < HC_MAX_BRANCHES; i++) {
			bool miss = false;

			if (i % 2 == 0)
				miss = if_seen++ % 4 == 0;
			if (i % 2 == 0)
				put_entry(&r, i, 0x401130, 0x401150, miss, !miss, miss ? 12 : 2);
			else
				put_entry(&r, i, 0x401160, 0x401120, 0, 1, 3);
		}
		assert_int_equal(branch_rec_decode(&r, sizeof(r), &s), 0);
		/* what the recorder's symbolizer does: address -> (object, file offset) */
		for (size_t i = 0; i < s.nr; i++) {
			end_at(&from[i], s.e[i].from - 0x400000);
			end_at(&to[i], s.e[i].to - 0x400000);
		}
		assert_int_equal(branch_table_add(t, s.e, from, to, s.nr), 0);
	}
}

static void name_end(struct branch_table *t, struct branch_end *e, const char *func,
		     uint64_t func_off, uint32_t line)
{
	e->module = branch_table_intern(t, "/usr/bin/app");
	e->func = branch_table_intern(t, func);
	e->func_off = func_off;
	e->has_func_off = true;
	e->file = branch_table_intern(t, "app.c");
	e->line = line;
}

/* The recorder's naming pass, by hand: loop starts at file offset 0x1120. */
static void name_loop(struct branch_table *t)
{
	for (size_t i = 0; i < t->nr; i++) {
		struct branch_site *s = &t->v[i];
		uint32_t fl = s->from.off == 0x1130 ? 42 : 40, tl = s->to.off == 0x1150 ? 44 : 39;

		name_end(t, &s->from, "loop", s->from.off - 0x1120, fl);
		name_end(t, &s->to, "loop", s->to.off - 0x1120, tl);
	}
}

static void counts_mispredicts_per_site(void **state)
{
	struct branch_table t;
	const struct branch_site *a, *b;

	branch_table_init(&t);
	feed_loop(&t);
	branch_table_sort(&t);
	assert_int_equal(t.t.samples, LOOP_SAMPLES);
	assert_int_equal(t.t.entries, LOOP_SAMPLES * 32);
	assert_int_equal(t.nr, 2);
	a = &t.v[0];	/* most mispredicts first */
	b = &t.v[1];
	assert_int_equal(a->from.off, 0x1130);
	assert_int_equal(a->to.off, 0x1150);
	assert_int_equal(a->taken, 1600);
	assert_int_equal(a->mispred, 400);	/* 1 in 4 */
	assert_int_equal(a->predicted, 1200);
	assert_int_equal(a->cycles, 400 * 12 + 1200 * 2);
	assert_int_equal(a->cycles_n, 1600);
	assert_int_equal(b->from.off, 0x1160);
	assert_int_equal(b->mispred, 0);
	assert_int_equal(b->predicted, 1600);
	assert_int_equal(t.t.mispred, 400);
	/* mispredict % of the site, and its density: its share of all taken branches */
	assert_true(branch_pct(a->mispred, a->taken) == 25.0);
	assert_true(branch_pct(a->taken, t.t.entries) == 50.0);
	assert_true(branch_pct(t.t.mispred, t.t.entries) == 12.5);
	assert_true(branch_pct(1, 0) == 0.0);
	branch_table_release(&t);
}

static char *report_text(const struct branch_table *t, size_t top)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	assert_int_equal(branches_write_report(out, t, top), 0);
	fclose(out);
	return buf;
}

static const char loop_report[] =
	"Branch records: 100 samples, 3200 taken branches (32.0 per sample), 400 mispredicted "
	"(12.50%)\n"
	"\n"
	"Mispredicted branch sites (miss%: of that branch's executions; share: of all "
	"mispredicts):\n"
	"   mispred   miss%      taken   share  cycles  branch -> target\n"
	"       400  25.00%       1600 100.00%     4.5  loop+0x10 (app.c:42) -> loop+0x30 "
	"(app.c:44)\n"
	"(1 sites never mispredicted not shown)\n";

static void report_lists_mispredicted_sites_with_source_and_target(void **state)
{
	struct branch_table t;
	char *text;

	branch_table_init(&t);
	feed_loop(&t);
	name_loop(&t);
	branch_table_sort(&t);
	text = report_text(&t, 10);
	assert_string_equal(text, loop_report);
	free(text);
	branch_table_release(&t);
}

static char *write_text(const struct branch_table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	assert_int_equal(branches_write(out, t), 0);
	fclose(out);
	return buf;
}

static int read_text(const char *text, struct branch_table *t, char *err, size_t errlen)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	int ret;

	assert_non_null(in);
	branch_table_init(t);
	ret = branches_read(in, t, err, errlen);
	fclose(in);
	return ret;
}

static void file_round_trips_to_the_same_report(void **state)
{
	struct branch_table t, back;
	char *text, *again, *r1, *r2, err[256];

	branch_table_init(&t);
	feed_loop(&t);
	name_loop(&t);
	branch_table_sort(&t);
	text = write_text(&t);
	assert_non_null(strstr(text, "# hotcold branches v1 samples=100 entries=3200 "
				     "mispredicted=400 predicted=2800 "));
	assert_non_null(strstr(text, "1600\t400\t1200\t7200\t1600\t/usr/bin/app\t0x1130\tloop\t"
				     "0x10\tapp.c\t42\t/usr/bin/app\t0x1150\tloop\t0x30\tapp.c\t44\n"));
	assert_int_equal(read_text(text, &back, err, sizeof(err)), 0);
	branch_table_sort(&back);
	again = write_text(&back);
	assert_string_equal(again, text);
	r1 = report_text(&t, 0);
	r2 = report_text(&back, 0);
	assert_string_equal(r1, r2);
	free(text);
	free(again);
	free(r1);
	free(r2);
	branch_table_release(&back);
	branch_table_release(&t);
}

#define HDR "# hotcold branches v1 samples=2 entries=64 mispredicted=5 predicted=50\n"
#define SITE_A "10\t5\t5\t0\t0\tapp\t0x10\tf\t0x0\t-\t0\tapp\t0x20\tf\t0x10\t-\t0\n"

static void expect_bad(const char *text, const char *why)
{
	struct branch_table t;
	char err[256];

	assert_int_equal(read_text(text, &t, err, sizeof(err)), -EINVAL);
	if (!strstr(err, why))
		fail_msg("error '%s' does not say '%s'", err, why);
	branch_table_release(&t);
}

static void reader_rejects_bad_and_truncated_files(void **state)
{
	struct branch_table t;
	char err[256];
	char cut[sizeof(HDR SITE_A)];

	assert_int_equal(read_text(HDR SITE_A, &t, err, sizeof(err)), 0);
	assert_int_equal(t.nr, 1);
	assert_null(t.v[0].from.file);
	assert_int_equal(t.v[0].from.obj, t.v[0].to.obj);	/* one module, one id */
	branch_table_release(&t);

	expect_bad("", "empty file");
	expect_bad("hello\n", "not a hotcold branches file");
	expect_bad("# hotcold folded v1 kind=oncpu\n", "not a hotcold branches file");
	expect_bad("# hotcold branches v1 samples=2\n", "header without");
	expect_bad("# hotcold branches v1 samples=x entries=1 mispredicted=0\n", "bad header value");
	/* a file cut mid-line: the last line has no newline */
	strcpy(cut, HDR SITE_A);
	cut[strlen(cut) - 5] = '\0';
	expect_bad(cut, "line 2: no newline (truncated?)");
	expect_bad(HDR "10\t5\t5\t0\t0\tapp\t0x10\n", "line 2: 7 fields, want 17");
	expect_bad(HDR "10\t11\t0\t0\t0\tapp\t0x10\tf\t0x0\t-\t0\tapp\t0x20\tf\t0x10\t-\t0\n",
		   "counts do not add up");
	expect_bad(HDR "0\t0\t0\t0\t0\tapp\t0x10\tf\t0x0\t-\t0\tapp\t0x20\tf\t0x10\t-\t0\n",
		   "counts do not add up");
	expect_bad(HDR "1O\t5\t5\t0\t0\tapp\t0x10\tf\t0x0\t-\t0\tapp\t0x20\tf\t0x10\t-\t0\n",
		   "bad count '1O'");
	expect_bad(HDR "10\t5\t5\t0\t0\tapp\t16\tf\t0x0\t-\t0\tapp\t0x20\tf\t0x10\t-\t0\n",
		   "bad offset '16'");
	expect_bad(HDR SITE_A SITE_A, "line 3: the same site twice");
	/* more mispredicts in the sites than the header counted: cut or edited */
	expect_bad("# hotcold branches v1 samples=2 entries=64 mispredicted=4\n" SITE_A,
		   "more than the header's totals");
}

static void pmu_without_flags_lists_sites_by_taken(void **state)
{
	struct branch_table t;
	struct branch_entry e[2] = { { .from = 1, .to = 2 }, { .from = 3, .to = 4 } };
	struct branch_end from[2], to[2];
	char *text;

	branch_table_init(&t);
	for (int i = 0; i < 2; i++) {
		end_at(&from[i], e[i].from);
		end_at(&to[i], e[i].to);
	}
	assert_int_equal(branch_table_add(&t, e, from, to, 2), 0);
	assert_int_equal(branch_table_add(&t, e, from, to, 1), 0);
	branch_table_sort(&t);
	text = report_text(&t, 0);
	assert_non_null(strstr(text, "flagged no branch as predicted or mispredicted"));
	assert_non_null(strstr(text, "Taken branch sites"));
	/* unnamed ends show the raw address; the twice-taken site first */
	assert_non_null(strstr(text, "[unknown] 0x1 ->"));
	assert_non_null(strstr(text, "[unknown] 0x3 ->"));
	assert_true(strstr(text, "[unknown] 0x1 ->") < strstr(text, "[unknown] 0x3 ->"));
	free(text);
	branch_table_release(&t);
}

static void site_limit_counts_what_it_drops(void **state)
{
	struct branch_table t;
	struct branch_entry e = { .from = 0, .to = 1, .mispred = true };
	struct branch_end from, to;
	char *text;

	branch_table_init(&t);
	for (uint64_t i = 0; i <= BRANCH_MAX_SITES; i++) {
		end_at(&from, i);
		end_at(&to, i + 1);
		assert_int_equal(branch_table_add(&t, &e, &from, &to, 1), 0);
	}
	assert_int_equal(t.nr, BRANCH_MAX_SITES);
	assert_int_equal(t.t.dropped_sites, 1);
	assert_int_equal(t.t.entries, BRANCH_MAX_SITES + 1);	/* still in the totals */
	/* an existing site still counts at the limit */
	end_at(&from, 0);
	end_at(&to, 1);
	assert_int_equal(branch_table_add(&t, &e, &from, &to, 1), 0);
	assert_int_equal(t.t.dropped_sites, 1);
	branch_table_sort(&t);
	assert_int_equal(t.v[0].taken, 2);
	text = report_text(&t, 3);
	assert_non_null(strstr(text, "note: 1 branches of sites past the 262144-site limit"));
	assert_non_null(strstr(text, "(262141 more sites: --top 0 lists all)"));
	free(text);
	branch_table_release(&t);
}

static void annotate_finds_the_sites_inside_a_function(void **state)
{
	struct branch_table t;
	size_t *idx;
	long n;

	branch_table_init(&t);
	feed_loop(&t);
	name_loop(&t);
	branch_table_sort(&t);
	n = branches_in_range(&t, "/usr/bin/app", 0x1120, 0x1170, &idx);
	assert_int_equal(n, 2);
	assert_int_equal(t.v[idx[0]].from.off, 0x1130);	/* the report's order */
	free(idx);
	n = branches_in_range(&t, "/usr/bin/app", 0x1140, 0x1160, &idx);
	assert_int_equal(n, 0);	/* [lo, hi): 0x1160 is past the end */
	free(idx);
	n = branches_in_range(&t, "/usr/lib/other.so", 0, UINT64_MAX, &idx);
	assert_int_equal(n, 0);
	free(idx);
	branch_table_release(&t);
}

static void json_has_the_numbers(void **state)
{
	struct branch_table t;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	branch_table_init(&t);
	feed_loop(&t);
	name_loop(&t);
	branch_table_sort(&t);
	out = open_memstream(&buf, &len);
	assert_int_equal(branches_write_json(out, &t, 0), 0);
	fclose(out);
	assert_non_null(strstr(buf, "{\"samples\":100,\"taken\":3200,\"mispredicted\":400,"
				    "\"predicted\":2800,\"mispredict_pct\":12.5000,"
				    "\"per_sample\":32.00,"));
	assert_non_null(strstr(buf, "\"mispredict_pct\":25.0000,\"avg_cycles\":4.50,"
				    "\"from\":{\"module\":\"/usr/bin/app\",\"offset\":4400,"
				    "\"function\":\"loop\",\"function_offset\":16,"
				    "\"file\":\"app.c\",\"line\":42}"));
	free(buf);
	branch_table_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decode_reads_the_kernels_branch_entry_flags),
		cmocka_unit_test(decode_rejects_bad_and_truncated_records),
		cmocka_unit_test(counts_mispredicts_per_site),
		cmocka_unit_test(report_lists_mispredicted_sites_with_source_and_target),
		cmocka_unit_test(file_round_trips_to_the_same_report),
		cmocka_unit_test(reader_rejects_bad_and_truncated_files),
		cmocka_unit_test(pmu_without_flags_lists_sites_by_taken),
		cmocka_unit_test(site_limit_counts_what_it_drops),
		cmocka_unit_test(annotate_finds_the_sites_inside_a_function),
		cmocka_unit_test(json_has_the_numbers),
	};

	return cmocka_run_group_tests_name("branches", tests, NULL, NULL);
}
