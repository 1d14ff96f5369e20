/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Per-process counter sums kept by bpf/counters.bpf.c: one counter event per
 * CPU per configured event (a PERF_EVENT_ARRAY at index event * nr_cpus +
 * cpu), read at every sched_switch for the task leaving the CPU; the delta
 * since the previous read on that CPU is what that task ran. Sums are raw:
 * user space scales value by enabled / running (multiplexed hardware events).
 */
#ifndef HC_ABI_COUNTERS_H
#define HC_ABI_COUNTERS_H

#include "abi/common.h"

#define HC_COUNTERS_MAX_EVENTS	4

/* counters_procs: key __u32 tgid, value: */
struct hc_counters_proc {
	__u64 value[HC_COUNTERS_MAX_EVENTS];	/* counter deltas while the process ran */
	__u64 enabled[HC_COUNTERS_MAX_EVENTS];	/* time_enabled deltas over the same spans */
	__u64 running[HC_COUNTERS_MAX_EVENTS];	/* time_running deltas */
	__u64 spans;		/* on-CPU spans (switch-outs and syncs) summed */
	__u32 ppid;		/* parent process (tgid) when first seen */
	__u32 pad;
	char comm[HC_COMM_LEN];	/* process (group leader) name */
};

/* counters_stats slots: per-CPU u64 each */
enum hc_counters_stat {
	HC_CSTAT_SPANS = 0,	/* spans attributed to a process */
	HC_CSTAT_FIRST,		/* first read of an event on a CPU: baseline only */
	HC_CSTAT_READ_ERR,	/* bpf_perf_event_read_value() failed: span lost */
	HC_CSTAT_MAP_FULL,	/* counters_procs full: span of a new process lost */
	HC_CSTAT_SCALED,	/* spans longer than their task's own runtime: scaled to it */
	HC_CSTAT_NR,
};

#endif /* HC_ABI_COUNTERS_H */
