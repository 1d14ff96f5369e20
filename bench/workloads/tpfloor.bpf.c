// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tpfloor: empty tp_btf programs on the hooks hotcold's off-CPU collector
 * uses (sched_switch, sys_exit), for bench/sched.sh's floor arms. What they
 * cost a workload is the price of the hooks themselves: the tracepoint call,
 * the BPF dispatch, and for sys_exit the syscall slow path every task on the
 * machine takes while any raw_syscalls tracepoint is enabled. Anything an
 * off-CPU profiler does on these hooks comes on top.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_sys_exit, struct pt_regs *regs, long ret)
{
	return 0;
}
