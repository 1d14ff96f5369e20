// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* annotate: the function's branch sites from record -b (OUTPUT.branches), by instruction. */
#include "analysis/annotate.h"

#include <errno.h>
#include <stdlib.h>

#include "analysis/branches.h"

int annotate_branches(struct annotate_result *r, const struct annotate_sel *s,
		      const struct branch_table *t)
{
	size_t *idx;
	long n;

	if (!r->has_code || !s->file)
		return 0;
	n = branches_in_range(t, s->file, r->sym_off, r->sym_off + r->sym_size, &idx);
	if (n <= 0)
		return n < 0 ? (int)n : 0;
	r->branches = calloc((size_t)n, sizeof(*r->branches));
	if (!r->branches) {
		free(idx);
		return -ENOMEM;
	}
	/* a function's code is in one segment: offsets and addresses move together */
	for (long i = 0; i < n; i++) {
		const struct branch_site *site = &t->v[idx[i]];
		struct annotate_branch *b = &r->branches[i];

		b->addr = site->from.off - r->sym_off + r->sym_addr;
		b->taken = site->taken;
		b->mispred = site->mispred;
		branch_end_name(&site->to, b->target, sizeof(b->target));
	}
	r->nr_branches = (size_t)n;
	free(idx);
	return 0;
}
