// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The pure parts of holding a `-- CMD` child: AT_ENTRY from auxv, the int3 word. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <elf.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "record/child_hold.h"

static void auxv_entry_is_found_among_other_pairs(void **state)
{
	const uint64_t auxv[] = { AT_PHDR, 0x1040, AT_PAGESZ, 4096, AT_ENTRY, 0x55550000a0c0,
				  AT_NULL, 0 };
	uint64_t e = 0;

	(void)state;
	assert_int_equal(child_hold_auxv_entry(auxv, sizeof(auxv), &e), 0);
	assert_int_equal(e, 0x55550000a0c0);
}

static void auxv_without_entry_or_past_at_null_is_enoent(void **state)
{
	const uint64_t none[] = { AT_PAGESZ, 4096, AT_NULL, 0, AT_ENTRY, 0x1000 };
	const uint64_t odd[] = { AT_PAGESZ, 4096, AT_ENTRY };	/* a pair cut by the read */
	uint64_t e = 7;

	(void)state;
	assert_int_equal(child_hold_auxv_entry(none, sizeof(none), &e), -ENOENT);
	assert_int_equal(child_hold_auxv_entry(odd, sizeof(odd), &e), -ENOENT);
	assert_int_equal(child_hold_auxv_entry(none, 0, &e), -ENOENT);
	assert_int_equal(e, 7);	/* untouched */
}

static void auxv_of_this_process_names_its_entry(void **state)
{
	extern char _start[];
	uint64_t buf[128], e;
	FILE *f = fopen("/proc/self/auxv", "r");
	size_t n;

	(void)state;
	if (!f)
		skip();
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_int_equal(child_hold_auxv_entry(buf, n, &e), 0);
	assert_int_equal(e, (uint64_t)(uintptr_t)_start);
}

static void trap_word_replaces_only_the_first_byte(void **state)
{
	(void)state;
	/* endbr64 (f3 0f 1e fa) then xor %ebp,%ebp (31 ed): little-endian in the word */
	assert_int_equal(child_hold_trap_word(0x8949ed31fa1e0ff3ull), 0x8949ed31fa1e0fccull);
	assert_int_equal(child_hold_trap_word(0), 0xcc);
	assert_int_equal(child_hold_trap_word(~0ull), 0xffffffffffffffccull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(auxv_entry_is_found_among_other_pairs),
		cmocka_unit_test(auxv_without_entry_or_past_at_null_is_enoent),
		cmocka_unit_test(auxv_of_this_process_names_its_entry),
		cmocka_unit_test(trap_word_replaces_only_the_first_byte),
	};

	return cmocka_run_group_tests_name("child_hold", tests, NULL, NULL);
}
