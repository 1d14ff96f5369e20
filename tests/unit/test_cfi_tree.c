// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * CFI rows -> the BPF walker's B+ tree (src/unwind/cfi_tree.c), searched with
 * the walker's own node search (abi/unwind.h): every lookup must agree with a
 * plain binary search over the rows, at every tree height and on libc.
 */
#include "unwind/cfi_tree.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#define LIBC_PATH "/lib/x86_64-linux-gnu/libc.so.6"

/* @nr rows 16 bytes apart from pc 0x1000, row i with cfa_off i */
static struct cfi_row *synth_rows(size_t nr)
{
	struct cfi_row *rows = calloc(nr, sizeof(*rows));

	assert_non_null(rows);
	for (size_t i = 0; i < nr; i++)
		rows[i] = (struct cfi_row){ .pc = 0x1000 + 16 * i, .cfa = CFI_CFA_RSP,
					    .rbp = CFI_RBP_AT_CFA, .rbp_off = -16,
					    .cfa_off = (int32_t)i };
	return rows;
}

/* The row cfi_tree_find() must return for @vaddr, by plain binary search. */
static const struct cfi_row *expected(const struct cfi_row *rows, size_t nr, uint64_t vaddr)
{
	struct cfi_table t = { .rows = (struct cfi_row *)rows, .nr = nr };

	return cfi_table_find(&t, vaddr);
}

static void check_lookup(const struct cfi_tree *tr, const struct cfi_row *rows, size_t nr,
			 uint32_t vaddr)
{
	const struct cfi_row *want = expected(rows, nr, vaddr);
	const struct hc_cfi_rule *got;
	uint32_t pc = 0;

	got = cfi_tree_find(tr, vaddr, &pc);
	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_int_equal(pc, want->pc);
	assert_int_equal(HC_CFI_CFA(got), want->cfa);
	assert_int_equal(HC_CFI_RBP(got), want->rbp);
	assert_int_equal(got->rbp_off, want->rbp_off);
	assert_int_equal(got->cfa_off, want->cfa_off);
	assert_int_equal(HC_CFI_RBX(got), want->rbx);
	assert_int_equal(HC_CFI_RBX_OFF(got), want->rbx_off);
}

/*
 * The %rbx rule shares the CFA's and %rbp's bytes (abi/unwind.h): every
 * CFA rule with every %rbx rule and offset the row can hold comes back as
 * it went in, the other fields untouched.
 */
static void the_rbx_rule_packs_beside_the_cfa_and_rbp_rules(void **state)
{
	const int cfas[] = { CFI_CFA_NONE, CFI_CFA_RSP, CFI_CFA_RBP, CFI_CFA_PLT, CFI_CFA_END,
			     CFI_CFA_UNSUP, CFI_CFA_RBX };
	const int rbps[] = { CFI_RBP_SAME, CFI_RBP_AT_CFA, CFI_RBP_UNSUP };
	size_t nr = 0, cap = 7 * 3 * 3 * 32;
	struct cfi_row *rows = calloc(cap, sizeof(*rows));
	struct cfi_tree tr;

	(void)state;
	assert_non_null(rows);
	for (size_t c = 0; c < 7; c++)
		for (size_t b = 0; b < 3; b++)
			for (size_t x = 0; x < 3; x++)
				for (int off = CFI_RBX_OFF_MIN; off <= CFI_RBX_OFF_MAX; off += 8) {
					rows[nr] = (struct cfi_row){
						.pc = 0x1000 + 16 * nr, .cfa = (uint8_t)cfas[c],
						.rbp = (uint8_t)rbps[b], .rbp_off = -24,
						.cfa_off = -7 - (int32_t)nr, .rbx = (uint8_t)rbps[x],
						.rbx_off = (int16_t)(rbps[x] == CFI_RBP_AT_CFA ? off : 0) };
					nr++;
				}
	assert_int_equal(nr, cap);
	assert_int_equal(cfi_tree_build(rows, nr, &tr), 0);
	for (size_t i = 0; i < nr; i++)
		check_lookup(&tr, rows, nr, (uint32_t)rows[i].pc);
	cfi_tree_release(&tr);
	free(rows);
}

static uint32_t height_for(size_t nr)
{
	size_t n = (nr + HC_CFI_LEAF_ROWS - 1) / HC_CFI_LEAF_ROWS;
	uint32_t h = 0;

	for (; n > 1; h++)
		n = (n + HC_CFI_INNER_KEYS - 1) / HC_CFI_INNER_KEYS;
	return h;
}

static void every_row_is_found_at_its_pc_and_up_to_the_next_one(void **state)
{
	const size_t leaf = HC_CFI_LEAF_ROWS, l1 = leaf * HC_CFI_INNER_KEYS;
	const size_t l2 = l1 * HC_CFI_INNER_KEYS;
	const size_t sizes[] = { 1, 2, leaf - 1, leaf, leaf + 1, l1 - 1, l1, l1 + 1, l2, l2 + 7 };

	(void)state;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t nr = sizes[s];
		struct cfi_row *rows = synth_rows(nr);
		struct cfi_tree tr;

		assert_int_equal(cfi_tree_build(rows, nr, &tr), 0);
		assert_int_equal(tr.height, height_for(nr));
		for (size_t i = 0; i < nr; i++) {
			check_lookup(&tr, rows, nr, (uint32_t)rows[i].pc);
			check_lookup(&tr, rows, nr, (uint32_t)rows[i].pc + 15);
		}
		check_lookup(&tr, rows, nr, 0);
		check_lookup(&tr, rows, nr, (uint32_t)rows[0].pc - 1);
		check_lookup(&tr, rows, nr, UINT32_MAX - 1);
		cfi_tree_release(&tr);
		free(rows);
	}
}

static void nodes_are_leaves_plus_one_inner_node_per_95_children(void **state)
{
	const size_t nr = 100001;	/* 3126 leaves (the last with one row), 33 above, a root */
	struct cfi_row *rows = synth_rows(nr);
	struct cfi_tree tr;

	(void)state;
	assert_int_equal(cfi_tree_build(rows, nr, &tr), 0);
	assert_int_equal(tr.height, 2);
	assert_int_equal(tr.nr, 3126 + 33 + 1);
	/* the root first, then the inner level, then the leaves in pc order */
	assert_int_equal(tr.nodes[0].inner.first_child, 1);
	assert_int_equal(tr.nodes[0].inner.pc[32], rows[32 * 95 * 32].pc);
	assert_int_equal(tr.nodes[0].inner.pc[33], UINT32_MAX);
	assert_int_equal(tr.nodes[1].inner.first_child, 34);
	assert_int_equal(tr.nodes[34].leaf.pc[0], rows[0].pc);
	assert_int_equal(tr.nodes[tr.nr - 1].leaf.pc[0], rows[nr - 1].pc);
	assert_int_equal(tr.nodes[tr.nr - 1].leaf.pc[1], UINT32_MAX);
	cfi_tree_release(&tr);
	free(rows);
}

static void tables_the_nodes_cannot_hold_are_refused(void **state)
{
	struct cfi_row row = { .pc = UINT32_MAX, .cfa = CFI_CFA_RSP, .cfa_off = 8 };
	struct cfi_tree tr;

	(void)state;
	assert_int_equal(cfi_tree_build(&row, 0, &tr), -EINVAL);
	assert_int_equal(cfi_tree_build(&row, 1, &tr), -EINVAL);	/* UINT32_MAX marks unused slots */
	assert_null(tr.nodes);
	row.pc = UINT32_MAX - 1;
	assert_int_equal(cfi_tree_build(&row, 1, &tr), 0);
	assert_int_equal(tr.nr, 1);
	cfi_tree_release(&tr);
}

static void the_node_search_finds_the_last_key_at_or_below(void **state)
{
	uint32_t keys[HC_CFI_INNER_KEYS];

	(void)state;
	for (size_t i = 0; i < HC_CFI_INNER_KEYS; i++)
		keys[i] = i < 10 ? 100 * (i + 1) : UINT32_MAX;	/* 10 used slots */
	assert_int_equal(hc_cfi_keys_search(keys, HC_CFI_INNER_KEYS, 0), 0);	/* none: 0 */
	assert_int_equal(hc_cfi_keys_search(keys, HC_CFI_INNER_KEYS, 100), 0);
	assert_int_equal(hc_cfi_keys_search(keys, HC_CFI_INNER_KEYS, 199), 0);
	assert_int_equal(hc_cfi_keys_search(keys, HC_CFI_INNER_KEYS, 200), 1);
	assert_int_equal(hc_cfi_keys_search(keys, HC_CFI_INNER_KEYS, 1000), 9);
	assert_int_equal(hc_cfi_keys_search(keys, HC_CFI_INNER_KEYS, UINT32_MAX - 1), 9);
	for (uint32_t k = 0; k < 1200; k++) {
		uint32_t want = k < 200 ? 0 : (k >= 1000 ? 9 : k / 100 - 1);

		assert_int_equal(hc_cfi_keys_search(keys, HC_CFI_INNER_KEYS, k), want);
	}
}

/* libc's real rows: gaps (CFA_NONE rows), PLT rows, uneven spacing. */
static void libc_lookups_agree_with_a_binary_search_over_its_rows(void **state)
{
	struct cfi_table t;
	struct cfi_tree tr;
	uint64_t lo, hi;
	Elf *elf;
	int fd;

	(void)state;
	elf_version(EV_CURRENT);
	fd = open(LIBC_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		skip();
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_int_equal(cfi_table_build(elf, &t), 0);
	assert_true(t.nr > 1000);
	assert_int_equal(cfi_tree_build(t.rows, t.nr, &tr), 0);
	for (size_t i = 0; i < t.nr; i++) {
		check_lookup(&tr, t.rows, t.nr, (uint32_t)t.rows[i].pc);
		check_lookup(&tr, t.rows, t.nr, (uint32_t)t.rows[i].pc - 1);
	}
	lo = t.rows[0].pc - 64;
	hi = t.rows[t.nr - 1].pc + 64;
	srand(3);
	for (int i = 0; i < 200000; i++)
		check_lookup(&tr, t.rows, t.nr, (uint32_t)(lo + (uint64_t)rand() % (hi - lo)));
	cfi_tree_release(&tr);
	cfi_table_release(&t);
	elf_end(elf);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(the_rbx_rule_packs_beside_the_cfa_and_rbp_rules),
	    cmocka_unit_test(every_row_is_found_at_its_pc_and_up_to_the_next_one),
	    cmocka_unit_test(nodes_are_leaves_plus_one_inner_node_per_95_children),
	    cmocka_unit_test(tables_the_nodes_cannot_hold_are_refused),
	    cmocka_unit_test(the_node_search_finds_the_last_key_at_or_below),
	    cmocka_unit_test(libc_lookups_agree_with_a_binary_search_over_its_rows),
	};

	return cmocka_run_group_tests_name("cfi_tree", tests, NULL, NULL);
}
