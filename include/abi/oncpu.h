/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * On-CPU sampling: records are struct hc_stack_rec (abi/common.h), kind ONCPU,
 * weight 1: one sampling interval.
 */
#ifndef HC_ABI_ONCPU_H
#define HC_ABI_ONCPU_H

#include "abi/common.h"

/* cfg_stacks bits */
#define HC_ONCPU_KSTACK		0x1
#define HC_ONCPU_USTACK		0x2

/*
 * Dithered sampling (bpf/oncpu.bpf.c, docs/record.md, "Why 99 Hz, and dithering"):
 * the event ticks several times per sampling interval. Each thread's CPU
 * time (the ticks' spacing, charged to the thread a tick finds running) is
 * cut into intervals of cfg_period_ns, and each interval is sampled once,
 * at the tick that crosses a random instant inside it.
 */
struct oncpu_dither_cpu {	/* oncpu_dither_cpu: PERCPU_ARRAY, one slot */
	__u64 last_tick_ns;	/* bpf_ktime_get_ns() of this CPU's previous tick, 0: none */
	__u64 intervals;	/* intervals sampled on this CPU (filtered tasks excluded) */
	__u64 late;		/* ticks later than cfg_max_late_ns while one task ran on */
	__u64 no_storage;	/* ticks of a task without task storage: not charged */
	__u64 late_ns;		/* that task's CPU time beyond cfg_max_late_ns in them */
	/*
	 * Ticks of idle CPUs and of tasks not recorded: their cost is the
	 * filter's, not a sample's (bench/unwind.sh charges the rest, a
	 * target's ticks between its samples included, to the samples).
	 */
	__u64 filtered;
	/*
	 * Ticks later than cfg_max_late_ns across a switch or an idle CPU:
	 * cpu-clock ticks less on an idle CPU (measured on 6.18: ~370 runs/s
	 * per idle CPU, ~790 busy), and that time is no task's.
	 */
	__u64 gaps;
	__u64 last_sum_ns;	/* the previous tick's task's sum_exec_runtime */
	__u32 last_pid;		/* the previous tick's task (0: idle) */
	__u32 c_pid;		/* the task whose dither state this CPU holds a copy of */
	/*
	 * That copy (struct oncpu_dither_task's cpu_ns, target_ns, base_ns),
	 * advanced by this CPU's ticks of it: the ticks of a thread that runs
	 * on here do not look up its task storage until its instant comes.
	 */
	__u64 c_task;		/* its task_struct's address, with c_pid its identity */
	__u64 c_cpu_ns, c_target_ns, c_base_ns;
	__u64 copied;		/* ticks decided on the copy (no task storage lookup) */
};

struct oncpu_dither_task {	/* oncpu_dither_task: TASK_STORAGE */
	__u64 cpu_ns;		/* CPU time charged by ticks, kept near the kernel's */
	__u64 target_ns;	/* the random instant of the next interval, in cpu_ns */
	__u64 base_ns;		/* the task's sum_exec_runtime where cpu_ns is 0 */
	__u64 clamped;		/* times cpu_ns was pulled back to the kernel's + max ahead */
};

#endif /* HC_ABI_ONCPU_H */
