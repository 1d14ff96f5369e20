// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * load_bias() on the program headers of real linker outputs (copied from
 * readelf -lW), mapped the way the kernel and ld.so map them: every
 * mapping of the object must give the one bias it was loaded at.
 */
#include "sym/loadbias.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#define PG 0x1000ull
#define BASE 0x555555554000ull
#define R PROCMAP_R
#define W PROCMAP_W
#define X PROCMAP_X

/* clang -fuse-ld=lld (Debian's LLD 14): segments share file pages, vaddrs do not */
static const struct load_layout lld_exe = {
	.segs = {
		{ 0x000, 0x954, 0x0000, 0x954, PF_R },
		{ 0x960, 0x790, 0x1960, 0x790, PF_R | PF_X },
		{ 0x10f0, 0x1f0, 0x30f0, 0x1f0, PF_R | PF_W },	/* RELRO */
		{ 0x12e0, 0x70, 0x42e0, 0x80, PF_R | PF_W },	/* .data, .bss */
	},
	.nr = 4,
	.relro_vaddr = 0x30f0,
	.relro_size = 0xf10,
};

/* GNU ld -z separate-code (Debian's default): every segment starts a file page */
static const struct load_layout gnu_exe = {
	.segs = {
		{ 0x0000, 0x628, 0x0000, 0x628, PF_R },
		{ 0x1000, 0x1e5, 0x1000, 0x1e5, PF_R | PF_X },
		{ 0x2000, 0x104, 0x2000, 0x104, PF_R },
		{ 0x2de8, 0x250, 0x3de8, 0x258, PF_R | PF_W },
	},
	.nr = 4,
	.relro_vaddr = 0x3de8,
	.relro_size = 0x218,
};

static struct procmap map(uint64_t start, uint64_t end, uint64_t pgoff, unsigned int perms)
{
	return (struct procmap){ .start = start, .end = end, .pgoff = pgoff, .perms = perms,
				 .kind = PROCMAP_FILE, .path = "" };
}

static void assert_bias(const struct load_layout *ll, struct procmap m, uint64_t want)
{
	uint64_t bias = 0;

	assert_int_equal(load_bias(ll, &m, PG, &bias), 0);
	assert_int_equal(bias, want);
}

static void lld_code_mapping_starts_in_the_page_it_shares_with_rodata(void **state)
{
	(void)state;
	/* r-x at file offset 0 although .text starts at 0x960: the old check missed it */
	assert_bias(&lld_exe, map(BASE + 0x1000, BASE + 0x3000, 0, R | X), BASE);
}

static void lld_every_mapping_of_the_object_gives_the_same_bias(void **state)
{
	(void)state;
	assert_bias(&lld_exe, map(BASE, BASE + 0x1000, 0, R), BASE);
	/* one file page, three segments: RELRO (made r--) and .data (rw-) */
	assert_bias(&lld_exe, map(BASE + 0x3000, BASE + 0x4000, 0x1000, R), BASE);
	assert_bias(&lld_exe, map(BASE + 0x4000, BASE + 0x5000, 0x1000, R | W), BASE);
}

static void lld_shared_library_at_a_high_address(void **state)
{
	/* tests/workloads/lld/lldlib.c by clang -fuse-ld=lld -shared */
	static const struct load_layout so = {
		.segs = {
			{ 0x000, 0x62c, 0x0000, 0x62c, PF_R },
			{ 0x630, 0x1e0, 0x1630, 0x1e0, PF_R | PF_X },
			{ 0x810, 0x1c8, 0x2810, 0x1c8, PF_R | PF_W },
			{ 0x9d8, 0x30, 0x39d8, 0x40, PF_R | PF_W },
		},
		.nr = 4,
		.relro_vaddr = 0x2810,
		.relro_size = 0x7f0,
	};
	uint64_t b = 0x7f0011220000ull;

	(void)state;
	assert_bias(&so, map(b + 0x1000, b + 0x2000, 0, R | X), b);
	assert_bias(&so, map(b + 0x3000, b + 0x4000, 0, R | W), b);
	/*
	 * Its RELRO mapping (r--, offset 0) looks exactly like a mapping of
	 * the first segment at another address: one mapping alone cannot
	 * tell them apart. The first segment wins; no caller asks about a
	 * read-only data page (locks are writable, code is executable).
	 */
	assert_bias(&so, map(b + 0x2000, b + 0x3000, 0, R), b + 0x2000);
}

static void gnu_ld_layout_maps_every_segment_from_its_own_page(void **state)
{
	(void)state;
	assert_bias(&gnu_exe, map(BASE, BASE + 0x1000, 0, R), BASE);
	assert_bias(&gnu_exe, map(BASE + 0x1000, BASE + 0x2000, 0x1000, R | X), BASE);
	assert_bias(&gnu_exe, map(BASE + 0x4000, BASE + 0x5000, 0x3000, R | W), BASE);
}

static void non_pie_executable_has_bias_zero(void **state)
{
	static const struct load_layout nopie = {
		.segs = {
			{ 0x0000, 0x4e0, 0x400000, 0x4e0, PF_R },
			{ 0x1000, 0x1c5, 0x401000, 0x1c5, PF_R | PF_X },
		},
		.nr = 2,
	};

	(void)state;
	assert_bias(&nopie, map(0x401000, 0x402000, 0x1000, R | X), 0);
}

static void part_of_a_segment_mapped_alone_keeps_the_bias(void **state)
{
	/* a large .text split in two vmas (mprotect of a page in the middle) */
	static const struct load_layout big = {
		.segs = { { 0x1000, 0x100000, 0x1000, 0x100000, PF_R | PF_X } },
		.nr = 1,
	};

	(void)state;
	assert_bias(&big, map(BASE + 0x51000, BASE + 0x101000, 0x51000, R | X), BASE);
	/* perms changed by the program: the only candidate still wins */
	assert_bias(&big, map(BASE + 0x51000, BASE + 0x52000, 0x51000, R | W), BASE);
}

static void offset_beyond_every_segment_is_not_found(void **state)
{
	struct procmap m = map(BASE, BASE + 0x1000, 0x9000, R | X);
	uint64_t bias = 7;

	(void)state;
	assert_int_equal(load_bias(&lld_exe, &m, PG, &bias), -ENOENT);
	assert_int_equal(bias, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lld_code_mapping_starts_in_the_page_it_shares_with_rodata),
		cmocka_unit_test(lld_every_mapping_of_the_object_gives_the_same_bias),
		cmocka_unit_test(lld_shared_library_at_a_high_address),
		cmocka_unit_test(gnu_ld_layout_maps_every_segment_from_its_own_page),
		cmocka_unit_test(non_pie_executable_has_bias_zero),
		cmocka_unit_test(part_of_a_segment_mapped_alone_keeps_the_bias),
		cmocka_unit_test(offset_beyond_every_segment_is_not_found),
	};

	return cmocka_run_group_tests_name("loadbias", tests, NULL, NULL);
}
