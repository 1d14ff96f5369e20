// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tpfloor: empty tp_btf programs on the hooks hotcold's off-CPU collector
 * uses (sched_switch, sys_exit), for bench/sched.sh's floor arms. What they
 * cost a workload is the price of the hooks themselves: the tracepoint call,
 * the BPF dispatch, and for sys_exit the syscall slow path every task on the
 * machine takes while any raw_syscalls tracepoint is enabled. Anything an
 * off-CPU profiler does on these hooks comes on top.
 *
 * The other programs each add one kind of work an off-CPU/run-queue program
 * does per switch, to price it with bpf_stats (run_time_ns / run_cnt) on this
 * machine: `tpfloor OBJ PROG TGID` (TGID: the traced process, e.g. pingpong),
 * or bench/sched.sh --arms base,floor:PROG.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

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

const volatile __u32 target_tgid = 0;	/* set by tpfloor from its TGID argument */
__u64 sink;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u32);
} targets SEC(".maps");		/* holds target_tgid (filled by tpfloor) */

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u32);
} seen SEC(".maps");		/* holds target_tgid (filled by tpfloor) */

struct ts {
	__u64 off_ts, sum, cnt;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ts);
} tstore SEC(".maps");

struct thread_key {
	__u32 tgid, pid;
};

struct thread_sum {
	__u64 ns, cnt;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct thread_key);
	__type(value, struct thread_sum);
} shorts SEC(".maps");

/* bpf_ktime_get_ns() */
SEC("tp_btf/sched_switch")
int BPF_PROG(ktime_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	sink += bpf_ktime_get_ns();
	return 0;
}

/* 8 task fields through BPF_CORE_READ (a bpf_probe_read_kernel call each) */
SEC("tp_btf/sched_switch")
int BPF_PROG(coreread_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	sink += BPF_CORE_READ(prev, tgid) + BPF_CORE_READ(prev, pid) + BPF_CORE_READ(prev, flags) +
		BPF_CORE_READ(prev, __state) + BPF_CORE_READ(next, tgid) + BPF_CORE_READ(next, pid) +
		BPF_CORE_READ(next, flags) + BPF_CORE_READ(prev, group_leader, pid);
	return 0;
}

/* the same 8 fields as direct loads through the trusted tp_btf pointers */
SEC("tp_btf/sched_switch")
int BPF_PROG(direct_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	sink += prev->tgid + prev->pid + prev->flags + prev->__state + next->tgid + next->pid +
		next->flags + prev->group_leader->pid;
	return 0;
}

/* a pid filter for prev and next: 1 hash lookup for a target, 2 for any other task */
SEC("tp_btf/sched_switch")
int BPF_PROG(hash_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 k1 = prev->tgid, k2 = prev->pid, k3 = next->tgid, k4 = next->pid;
	__u32 *v;

	v = bpf_map_lookup_elem(&targets, &k1);
	if (!v)
		v = bpf_map_lookup_elem(&targets, &k2);
	if (v)
		sink++;
	v = bpf_map_lookup_elem(&targets, &k3);
	if (!v)
		v = bpf_map_lookup_elem(&targets, &k4);
	if (v)
		sink++;
	return 0;
}

/* an LRU hash lookup at each switch-out of the target ("process seen?") */
SEC("tp_btf/sched_switch")
int BPF_PROG(lru_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 k = prev->tgid;

	if (k == target_tgid && bpf_map_lookup_elem(&seen, &k))
		sink++;
	return 0;
}

/* task storage: get-or-create at switch-out, get at switch-in, sum the block there */
SEC("tp_btf/sched_switch")
int BPF_PROG(tstore_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns();
	struct ts *t;

	if (prev->tgid == target_tgid) {
		t = bpf_task_storage_get(&tstore, prev, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (t)
			t->off_ts = now;
	}
	if (next->tgid == target_tgid) {
		t = bpf_task_storage_get(&tstore, next, NULL, 0);
		if (t && t->off_ts) {
			t->sum += now - t->off_ts;
			t->cnt++;
			t->off_ts = 0;
		}
	}
	return 0;
}

/* a per-thread sum in a hash map with two atomic adds, at each switch-in of the target */
SEC("tp_btf/sched_switch")
int BPF_PROG(shorthash_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct thread_key key = { .tgid = next->tgid, .pid = next->pid };
	struct thread_sum *v, init = {};

	if (key.tgid != target_tgid)
		return 0;
	v = bpf_map_lookup_elem(&shorts, &key);
	if (!v) {
		bpf_map_update_elem(&shorts, &key, &init, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&shorts, &key);
		if (!v)
			return 0;
	}
	__sync_fetch_and_add(&v->ns, 1000);
	__sync_fetch_and_add(&v->cnt, 1);
	return 0;
}

/* the syscall number of the task switching out (pt_regs->orig_ax) */
SEC("tp_btf/sched_switch")
int BPF_PROG(syscall_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct pt_regs *regs;

	if (prev->tgid != target_tgid)
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(prev);
	sink += BPF_CORE_READ(regs, orig_ax);
	return 0;
}

/* sys_exit: current task's storage looked up (nothing pending) */
SEC("tp_btf/sys_exit")
int BPF_PROG(tstore_sys_exit, struct pt_regs *regs, long ret)
{
	struct ts *s = bpf_task_storage_get(&tstore, bpf_get_current_task_btf(), NULL, 0);

	if (s && s->cnt)
		sink++;
	return 0;
}
