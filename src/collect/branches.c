// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* HC_REC_BRANCH -> struct branch_sample (branches.h). */
#include "collect/branches.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <linux/perf_event.h>

#include "abi/branches.h"

_Static_assert(sizeof(struct hc_branch_entry) == 24, "hc_branch_entry ABI changed");
_Static_assert(sizeof(struct hc_branch_entry) == sizeof(struct perf_branch_entry),
	       "hc_branch_entry must be the kernel's perf_branch_entry");
_Static_assert(sizeof(struct hc_branch_rec) == 32 + HC_MAX_BRANCHES * 24,
	       "hc_branch_rec ABI changed");
_Static_assert(HC_MAX_BRANCHES == BRANCH_MAX_ENTRIES, "branch stack depth differs");

/*
 * The flags word through the uapi struct: its bitfields are laid out by
 * the compiler as the kernel's were, on either byte order.
 */
static void decode_entry(const struct hc_branch_entry *in, struct branch_entry *out)
{
	struct perf_branch_entry pe;

	memcpy(&pe, in, sizeof(pe));
	out->from = pe.from;
	out->to = pe.to;
	out->mispred = pe.mispred;
	out->predicted = pe.predicted;
	out->cycles = (uint16_t)pe.cycles;
}

int branch_rec_decode(const void *data, size_t size, struct branch_sample *out)
{
	const struct hc_branch_rec *r = data;

	if (size < offsetof(struct hc_branch_rec, e) || r->hdr.type != HC_REC_BRANCH)
		return -EINVAL;
	if (!r->nr || r->nr > HC_MAX_BRANCHES ||
	    size < offsetof(struct hc_branch_rec, e) + r->nr * sizeof(r->e[0]))
		return -EINVAL;
	out->tgid = r->tgid;
	out->pid = r->pid;
	out->cpu = r->cpu;
	out->time_ns = r->time_ns;
	out->nr = r->nr;
	for (size_t i = 0; i < r->nr; i++)
		decode_entry(&r->e[i], &out->e[i]);
	return 0;
}
