/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Scheduler-side collectors in bpf/sched.bpf.c: off-CPU time and run-queue
 * latency.
 *
 * Off-CPU time: records are struct hc_stack_rec (abi/common.h) of kind
 * HC_KIND_OFFCPU, weight in nanoseconds blocked (switch-out to wakeup), addr
 * the nanoseconds then spent waiting for a CPU (wakeup to switch-in), with
 * the task state and the syscall in progress when it blocked (the loader
 * derives the reason from them); state's top byte holds HC_OFFCPU_F_* flags.
 * Blocks shorter than cfg_min_block_ns are sampled: each time a thread's sum
 * of them crosses cfg_quantum_ns, the current block's stacks are taken with
 * that sum's whole quanta as weight (HC_OFFCPU_F_SAMPLED, count 0). What is
 * left below a quantum when the thread exits or recording stops is summed per
 * thread in offcpu_short, without a stack, and drained by the loader.
 */
#ifndef HC_ABI_SCHED_H
#define HC_ABI_SCHED_H

#include "abi/common.h"

/*
 * Short-block samples, all threads together: at most this many a second on
 * each CPU (the loader may set another rate), in bursts of at most this
 * much of that rate's time (a tenth of a second: 200 samples).
 */
#define HC_OFFCPU_SAMPLES_PER_CPU	2000
#define HC_OFFCPU_SAMPLE_BURST_NS	100000000ull

/* offcpu_short key and value */
struct hc_offcpu_thread {
	__u32 tgid;
	__u32 pid;
};

struct hc_offcpu_short {
	__u64 ns;		/* time blocked in short blocks, not on a sampled stack */
	__u64 wait_ns;		/* their CPU wait (wakeup -> switch-in), ditto */
	__u64 count;		/* number of short blocks (sampled ones included) */
	char comm[HC_COMM_LEN];
	char pcomm[HC_COMM_LEN];
};

/* hc_stack_rec::state of HC_KIND_OFFCPU records: task state | flags << 24 */
#define HC_OFFCPU_FLAGS_SHIFT	24
#define HC_OFFCPU_F_SAMPLED	0x01	/* short blocks' quanta on this block's stack */
#define HC_OFFCPU_F_AT_START	0x02	/* blocked when recording started: timed from then */
#define HC_OFFCPU_F_AT_STOP	0x04	/* still blocked at stop (or interval end): timed to then */
/* its switch-in ran no program: timed from sched_info at a later switch-out, no stacks */
#define HC_OFFCPU_F_UNSEEN	0x20
/* --wakers, long blocks: what became of the waker's stacks (2 bits) */
#define HC_OFFCPU_F_WK_SHIFT	3
#define HC_OFFCPU_WK_SENT	1	/* emitted to the ring: the loader joins it */
#define HC_OFFCPU_WK_LOST	2	/* emit failed (ring full, scratch): counted there too */
#define HC_OFFCPU_WK_NONE	0	/* no wakeup of this block seen in time (see docs/offcpu.md) */
#define HC_OFFCPU_WK_SHORT	3	/* woken before cfg_min_block_ns by the waker's clock */

/* Counters of the scheduler collector alone (sched_stats, one per-CPU slot each). */
enum hc_sched_stat {
	HC_SCHED_CLOCK_BACK = 0,	/* block ended by an earlier clock (other CPU's): timed 0 */
	HC_SCHED_CLOCK_BACK_NS,		/* ... by this much in all */
	HC_SCHED_WK_NONE,		/* --wakers, long block: no wakeup of it seen */
	HC_SCHED_WK_SHORT,		/* ... woken before --min-block by the waker's clock */
	HC_SCHED_WK_LOST,		/* ... waker's record lost (ring full, no scratch) */
	HC_SCHED_WK_SAMPLED,		/* ... a sampled short block (no waker taken by design) */
	HC_SCHED_UNSEEN,		/* block whose switch-in ran no program: timed, no stacks */
	HC_SCHED_UNSEEN_UNTIMED,	/* ... and sched_info had no arrival after it: time lost */
	HC_SCHED_SAMPLE_DEFERRED,	/* short-block sample put off: the CPU's budget was spent */
	HC_SCHED_STAT_NR,
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
