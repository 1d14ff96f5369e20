// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * On-CPU sampling: runs on each perf event overflow (cycles or cpu-clock),
 * filters in kernel, and streams the sample with its stacks through the
 * shared ring; aggregation happens in user space (FIELD-NOTES: in-kernel
 * stack maps collide and lose exactly the hot paths).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "abi/oncpu.h"
#include "lib/stats.bpf.h"
#include "lib/target.bpf.h"
#include "lib/task.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile bool cfg_filter = false;
const volatile bool cfg_idle = false;		/* sample the idle task (pid 0) too */
const volatile __u32 cfg_stacks = HC_ONCPU_KSTACK | HC_ONCPU_USTACK;

/* Shared with proc.bpf.c: the loader points these at proc's maps (reuse_fd). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u32);
} proc_targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u32);
} proc_seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} proc_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hc_stat_val);
} oncpu_stats SEC(".maps");

/* True if @tgid had no record yet; marks it seen. */
static __always_inline bool first_sight(__u32 tgid)
{
	__u32 one = 1;

	if (bpf_map_lookup_elem(&proc_seen, &tgid))
		return false;
	/* LRU: never full; an evicted tgid just wakes the loader once more */
	bpf_map_update_elem(&proc_seen, &tgid, &one, BPF_NOEXIST);
	return true;
}

SEC("perf_event")
int oncpu_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, pid = (__u32)id;
	struct task_struct *task, *leader;
	struct hc_stack_rec *r;
	__u64 wakeup;
	long n;

	if (pid == 0 && !cfg_idle)
		return 0;
	if (cfg_filter && !target_match(&proc_targets, tgid, pid))
		return 0;

	r = bpf_ringbuf_reserve(&proc_events, sizeof(*r), 0);
	if (!r) {
		stat_inc(&oncpu_stats, HC_STAT_RB_FULL);
		return 0;
	}
	task = (struct task_struct *)bpf_get_current_task_btf();
	r->hdr.type = HC_REC_STACK;
	r->hdr.size = sizeof(*r);
	r->tgid = tgid;
	r->pid = pid;
	r->cpu = bpf_get_smp_processor_id();
	r->kind = HC_KIND_ONCPU;
	r->flags = 0;
	r->nr_kstack = 0;
	r->nr_ustack = 0;
	r->pad = 0;
	r->weight = 1;
	r->time_ns = bpf_ktime_get_ns();
	bpf_get_current_comm(&r->comm, sizeof(r->comm));
	leader = BPF_CORE_READ(task, group_leader);
	BPF_CORE_READ_STR_INTO(&r->pcomm, leader, comm);

	if (cfg_stacks & HC_ONCPU_KSTACK) {
		n = bpf_get_stack(ctx, r->ips, HC_MAX_STACK_DEPTH * sizeof(__u64), 0);
		if (n < 0) {
			r->flags |= HC_SF_KSTACK_ERR;
			stat_inc(&oncpu_stats, HC_STAT_KSTACK_ERR);
		} else {
			r->nr_kstack = n / sizeof(__u64);
		}
	}
	if (task_is_kthread(task)) {
		r->flags |= HC_SF_KTHREAD;
	} else if (cfg_stacks & HC_ONCPU_USTACK) {
		n = bpf_get_stack(ctx, &r->ips[HC_MAX_STACK_DEPTH],
				  HC_MAX_STACK_DEPTH * sizeof(__u64), BPF_F_USER_STACK);
		if (n < 0) {
			r->flags |= HC_SF_USTACK_ERR;
			stat_inc(&oncpu_stats, HC_STAT_USTACK_ERR);
		} else {
			r->nr_ustack = n / sizeof(__u64);
			if (r->nr_ustack == HC_MAX_STACK_DEPTH) {
				r->flags |= HC_SF_USTACK_TRUNC;
				stat_inc(&oncpu_stats, HC_STAT_USTACK_TRUNC);
			}
		}
	}

	/*
	 * Samples are drained on a timer (no wakeup per sample); only a tgid's
	 * first sample wakes the loader, so short-lived processes get their
	 * maps read before they exit.
	 */
	wakeup = BPF_RB_NO_WAKEUP;
	if (first_sight(tgid)) {
		r->flags |= HC_SF_NEW_TGID;
		wakeup = BPF_RB_FORCE_WAKEUP;
	}
	stat_inc(&oncpu_stats, HC_STAT_SAMPLES);
	bpf_ringbuf_submit(r, wakeup);
	return 0;
}
