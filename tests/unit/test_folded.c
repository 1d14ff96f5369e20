// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* output/folded.c: line format, sanitizing, merging, ordering and write errors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/folded.h"

#define NR(a) (sizeof(a) / sizeof((a)[0]))

/* An in-memory stream and what was written to it. */
struct capture {
	FILE *f;
	char *buf;
	size_t len;
};

static void cap_open(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
}

/* Closes the stream; the caller frees c->buf. */
static const char *cap_close(struct capture *c)
{
	assert_int_equal(fclose(c->f), 0);
	return c->buf;
}

static void expect_line(const char *const frames[], size_t nr, uint64_t count, const char *want)
{
	struct capture c;

	cap_open(&c);
	assert_int_equal(folded_write_frames(c.f, frames, nr, count), 0);
	assert_string_equal(cap_close(&c), want);
	free(c.buf);
}

static void folded_writes_root_to_leaf_with_kernel_marker(void **state)
{
	const char *frames[] = { "app", "main", "do_read", "vfs_read_[k]" };

	(void)state;
	expect_line(frames, NR(frames), 42, "app;main;do_read;vfs_read_[k] 42\n");
}

static void folded_writes_a_single_frame_line(void **state)
{
	const char *frames[] = { "swapper/0" };

	(void)state;
	expect_line(frames, 1, 7, "swapper/0 7\n");
}

static void folded_replaces_semicolons_and_line_breaks_inside_frames(void **state)
{
	const char *frames[] = { "a;b", "x\ny", "c\r\nd", "t\tu", ";;", "\n", "end;" };

	(void)state;
	expect_line(frames, NR(frames), 1, "a:b;x y;c  d;t u;::; ;end: 1\n");
}

static void folded_writes_empty_and_null_frames_as_unknown(void **state)
{
	const char *frames[] = { "app", "", NULL, "leaf" };
	const char *only_empty[] = { "" };

	(void)state;
	expect_line(frames, NR(frames), 3, "app;[unknown];[unknown];leaf 3\n");
	expect_line(only_empty, 1, 1, "[unknown] 1\n");
}

static void folded_keeps_spaces_inside_frames(void **state)
{
	const char *frames[] = { "app", "<alloc::string::String as core::fmt::Write>::write_str",
				 " padded " };

	(void)state;
	expect_line(frames, NR(frames), 5,
		    "app;<alloc::string::String as core::fmt::Write>::write_str; padded  5\n");
}

static void folded_rejects_a_line_without_frames(void **state)
{
	struct capture c;

	(void)state;
	cap_open(&c);
	assert_int_equal(folded_write_frames(c.f, NULL, 0, 1), -EINVAL);
	assert_string_equal(cap_close(&c), "");
	free(c.buf);
}

static void folded_prints_zero_and_the_largest_count_exactly(void **state)
{
	const char *frames[] = { "a" };

	(void)state;
	expect_line(frames, 1, 0, "a 0\n");
	expect_line(frames, 1, UINT64_MAX, "a 18446744073709551615\n");
	expect_line(frames, 1, UINT64_MAX - 1, "a 18446744073709551614\n");
}

/* An unbuffered stream over @size bytes fails the first write past the end. */
static FILE *tiny_stream(char *buf, size_t size)
{
	FILE *f = fmemopen(buf, size, "w");

	assert_non_null(f);
	assert_int_equal(setvbuf(f, NULL, _IONBF, 0), 0);
	return f;
}

static void folded_reports_eio_on_a_read_only_stream(void **state)
{
	const char *frames[] = { "app", "main" };
	const char *empty[] = { "" };
	FILE *f = fopen("/dev/null", "r");

	(void)state;
	assert_non_null(f);
	assert_int_equal(folded_write_frames(f, frames, NR(frames), 1), -EIO);
	assert_int_equal(folded_write_frames(f, empty, 1, 1), -EIO);
	fclose(f);
}

/* Run out of space at each kind of write the line writer does. */
static void folded_reports_eio_wherever_the_stream_fills_up(void **state)
{
	static const struct {
		const char *frames[2];
		size_t nr;
		size_t size;
	} cases[] = {
		{ { "abcdefghij" }, 1, 8 },		/* inside a plain span */
		{ { "abcdefgh", "x" }, 2, 8 },	/* at the ';' separator */
		{ { "abcdefgh;x" }, 1, 8 },		/* at a replaced character */
		{ { "", "x" }, 2, 4 },			/* inside "[unknown]" */
		{ { "abcdef" }, 1, 8 },			/* inside the count */
	};
	char buf[16];
	size_t i;
	FILE *f;

	(void)state;
	for (i = 0; i < NR(cases); i++) {
		f = tiny_stream(buf, cases[i].size);
		if (folded_write_frames(f, cases[i].frames, cases[i].nr, 1234567) != -EIO)
			fail_msg("case %zu: no -EIO", i);
		fclose(f);
	}
}

/*
 * A stream whose @fail_at-th write call fails and every other call succeeds,
 * so a writer that ignores one failed write and carries on is caught: a
 * stream that stays broken would hide that behind the next failing write.
 */
struct flaky {
	int calls;
	int fail_at;
};

static ssize_t flaky_write(void *cookie, const char *buf, size_t size)
{
	struct flaky *fl = cookie;

	if (++fl->calls == fl->fail_at) {
		errno = EIO;
		return -1;
	}
	return size;
}

static FILE *flaky_open(struct flaky *fl, int fail_at)
{
	cookie_io_functions_t io = { .write = flaky_write };
	FILE *f;

	fl->calls = 0;
	fl->fail_at = fail_at;
	f = fopencookie(fl, "w", io);
	assert_non_null(f);
	/* unbuffered: each stdio call of the writer is one write call here */
	assert_int_equal(setvbuf(f, NULL, _IONBF, 0), 0);
	return f;
}

static void folded_reports_eio_when_any_single_write_fails(void **state)
{
	const char *frames[] = { "app", "", "a;b", "leaf" };
	struct flaky fl;
	int nr_calls, k;
	FILE *f;

	(void)state;
	f = flaky_open(&fl, 0);
	assert_int_equal(folded_write_frames(f, frames, NR(frames), 99), 0);
	fclose(f);
	nr_calls = fl.calls;
	assert_true(nr_calls >= 8);	/* 4 frames, 3 separators, a replaced ';', the count */
	for (k = 1; k <= nr_calls; k++) {
		f = flaky_open(&fl, k);
		if (folded_write_frames(f, frames, NR(frames), 99) != -EIO)
			fail_msg("write call %d of %d failed unnoticed", k, nr_calls);
		fclose(f);
	}
}

static void folded_sink_merges_identical_lines_and_sums_counts(void **state)
{
	struct folded_sink *fs = folded_sink__new();
	const char *a[] = { "app", "main", "work" };
	const char *b[] = { "app", "main" };
	struct capture c;

	(void)state;
	assert_non_null(fs);
	assert_int_equal(folded_sink__add(fs, a, NR(a), 3), 0);
	assert_int_equal(folded_sink__add(fs, b, NR(b), 1), 0);
	assert_int_equal(folded_sink__add(fs, a, NR(a), 4), 0);
	assert_int_equal(folded_sink__nr_lines(fs), 2);
	assert_true(folded_sink__total(fs) == 8);
	cap_open(&c);
	assert_int_equal(folded_sink__write(fs, c.f), 0);
	assert_string_equal(cap_close(&c), "app;main;work 7\napp;main 1\n");
	free(c.buf);
	folded_sink__free(fs);
}

/* The key is the printed text: stacks that print the same are one line. */
static void folded_sink_merges_frames_that_print_the_same(void **state)
{
	struct folded_sink *fs = folded_sink__new();
	const char *semi[] = { "a;b" }, *colon[] = { "a:b" }, *split[] = { "a", "b" };
	const char *empty[] = { "", "x" }, *null[] = { NULL, "x" };
	const char *unknown[] = { "[unknown]", "x" };
	const char *tab[] = { "f\tg" }, *nl[] = { "f\ng" }, *space[] = { "f g" };
	struct capture c;

	(void)state;
	assert_int_equal(folded_sink__add(fs, semi, 1, 1), 0);
	assert_int_equal(folded_sink__add(fs, colon, 1, 1), 0);
	assert_int_equal(folded_sink__add(fs, split, 2, 5), 0);
	assert_int_equal(folded_sink__add(fs, empty, 2, 1), 0);
	assert_int_equal(folded_sink__add(fs, null, 2, 1), 0);
	assert_int_equal(folded_sink__add(fs, unknown, 2, 1), 0);
	assert_int_equal(folded_sink__add(fs, tab, 1, 1), 0);
	assert_int_equal(folded_sink__add(fs, nl, 1, 1), 0);
	assert_int_equal(folded_sink__add(fs, space, 1, 2), 0);
	assert_int_equal(folded_sink__nr_lines(fs), 4);
	assert_true(folded_sink__total(fs) == 14);
	cap_open(&c);
	assert_int_equal(folded_sink__write(fs, c.f), 0);
	assert_string_equal(cap_close(&c), "a;b 5\n"
					   "f g 4\n"
					   "[unknown];x 3\n"
					   "a:b 2\n");
	free(c.buf);
	folded_sink__free(fs);
}

static void folded_sink_orders_by_count_then_text_bytewise(void **state)
{
	/* added in scrambled order; ties must come out in memcmp order */
	static const struct {
		const char *frame;
		uint64_t count;
	} in[] = {
		{ "b", 5 }, { "\xc3\xa9t\xc3\xa9", 5 }, { "a", 5 }, { "B", 5 }, { "a b", 5 },
		{ "zzz", 9 }, { "a;", 5 }, { "aa", 5 }, { "low", 1 }, { "A", 5 },
	};
	static const char want[] = "zzz 9\n"
				   "A 5\n"
				   "B 5\n"
				   "a 5\n"
				   "a b 5\n"
				   "a: 5\n"
				   "aa 5\n"
				   "b 5\n"
				   "\xc3\xa9t\xc3\xa9 5\n"
				   "low 1\n";
	struct folded_sink *fs = folded_sink__new();
	struct capture c;
	size_t i;

	(void)state;
	for (i = 0; i < NR(in); i++)
		assert_int_equal(folded_sink__add(fs, &in[i].frame, 1, in[i].count), 0);
	cap_open(&c);
	assert_int_equal(folded_sink__write(fs, c.f), 0);
	assert_string_equal(cap_close(&c), want);
	free(c.buf);
	folded_sink__free(fs);
}

/* A line and its prefix: the shorter text sorts first on equal counts. */
static void folded_sink_sorts_a_prefix_before_its_extensions(void **state)
{
	const char *root[] = { "app" }, *child[] = { "app", "main" };
	struct folded_sink *fs = folded_sink__new();
	struct capture c;

	(void)state;
	assert_int_equal(folded_sink__add(fs, child, 2, 2), 0);
	assert_int_equal(folded_sink__add(fs, root, 1, 2), 0);
	cap_open(&c);
	assert_int_equal(folded_sink__write(fs, c.f), 0);
	assert_string_equal(cap_close(&c), "app 2\napp;main 2\n");
	free(c.buf);
	folded_sink__free(fs);
}

static void folded_sink_writes_each_line_as_the_line_writer_does(void **state)
{
	const char *frames[] = { "p;q", "", "r\ns\tt\ru", NULL, "with space", "[k]" };
	struct folded_sink *fs = folded_sink__new();
	struct capture line, sink;

	(void)state;
	cap_open(&line);
	assert_int_equal(folded_write_frames(line.f, frames, NR(frames), 77), 0);
	cap_close(&line);
	assert_int_equal(folded_sink__add(fs, frames, NR(frames), 77), 0);
	cap_open(&sink);
	assert_int_equal(folded_sink__write(fs, sink.f), 0);
	assert_string_equal(cap_close(&sink), line.buf);
	free(line.buf);
	free(sink.buf);
	folded_sink__free(fs);
}

static void folded_sink_keeps_many_lines_exact_and_sorted(void **state)
{
	struct folded_sink *fs = folded_sink__new();
	const char *frames[3] = { "app", NULL, NULL };
	char mid[32], leaf[32], *line, *save = NULL;
	uint64_t total = 0, prev = UINT64_MAX, cnt;
	size_t i, nr = 20000, seen = 0;
	struct capture c;

	(void)state;
	for (i = 0; i < 2 * nr; i++) {
		snprintf(mid, sizeof(mid), "mid%zu", (i % nr) % 97);
		snprintf(leaf, sizeof(leaf), "leaf%zu", i % nr);
		frames[1] = mid;
		frames[2] = leaf;
		assert_int_equal(folded_sink__add(fs, frames, 3, i % nr % 50 + 1), 0);
		total += i % nr % 50 + 1;
	}
	assert_int_equal(folded_sink__nr_lines(fs), nr);
	assert_true(folded_sink__total(fs) == total);
	cap_open(&c);
	assert_int_equal(folded_sink__write(fs, c.f), 0);
	cap_close(&c);
	for (line = strtok_r(c.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long u;

		assert_int_equal(sscanf(strrchr(line, ' '), " %llu", &u), 1);
		cnt = u;
		assert_true(cnt <= prev);	/* descending; text order is covered above */
		assert_true(cnt % 2 == 0);	/* every line was added twice */
		prev = cnt;
		seen++;
	}
	assert_int_equal(seen, nr);
	free(c.buf);
	folded_sink__free(fs);
}

static void folded_sink_refuses_to_overflow_a_count(void **state)
{
	struct folded_sink *fs = folded_sink__new();
	const char *a[] = { "a" }, *b[] = { "b" };
	struct capture c;

	(void)state;
	assert_int_equal(folded_sink__add(fs, a, 1, UINT64_MAX - 1), 0);
	assert_int_equal(folded_sink__add(fs, a, 1, 1), 0);
	assert_int_equal(folded_sink__add(fs, a, 1, 1), -EOVERFLOW);
	/* b is new and fits on its own, but the total would wrap */
	assert_int_equal(folded_sink__add(fs, b, 1, 1), -EOVERFLOW);
	assert_int_equal(folded_sink__nr_lines(fs), 1);
	assert_true(folded_sink__total(fs) == UINT64_MAX);
	cap_open(&c);
	assert_int_equal(folded_sink__write(fs, c.f), 0);
	assert_string_equal(cap_close(&c), "a 18446744073709551615\n");
	free(c.buf);
	folded_sink__free(fs);
}

static void folded_sink_rejects_lines_without_frames(void **state)
{
	struct folded_sink *fs = folded_sink__new();

	(void)state;
	assert_int_equal(folded_sink__add(fs, NULL, 0, 1), -EINVAL);
	assert_int_equal(folded_sink__nr_lines(fs), 0);
	assert_true(folded_sink__total(fs) == 0);
	folded_sink__free(fs);
	folded_sink__free(NULL);
}

static void folded_sink_writes_nothing_when_empty(void **state)
{
	struct folded_sink *fs = folded_sink__new();
	struct capture c;

	(void)state;
	cap_open(&c);
	assert_int_equal(folded_sink__write(fs, c.f), 0);
	assert_string_equal(cap_close(&c), "");
	free(c.buf);
	folded_sink__free(fs);
}

/* Read-only, full in the middle, any one failed write, and an error only fflush() reveals. */
static void folded_sink_write_reports_eio(void **state)
{
	struct folded_sink *fs = folded_sink__new();
	const char *a[] = { "app", "main" }, *b[] = { "app", "other" };
	struct flaky fl;
	int nr_calls, k;
	char buf[16];
	FILE *f;

	(void)state;
	assert_int_equal(folded_sink__add(fs, a, 2, 10), 0);
	assert_int_equal(folded_sink__add(fs, b, 2, 1), 0);

	f = fopen("/dev/null", "r");
	assert_non_null(f);
	assert_int_equal(folded_sink__write(fs, f), -EIO);
	fclose(f);

	f = tiny_stream(buf, sizeof(buf));	/* the first line fits, the second does not */
	assert_int_equal(folded_sink__write(fs, f), -EIO);
	fclose(f);

	f = flaky_open(&fl, 0);
	assert_int_equal(folded_sink__write(fs, f), 0);
	fclose(f);
	nr_calls = fl.calls;
	for (k = 1; k <= nr_calls; k++) {
		f = flaky_open(&fl, k);
		if (folded_sink__write(fs, f) != -EIO)
			fail_msg("write call %d of %d failed unnoticed", k, nr_calls);
		fclose(f);
	}

	f = fopen("/dev/full", "w");		/* buffered: every fwrite "succeeds" */
	if (!f)
		skip();
	assert_int_equal(folded_sink__write(fs, f), -EIO);
	fclose(f);
	folded_sink__free(fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(folded_writes_root_to_leaf_with_kernel_marker),
		cmocka_unit_test(folded_writes_a_single_frame_line),
		cmocka_unit_test(folded_replaces_semicolons_and_line_breaks_inside_frames),
		cmocka_unit_test(folded_writes_empty_and_null_frames_as_unknown),
		cmocka_unit_test(folded_keeps_spaces_inside_frames),
		cmocka_unit_test(folded_rejects_a_line_without_frames),
		cmocka_unit_test(folded_prints_zero_and_the_largest_count_exactly),
		cmocka_unit_test(folded_reports_eio_on_a_read_only_stream),
		cmocka_unit_test(folded_reports_eio_wherever_the_stream_fills_up),
		cmocka_unit_test(folded_reports_eio_when_any_single_write_fails),
		cmocka_unit_test(folded_sink_merges_identical_lines_and_sums_counts),
		cmocka_unit_test(folded_sink_merges_frames_that_print_the_same),
		cmocka_unit_test(folded_sink_orders_by_count_then_text_bytewise),
		cmocka_unit_test(folded_sink_sorts_a_prefix_before_its_extensions),
		cmocka_unit_test(folded_sink_writes_each_line_as_the_line_writer_does),
		cmocka_unit_test(folded_sink_keeps_many_lines_exact_and_sorted),
		cmocka_unit_test(folded_sink_refuses_to_overflow_a_count),
		cmocka_unit_test(folded_sink_rejects_lines_without_frames),
		cmocka_unit_test(folded_sink_writes_nothing_when_empty),
		cmocka_unit_test(folded_sink_write_reports_eio),
	};

	return cmocka_run_group_tests_name("folded", tests, NULL, NULL);
}
