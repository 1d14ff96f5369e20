/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Sorted CFI rows (unwind/cfi.h) laid out as the static B+ tree of fixed-size
 * nodes the BPF unwinder searches (struct hc_cfi_node, abi/unwind.h): one
 * node per element of an object's inner array, root first.
 */
#ifndef HC_UNWIND_CFI_TREE_H
#define HC_UNWIND_CFI_TREE_H

#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "abi/unwind.h"
#include "unwind/cfi.h"

struct cfi_tree {
	struct hc_cfi_node *nodes;	/* nodes[0] is the root */
	size_t nr;			/* nodes */
	uint32_t height;		/* inner levels above the leaves (0: one leaf) */
};

/*
 * Lay out @nr rows sorted by pc. 0 or -errno: -EINVAL for no rows or a pc at
 * or above UINT32_MAX (nodes hold 32-bit pcs, UINT32_MAX marks unused slots),
 * -E2BIG past HC_UNWIND_MAX_ROWS, -ENOMEM. @out is the caller's to release.
 */
int cfi_tree_build(const struct cfi_row *rows, size_t nr, struct cfi_tree *out);
void cfi_tree_release(struct cfi_tree *tr);

/*
 * The rule covering @vaddr (from the last row with pc <= @vaddr), found the
 * way the BPF walker finds it (bpf/lib/unwind_walk.bpf.h); that row's pc in
 * @pc. NULL if @vaddr lies below the first row.
 */
const struct hc_cfi_rule *cfi_tree_find(const struct cfi_tree *tr, uint32_t vaddr, uint32_t *pc);

#endif /* HC_UNWIND_CFI_TREE_H */
