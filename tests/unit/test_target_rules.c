// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Target rules: name patterns as the BPF side compares them, cgroup path checks. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "collect/target_rules.h"

static void exact_name_matches_only_itself(void **state)
{
	struct target_rules r = { 0 };

	(void)state;
	assert_int_equal(target_rules_add_comm(&r, "nginx"), 0);
	/* the NUL is compared too: "nginx" is not a prefix rule */
	assert_int_equal(r.comm_len[0], 6);
	assert_true(target_rules_comm_match(&r, "nginx"));
	assert_false(target_rules_comm_match(&r, "nginx-worker"));
	assert_false(target_rules_comm_match(&r, "ngin"));
	assert_false(target_rules_comm_match(&r, ""));
}

static void trailing_star_is_a_prefix(void **state)
{
	struct target_rules r = { 0 };

	(void)state;
	assert_int_equal(target_rules_add_comm(&r, "post*"), 0);
	assert_int_equal(r.comm_len[0], 4);
	assert_true(target_rules_comm_match(&r, "postgres"));
	assert_true(target_rules_comm_match(&r, "post"));
	assert_false(target_rules_comm_match(&r, "pos"));
	assert_false(target_rules_comm_match(&r, "xpostgres"));
}

static void long_names_match_the_kernels_15_characters(void **state)
{
	struct target_rules r = { 0 };

	(void)state;
	/* the kernel truncates a task name to 15 characters */
	assert_int_equal(target_rules_add_comm(&r, "very-long-program-name"), 0);
	assert_int_equal(r.comm_len[0], 16);
	assert_true(target_rules_comm_match(&r, "very-long-progr"));
	assert_false(target_rules_comm_match(&r, "very-long-prog"));
	/* a comm longer than 15 (never from the kernel) is cut the same way */
	assert_true(target_rules_comm_match(&r, "very-long-program-name"));
}

static void any_rule_matches(void **state)
{
	struct target_rules r = { 0 };

	(void)state;
	assert_int_equal(target_rules_add_comm(&r, "a"), 0);
	assert_int_equal(target_rules_add_comm(&r, "b*"), 0);
	assert_true(target_rules_comm_match(&r, "a"));
	assert_true(target_rules_comm_match(&r, "bz"));
	assert_false(target_rules_comm_match(&r, "ab"));
}

static void bad_patterns_are_rejected(void **state)
{
	struct target_rules r = { 0 };

	(void)state;
	assert_int_equal(target_rules_add_comm(&r, ""), -EINVAL);
	assert_int_equal(target_rules_add_comm(&r, "*"), -EINVAL);
	assert_int_equal(target_rules_add_comm(&r, "a*b"), -EINVAL);
	assert_int_equal(target_rules_add_comm(&r, "a?"), -EINVAL);
	assert_int_equal(target_rules_add_comm(&r, "[ab]"), -EINVAL);
	assert_int_equal(target_rules_add_comm(&r, "**"), -EINVAL);
	assert_int_equal(r.nr_comms, 0);
	for (int i = 0; i < HC_MAX_TARGET_RULES; i++)
		assert_int_equal(target_rules_add_comm(&r, "x"), 0);
	assert_int_equal(target_rules_add_comm(&r, "x"), -E2BIG);
	assert_true(target_rules_any(&r));
}

static void cgroup_paths_must_be_cgroup2_directories(void **state)
{
	struct target_rules r = { 0 };

	(void)state;
	assert_int_equal(target_rules_add_cgroup(&r, "/nonexistent/hotcold"), -ENOENT);
	assert_int_equal(target_rules_add_cgroup(&r, "/tmp"), -ENOTDIR);
	assert_int_equal(target_rules_add_cgroup(&r, ""), -ENOENT);
	assert_int_equal(r.nr_cgroups, 0);
	assert_false(target_rules_any(&r));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exact_name_matches_only_itself),
		cmocka_unit_test(trailing_star_is_a_prefix),
		cmocka_unit_test(long_names_match_the_kernels_15_characters),
		cmocka_unit_test(any_rule_matches),
		cmocka_unit_test(bad_patterns_are_rejected),
		cmocka_unit_test(cgroup_paths_must_be_cgroup2_directories),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
