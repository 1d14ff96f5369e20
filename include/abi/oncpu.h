/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * On-CPU sampling: records are struct hc_stack_rec (abi/common.h), kind ONCPU,
 * weight the sampling intervals it stands for: 1, more when the thread's
 * account passed several instants at one tick (hc_dither_next()).
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
	__u64 c_cpu_ns, c_target_ns, c_base_ns, c_steal_ns;
	__u64 copied;		/* ticks decided on the copy (no task storage lookup) */
	/*
	 * Ticks that found a thread's charged time past what it can have run
	 * (hc_dither_charge()): after a switch, given back (another task's
	 * time); with none, kept (steal), and the time in each case.
	 */
	__u64 pulled, pulled_ns;
	__u64 kept, kept_ns;
	/*
	 * Samples that stand for more than one interval (hc_dither_next()):
	 * the thread's account moved past several instants at once, and the
	 * intervals beyond the first in them.
	 */
	__u64 multi, multi_extra;
	__u64 last_nsw;		/* the previous tick's task's context switches */
};

struct oncpu_dither_task {	/* oncpu_dither_task: TASK_STORAGE */
	__u64 cpu_ns;		/* CPU time charged by ticks, kept near the kernel's */
	__u64 target_ns;	/* the random instant of the next interval, in cpu_ns */
	__u64 base_ns;		/* the task's sum_exec_runtime where cpu_ns is 0 */
	__u64 steal_ns;		/* steal its ticks saw, kept in cpu_ns (hc_dither_charge()) */
};

/*
 * A tick's charge: a thread's charged time @cpu_ns advanced by the tick's
 * spacing @dt and kept near its account: the kernel's (@kern, its
 * sum_exec_runtime since the base) plus the steal kept so far (*@steal).
 * Not behind the account (a thread whose time the ticks missed catches
 * up), and at most @lead ahead of it: what it can have run since the
 * kernel last updated its account.
 *
 * Time past that bound is one of two things. If another task ran between
 * this tick and the CPU's previous one (@own false: a switch since), it is
 * that task's time the tick found this one running after: given back, the
 * charge pulled down to the bound. If this thread ran alone between the
 * two (@own), it is wall time it spent on the CPU that the kernel's
 * account leaves out: time the hypervisor stole from the vCPU
 * (CONFIG_PARAVIRT_TIME_ACCOUNTING; interrupt time too, with
 * CONFIG_IRQ_TIME_ACCOUNTING). That is kept and added to *@steal: a
 * thread's time is then its CPU time plus the steal its ticks saw, as
 * perf's cpu-clock and task-clock count it.
 *
 * Giving steal back was the defect this replaces. The ticks charged it
 * where it happened (anywhere), and the give-back came at the first tick
 * after the account moved: right after the thread's syscalls (a clock
 * read updates it) and the scheduler's ticks. Instants there had been
 * taken already, so that code lost samples; and with the bound fixed at a
 * jiffy the steal piled up to it, after which instants were crossed only
 * when the account moved, the samples of a long function going to the
 * code after its next syscall (CI: 56.3 % for a 59.8 % function under
 * heavy steal). tests/unit/test_dither.c shows both.
 *
 * *@given gets the time given back, *@kept the time kept (one is 0).
 */
static inline __attribute__((always_inline)) __u64 hc_dither_charge(__u64 cpu_ns, __u64 dt,
								  __u64 kern, __u64 *steal,
								  __u64 lead, int own,
								  __u64 *given, __u64 *kept)
{
	__u64 over;

	*given = 0;
	*kept = 0;
	kern += *steal;
	cpu_ns += dt;
	if (cpu_ns < kern)
		return kern;
	if (cpu_ns <= kern + lead)
		return cpu_ns;
	over = cpu_ns - (kern + lead);
	if (!own) {
		*given = over;
		return kern + lead;
	}
	*kept = over;
	*steal += over;
	return cpu_ns;
}

/* The random instant inside sampling interval @k: @r uniform in [0, 2^32). */
static inline __attribute__((always_inline)) __u64 hc_dither_instant(__u64 k, __u64 period,
								    __u32 r)
{
	return k * period + (((__u64)r * period) >> 32);
}

/*
 * A tick reached the instant @target: the sample it takes stands for every
 * instant up to the thread's charged time @cpu_ns, not one. Returns how
 * many (>= 1) and puts the next instant, the first past @cpu_ns, in *@next
 * (@r1, @r2: uniform draws). The intervals wholly between are passed; in
 * the one @cpu_ns is in, the instant is drawn and passed if it is behind.
 *
 * Usually @cpu_ns is in @target's interval and this is one sample. More
 * come when the thread's account moved by more than the ticks saw: a
 * thread that ran on through a gap without ticks (the host stopped the
 * vCPU without reporting it as steal, e.g. a CPU quota's throttling, so
 * the kernel counts the gap as the thread's run time), then caught up at
 * one tick. Taking one per tick from there, as before, gave the gap's
 * samples (~100 of 3,000 after a 100 ms throttle) to the code that ran
 * after it: t_python's caller_a at 63-67 % against a measured 70 % on
 * this VM under load. The tick that catches up is the first to see the
 * gap: the thread is where the gap left it.
 */
static inline __attribute__((always_inline)) __u32 hc_dither_next(__u64 target, __u64 cpu_ns,
								 __u64 period, __u32 r1, __u32 r2,
								 __u64 *next)
{
	__u64 k = target / period + 1, m = cpu_ns / period, n = 1;

	if (m < k) {
		*next = hc_dither_instant(k, period, r1);
		return 1;
	}
	n += m - k;
	*next = hc_dither_instant(m, period, r1);
	if (*next <= cpu_ns) {
		n++;
		*next = hc_dither_instant(m + 1, period, r2);
	}
	return n > 0xffffffffull ? 0xffffffffu : (__u32)n;
}

#endif /* HC_ABI_ONCPU_H */
