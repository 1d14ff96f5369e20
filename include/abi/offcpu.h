/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Off-CPU time: records are struct hc_stack_rec (abi/common.h) of kind
 * HC_KIND_OFFCPU, weight in nanoseconds, with the task state and the syscall
 * in progress when it blocked (the loader derives the reason from them).
 * Blocks shorter than cfg_min_block_ns carry no stack: their time is summed
 * per thread in offcpu_short and drained by the loader.
 */
#ifndef HC_ABI_OFFCPU_H
#define HC_ABI_OFFCPU_H

#include "abi/common.h"

/* offcpu_short key and value */
struct hc_offcpu_thread {
	__u32 tgid;
	__u32 pid;
};

struct hc_offcpu_short {
	__u64 ns;		/* time blocked in short blocks */
	__u64 count;		/* number of short blocks */
	char comm[HC_COMM_LEN];
	char pcomm[HC_COMM_LEN];
};

/* cfg_states bits: which blocked states are recorded */
#define HC_OFFCPU_STATE_S	0x1	/* TASK_INTERRUPTIBLE: sleeping, waiting for an event */
#define HC_OFFCPU_STATE_D	0x2	/* TASK_UNINTERRUPTIBLE: usually I/O */
#define HC_OFFCPU_STATE_OTHER	0x4	/* stopped, traced, idle, ... */

#endif /* HC_ABI_OFFCPU_H */
