/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Scheduler-side collectors in bpf/sched.bpf.c: off-CPU time and run-queue
 * latency.
 *
 * Off-CPU time: records are struct hc_stack_rec (abi/common.h) of kind
 * HC_KIND_OFFCPU, weight in nanoseconds, with the task state and the syscall
 * in progress when it blocked (the loader derives the reason from them).
 * Blocks shorter than cfg_min_block_ns carry no stack: their time is summed
 * per thread in offcpu_short and drained by the loader.
 */
#ifndef HC_ABI_SCHED_H
#define HC_ABI_SCHED_H

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

/*
 * Run-queue latency: time from wakeup (or preemption) to running, as log2
 * histograms in runq_hist keyed by struct hc_offcpu_thread (pid 0: per
 * process; tgid and pid 0: everything). Waits after a preemption that reach
 * cfg_min_runq_ns are also records of kind HC_KIND_RUNQ with the stack at
 * the preemption point.
 */
#define HC_RUNQ_SLOTS		64	/* slot i: [2^i, 2^(i+1)) ns; slot 0 also 0 ns */

struct hc_runq_hist {
	__u64 slots[HC_RUNQ_SLOTS];
	__u64 count;
	__u64 total_ns;
	__u64 max_ns;
	char comm[HC_COMM_LEN];	/* thread (per thread) or process name */
};

/* cfg_runq_per */
#define HC_RUNQ_PER_ALL		0
#define HC_RUNQ_PER_PROCESS	1
#define HC_RUNQ_PER_THREAD	2

#endif /* HC_ABI_SCHED_H */
