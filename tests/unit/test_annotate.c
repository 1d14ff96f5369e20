// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * analysis/pprof_read.c and annotate.c: profiles written by output/pprof.c
 * read back (round trip), malformed input refused at every truncation, and
 * annotate_select()/annotate_lines() on known samples.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/annotate.h"
#include "analysis/profile.h"
#include "output/pprof.h"

/* app -> hot(+off) leaf samples, weights known; one sample's leaf is an inlined frame. */
static void add(struct profile *p, const char *leaf, uint64_t off, unsigned int flags,
		uint64_t w, bool with_inline)
{
	struct profile_frame_in f[3] = {
		{ .name = "main", .module = "/bin/app", .build_id = "ab12", .addr = 0x1000 },
		{ .name = leaf, .module = "/bin/app", .build_id = "ab12", .addr = off, .flags = flags },
		{ .name = "helper", .module = "/bin/app", .build_id = "ab12", .addr = off,
		  .flags = FRAME_F_INLINE },
	};
	struct profile_stack_in s = { .frames = f, .nr_frames = with_inline ? 3 : 2,
				      .weight = w, .kind = PROFILE_KIND_ONCPU, .pid = 1 };

	assert_int_equal(profile__add(p, &s), 0);
}

static void encode(struct profile *p, unsigned char **buf, size_t *len)
{
	profile__set_period_ns(p, 1000000);
	assert_int_equal(pprof_encode(p, buf, len), 0);
}

static struct profile *sample_profile(void)
{
	struct profile *p = profile__new();

	assert_non_null(p);
	add(p, "hot", 0x2010, 0, 70, false);
	add(p, "hot", 0x2020, 0, 20, false);
	add(p, "hot", 0x2010, 0, 5, true);	/* inlined helper at hot+0x10 */
	add(p, "cold", 0x3000, 0, 7, false);
	return p;
}

static void test_round_trip(void **state)
{
	struct profile *p = sample_profile();
	struct pprof_data d;
	unsigned char *buf;
	size_t len;

	encode(p, &buf, &len);
	assert_int_equal(pprof_decode(buf, len, &d), 0);
	assert_int_equal(d.nr_samples, 4);
	assert_true(d.nr_types >= 1);
	assert_string_equal(d.types[0].type, "samples");
	assert_string_equal(d.strings[0], "");
	assert_int_equal(d.period, 1000000);
	assert_int_equal(d.nr_mappings, 1);
	assert_string_equal(d.mappings[0].file, "/bin/app");
	assert_string_equal(d.mappings[0].build_id, "ab12");
	/* every sample's locations resolve, with addresses in the mapping */
	for (size_t i = 0; i < d.nr_samples; i++)
		for (size_t k = 0; k < d.samples[i].nr_loc; k++) {
			const struct pprof_location *l = pprof_location(&d, d.samples[i].loc[k]);

			assert_non_null(l);
			assert_non_null(pprof_mapping(&d, l->mapping_id));
			assert_non_null(pprof_function(&d, l->function_id));
		}
	pprof_data_release(&d);
	free(buf);
	profile__free(p);
}

/* Every prefix and every single-byte corruption decodes or fails cleanly (ASan run: make check-asan). */
static void test_truncated_and_corrupt(void **state)
{
	struct profile *p = sample_profile();
	struct pprof_data d;
	unsigned char *buf;
	size_t len, ok = 0;

	encode(p, &buf, &len);
	for (size_t n = 0; n < len; n++) {
		int err = pprof_decode(buf, n, &d);

		assert_true(err == 0 || err == -EBADMSG);
		if (!err) {
			ok++;
			pprof_data_release(&d);
		}
	}
	/* a cut inside the string table's first entry is always caught */
	assert_int_equal(pprof_decode(buf, 1, &d), -EBADMSG);
	for (size_t i = 0; i < len; i++) {
		unsigned char save = buf[i];

		buf[i] ^= 0xff;
		if (!pprof_decode(buf, len, &d))
			pprof_data_release(&d);
		buf[i] = save;
	}
	assert_true(ok < len);
	free(buf);
	profile__free(p);
}

static void test_string_index_out_of_range(void **state)
{
	/* string_table "" then a Mapping{ filename = 5 }: index past the table */
	const uint8_t msg[] = { 0x32, 0x00, 0x1a, 0x04, 0x08, 0x01, 0x28, 0x05 };
	struct pprof_data d;

	assert_int_equal(pprof_decode(msg, sizeof(msg), &d), -EBADMSG);
	assert_int_equal(pprof_decode(msg, 2, &d), 0);	/* just the table: valid, empty */
	assert_int_equal(d.nr_samples, 0);
	pprof_data_release(&d);
	/* a NUL inside a string is refused, not cut */
	const uint8_t nul[] = { 0x32, 0x00, 0x32, 0x03, 'a', 0, 'b' };

	assert_int_equal(pprof_decode(nul, sizeof(nul), &d), -EBADMSG);
}

static void test_select(void **state)
{
	struct profile *p = sample_profile();
	struct annotate_sel s;
	struct pprof_data d;
	unsigned char *buf;
	size_t len;

	encode(p, &buf, &len);
	assert_int_equal(pprof_decode(buf, len, &d), 0);
	assert_int_equal(annotate_select(&d, "hot", &s), 0);
	/* self weight: 70 + 20 + 5 (the inlined helper's sample is hot's own code) */
	assert_int_equal(s.total, 95);
	assert_int_equal(s.profile_total, 102);
	assert_string_equal(s.file, "/bin/app");
	assert_int_equal(s.nr, 2);
	assert_int_equal(s.v[0].off, 0x2010);
	assert_int_equal(s.v[0].weight, 75);
	assert_int_equal(s.v[1].off, 0x2020);
	assert_int_equal(s.v[1].weight, 20);
	annotate_sel_release(&s);

	assert_int_equal(annotate_select(&d, "nosuch", &s), -ENOENT);
	/* main is on every stack, never the leaf */
	assert_int_equal(annotate_select(&d, "main", &s), -ESRCH);
	assert_int_equal(s.in_stacks, 102);
	/* the inlined frame's own name is not a physical function */
	assert_int_equal(annotate_select(&d, "helper_[i]", &s), -ESRCH);
	pprof_data_release(&d);
	free(buf);
	profile__free(p);
}

/* Two intervals' selections of one build add up by offset; another build is refused. */
static void test_history_merge(void **state)
{
	struct annotate_sample a[] = { { 0x10, 5 }, { 0x20, 7 } }, b[] = { { 0x18, 1 }, { 0x20, 3 } };
	struct annotate_sel s1 = { .file = "/bin/app", .build_id = "ab", .v = a, .nr = 2, .total = 12,
				   .profile_total = 20, .type = "samples", .unit = "count" };
	struct annotate_sel s2 = s1, other = s1, m = { 0 };

	(void)state;
	s2.v = b;
	s2.total = 4;
	s2.in_stacks = 9;
	assert_int_equal(annotate_sel_merge(&m, &s1), 0);
	assert_int_equal(annotate_sel_merge(&m, &s2), 0);
	assert_string_equal(m.file, "/bin/app");
	assert_int_equal(m.nr, 3);
	assert_int_equal(m.v[0].off, 0x10);
	assert_int_equal(m.v[1].off, 0x18);
	assert_int_equal(m.v[2].weight, 10);
	assert_int_equal(m.total, 16);
	assert_int_equal(m.profile_total, 40);
	assert_int_equal(m.in_stacks, 9);
	/* a rebuilt binary: the same offsets are other code */
	other.build_id = "cd";
	assert_int_equal(annotate_sel_merge(&m, &other), -EXDEV);
	assert_int_equal(m.total, 16);
	annotate_sel_release(&m);
}

static void test_history_files(void **state)
{
	char dir[] = "/tmp/hc-annot-XXXXXX", path[256], **f;
	static const char *const names[] = {
		"20250102T030405.678Z-oncpu.pb.gz", "20250102T030305.000Z-oncpu.pb.gz",
		"20250102T030405.678Z-offcpu.pb.gz", "20250102T030405.678Z-oncpu.folded.gz",
		"garbage-oncpu.pb.gz", "index.jsonl",
	};
	int64_t ms;
	size_t nr;

	(void)state;
	assert_int_equal(annotate_stamp_ms("20250102T030405.678Z", &ms), 0);
	assert_true(ms == 1735787045678LL);
	assert_int_equal(annotate_stamp_ms("20251302T030405.678Z", &ms), -EINVAL);
	assert_int_equal(annotate_stamp_ms("20250102T030405.678", &ms), -EINVAL);
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		fclose(fopen(path, "w"));
	}
	assert_int_equal(annotate_history_files(dir, "oncpu", 0, &f, &nr), 0);
	assert_int_equal(nr, 2);	/* on-CPU pprof files only, oldest first */
	assert_non_null(strstr(f[0], "/20250102T030305.000Z-oncpu.pb.gz"));
	assert_non_null(strstr(f[1], "/20250102T030405.678Z-oncpu.pb.gz"));
	annotate_history_free(f, nr);
	/* --since: only what started at or after it */
	assert_int_equal(annotate_history_files(dir, "oncpu", 1735787045000LL, &f, &nr), 0);
	assert_int_equal(nr, 1);
	annotate_history_free(f, nr);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
	assert_int_equal(annotate_history_files(dir, "oncpu", 0, &f, &nr), -ENOENT);
}

/* A profile read from folded text has no addresses: said so, not a silent empty view. */
static void test_select_no_addresses(void **state)
{
	struct profile *p = profile__new();
	struct profile_frame_in f[] = { { .name = "main" }, { .name = "hot" } };
	struct profile_stack_in st = { .frames = f, .nr_frames = 2, .weight = 9,
				       .kind = PROFILE_KIND_ONCPU };
	struct annotate_sel s;
	struct pprof_data d;
	unsigned char *buf;
	size_t len;

	assert_int_equal(profile__add(p, &st), 0);
	encode(p, &buf, &len);
	assert_int_equal(pprof_decode(buf, len, &d), 0);
	assert_int_equal(annotate_select(&d, "hot", &s), -ENODATA);
	pprof_data_release(&d);
	free(buf);
	profile__free(p);
}

/* record -e page-faults -c 10: the pprof period type says what a sample is */
static void test_event_period_type(void **state)
{
	struct profile *p = sample_profile();
	struct pprof_data d;
	unsigned char *buf;
	size_t len;

	profile__set_event(p, "page-faults", 10);
	assert_int_equal(pprof_encode(p, &buf, &len), 0);	/* period_ns 0: no time */
	assert_int_equal(pprof_decode(buf, len, &d), 0);
	assert_non_null(d.period_type.type);
	assert_string_equal(d.period_type.type, "page-faults");
	assert_string_equal(d.period_type.unit, "count");
	assert_int_equal(d.period, 10);
	assert_int_equal(d.nr_types, 1);	/* samples only, no cpu nanoseconds */
	pprof_data_release(&d);
	free(buf);
	profile__free(p);
}

static void test_lines(void **state)
{
	struct annotate_result r = { 0 };
	struct annotate_insn in[5] = {
		{ .addr = 0x10, .line = 3, .weight = 1 },
		{ .addr = 0x14, .line = 4, .weight = 50 },
		{ .addr = 0x18, .line = 3, .weight = 9 },
		{ .addr = 0x1c, .line = 0, .weight = 7 },	/* line 0: no line */
		{ .addr = 0x20, .line = 5, .weight = 10 },
	};
	const char *f = annotate_intern(&r, "a.c");

	assert_ptr_equal(annotate_intern(&r, "a.c"), f);
	for (int i = 0; i < 5; i++)
		in[i].file = in[i].line ? f : NULL;
	r.insns = malloc(sizeof(in));
	memcpy(r.insns, in, sizeof(in));
	r.nr_insns = 5;
	assert_int_equal(annotate_lines(&r), 0);
	assert_int_equal(r.nr_lines, 3);
	assert_int_equal(r.lines[0].line, 4);
	assert_int_equal(r.lines[0].weight, 50);
	/* a tie (10 and 10) in address order: line 3 starts at 0x10 */
	assert_int_equal(r.lines[1].line, 3);
	assert_int_equal(r.lines[1].weight, 10);
	assert_int_equal(r.lines[2].line, 5);
	assert_int_equal(r.no_line, 7);
	annotate_result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_truncated_and_corrupt),
		cmocka_unit_test(test_string_index_out_of_range),
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_select_no_addresses),
		cmocka_unit_test(test_event_period_type),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_history_merge),
		cmocka_unit_test(test_history_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
