// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cli/parse.c: every rejection rule, bounds, and "output untouched on error". */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"

#define SENTINEL 0xdeadbeefcafef00dULL
#define NS_PER_S 1000000000ULL

static void expect_u64_error(const char *s, uint64_t min, uint64_t max, int err)
{
	uint64_t v = SENTINEL;

	int ret = parse_u64(s, min, max, &v);

	if (ret != err)
		print_message("parse_u64('%s')\n", s);
	assert_int_equal(ret, err);
	assert_true(v == SENTINEL);
}

static uint64_t u64_ok(const char *s, uint64_t min, uint64_t max)
{
	uint64_t v = SENTINEL;

	assert_int_equal(parse_u64(s, min, max, &v), 0);
	return v;
}

static void parse_u64_accepts_plain_decimal(void **state)
{
	(void)state;
	assert_true(u64_ok("0", 0, UINT64_MAX) == 0);
	assert_true(u64_ok("42", 0, UINT64_MAX) == 42);
	assert_true(u64_ok("007", 0, UINT64_MAX) == 7);	/* decimal, never octal */
	assert_true(u64_ok("18446744073709551615", 0, UINT64_MAX) == UINT64_MAX);
}

static void parse_u64_rejects_junk_signs_and_whitespace(void **state)
{
	static const char *const bad[] = {
		"", "abc", "10ms", "1 ", " 1", "+1", "-1", "-0", "1\n", "0x10", "1e3",
		"1.0", "1,2", "\t1", "99999999999999999999x",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_u64_error(bad[i], 0, UINT64_MAX, -EINVAL);
	expect_u64_error(NULL, 0, UINT64_MAX, -EINVAL);
}

static void parse_u64_reports_overflow_as_out_of_range(void **state)
{
	(void)state;
	expect_u64_error("18446744073709551616", 0, UINT64_MAX, -ERANGE);
	expect_u64_error("99999999999999999999999", 0, UINT64_MAX, -ERANGE);
	/* leading zeros do not count towards overflow */
	assert_true(u64_ok("000000000000000000000018446744073709551615", 0, UINT64_MAX) ==
		    UINT64_MAX);
}

static void parse_u64_bounds_are_inclusive(void **state)
{
	(void)state;
	assert_true(u64_ok("10", 10, 20) == 10);
	assert_true(u64_ok("20", 10, 20) == 20);
	expect_u64_error("9", 10, 20, -ERANGE);
	expect_u64_error("21", 10, 20, -ERANGE);
	assert_true(u64_ok("5", 5, 5) == 5);
	expect_u64_error("0", 1, UINT64_MAX, -ERANGE);
}

static void expect_dur_error(const char *s, uint64_t def, uint64_t min, uint64_t max, int err)
{
	uint64_t v = SENTINEL;

	int ret = parse_duration_ns(s, def, min, max, &v);

	if (ret != err)
		print_message("parse_duration_ns('%s')\n", s);
	assert_int_equal(ret, err);
	assert_true(v == SENTINEL);
}

static uint64_t dur_ok(const char *s, uint64_t def)
{
	uint64_t v = SENTINEL;

	int ret = parse_duration_ns(s, def, 0, UINT64_MAX, &v);

	if (ret)
		print_message("parse_duration_ns('%s')\n", s);
	assert_int_equal(ret, 0);
	return v;
}

static void duration_accepts_every_unit(void **state)
{
	(void)state;
	assert_true(dur_ok("7ns", NS_PER_S) == 7);
	assert_true(dur_ok("7us", NS_PER_S) == 7000);
	assert_true(dur_ok("7ms", NS_PER_S) == 7000000);
	assert_true(dur_ok("7s", NS_PER_S) == 7 * NS_PER_S);
	assert_true(dur_ok("7m", NS_PER_S) == 7 * 60 * NS_PER_S);
	assert_true(dur_ok("7h", NS_PER_S) == 7 * 3600 * NS_PER_S);
	assert_true(dur_ok("0s", NS_PER_S) == 0);
}

static void duration_without_unit_uses_the_default_unit(void **state)
{
	(void)state;
	assert_true(dur_ok("3", NS_PER_S) == 3 * NS_PER_S);
	assert_true(dur_ok("3", 1000000) == 3000000);
	assert_true(dur_ok("1.5", NS_PER_S) == 1500000000);
	assert_true(dur_ok("3", 1) == 3);
}

static void duration_fractions_are_exact_without_float_error(void **state)
{
	(void)state;
	assert_true(dur_ok("0.1s", NS_PER_S) == 100000000);
	assert_true(dur_ok("0.25s", NS_PER_S) == 250000000);
	assert_true(dur_ok("1.5s", NS_PER_S) == 1500000000);
	assert_true(dur_ok("0.3s", NS_PER_S) == 300000000);
	assert_true(dur_ok("2.000000001s", NS_PER_S) == 2000000001);
	assert_true(dur_ok("0.5m", NS_PER_S) == 30 * NS_PER_S);
	assert_true(dur_ok("1.1h", NS_PER_S) == 3960 * NS_PER_S);
	assert_true(dur_ok("0.001ms", NS_PER_S) == 1000);
	assert_true(dur_ok("0.000001ms", NS_PER_S) == 1);
	assert_true(dur_ok("1.10000000000000000000000000000s", NS_PER_S) == 1100000000);
}

static void duration_rounds_sub_nanosecond_fractions_to_nearest(void **state)
{
	(void)state;
	assert_true(dur_ok("1.4ns", NS_PER_S) == 1);
	assert_true(dur_ok("1.5ns", NS_PER_S) == 2);		/* halves round up */
	assert_true(dur_ok("0.0000000004s", NS_PER_S) == 0);
	assert_true(dur_ok("0.0000000005s", NS_PER_S) == 1);
	/* just below a half, with more digits than any 64-bit value holds */
	assert_true(dur_ok("0.4999999999999999999999999999ns", NS_PER_S) == 0);
	assert_true(dur_ok("0.9999999999999999999999999999ns", NS_PER_S) == 1);
	assert_true(dur_ok("0.3333333333333333333333333333", 3) == 1);
}

static void duration_rejects_malformed_values(void **state)
{
	static const char *const bad[] = {
		"", "s", "abc", "1.5.2", "-1s", "+1s", "5x", " 1s", "1s ", "1 s", "1S",
		"1Ms", "1sec", ".5s", "1.s", "1.", "1..5s", "1,5s", "1e3s", "1s\n", "ms1",
		"1ss", "1mss", "0x1s", "99999999999999999999x",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_dur_error(bad[i], NS_PER_S, 0, UINT64_MAX, -EINVAL);
	expect_dur_error(NULL, NS_PER_S, 0, UINT64_MAX, -EINVAL);
}

static void duration_with_zero_default_unit_requires_a_unit(void **state)
{
	(void)state;
	expect_dur_error("5", 0, 0, UINT64_MAX, -EINVAL);
	assert_true(dur_ok("5ms", 0) == 5000000);
}

static void duration_bounds_are_inclusive_and_overflow_is_out_of_range(void **state)
{
	uint64_t v = SENTINEL;

	(void)state;
	assert_int_equal(parse_duration_ns("1ms", NS_PER_S, 1000000, 2000000, &v), 0);
	assert_true(v == 1000000);
	assert_int_equal(parse_duration_ns("2ms", NS_PER_S, 1000000, 2000000, &v), 0);
	assert_true(v == 2000000);
	expect_dur_error("999999ns", NS_PER_S, 1000000, 2000000, -ERANGE);
	expect_dur_error("2000001ns", NS_PER_S, 1000000, 2000000, -ERANGE);
	expect_dur_error("0.0004ms", NS_PER_S, 1, 10, -ERANGE);	/* 0.4 ns rounds to 0 */
	assert_true(dur_ok("18446744073709551615ns", NS_PER_S) == UINT64_MAX);
	expect_dur_error("18446744073709551616ns", NS_PER_S, 0, UINT64_MAX, -ERANGE);
	expect_dur_error("18446744074s", NS_PER_S, 0, UINT64_MAX, -ERANGE);
	assert_true(dur_ok("5124095.5h", NS_PER_S) == 18446743800000000000ULL);
	expect_dur_error("5124095.6h", NS_PER_S, 0, UINT64_MAX, -ERANGE);
	/* integer part fits, the fraction pushes it over */
	expect_dur_error("18446744073.709551616s", NS_PER_S, 0, UINT64_MAX, -ERANGE);
	assert_true(dur_ok("18446744073.709551615s", NS_PER_S) == UINT64_MAX);
}

static void expect_ids(const char *s, uint32_t max_id, size_t cap, const uint32_t *want,
		       size_t nr_want)
{
	uint32_t *ids = NULL;
	size_t nr = 0;

	int ret = parse_id_list(s, max_id, cap, &ids, &nr);

	if (ret)
		print_message("parse_id_list('%s')\n", s);
	assert_int_equal(ret, 0);
	assert_int_equal(nr, nr_want);
	assert_memory_equal(ids, want, nr_want * sizeof(*want));
	free(ids);
}

static void expect_ids_error(const char *s, uint32_t max_id, size_t cap, int err)
{
	uint32_t marker, *ids = &marker;
	size_t nr = 12345;

	int ret = parse_id_list(s, max_id, cap, &ids, &nr);

	if (ret != err)
		print_message("parse_id_list('%s')\n", s);
	assert_int_equal(ret, err);
	assert_ptr_equal(ids, &marker);
	assert_int_equal(nr, 12345);
}

static void id_list_parses_sorts_and_removes_duplicates(void **state)
{
	(void)state;
	expect_ids("12", 100, 8, (const uint32_t[]){ 12 }, 1);
	expect_ids("12,34", 100, 8, (const uint32_t[]){ 12, 34 }, 2);
	expect_ids("34,12,34,12,12", 100, 8, (const uint32_t[]){ 12, 34 }, 2);
	expect_ids("4194304", 4194304, 1, (const uint32_t[]){ 4194304 }, 1);
	expect_ids("1", UINT32_MAX, 1, (const uint32_t[]){ 1 }, 1);
	expect_ids("4294967295", UINT32_MAX, 1, (const uint32_t[]){ UINT32_MAX }, 1);
}

static void id_list_rejects_malformed_lists(void **state)
{
	static const char *const bad[] = {
		"", ",", "1,", ",1", "1,,2", "abc", "1,abc", "1 ,2", "1, 2", " 1", "1\n",
		"+1", "-1", "1-3", "1;2", "0x1",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_ids_error(bad[i], 100, 8, -EINVAL);
	expect_ids_error(NULL, 100, 8, -EINVAL);
	/* syntax errors win over range errors anywhere in the list */
	expect_ids_error("0,abc", 100, 8, -EINVAL);
	expect_ids_error("99999999999999999999,1,", 100, 8, -EINVAL);
}

static void id_list_enforces_id_bounds_and_capacity(void **state)
{
	(void)state;
	expect_ids_error("0", 100, 8, -ERANGE);
	expect_ids_error("5,0", 100, 8, -ERANGE);
	expect_ids("100", 100, 8, (const uint32_t[]){ 100 }, 1);
	expect_ids_error("101", 100, 8, -ERANGE);
	expect_ids_error("4294967296", UINT32_MAX, 8, -ERANGE);
	expect_ids_error("18446744073709551616", UINT32_MAX, 8, -ERANGE);
	/* cap counts distinct ids */
	expect_ids("1,2,3", 100, 3, (const uint32_t[]){ 1, 2, 3 }, 3);
	expect_ids_error("1,2,3,4", 100, 3, -ERANGE);
	expect_ids("7,7,7,7", 100, 1, (const uint32_t[]){ 7 }, 1);
	expect_ids_error("7", 100, 0, -ERANGE);
}

#define NR_MASK 16

static void expect_cpus(const char *s, const char *want)	/* want: "1100..." per cpu */
{
	bool mask[NR_MASK];
	size_t i;

	int ret;

	memset(mask, 1, sizeof(mask));		/* must be cleared by the parser */
	ret = parse_cpu_list(s, mask, NR_MASK);
	if (ret)
		print_message("parse_cpu_list('%s')\n", s);
	assert_int_equal(ret, 0);
	for (i = 0; i < NR_MASK; i++)
		assert_int_equal(mask[i], want[i] == '1');
}

static void expect_cpus_error(const char *s, size_t nr_mask, int err)
{
	bool mask[NR_MASK], before[NR_MASK];
	size_t i;

	int ret;

	for (i = 0; i < NR_MASK; i++)
		before[i] = mask[i] = i % 3 == 0;
	ret = parse_cpu_list(s, mask, nr_mask);
	if (ret != err)
		print_message("parse_cpu_list('%s')\n", s);
	assert_int_equal(ret, err);
	assert_memory_equal(mask, before, sizeof(mask));
}

static void cpu_list_parses_single_cpus_ranges_and_trailing_newline(void **state)
{
	(void)state;
	expect_cpus("0", "1000000000000000");
	expect_cpus("0\n", "1000000000000000");
	expect_cpus("0-3,8,10-11", "1111000010110000");
	expect_cpus("0-3,8,10-11\n", "1111000010110000");
	expect_cpus("5-5", "0000010000000000");
	expect_cpus("15", "0000000000000001");
	expect_cpus("0-15", "1111111111111111");
	expect_cpus("3,1,3,2-3", "0111000000000000");
}

static void cpu_list_rejects_malformed_lists(void **state)
{
	static const char *const bad[] = {
		"", "\n", "abc", "1,,2", "3-1", ",1", "1,", "1-", "-1", "1--2", "1-2-3",
		" 1", "1 ", "1\n\n", "1\r\n", "\n1", "1\n,2", "0-3:2", "+1", "1,\n", "0x1",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_cpus_error(bad[i], NR_MASK, -EINVAL);
	expect_cpus_error(NULL, NR_MASK, -EINVAL);
	/* a syntax error after an out-of-range cpu is still a syntax error */
	expect_cpus_error("99,3-1", NR_MASK, -EINVAL);
	expect_cpus_error("99,abc", NR_MASK, -EINVAL);
}

static void cpu_list_rejects_cpus_beyond_the_mask(void **state)
{
	(void)state;
	expect_cpus_error("16", NR_MASK, -ERANGE);
	expect_cpus_error("0-16", NR_MASK, -ERANGE);
	expect_cpus_error("0,4-7,20", NR_MASK, -ERANGE);
	expect_cpus_error("0-18446744073709551616", NR_MASK, -ERANGE);
	expect_cpus_error("0", 0, -ERANGE);
	expect_cpus_error("3", 3, -ERANGE);
}

/* The range error names the bounds of the parse that failed, in its units. */
static void strerror_names_the_range_of_the_failed_parse(void **state)
{
	uint64_t v;
	double d;

	(void)state;
	assert_int_equal(parse_u64("0", 1, 100000, &v), -ERANGE);
	assert_string_equal(parse_strerror(-ERANGE), "out of range (1 to 100000)");
	assert_int_equal(parse_duration_ns("0.5ms", NS_PER_S, 1000000ULL, 366ULL * 86400 * NS_PER_S,
					   &v), -ERANGE);
	assert_string_equal(parse_strerror(-ERANGE), "out of range (1ms to 8784h)");
	assert_int_equal(parse_duration_ns("1ns", NS_PER_S, 1500, 90 * NS_PER_S, &v), -ERANGE);
	assert_string_equal(parse_strerror(-ERANGE), "out of range (1500ns to 90s)");
	assert_int_equal(parse_double("0.5", 1, 1000, &d), -ERANGE);
	assert_string_equal(parse_strerror(-ERANGE), "out of range (1 to 1000)");
	assert_int_equal(parse_double("1e", 1, 1000, &d), -EINVAL);
	assert_string_equal(parse_strerror(-EINVAL), "not a valid value");
}

static void parse_double_accepts_bounds_and_rejects_junk(void **state)
{
	double d = -1;

	(void)state;
	assert_int_equal(parse_double("2.5", 0, 10, &d), 0);
	assert_true(d == 2.5);
	assert_int_equal(parse_double("10", 0, 10, &d), 0);
	assert_int_equal(parse_double("10.001", 0, 10, &d), -ERANGE);
	assert_int_equal(parse_double("", 0, 10, &d), -EINVAL);
	assert_int_equal(parse_double("nan", 0, 10, &d), -EINVAL);
	assert_int_equal(parse_double("3x", 0, 10, &d), -EINVAL);
	assert_true(d == 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_u64_accepts_plain_decimal),
		cmocka_unit_test(parse_u64_rejects_junk_signs_and_whitespace),
		cmocka_unit_test(parse_u64_reports_overflow_as_out_of_range),
		cmocka_unit_test(parse_u64_bounds_are_inclusive),
		cmocka_unit_test(duration_accepts_every_unit),
		cmocka_unit_test(duration_without_unit_uses_the_default_unit),
		cmocka_unit_test(duration_fractions_are_exact_without_float_error),
		cmocka_unit_test(duration_rounds_sub_nanosecond_fractions_to_nearest),
		cmocka_unit_test(duration_rejects_malformed_values),
		cmocka_unit_test(duration_with_zero_default_unit_requires_a_unit),
		cmocka_unit_test(duration_bounds_are_inclusive_and_overflow_is_out_of_range),
		cmocka_unit_test(id_list_parses_sorts_and_removes_duplicates),
		cmocka_unit_test(id_list_rejects_malformed_lists),
		cmocka_unit_test(id_list_enforces_id_bounds_and_capacity),
		cmocka_unit_test(cpu_list_parses_single_cpus_ranges_and_trailing_newline),
		cmocka_unit_test(cpu_list_rejects_malformed_lists),
		cmocka_unit_test(cpu_list_rejects_cpus_beyond_the_mask),
		cmocka_unit_test(strerror_names_the_range_of_the_failed_parse),
		cmocka_unit_test(parse_double_accepts_bounds_and_rejects_junk),
	};

	return cmocka_run_group_tests_name("parse", tests, NULL, NULL);
}
