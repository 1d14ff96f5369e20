// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * abi/hotspot.h: the segment map walk the BPF walker runs
 * (bpf/lib/unwind_hotspot.bpf.h hs_seg_step), driven here the way it
 * drives it (a window of HC_HS_SEG_WINDOW bytes ending at the segment,
 * read when the walk leaves it, at most HC_HS_SEG_ITERS calls), against
 * the naming side's walk (sym/hotspot_names.c) on maps filled as
 * HotSpot's heap.cpp fills them; and where a leaf in a compiled method's
 * prologue has its return address, on prologues as a JDK 17 JIT wrote
 * them (gdb's x/i of `jcmd PID Compiler.codelist`'s code).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <linux/types.h>

#include "abi/hotspot.h"
#include "abi/python.h"
#include "sym/hotspot_names.h"

#define MAP_SEGS 20000

static uint8_t map[MAP_SEGS];

/* As heap.cpp's mark_segmap_as_used() (no joins): 0, 1, 2, ... then 1..0xfe over and over. */
static void mark_used(size_t beg, size_t end)
{
	if (end - beg <= 0xfe + 1) {
		for (size_t i = beg; i < end; i++)
			map[i] = (uint8_t)(i - beg);
		return;
	}
	map[beg] = 0;
	for (size_t i = beg + 1, k = 0; i < end; i++, k = (k + 1) % 0xfe)
		map[i] = (uint8_t)(k + 1);
}

struct bpf_walk {
	int res;		/* enum hc_hs_seg after the last call */
	unsigned calls, reads;
};

/*
 * The BPF side's loop: a call reads the window ending at the segment (if
 * it lies outside the one held) or takes one step. *@seg: where it ended.
 */
static struct bpf_walk walk_as_bpf(__u64 *seg)
{
	uint8_t win[HC_HS_SEG_WINDOW];
	uint64_t first = ~0ull;
	struct bpf_walk w = { .res = HC_HS_SEG_NONE };

	for (w.calls = 0; w.calls < HC_HS_SEG_ITERS; w.calls++) {
		w.res = hc_hs_segmap_step(win, first, seg);
		if (w.res == HC_HS_SEG_OUT) {
			first = hc_hs_segmap_first(*seg);
			/* BPF reads HC_HS_SEG_WINDOW bytes from first; the heap's map is longer */
			assert_true(first + HC_HS_SEG_WINDOW <= MAP_SEGS);
			memcpy(win, map + first, HC_HS_SEG_WINDOW);
			w.reads++;
			w.res = HC_HS_SEG_STEP;
		}
		if (w.res != HC_HS_SEG_STEP)
			break;
	}
	return w;
}

/* The naming side's walk from @seg over the whole map: 0 and the start, or -ENOENT. */
static int walk_as_naming(uint64_t *seg)
{
	return hotspot_segmap_walk(map, 0, MAP_SEGS, seg);
}

static void the_bpf_walk_finds_the_block_the_naming_walk_finds(void **state)
{
	(void)state;
	memset(map, HC_HS_SEG_FREE, sizeof(map));
	mark_used(0, 3);		/* small blobs */
	mark_used(3, 40);
	mark_used(40, 1500);		/* a big one: several windows */
	/* 1500..1600 free */
	mark_used(1600, 1601);
	mark_used(1700, 1710);		/* a joined free block made used again */
	map[1710] = (uint8_t)(map[1709] + 1);
	for (int i = 1711; i < 1720; i++)
		map[i] = (uint8_t)(i - 1710 + 1);
	mark_used(1720, 6000);
	for (uint64_t s = 0; s < 6000; s++) {
		uint64_t a = s;
		__u64 b = s;
		int want = walk_as_naming(&a);
		struct bpf_walk w = walk_as_bpf(&b);

		if (want == 0) {
			assert_int_equal(w.res, HC_HS_SEG_START);
			assert_int_equal(b, a);
		} else {
			assert_int_equal(w.res, HC_HS_SEG_NONE);
		}
	}
}

static void a_compiled_method_takes_one_read(void **state)
{
	__u64 seg = 300 + 200;
	struct bpf_walk w;

	(void)state;
	memset(map, HC_HS_SEG_FREE, sizeof(map));
	mark_used(300, 300 + 255);	/* 32 KiB at 128-byte segments */
	w = walk_as_bpf(&seg);
	assert_int_equal(w.res, HC_HS_SEG_START);
	assert_int_equal(seg, 300);
	assert_int_equal(w.reads, 1);
	assert_true(w.calls <= 2);
}

static void a_block_too_big_for_the_budget_is_no_block(void **state)
{
	/* a window per 254 segments, a call each to read and to step: ~15 windows */
	__u64 seg = 19000;
	struct bpf_walk w;

	(void)state;
	memset(map, HC_HS_SEG_FREE, sizeof(map));
	mark_used(10, 19990);
	w = walk_as_bpf(&seg);
	assert_int_not_equal(w.res, HC_HS_SEG_START);
	assert_int_equal(w.calls, HC_HS_SEG_ITERS);
	/* within the budget it is found */
	seg = 10 + 12 * 254;
	w = walk_as_bpf(&seg);
	assert_int_equal(w.res, HC_HS_SEG_START);
	assert_int_equal(seg, 10);
}

static void free_segments_and_steps_past_the_heap_are_no_block(void **state)
{
	uint8_t win[HC_HS_SEG_WINDOW];
	__u64 seg;

	(void)state;
	memset(win, HC_HS_SEG_FREE, sizeof(win));
	seg = 7;
	assert_int_equal(hc_hs_segmap_step(win, 0, &seg), HC_HS_SEG_NONE);
	/* a tag stepping back past segment 0: garbage, not a block */
	win[3] = 5;
	seg = 3;
	assert_int_equal(hc_hs_segmap_step(win, 0, &seg), HC_HS_SEG_NONE);
	/* a segment outside the window is not looked at */
	seg = 1000;
	assert_int_equal(hc_hs_segmap_step(win, 0, &seg), HC_HS_SEG_OUT);
	assert_int_equal(seg, 1000);
	seg = 10;
	assert_int_equal(hc_hs_segmap_step(win, 100, &seg), HC_HS_SEG_OUT);
	assert_int_equal(hc_hs_segmap_first(10), 0);
	assert_int_equal(hc_hs_segmap_first(1000), 1000 - (HC_HS_SEG_WINDOW - 1));
}

/*
 * An interpreted frame's tagged Method* (hc_hs_method_frame()): never a
 * user address (top byte 0 even with 5-level paging) nor a Python frame
 * (bit 63, which python_native_count() stops at); it keeps the Method* and
 * 8 bits of the ConstMethod* user space checks it against.
 */
static void an_interpreted_frame_is_no_address_and_no_python_frame(void **state)
{
	__u64 m = 0x7f12345678a8ull, cm = 0x7f1200abcd38ull, f = hc_hs_method_frame(m, cm);

	(void)state;
	assert_true(hc_hs_is_method_frame(f));
	assert_int_equal(f & HC_HS_METHOD_PTR_MASK, m);
	assert_int_equal((f >> HC_HS_METHOD_CHECK_SHIFT) & 0xff, (cm >> 3) & 0xff);
	assert_int_equal(f & HC_PY_TAG, 0);
	/* user addresses, with 4- and 5-level paging, and kernel ones */
	assert_false(hc_hs_is_method_frame(m));
	assert_false(hc_hs_is_method_frame(0x00fffffffffff000ull));
	assert_false(hc_hs_is_method_frame(0xffffffff81000000ull));
	/* a Python frame (tag, entry bit, instruction index) */
	assert_false(hc_hs_is_method_frame(HC_PY_TAG | HC_PY_ENTRY | 5ull << HC_PY_INSTR_SHIFT | m));
	/* the check's bits move with the ConstMethod* */
	assert_int_not_equal(hc_hs_method_frame(m, cm + 8), f);
}

/* As the BPF side drives hc_hs_prologue_at(): offsets from 0 up, the first that answers. */
static int prologue(const uint8_t *code, size_t n, uint32_t o, uint32_t f)
{
	uint8_t w[HC_HS_PRO_BYTES] = { 0 };
	int r;

	memcpy(w, code, n);
	for (uint32_t p = 0; p < n; p++)
		if ((r = hc_hs_prologue_at(w, (uint32_t)n, p, o, f)) != HC_HS_PRO_NONE)
			return r;
	return HC_HS_PRO_NONE;
}

/* C1, Math.min(II)I (static, so no inline cache check): bang, push, sub $0x30 */
static const uint8_t c1[] = { 0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff,	/* mov %eax,-0x14000(%rsp) */
			      0x55,					/* push %rbp */
			      0x48, 0x83, 0xec, 0x30,			/* sub $0x30,%rsp */
			      0x48, 0xb8, 0, 2, 3, 4, 5, 6, 7, 8 };	/* movabs: the body */
/* C2, HotCold.alpha(J)J: sub $0x18 (an id), mov %rbp,0x10(%rsp) */
static const uint8_t c2[] = { 0x48, 0x81, 0xec, 0x18, 0, 0, 0,		/* sub $0x18,%rsp */
			      0x48, 0x89, 0x6c, 0x24, 0x10,		/* mov %rbp,0x10(%rsp) */
			      0x49, 0xba, 0xc8, 0x9e, 0xc1, 0x9e, 0x06, 0, 0, 0 };

static void a_leaf_in_a_c1_prologue(void **state)
{
	(void)state;
	/* F = 0x30 + 16: the return address and the saved %rbp */
	assert_int_equal(prologue(c1, sizeof(c1), 0, 64), HC_HS_PRO_RA_AT_SP);	/* at the bang */
	assert_int_equal(prologue(c1, sizeof(c1), 7, 64), HC_HS_PRO_RA_AT_SP);	/* at the push */
	assert_int_equal(prologue(c1, sizeof(c1), 8, 64), HC_HS_PRO_PUSHED);	/* at the sub */
	assert_int_equal(prologue(c1, sizeof(c1), 12, 64), HC_HS_PRO_SET);
	/* another frame size: not this prologue */
	assert_int_equal(prologue(c1, sizeof(c1), 8, 72), HC_HS_PRO_NONE);
}

static void a_leaf_in_a_c2_prologue(void **state)
{
	(void)state;
	/* F = 0x18 + 8 */
	assert_int_equal(prologue(c2, sizeof(c2), 0, 32), HC_HS_PRO_RA_AT_SP);	/* at the sub */
	assert_int_equal(prologue(c2, sizeof(c2), 7, 32), HC_HS_PRO_SUB_ONLY);	/* at the mov */
	assert_int_equal(prologue(c2, sizeof(c2), 12, 32), HC_HS_PRO_SET);
	assert_int_equal(prologue(c2, sizeof(c2), 7, 40), HC_HS_PRO_NONE);
}

static void a_virtual_methods_inline_cache_check_and_a_frame_pointer(void **state)
{
	/* mov 0x8(%rsi),%r10d; cmp %r10,%rax; jne ...; nops; then the bang form, PreserveFramePointer */
	uint8_t v[64] = { 0x44, 0x8b, 0x56, 0x08, 0x49, 0x3b, 0xc2, 0x0f, 0x85, 1, 2, 3, 4,
			  0x66, 0x90, 0x90 };
	const uint8_t tail[] = { 0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff, 0x55, 0x48, 0x89, 0xe5,
				 0x48, 0x81, 0xec, 0x90, 0x01, 0, 0 };

	(void)state;
	memcpy(v + 16, tail, sizeof(tail));
	/* F = 0x190 + 16: an id sub */
	assert_int_equal(prologue(v, 16 + sizeof(tail), 4, 416), HC_HS_PRO_RA_AT_SP);	/* the check */
	assert_int_equal(prologue(v, 16 + sizeof(tail), 23, 416), HC_HS_PRO_RA_AT_SP);	/* push */
	assert_int_equal(prologue(v, 16 + sizeof(tail), 24, 416), HC_HS_PRO_PUSHED);	/* mov */
	assert_int_equal(prologue(v, 16 + sizeof(tail), 27, 416), HC_HS_PRO_PUSHED);	/* sub */
	assert_int_equal(prologue(v, 16 + sizeof(tail), 34, 416), HC_HS_PRO_SET);
}

static void no_prologue_no_answer(void **state)
{
	const uint8_t junk[] = { 0x48, 0x83, 0xec, 0x30, 0x55, 0x90, 0x48, 0x81, 0xec, 0x28, 0, 0, 0,
				 0x48, 0x89, 0x6c, 0x24, 0x08 };

	(void)state;
	/* a sub without its push before it, or without its mov after it */
	assert_int_equal(prologue(junk, sizeof(junk), 0, 64), HC_HS_PRO_NONE);
	assert_int_equal(prologue(junk, 11, 0, 48), HC_HS_PRO_NONE);
	/* with it: the mov's displacement must be F - 16 */
	assert_int_equal(prologue(junk, sizeof(junk), 13, 48), HC_HS_PRO_NONE);
	assert_int_equal(prologue(junk, sizeof(junk), 13, 24), HC_HS_PRO_NONE);
	/* a frame of the return address and %rbp alone has no sub to find */
	assert_int_equal(prologue(c1, sizeof(c1), 8, 16), HC_HS_PRO_NONE);
}

/* hc_hs_epilogue() at @o of @code, HC_HS_EPI_BYTES read as the BPF side reads them */
static int epilogue(const uint8_t *code, size_t n, size_t o)
{
	uint8_t w[HC_HS_EPI_BYTES] = { 0 };

	memcpy(w, code + o, n - o < sizeof(w) ? n - o : sizeof(w));
	return hc_hs_epilogue(w);
}

static void a_leaf_in_an_epilogue(void **state)
{
	/* C2's and C1's alike (Prologue.leaf, JDK 17): add $0x20,%rsp; pop %rbp; cmp 0x340(%r15),%rsp; ja; ret */
	const uint8_t epi[] = { 0x48, 0x83, 0xc4, 0x20, 0x5d, 0x49, 0x3b, 0xa7, 0x40, 0x03, 0, 0,
				0x0f, 0x87, 0x27, 0, 0, 0, 0xc3, 0xf4, 0xf4 };
	const uint8_t old[] = { 0x5d, 0xc3 }, other[] = { 0x5d, 0x90, 0xc3 };

	(void)state;
	assert_int_equal(epilogue(epi, sizeof(epi), 0), HC_HS_PRO_NONE);	/* add: still whole */
	assert_int_equal(epilogue(epi, sizeof(epi), 4), HC_HS_PRO_PUSHED);	/* pop */
	assert_int_equal(epilogue(epi, sizeof(epi), 5), HC_HS_PRO_RA_AT_SP);	/* the poll */
	assert_int_equal(epilogue(epi, sizeof(epi), 12), HC_HS_PRO_RA_AT_SP);	/* ja */
	assert_int_equal(epilogue(epi, sizeof(epi), 18), HC_HS_PRO_RA_AT_SP);	/* ret */
	/* without the poll */
	assert_int_equal(epilogue(old, sizeof(old), 0), HC_HS_PRO_PUSHED);
	assert_int_equal(epilogue(old, sizeof(old), 1), HC_HS_PRO_RA_AT_SP);
	/* a pop not followed by the return: not an epilogue; nor is the body */
	assert_int_equal(epilogue(other, sizeof(other), 0), HC_HS_PRO_NONE);
	assert_int_equal(epilogue(c2, sizeof(c2), 12), HC_HS_PRO_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_bpf_walk_finds_the_block_the_naming_walk_finds),
		cmocka_unit_test(a_compiled_method_takes_one_read),
		cmocka_unit_test(a_block_too_big_for_the_budget_is_no_block),
		cmocka_unit_test(free_segments_and_steps_past_the_heap_are_no_block),
		cmocka_unit_test(an_interpreted_frame_is_no_address_and_no_python_frame),
		cmocka_unit_test(a_leaf_in_a_c1_prologue),
		cmocka_unit_test(a_leaf_in_a_c2_prologue),
		cmocka_unit_test(a_virtual_methods_inline_cache_check_and_a_frame_pointer),
		cmocka_unit_test(no_prologue_no_answer),
		cmocka_unit_test(a_leaf_in_an_epilogue),
	};

	return cmocka_run_group_tests_name("hotspot_walk", tests, NULL, NULL);
}
