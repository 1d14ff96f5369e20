// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sym/v8_layout.c and sym/v8_names.c: the v8dbg_* table as Node 20.20.2
 * (V8 11.3) exports it, refused when a field is missing or the tagging is
 * another; abi/v8.h's frame tag next to Python's and HotSpot's; and
 * JavaScript names read from a fake V8 heap laid out by that table: a
 * SharedFunctionInfo whose name is a String or in its ScopeInfo, one- and
 * two-byte, cons, thin and sliced strings, its script's name after it, and
 * the checks that reject a pointer that is no longer the function the walk
 * saw.
 */
#include "sym/v8_layout.h"
#include "sym/v8_names.h"

#include <linux/types.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "abi/hotspot.h"
#include "abi/python.h"
#include "abi/v8.h"

#include "fixtures/v8dbg_node20.h"

#define N_NODE20 (sizeof(v8dbg_node20) / sizeof(v8dbg_node20[0]))

static void load(struct v8_layout *l, const char *skip)
{
	v8_layout_init(l);
	for (size_t i = 0; i < N_NODE20; i++)
		if (!skip || strcmp(v8dbg_node20[i].name, skip))
			v8_layout_set(l, v8dbg_node20[i].name, v8dbg_node20[i].v);
}

static void node20s_table_is_complete(void **state)
{
	struct v8_layout l;
	char why[128] = "";

	(void)state;
	load(&l, NULL);
	assert_int_equal(v8_layout_check(&l, why, sizeof(why)), 0);
	assert_int_equal(l.v[V8_FP_FUNCTION], -16);
	assert_int_equal(l.v[V8_JSFUNCTION_SHARED], 24);
	/* a zero (in .bss) is a value, not an absence */
	assert_true(v8_layout_has(&l, V8_HEAPOBJECT_MAP));
	assert_false(v8_layout_set(&l, "v8dbg_frametype_EntryFrame", 1));
}

static void a_table_missing_a_field_is_refused_naming_it(void **state)
{
	struct v8_layout l;
	char why[128] = "";

	(void)state;
	load(&l, "v8dbg_off_fp_function");
	assert_int_equal(v8_layout_check(&l, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "v8dbg_off_fp_function missing");
	load(&l, "v8dbg_class_HeapObject__map__Map");
	assert_int_equal(v8_layout_check(&l, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "v8dbg_class_HeapObject__map__Map missing");
}

static void optional_fields_may_be_missing(void **state)
{
	struct v8_layout l;
	char why[128] = "";

	(void)state;
	load(&l, "v8dbg_class_SlicedString__offset__SMI");
	assert_int_equal(v8_layout_check(&l, why, sizeof(why)), 0);
}

static void pointer_compression_is_refused(void **state)
{
	struct v8_layout l;
	char why[128] = "";

	(void)state;
	load(&l, NULL);
	v8_layout_set(&l, "v8dbg_TaggedSize", 4);
	v8_layout_set(&l, "v8dbg_SmiShiftSize", 0);
	assert_int_equal(v8_layout_check(&l, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "pointer compression"));
}

static void absurd_offsets_are_refused(void **state)
{
	struct v8_layout l;
	char why[128] = "";

	(void)state;
	load(&l, NULL);
	v8_layout_set(&l, "v8dbg_off_fp_context", 8);
	assert_int_equal(v8_layout_check(&l, why, sizeof(why)), -EPERM);
	load(&l, NULL);
	v8_layout_set(&l, "v8dbg_class_ConsString__first__String", 1 << 20);
	assert_int_equal(v8_layout_check(&l, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "ConsString__first"));
}

static void the_frame_tag_is_neither_pythons_nor_hotspots(void **state)
{
	uint64_t sfi = 0x7f12345678a1ull, nos = 0x3abcdef0129ull;
	uint64_t f = hc_v8_sfi_frame(sfi, nos);

	(void)state;
	assert_true(hc_v8_is_sfi_frame(f));
	assert_false(f & HC_PY_TAG);
	assert_false(hc_hs_is_method_frame(f));
	assert_int_equal(f & HC_V8_SFI_PTR_MASK, sfi);
	assert_int_equal(f >> HC_V8_SFI_CHECK_SHIFT & 0xff, nos >> 3 & 0xff);
	/* theirs are not ours; nor is a user address */
	assert_false(hc_v8_is_sfi_frame(hc_hs_method_frame(0x7f0000001000ull, 0x7f0000002000ull)));
	assert_false(hc_v8_is_sfi_frame(HC_PY_TAG | 0x7f0000001000ull));
	assert_false(hc_v8_is_sfi_frame(0x7fffffffe000ull));
}

/* ---- a fake heap: one region, objects placed by the layout above */

#define HEAP_BASE 0x100000ull
#define HEAP_SIZE 8192

static uint8_t heap[HEAP_SIZE];
static size_t heap_used;
static struct v8_layout lay;

static int heap_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	if (addr < HEAP_BASE || addr + len > HEAP_BASE + HEAP_SIZE || addr + len < addr)
		return -EFAULT;
	memcpy(buf, heap + (addr - HEAP_BASE), len);
	return 0;
}

static const struct v8_reader rd = { heap_read, NULL };

static uint64_t alloc(size_t n)
{
	uint64_t a = HEAP_BASE + heap_used;

	heap_used += (n + 7) & ~7ul;
	assert_true(heap_used <= HEAP_SIZE);
	return a;
}

static void put64(uint64_t addr, uint64_t v)
{
	memcpy(heap + (addr - HEAP_BASE), &v, sizeof(v));
}

static void put32(uint64_t addr, uint32_t v)
{
	memcpy(heap + (addr - HEAP_BASE), &v, sizeof(v));
}

static uint64_t smi(int64_t v)
{
	return (uint64_t)v << 32;
}

/* A Map of @type: returns it tagged. */
static uint64_t map_of(uint16_t type)
{
	uint64_t m = alloc(16);

	memcpy(heap + (m - HEAP_BASE) + 12, &type, sizeof(type));
	return m + 1;
}

/* An object of @size bytes whose map is @map: returns it tagged. */
static uint64_t object(uint64_t map, size_t size)
{
	uint64_t o = alloc(size);

	put64(o, map);
	return o + 1;
}

static uint64_t seq_one(const char *s)
{
	size_t n = strlen(s);
	uint64_t o = object(map_of(0 | 8), 16 + n);	/* SEQ | ONE_BYTE */

	put32(o - 1 + 12, (uint32_t)n);
	memcpy(heap + (o - 1 - HEAP_BASE) + 16, s, n);
	return o;
}

static uint64_t seq_two(const uint16_t *s, size_t n)
{
	uint64_t o = object(map_of(0), 16 + 2 * n);	/* SEQ | TWO_BYTE */

	put32(o - 1 + 12, (uint32_t)n);
	memcpy(heap + (o - 1 - HEAP_BASE) + 16, s, 2 * n);
	return o;
}

static uint64_t string_len(uint64_t s)
{
	uint32_t n;

	memcpy(&n, heap + (s - 1 - HEAP_BASE) + 12, sizeof(n));
	return n;
}

static uint64_t cons(uint64_t a, uint64_t b)
{
	uint64_t o = object(map_of(1 | 8), 32);

	put32(o - 1 + 12, (uint32_t)(string_len(a) + string_len(b)));
	put64(o - 1 + 16, a);
	put64(o - 1 + 24, b);
	return o;
}

static uint64_t thin(uint64_t actual)
{
	uint64_t o = object(map_of(5 | 8), 24);

	put32(o - 1 + 12, (uint32_t)string_len(actual));
	put64(o - 1 + 16, actual);
	return o;
}

static uint64_t sliced(uint64_t parent, uint32_t off, uint32_t n)
{
	uint64_t o = object(map_of(3 | 8), 32);

	put32(o - 1 + 12, n);
	put64(o - 1 + 16, parent);
	put64(o - 1 + 24, smi(off));
	return o;
}

/* A SharedFunctionInfo whose name_or_scope_info is @nos; tagged. */
static uint64_t sfi(uint64_t nos)
{
	uint64_t o = object(map_of(262), 40);

	put64(o - 1 + 16, nos);
	return o;
}

/* A ScopeInfo with @nloc context locals (names s0.., infos), then @slots. */
static uint64_t scope_info(int nloc, const uint64_t *slots, size_t nslots)
{
	uint64_t o = object(map_of(261), 8 + 8 * (3 + 2 * (size_t)nloc + nslots + 4));
	uint64_t base = o - 1 + 8;
	size_t k = 0;

	put64(base + 8 * k++, smi(0x1234));	/* flags */
	put64(base + 8 * k++, smi(1));		/* parameter count */
	put64(base + 8 * k++, smi(nloc));
	for (int i = 0; i < nloc; i++)
		put64(base + 8 * k++, seq_one("local"));
	for (int i = 0; i < nloc; i++)
		put64(base + 8 * k++, smi(i));
	for (size_t i = 0; i < nslots; i++)
		put64(base + 8 * k++, slots[i]);
	/* position info after: Smis */
	put64(base + 8 * k++, smi(10));
	put64(base + 8 * k++, smi(99));
	return o;
}

static int setup(void **state)
{
	(void)state;
	memset(heap, 0, sizeof(heap));
	heap_used = 64;	/* address HEAP_BASE itself stays unused */
	load(&lay, NULL);
	return 0;
}

static void name_of(uint64_t sfi_ptr, const char *want)
{
	uint64_t nos;
	char buf[256];

	memcpy(&nos, heap + (sfi_ptr - 1 - HEAP_BASE) + 16, sizeof(nos));
	assert_int_equal(v8_frame_name(&lay, &rd, hc_v8_sfi_frame(sfi_ptr, nos), buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, want);
}

static void a_name_string_names_the_function(void **state)
{
	(void)state;
	name_of(sfi(seq_one("hotAlpha")), "hotAlpha");
}

static void a_function_without_a_name_is_anonymous(void **state)
{
	uint64_t empty[] = { smi(0), smi(3), seq_one("") };

	(void)state;
	name_of(sfi(smi(0)), V8_ANONYMOUS);
	name_of(sfi(seq_one("")), V8_ANONYMOUS);
	name_of(sfi(scope_info(0, empty, 3)), V8_ANONYMOUS);
}

static void a_scope_info_names_its_function_after_its_locals(void **state)
{
	/* a saved class variable (Smi), then the function variable's name and slot */
	uint64_t slots[] = { smi(7), seq_one("area"), smi(2) };
	uint64_t inferred[] = { smi(0), smi(0), seq_one("obj.method") };

	(void)state;
	name_of(sfi(scope_info(2, slots, 3)), "area");
	/* no name of its own: the inferred one */
	name_of(sfi(scope_info(0, inferred, 3)), "obj.method");
}

static void two_byte_names_become_utf8(void **state)
{
	const uint16_t cjk[] = { 0x51fd, 0x6570, 0x540d };		/* 函数名 */
	const uint16_t emoji[] = { 'f', 0xd83d, 0xde00 };		/* f😀 */

	(void)state;
	name_of(sfi(seq_two(cjk, 3)), "\xe5\x87\xbd\xe6\x95\xb0\xe5\x90\x8d");
	name_of(sfi(seq_two(emoji, 3)), "f\xf0\x9f\x98\x80");
	/* one-byte strings are Latin-1 */
	name_of(sfi(seq_one("caf\xe9")), "caf\xc3\xa9");
}

static void cons_thin_and_sliced_strings_are_followed(void **state)
{
	uint64_t c = cons(cons(seq_one("comp"), seq_one("ut")), seq_one("ed1"));

	(void)state;
	name_of(sfi(c), "computed1");
	name_of(sfi(thin(seq_one("thinName"))), "thinName");
	name_of(sfi(sliced(seq_one("xxsliceNameyy"), 2, 9)), "sliceName");
	name_of(sfi(sliced(c, 2, 5)), "mpute");
}

static void control_characters_do_not_reach_a_folded_line(void **state)
{
	(void)state;
	name_of(sfi(seq_one("a\nb\tc")), "a?b?c");
}

static void a_long_name_is_cut_on_a_character(void **state)
{
	const uint16_t cjk[] = { 0x51fd, 0x6570, 0x540d };
	uint64_t s = sfi(seq_two(cjk, 3)), nos;
	char buf[8];

	(void)state;
	memcpy(&nos, heap + (s - 1 - HEAP_BASE) + 16, sizeof(nos));
	assert_int_equal(v8_frame_name(&lay, &rd, hc_v8_sfi_frame(s, nos), buf, sizeof(buf)), 0);
	/* 7 bytes fit: two 3-byte characters, not half a third */
	assert_string_equal(buf, "\xe5\x87\xbd\xe6\x95\xb0");
}

static void a_function_moved_or_freed_is_stale(void **state)
{
	uint64_t s = sfi(seq_one("gone")), other = seq_one("other");
	char buf[64];

	(void)state;
	/* the walk saw another name_or_scope_info there: not this function */
	assert_int_equal(v8_frame_name(&lay, &rd, hc_v8_sfi_frame(s, other), buf, sizeof(buf)),
			 -ESTALE);
	/* not a SharedFunctionInfo at all */
	assert_int_equal(v8_frame_name(&lay, &rd, hc_v8_sfi_frame(other, 0), buf, sizeof(buf)),
			 -ESTALE);
	/* outside the heap */
	assert_int_equal(v8_frame_name(&lay, &rd, hc_v8_sfi_frame(0x7f0000000001ull, 0), buf,
				       sizeof(buf)), -EFAULT);
}

/* A Script named @name (a tagged object or a Smi); tagged. */
static uint64_t script(uint64_t name)
{
	uint64_t o = object(map_of(167), 24);

	put64(o - 1 + 16, name);
	return o;
}

/* @s's script_or_debug_info is @v: returns @s. */
static uint64_t in(uint64_t s, uint64_t v)
{
	put64(s - 1 + 32, v);
	return s;
}

static void the_script_follows_the_name(void **state)
{
	char want[256], path[200];
	uint64_t s;

	(void)state;
	name_of(in(sfi(seq_one("handle")), script(seq_one("/srv/app/server.js"))),
		"handle (/srv/app/server.js)");
	name_of(in(sfi(smi(0)), script(seq_one("node:internal/timers"))),
		V8_ANONYMOUS " (node:internal/timers)");
	/* a long one: its end, where the file's name is */
	memset(path, 'd', sizeof(path));
	memcpy(path, "/a", 2);
	memcpy(path + sizeof(path) - 11, "/server.js", 11);	/* and its NUL */
	s = in(sfi(seq_one("f")), script(seq_one(path)));
	snprintf(want, sizeof(want), "f (...%s)", path + strlen(path) - 160);
	name_of(s, want);
}

static void no_script_no_suffix(void **state)
{
	uint64_t debug_info = object(map_of(168), 24), s = sfi(seq_one("g")), nos;
	char buf[12];

	(void)state;
	/* a debugger's DebugInfo in its place; a script without a name (eval) */
	name_of(in(sfi(seq_one("g")), debug_info), "g");
	name_of(in(sfi(seq_one("g")), script(smi(0))), "g");
	name_of(in(sfi(seq_one("g")), script(debug_info)), "g");
	/* a table without the fields */
	load(&lay, "v8dbg_type_Script__SCRIPT_TYPE");
	name_of(in(sfi(seq_one("g")), script(seq_one("/x.js"))), "g");
	load(&lay, NULL);
	/* not whole: not at all */
	in(s, script(seq_one("/srv/app.js")));
	memcpy(&nos, heap + (s - 1 - HEAP_BASE) + 16, sizeof(nos));
	assert_int_equal(v8_frame_name(&lay, &rd, hc_v8_sfi_frame(s, nos), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "g");
}

static void a_cons_cycle_ends(void **state)
{
	uint64_t c = cons(seq_one("a"), seq_one("b"));
	char buf[64];

	(void)state;
	put64(c - 1 + 16, c);	/* its first part is itself */
	put32(c - 1 + 12, 1000);
	assert_int_equal(v8_string(&lay, &rd, c, buf, sizeof(buf)), -ELOOP);
	/* nor is a non-string a string */
	assert_int_equal(v8_string(&lay, &rd, sfi(smi(0)), buf, sizeof(buf)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(node20s_table_is_complete),
		cmocka_unit_test(a_table_missing_a_field_is_refused_naming_it),
		cmocka_unit_test(optional_fields_may_be_missing),
		cmocka_unit_test(pointer_compression_is_refused),
		cmocka_unit_test(absurd_offsets_are_refused),
		cmocka_unit_test(the_frame_tag_is_neither_pythons_nor_hotspots),
		cmocka_unit_test_setup(a_name_string_names_the_function, setup),
		cmocka_unit_test_setup(a_function_without_a_name_is_anonymous, setup),
		cmocka_unit_test_setup(a_scope_info_names_its_function_after_its_locals, setup),
		cmocka_unit_test_setup(two_byte_names_become_utf8, setup),
		cmocka_unit_test_setup(cons_thin_and_sliced_strings_are_followed, setup),
		cmocka_unit_test_setup(control_characters_do_not_reach_a_folded_line, setup),
		cmocka_unit_test_setup(a_long_name_is_cut_on_a_character, setup),
		cmocka_unit_test_setup(a_function_moved_or_freed_is_stale, setup),
		cmocka_unit_test_setup(a_cons_cycle_ends, setup),
		cmocka_unit_test_setup(the_script_follows_the_name, setup),
		cmocka_unit_test_setup(no_script_no_suffix, setup),
	};

	return cmocka_run_group_tests_name("v8", tests, NULL, NULL);
}
