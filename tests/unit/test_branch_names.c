// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * record -b's user side end to end, without the PMU: branch records built
 * as bpf/oncpu.bpf.c emits them, with addresses in this test's own code,
 * decoded (collect/branches.c), normalized and named by a real symbolizer
 * on this process (record/branch_names.c), written to the branch file and
 * read back for the report (analysis/branches_*.c).
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
#include <unistd.h>

#include <linux/perf_event.h>

#include "abi/branches.h"
#include "analysis/branches.h"
#include "record/branch_names.h"

static const int branchy_first = __LINE__;
__attribute__((noinline)) int branchy(int x);
__attribute__((noinline)) int branchy(int x)
{
	if (x & 1)
		return x * 3;
	return x / 2;
}
static const int branchy_last = __LINE__;

__attribute__((noinline)) int landing(int x);
__attribute__((noinline)) int landing(int x)
{
	return branchy(x) + 1;
}

static void put_entry(struct hc_branch_rec *r, size_t i, uint64_t from, uint64_t to, int mispred)
{
	struct perf_branch_entry pe;

	memset(&pe, 0, sizeof(pe));
	pe.from = from;
	pe.to = to;
	pe.mispred = mispred;
	pe.predicted = !mispred;
	memcpy(&r->e[i], &pe, sizeof(pe));
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = s ? strlen(s) : 0, m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static void names_sites_in_this_process_from_branch_records(void **state)
{
	uint64_t from = (uint64_t)(uintptr_t)&branchy + 4, to = (uint64_t)(uintptr_t)&landing;
	struct symbolizer *sym = symbolizer__new(NULL);
	struct branch_table t, back;
	struct hc_branch_rec r;
	struct branch_sample s;
	const struct branch_site *site;
	char *text = NULL, *rep = NULL, name[512], err[256];
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(sym);
	branch_table_init(&t);
	/* 3 samples: the site branchy+4 -> landing mispredicted in 1, a jump from nowhere once */
	for (int n = 0; n < 3; n++) {
		memset(&r, 0, sizeof(r));
		r.hdr.type = HC_REC_BRANCH;
		r.hdr.size = sizeof(r);
		r.tgid = r.pid = (uint32_t)getpid();
		r.nr = n == 2 ? 2 : 1;
		put_entry(&r, 0, from, to, n == 0);
		if (n == 2)
			put_entry(&r, 1, 0x10, to, 0);	/* in no mapping */
		assert_int_equal(branch_rec_decode(&r, sizeof(r), &s), 0);
		assert_int_equal(branch_names_add(sym, &t, &s), 0);
	}
	branch_names_resolve(sym, &t);
	branch_table_sort(&t);
	assert_int_equal(t.t.samples, 3);
	assert_int_equal(t.t.entries, 4);
	assert_int_equal(t.nr, 2);
	site = &t.v[0];
	assert_int_equal(site->taken, 3);
	assert_int_equal(site->mispred, 1);
	assert_string_equal(site->from.func, "branchy");
	assert_true(site->from.has_func_off);
	assert_int_equal(site->from.func_off, 4);
	assert_string_equal(site->to.func, "landing");
	assert_int_equal(site->to.func_off, 0);
	assert_true(ends_with(site->from.module, "test_branch_names"));
	/* the test is built with -g: branchy's lines */
	if (!ends_with(site->from.file, "test_branch_names.c"))
		fail_msg("from's file '%s'", site->from.file ? site->from.file : "(none)");
	assert_in_range(site->from.line, branchy_first, branchy_last);
	/* an address in no mapping stays a raw address, unnamed */
	assert_null(t.v[1].from.module);
	assert_null(t.v[1].from.func);
	assert_int_equal(t.v[1].from.off, 0x10);
	branch_end_name(&t.v[1].from, name, sizeof(name));
	assert_string_equal(name, "[unknown] 0x10");

	/* the file and the report, as record -b writes it and report --branches reads it */
	f = open_memstream(&text, &len);
	assert_int_equal(branches_write(f, &t), 0);
	fclose(f);
	f = fmemopen(text, len, "r");
	branch_table_init(&back);
	assert_int_equal(branches_read(f, &back, err, sizeof(err)), 0);
	fclose(f);
	branch_table_sort(&back);
	len = 0;
	f = open_memstream(&rep, &len);
	assert_int_equal(branches_write_report(f, &back, 0), 0);
	fclose(f);
	snprintf(name, sizeof(name), "  branchy+0x4 (test_branch_names.c:%u) -> landing+0x0 (",
		 site->from.line);
	if (!strstr(rep, "4 taken branches (1.3 per sample), 1 mispredicted (25.00%)") ||
	    !strstr(rep, "         1  33.33%          3 100.00%       -") || !strstr(rep, name))
		fail_msg("report:\n%s", rep);
	free(text);
	free(rep);
	branch_table_release(&back);
	branch_table_release(&t);
	symbolizer__free(sym);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_sites_in_this_process_from_branch_records),
	};

	/* keep the functions whose addresses are taken in the binary */
	if (landing(3) != 10)
		return 1;
	return cmocka_run_group_tests_name("branch_names", tests, NULL, NULL);
}
