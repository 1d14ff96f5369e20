/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Branch records (record -b): with each on-CPU sample taken on a hardware
 * event opened with PERF_SAMPLE_BRANCH_STACK (Intel LBR, AMD Zen 4 LbrExtV2,
 * Arm BRBE), bpf/oncpu.bpf.c copies the PMU's branch stack with
 * bpf_read_branch_records() into one HC_REC_BRANCH ring record, right after
 * the sample's HC_REC_STACK record. Decoded by src/collect/branches.c.
 */
#ifndef HC_ABI_BRANCHES_H
#define HC_ABI_BRANCHES_H

#include "abi/common.h"

/*
 * Entries kept per sample: Intel LBR has 32 on Skylake and later (8-16
 * before), AMD Zen 4 16, Arm BRBE up to 64. A deeper stack is cut to the
 * newest HC_MAX_BRANCHES (the helper copies from the newest, entry 0).
 */
#define HC_MAX_BRANCHES		32

/*
 * One taken branch, exactly the kernel's struct perf_branch_entry (uapi
 * linux/perf_event.h): the helper copies those bytes. @flags is its
 * bitfield word, decoded in user space through that struct so the bit
 * order is the compiler's, as the kernel's: mispred:1, predicted:1,
 * in_tx:1, abort:1, cycles:16, type:4, spec:2, new_type:4, priv:3.
 */
struct hc_branch_entry {
	__u64 from;		/* address of the branch instruction */
	__u64 to;		/* its target */
	__u64 flags;
};

struct hc_branch_rec {
	struct hc_rec_hdr hdr;	/* type HC_REC_BRANCH, size sizeof(struct hc_branch_rec) */
	__u32 tgid;
	__u32 pid;
	__u32 nr;		/* entries used, newest first; at most HC_MAX_BRANCHES */
	__u32 cpu;
	__u64 time_ns;		/* bpf_ktime_get_ns(), as the stack record's */
	struct hc_branch_entry e[HC_MAX_BRANCHES];
};

#endif /* HC_ABI_BRANCHES_H */
