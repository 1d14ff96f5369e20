// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* util/diag.c, util/suggest.c, util/caps.c: registry keys, suggestions, the privilege mask. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <getopt.h>
#include <string.h>

#include "util/caps.h"
#include "util/diag.h"
#include "util/suggest.h"

/* Labels that were called losses but are not: the registry reclassifies them. */
static void registry_classes_override_the_reported_flag(void **state)
{
	(void)state;
	assert_int_equal(diag__class("samples", false), DIAG_WORK);
	assert_int_equal(diag__class("lost (ring full)", true), DIAG_LOSS);
	/* the collector flags these as losses; the sample is kept, only the stack is worse */
	assert_int_equal(diag__class("stacks by FP (no table yet)", true), DIAG_DEGRADED);
	assert_int_equal(diag__class("user stacks truncated", true), DIAG_DEGRADED);
	assert_int_equal(diag__class("kernel stack errors", true), DIAG_DEGRADED);
	/* unknown names keep the reporter's flag */
	assert_int_equal(diag__class("something new", true), DIAG_LOSS);
	assert_int_equal(diag__class("something new", false), DIAG_WORK);
}

static void every_problem_has_a_remedy_and_keys_are_snake_case(void **state)
{
	static const char *const names[] = {
		"lost (ring full)", "untimed (no task storage)", "kernel stack errors",
		"stacks over the aggregation limit", "objects unreadable",
		"exit maps not read (ring full or lock busy)", "walks ended in unmapped code",
	};
	char buf[128];

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct diag *d = diag__find(names[i]);

		assert_non_null(d);
		assert_true(d->cls != DIAG_WORK);
		assert_true(strlen(d->remedy) > 10);
		for (const char *p = diag__key(names[i], buf, sizeof(buf)); *p; p++)
			assert_true((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_');
	}
	assert_string_equal(diag__key("lost (ring full)", buf, sizeof(buf)), "ring_full");
	/* a name outside the registry folds to snake_case, no leading/trailing '_' */
	assert_string_equal(diag__key("  Spans LOST (x/y full) ", buf, sizeof(buf)),
			    "spans_lost_x_y_full");
	assert_string_equal(diag__key("abcdef", buf, 4), "abc");
}

static void distance_is_levenshtein(void **state)
{
	(void)state;
	assert_int_equal(suggest__distance("freq", "freq"), 0);
	assert_int_equal(suggest__distance("frq", "freq"), 1);
	assert_int_equal(suggest__distance("kitten", "sitting"), 3);
	assert_int_equal(suggest__distance("", "abc"), 3);
	assert_int_equal(suggest__distance("outptu", "output"), 2);
}

static void option_suggestion_is_the_nearest_close_one(void **state)
{
	static const struct option opts[] = {
		{ "freq", required_argument, NULL, 'F' }, { "output", required_argument, NULL, 'o' },
		{ "off-cpu", no_argument, NULL, 1 }, { "on-cpu", no_argument, NULL, 2 },
		{ "unwind-rows", required_argument, NULL, 3 }, { NULL, 0, NULL, 0 },
	};

	(void)state;
	assert_string_equal(suggest__option("--frq", opts), "freq");
	assert_string_equal(suggest__option("--frq=3", opts), "freq");
	assert_string_equal(suggest__option("--outptu", opts), "output");
	assert_string_equal(suggest__option("--offcpu", opts), "off-cpu");
	assert_string_equal(suggest__option("--unwind-row", opts), "unwind-rows");
	/* too far from everything, or exact: no suggestion */
	assert_null(suggest__option("--zzzzzzzz", opts));
	assert_null(suggest__option("--freq", opts));
	assert_null(suggest__option("--", opts));
}

static void tracing_needs_sys_admin_or_bpf_and_perfmon(void **state)
{
	(void)state;
	assert_false(caps__mask_can_trace(0));
	assert_true(caps__mask_can_trace(1ull << CAPS_SYS_ADMIN));
	assert_true(caps__mask_can_trace((1ull << CAPS_BPF) | (1ull << CAPS_PERFMON)));
	/* perf events alone (stat -p, stat -- CMD): CAP_PERFMON, or paranoid <= 1 */
	assert_false(caps__mask_can_count_kernel(0, 2));
	assert_false(caps__mask_can_count_kernel(1ull << CAPS_BPF, 2));
	assert_true(caps__mask_can_count_kernel(1ull << CAPS_PERFMON, 3));
	assert_true(caps__mask_can_count_kernel(1ull << CAPS_SYS_ADMIN, 2));
	assert_true(caps__mask_can_count_kernel(0, 1));
	assert_true(caps__mask_can_count_kernel(0, -1));
	assert_false(caps__mask_can_trace(1ull << CAPS_BPF));
	assert_false(caps__mask_can_trace(1ull << CAPS_PERFMON));
	assert_true(caps__mask_can_trace(0x1ffffffffffull));	/* root's full set */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(registry_classes_override_the_reported_flag),
		cmocka_unit_test(every_problem_has_a_remedy_and_keys_are_snake_case),
		cmocka_unit_test(distance_is_levenshtein),
		cmocka_unit_test(option_suggestion_is_the_nearest_close_one),
		cmocka_unit_test(tracing_needs_sys_admin_or_bpf_and_perfmon),
	};

	return cmocka_run_group_tests_name("diag", tests, NULL, NULL);
}
