// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* kallsyms parser and lookup against tests/fixtures/sym/kallsyms*.txt. */
#include "sym/kallsyms.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#ifndef HC_SRCDIR
#define HC_SRCDIR "."
#endif
#define FIXTURE(name) HC_SRCDIR "/tests/fixtures/sym/" name

static int setup(void **state)
{
	*state = kallsyms__load(FIXTURE("kallsyms.txt"));
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	kallsyms__free(*state);
	return 0;
}

static void assert_sym(const struct kallsyms *ks, uint64_t ip, const char *want,
		       uint64_t want_off, const char *want_mod)
{
	const char *mod = "unset";
	uint64_t off = ~0ull;
	const char *name = kallsyms__lookup(ks, ip, &off, &mod);

	if (!want) {
		if (name)
			fail_msg("0x%llx: expected unknown, got '%s'", (unsigned long long)ip,
				 name);
		return;
	}
	if (!name)
		fail_msg("0x%llx: expected '%s', got unknown", (unsigned long long)ip, want);
	assert_string_equal(name, want);
	assert_int_equal(off, want_off);
	if (want_mod)
		assert_string_equal(mod, want_mod);
	else
		assert_null(mod);
}

static void keeps_only_text_symbols_one_per_address(void **state)
{
	/* 13 distinct text addresses: aliases, data, end markers and garbage dropped */
	assert_int_equal(kallsyms__nr(*state), 13);
}

static void names_ip_inside_and_at_start_of_core_functions(void **state)
{
	assert_sym(*state, 0xffffffff81000100, "secondary_startup", 0, NULL);
	assert_sym(*state, 0xffffffff81000150, "secondary_startup", 0x50, NULL);
	assert_sym(*state, 0xffffffff810001ff, "secondary_startup", 0xff, NULL);
	assert_sym(*state, 0xffffffff81000300, "__x64_sys_read", 0, NULL);
}

static void prefers_global_unprefixed_alias_at_one_address(void **state)
{
	assert_sym(*state, 0xffffffff81000000, "startup_64", 0, NULL);
	assert_sym(*state, 0xffffffff81000210, "do_one", 0x10, NULL);
}

static void data_symbols_do_not_end_the_preceding_function(void **state)
{
	/* text runs to the next text symbol; a stack ip is never in data */
	assert_sym(*state, 0xffffffff81000550, "static_helper", 0x150, NULL);
}

static void ip_before_first_symbol_is_unknown(void **state)
{
	assert_sym(*state, 0, NULL, 0, NULL);
	assert_sym(*state, 0xffffffff80ffffff, NULL, 0, NULL);
}

static void ip_at_or_past_text_end_markers_is_unknown(void **state)
{
	assert_sym(*state, 0xffffffff810006ff, "last_text_fn", 0xff, NULL);
	assert_sym(*state, 0xffffffff81000700, NULL, 0, NULL);	/* _etext */
	assert_sym(*state, 0xffffffff81800000, NULL, 0, NULL);	/* data */
	assert_sym(*state, 0xffffffff82000050, "x86_64_start_kernel", 0x50, NULL);
	assert_sym(*state, 0xffffffff82000100, NULL, 0, NULL);	/* _einittext */
}

static void names_module_symbols_with_their_module(void **state)
{
	assert_sym(*state, 0xffffffffc0001000, "nft_do_chain", 0, "nf_tables");
	assert_sym(*state, 0xffffffffc00010ff, "nft_do_chain", 0xff, "nf_tables");
	assert_sym(*state, 0xffffffffc0001104, "nft_register", 4, "nf_tables");
	assert_sym(*state, 0xffffffffc0008010, "ext4_fn", 0x10, "ext4");
	assert_sym(*state, 0xffffffffc0008090, "_RNvCs1234_7mycrate3foo", 0x10, "rust_mod");
}

static void last_symbol_of_a_module_extends_at_most_to_the_next_page_end(void **state)
{
	/* nft_last at ...1200: its page ends at ...2000, one more page allowed */
	assert_sym(*state, 0xffffffffc0002fff, "nft_last", 0x1dff, "nf_tables");
	assert_sym(*state, 0xffffffffc0003000, NULL, 0, NULL);
	assert_sym(*state, 0xffffffffc0004fff, NULL, 0, NULL);
}

static void bpf_programs_are_bounded_each_on_their_own(void **state)
{
	assert_sym(*state, 0xffffffffc0005fff, "bpf_prog_0123456789abcdef_handler", 0xfff, "bpf");
	assert_sym(*state, 0xffffffffc0006000, NULL, 0, NULL);
}

static void last_symbol_overall_is_bounded(void **state)
{
	assert_sym(*state, 0xffffffffc0009fff, "_RNvCs1234_7mycrate3foo", 0x1f7f, "rust_mod");
	assert_sym(*state, 0xffffffffc000a000, NULL, 0, NULL);
	assert_sym(*state, UINT64_MAX, NULL, 0, NULL);
}

static void hidden_addresses_give_an_empty_table(void **state)
{
	struct kallsyms *ks = kallsyms__load(FIXTURE("kallsyms_hidden.txt"));

	(void)state;
	assert_non_null(ks);
	assert_int_equal(kallsyms__nr(ks), 0);
	assert_int_equal(kallsyms__nr_hidden(ks), 3);
	assert_null(kallsyms__lookup(ks, 0, NULL, NULL));
	assert_null(kallsyms__lookup(ks, 0xffffffff81000000, NULL, NULL));
	kallsyms__free(ks);
}

static void missing_file_fails_with_errno(void **state)
{
	(void)state;
	errno = 0;
	assert_null(kallsyms__load(FIXTURE("no-such-kallsyms")));
	assert_int_equal(errno, ENOENT);
}

static void garbage_input_does_not_crash(void **state)
{
	char buf[4096];
	struct kallsyms *ks;
	unsigned int seed = 1;
	size_t i;
	FILE *f;

	(void)state;
	for (i = 0; i < sizeof(buf); i++) {
		seed = seed * 1103515245 + 12345;
		buf[i] = "0123456789abcdefTtWw [] \n\t_x"[(seed >> 16) % 29];
	}
	f = fmemopen(buf, sizeof(buf), "r");
	assert_non_null(f);
	ks = kallsyms__parse(f);
	fclose(f);
	assert_non_null(ks);
	kallsyms__lookup(ks, 0x1234, NULL, NULL);
	kallsyms__free(ks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keeps_only_text_symbols_one_per_address),
		cmocka_unit_test(names_ip_inside_and_at_start_of_core_functions),
		cmocka_unit_test(prefers_global_unprefixed_alias_at_one_address),
		cmocka_unit_test(data_symbols_do_not_end_the_preceding_function),
		cmocka_unit_test(ip_before_first_symbol_is_unknown),
		cmocka_unit_test(ip_at_or_past_text_end_markers_is_unknown),
		cmocka_unit_test(names_module_symbols_with_their_module),
		cmocka_unit_test(last_symbol_of_a_module_extends_at_most_to_the_next_page_end),
		cmocka_unit_test(bpf_programs_are_bounded_each_on_their_own),
		cmocka_unit_test(last_symbol_overall_is_bounded),
		cmocka_unit_test(hidden_addresses_give_an_empty_table),
		cmocka_unit_test(missing_file_fails_with_errno),
		cmocka_unit_test(garbage_input_does_not_crash),
	};

	return cmocka_run_group_tests_name("kallsyms", tests, setup, teardown);
}
