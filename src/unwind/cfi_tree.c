// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * CFI rows -> the BPF unwinder's B+ tree. Levels are stored root first, each
 * level's nodes in pc order, so the children of an inner node are
 * consecutive and one index (first_child) locates them all.
 */
#include "unwind/cfi_tree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(struct hc_cfi_node) == 384, "hc_cfi_node ABI changed");
_Static_assert(sizeof(struct hc_cfi_leaf) == sizeof(struct hc_cfi_inner),
	       "leaf and inner nodes must fill the same element");
/* cfi.h's rules are copied as they are (ints: the two enums are distinct types) */
_Static_assert((int)CFI_CFA_NONE == HC_CFA_NONE && (int)CFI_CFA_RSP == HC_CFA_RSP &&
	       (int)CFI_CFA_RBP == HC_CFA_RBP && (int)CFI_CFA_PLT == HC_CFA_PLT &&
	       (int)CFI_CFA_END == HC_CFA_END && (int)CFI_CFA_UNSUP == HC_CFA_UNSUP &&
	       (int)CFI_CFA_RBX == HC_CFA_RBX,
	       "cfa rules differ");
_Static_assert((int)CFI_RBP_SAME == HC_RBP_SAME && (int)CFI_RBP_AT_CFA == HC_RBP_AT_CFA &&
	       (int)CFI_RBP_UNSUP == HC_RBP_UNSUP, "rbp rules differ");
_Static_assert(CFI_RBX_OFF_MIN == HC_CFI_RBX_OFF_MIN && CFI_RBX_OFF_MAX == HC_CFI_RBX_OFF_MAX,
	       "rbx offsets differ");

#define DIV_UP(a, b) (((a) + (b) - 1) / (b))

/* The first pc under node @i of level @l (0: leaves) starting at @off. */
static uint32_t first_pc(const struct hc_cfi_node *nodes, size_t off, uint32_t l, size_t i)
{
	return l ? nodes[off + i].inner.pc[0] : nodes[off + i].leaf.pc[0];
}

static void fill_leaves(struct hc_cfi_node *leaves, const struct cfi_row *rows, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		struct hc_cfi_leaf *lf = &leaves[i / HC_CFI_LEAF_ROWS].leaf;
		size_t k = i % HC_CFI_LEAF_ROWS;

		lf->pc[k] = (uint32_t)rows[i].pc;
		/* the %rbx rule in the spare bits (abi/unwind.h: offsets checked by cfi.c) */
		lf->rule[k] = (struct hc_cfi_rule){
			.cfa = (uint8_t)(rows[i].cfa | (uint8_t)(rows[i].rbx_off / 8) << 3),
			.rbp = (uint8_t)(rows[i].rbp | rows[i].rbx << 2),
			.rbp_off = rows[i].rbp_off,
			.cfa_off = rows[i].cfa_off };
	}
}

int cfi_tree_build(const struct cfi_row *rows, size_t nr, struct cfi_tree *out)
{
	size_t cnt[HC_CFI_MAX_HEIGHT + 1], off[HC_CFI_MAX_HEIGHT + 1];
	struct hc_cfi_node *nodes;
	uint32_t h = 0;

	memset(out, 0, sizeof(*out));
	if (!nr || rows[nr - 1].pc >= UINT32_MAX)
		return -EINVAL;
	if (nr > HC_UNWIND_MAX_ROWS)
		return -E2BIG;
	cnt[0] = DIV_UP(nr, HC_CFI_LEAF_ROWS);
	while (cnt[h] > 1) {
		if (h == HC_CFI_MAX_HEIGHT)
			return -E2BIG;
		cnt[h + 1] = DIV_UP(cnt[h], HC_CFI_INNER_KEYS);
		h++;
	}
	off[h] = 0;
	for (uint32_t l = h; l > 0; l--)
		off[l - 1] = off[l] + cnt[l];
	nodes = calloc(off[0] + cnt[0], sizeof(*nodes));
	if (!nodes)
		return -ENOMEM;
	/* unused slots compare above every pc; inner and leaf pcs alike */
	for (size_t i = 0; i < off[0]; i++)
		memset(nodes[i].inner.pc, 0xff, sizeof(nodes[i].inner.pc));
	for (size_t i = off[0]; i < off[0] + cnt[0]; i++)
		memset(nodes[i].leaf.pc, 0xff, sizeof(nodes[i].leaf.pc));
	fill_leaves(&nodes[off[0]], rows, nr);
	for (uint32_t l = 1; l <= h; l++) {
		for (size_t j = 0; j < cnt[l]; j++) {
			struct hc_cfi_inner *in = &nodes[off[l] + j].inner;
			size_t c0 = j * HC_CFI_INNER_KEYS;

			in->first_child = off[l - 1] + c0;
			for (size_t k = 0; k < HC_CFI_INNER_KEYS && c0 + k < cnt[l - 1]; k++)
				in->pc[k] = first_pc(nodes, off[l - 1], l - 1, c0 + k);
		}
	}
	out->nodes = nodes;
	out->nr = off[0] + cnt[0];
	out->height = h;
	return 0;
}

void cfi_tree_release(struct cfi_tree *tr)
{
	free(tr->nodes);
	memset(tr, 0, sizeof(*tr));
}

const struct hc_cfi_rule *cfi_tree_find(const struct cfi_tree *tr, uint32_t vaddr, uint32_t *pc)
{
	const struct hc_cfi_leaf *lf;
	uint32_t idx = 0, k;

	for (uint32_t l = 0; l < tr->height; l++) {
		if (idx >= tr->nr)
			return NULL;
		idx = tr->nodes[idx].inner.first_child +
		      hc_cfi_keys_search(tr->nodes[idx].inner.pc, HC_CFI_INNER_KEYS, vaddr);
	}
	if (idx >= tr->nr)
		return NULL;
	lf = &tr->nodes[idx].leaf;
	k = hc_cfi_keys_search(lf->pc, HC_CFI_LEAF_ROWS, vaddr);
	if (lf->pc[k] > vaddr)
		return NULL;
	*pc = lf->pc[k];
	return &lf->rule[k];
}
