// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Python frames, the pure parts: the version -> layout table, native and
 * Python frames merged into one stack, and str objects decoded from the
 * bytes read out of a process.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <linux/types.h>

#include "abi/python.h"
#include "collect/python_stack.h"
#include "sym/python_layout.h"
#include "sym/python_names.h"

#define EVAL_LO 0x1000
#define EVAL_HI 0x2000
#define PYF(code) (HC_PY_TAG | (code))
#define PYE(code) (HC_PY_TAG | HC_PY_ENTRY | (code))
#define NAT(i) (i)
#define PYS(j) (PY_SLOT_PY | (j))

static void versions_pick_their_minor_layout(void **state)
{
	const struct python_layout *a = python_layout_find(0x030b02f0);	/* 3.11.2 */
	const struct python_layout *b = python_layout_find(0x030b07f0);	/* 3.11.7 */
	const struct python_layout *c = python_layout_find(0x030c01f0);	/* 3.12.1 */

	(void)state;
	assert_non_null(a);
	assert_ptr_equal(a, b);
	assert_int_equal(a->fr_is_entry, 68);
	assert_int_equal(a->cstack_owner, 0);
	assert_non_null(c);
	assert_int_equal(c->minor, 12);
	assert_int_equal(c->fr_is_entry, 0);
	assert_int_equal(c->cstack_owner, 3);
}

static void other_versions_have_no_layout(void **state)
{
	char buf[16];

	(void)state;
	assert_null(python_layout_find(0x030a0df0));	/* 3.10.13 */
	assert_null(python_layout_find(0x030d00f0));	/* 3.13.0 */
	assert_null(python_layout_find(0x020712f0));	/* 2.7.18 */
	assert_null(python_layout_find(0));
	python_version_str(0x030d00f0, buf, sizeof(buf));
	assert_string_equal(buf, "3.13");
}

static void native_count_stops_at_the_first_tagged_word(void **state)
{
	uint64_t u[] = { 0x1500, 0x7f0000001234, PYF(0x10), PYE(0x20) };

	(void)state;
	assert_int_equal(python_native_count(u, 4), 2);
	assert_int_equal(python_native_count(u, 1), 1);
	assert_int_equal(python_native_count(u + 2, 2), 0);
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Merge a complete native walk; the result must be @want; returns the stats. */
static struct python_merge_stats merge_is(const uint64_t *nat, size_t nn, const uint64_t *py,
					  size_t np, const uint32_t *want, size_t nw)
{
	struct python_merge_stats st = {};
	uint32_t out[16];

	assert_int_equal(python_merge(nat, nn, py, np, EVAL_LO, EVAL_HI, false, out, &st), nw);
	assert_memory_equal(out, want, nw * sizeof(*want));
	return st;
}

/* leaf: long_add called from hot_a; one eval activation runs hot_a, caller_a, main, <module> */
static void one_activation_replaces_its_eval_frame(void **state)
{
	const uint64_t nat[] = { 0x5000, 0x1801, 0x3000, 0x4000 };	/* long_add, eval, EvalCode, main */
	const uint64_t py[] = { PYF(0xa), PYF(0xb), PYF(0xc), PYE(0xd) };
	const uint32_t want[] = { NAT(0), PYS(0), PYS(1), PYS(2), PYS(3), NAT(2), NAT(3) };
	struct python_merge_stats st = merge_is(nat, N(nat), py, N(py), want, N(want));

	(void)state;
	assert_int_equal(st.replaced, 1);
	assert_int_equal(st.unplaced, 0);
}

/* Python -> C (builtin) -> Python: each activation gets the frames down to its entry */
static void nested_activations_take_frames_up_to_their_entry(void **state)
{
	const uint64_t nat[] = { 0x1100, 0x6001, 0x1901, 0x3001 };	/* eval, builtin, eval, caller */
	const uint64_t py[] = { PYF(0xa), PYE(0xb), PYF(0xc), PYE(0xd) };
	const uint32_t want[] = { PYS(0), PYS(1), NAT(1), PYS(2), PYS(3), NAT(3) };

	(void)state;
	assert_int_equal(merge_is(nat, N(nat), py, N(py), want, N(want)).replaced, 2);
}

/* a return address just past the function's end still calls from inside it */
static void return_address_at_the_end_counts_as_inside(void **state)
{
	const uint64_t nat[] = { 0x5000, EVAL_HI, EVAL_HI + 1 };
	const uint64_t py[] = { PYE(0xa) };
	const uint32_t want[] = { NAT(0), PYS(0), NAT(2) };

	(void)state;
	merge_is(nat, N(nat), py, N(py), want, N(want));
}

/* more eval frames than Python frames (a walk cut short): the rest stay native */
static void eval_frames_without_python_frames_stay_native(void **state)
{
	const uint64_t nat[] = { 0x1100, 0x6001, 0x1901 };
	const uint64_t py[] = { PYE(0xa) };
	const uint32_t want[] = { PYS(0), NAT(1), NAT(2) };

	(void)state;
	merge_is(nat, N(nat), py, N(py), want, N(want));
}

static void leftover_frames_go_above_a_partial_walk_only(void **state)
{
	uint64_t nat[] = { 0x5000, 0x6001 };	/* no eval frame reached */
	uint64_t py[] = { PYF(0xa), PYE(0xb) };
	/* the gap says native frames are missing between them and the walk's last frame */
	uint32_t above[] = { NAT(0), NAT(1), PY_SLOT_GAP, PYS(0), PYS(1) };
	struct python_merge_stats st = {};
	uint32_t out[5];
	size_t n;

	(void)state;
	n = python_merge(nat, 2, py, 2, EVAL_LO, EVAL_HI, true, out, &st);
	assert_int_equal(n, 5);
	assert_memory_equal(out, above, sizeof(above));
	assert_int_equal(st.above_partial, 2);
	assert_int_equal(st.unplaced, 0);
	/* a complete walk with no eval frame: they belong nowhere, dropped and counted */
	n = python_merge(nat, 2, py, 2, EVAL_LO, EVAL_HI, false, out, &st);
	assert_int_equal(n, 2);
	assert_int_equal(st.unplaced, 2);
}

/* a str object as read from a process: header then data */
static size_t make_str(uint8_t *buf, const struct python_layout *l, uint32_t kind, int ascii,
		       const void *data, uint64_t len)
{
	uint32_t st = kind << 2 | 1u << 5 | (uint32_t)ascii << 6 | 1u << 7;
	size_t off = ascii ? l->uni_ascii_data : l->uni_compact_data;

	memset(buf, 0, off);
	memcpy(buf + l->uni_length, &len, sizeof(len));
	memcpy(buf + l->uni_state, &st, sizeof(st));
	memcpy(buf + off, data, len * kind);
	return off + len * kind;
}

static void strings_decode_to_utf8(void **state)
{
	const struct python_layout *l = python_layout_find(0x030b02f0);
	const uint16_t ucs2[] = { 'h', 0x00e9, 0x4e2d };
	const uint8_t latin1[] = { 'c', 'a', 'f', 0xe9 };
	uint8_t obj[256];
	char out[64];
	size_t n;

	(void)state;
	n = make_str(obj, l, 1, 1, "caller_a", 8);
	assert_int_equal(python_unicode_utf8(obj, n, l, out, sizeof(out)), 0);
	assert_string_equal(out, "caller_a");
	n = make_str(obj, l, 1, 0, latin1, 4);
	assert_int_equal(python_unicode_utf8(obj, n, l, out, sizeof(out)), 0);
	assert_string_equal(out, "caf\xc3\xa9");
	n = make_str(obj, l, 2, 0, ucs2, 3);
	assert_int_equal(python_unicode_utf8(obj, n, l, out, sizeof(out)), 0);
	assert_string_equal(out, "h\xc3\xa9\xe4\xb8\xad");
	/* a ';' would split a folded line */
	n = make_str(obj, l, 1, 1, "a;b", 3);
	assert_int_equal(python_unicode_utf8(obj, n, l, out, sizeof(out)), 0);
	assert_string_equal(out, "a?b");
}

static void short_reads_ask_for_the_rest(void **state)
{
	const struct python_layout *l = python_layout_find(0x030c01f0);
	uint8_t obj[256];
	char out[64];

	(void)state;
	make_str(obj, l, 1, 1, "hot_b", 5);
	/* only the header: 5 more bytes wanted */
	assert_int_equal(python_unicode_utf8(obj, l->uni_ascii_data, l, out, sizeof(out)), 5);
	/* not compact (a legacy string): refused */
	obj[l->uni_state] &= (uint8_t)~(1u << 5);
	assert_true(python_unicode_utf8(obj, sizeof(obj), l, out, sizeof(out)) < 0);
}

static size_t unhex(const char *h, uint8_t *out)
{
	size_t n = 0;

	for (; h[0] && h[1]; h += 2) {
		unsigned int b;

		sscanf(h, "%2x", &b);
		out[n++] = (uint8_t)b;
	}
	return n;
}

/*
 * def f(n):              # line 1
 *     x = 0
 *     for i in range(n): # 3
 *         if i % 3:      # 4
 *             x += i * i # 5
 *         else:
 *             x -= 1     # 7
 *     return x
 * f.__code__.co_linetable from Debian's python3.11; the lines per code unit
 * from f.__code__.co_lines().
 */
static void lines_come_from_the_location_table(void **state)
{
	static const char hex[] = "8000d808098041dd0d12903189588c58f000040513f0000405138801d80b0c8871"
				  "8935f000030913d80c0d901190519115894a88418841e00c0d9011894688418841"
				  "d80b0c8048";
	static const struct { uint32_t idx; int line; } want[] = {
		{ 0, 1 }, { 7, 3 }, { 14, 3 }, { 21, 4 }, { 28, 5 }, { 35, 7 },
	};
	uint8_t lt[128];
	size_t n = unhex(hex, lt);

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(python_line_at(lt, n, 1, want[i].idx), want[i].line);
	/* past the table, or not a table: unknown */
	assert_int_equal(python_line_at(lt, n, 1, 1000), 0);
	assert_int_equal(python_line_at((const uint8_t *)"\x01\x02", 2, 1, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(versions_pick_their_minor_layout),
		cmocka_unit_test(other_versions_have_no_layout),
		cmocka_unit_test(native_count_stops_at_the_first_tagged_word),
		cmocka_unit_test(one_activation_replaces_its_eval_frame),
		cmocka_unit_test(nested_activations_take_frames_up_to_their_entry),
		cmocka_unit_test(return_address_at_the_end_counts_as_inside),
		cmocka_unit_test(eval_frames_without_python_frames_stay_native),
		cmocka_unit_test(leftover_frames_go_above_a_partial_walk_only),
		cmocka_unit_test(strings_decode_to_utf8),
		cmocka_unit_test(short_reads_ask_for_the_rest),
		cmocka_unit_test(lines_come_from_the_location_table),
	};

	return cmocka_run_group_tests_name("python", tests, NULL, NULL);
}
