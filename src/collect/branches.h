/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Decoding HC_REC_BRANCH ring records (abi/branches.h) into branch entries (stack/branch_sites.h). */
#ifndef HC_COLLECT_BRANCHES_H
#define HC_COLLECT_BRANCHES_H

#include <stddef.h>
#include <stdint.h>

#include "stack/branch_sites.h"

struct branch_sample {
	uint32_t tgid, pid, cpu;
	uint64_t time_ns;
	size_t nr;
	struct branch_entry e[BRANCH_MAX_ENTRIES];	/* newest first, as the PMU gives them */
};

/*
 * One HC_REC_BRANCH record of @size bytes at @data into @out. -EINVAL for
 * a record of another type, shorter than its header, with more entries
 * than fit or than its size holds, or with no entry (the BPF side sends
 * none such: a malformed record, to be counted by the caller).
 */
int branch_rec_decode(const void *data, size_t size, struct branch_sample *out);

#endif /* HC_COLLECT_BRANCHES_H */
