// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * On-CPU sampling: runs on each perf event overflow (cycles or cpu-clock),
 * filters in kernel, captures the kernel stack and the user stack (CFI
 * tables where the loader has them, frame pointers elsewhere) and streams
 * the sample through the shared ring; aggregation happens in user space
 * (FIELD-NOTES: in-kernel stack maps collide and lose exactly the hot paths).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "abi/oncpu.h"
#include "abi/unwind.h"
#include "lib/stats.bpf.h"
#include "lib/target.bpf.h"
#include "lib/task.bpf.h"
#include "lib/unwind.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile bool cfg_filter = false;
const volatile bool cfg_idle = false;		/* sample the idle task (pid 0) too */
const volatile __u32 cfg_stacks = HC_ONCPU_KSTACK | HC_ONCPU_USTACK;
const volatile __u32 cfg_unwind = HC_UNWIND_FP;	/* enum hc_unwind_mode */

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

/* Shared with src/unwind/tables.c, which creates and fills them (reuse_fd). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct hc_unwind_proc);
} unwind_procs SEC(".maps");

struct unwind_rows {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_INNER_MAP);	/* inner maps sized per object */
	__uint(max_entries, 1);
	/* sizes, not __type(): clang emits only a FWD for a type seen through pointers */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct hc_cfi_row));
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__array(values, struct unwind_rows);
} unwind_objs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uw_scratch);
} unwind_scratch SEC(".maps");

#include "lib/unwind_walk.bpf.h"

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

static __always_inline void fill_header(struct hc_stack_rec *r, struct task_struct *task,
					__u32 tgid, __u32 pid)
{
	struct task_struct *leader = BPF_CORE_READ(task, group_leader);

	r->hdr.type = HC_REC_STACK;
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
	BPF_CORE_READ_STR_INTO(&r->pcomm, leader, comm);
}

/* User stack by CFI; false if the process has no tables yet (caller uses FP). */
static __always_inline bool user_stack_cfi(struct uw_scratch *s, struct task_struct *task,
					   __u32 tgid, __u32 nk)
{
	struct hc_stack_rec *r = &s->rec;
	__u32 n;

	if (!bpf_map_lookup_elem(&unwind_procs, &tgid)) {
		stat_inc(&oncpu_stats, HC_STAT_UNWIND_NO_TABLE);
		return false;
	}
	/* the user-mode registers saved at kernel entry, whatever mode we sampled in */
	n = unwind_user(s, (struct pt_regs *)bpf_task_pt_regs(task), tgid, nk);
	r->nr_ustack = n;
	r->flags |= HC_SF_UNWIND_CFI;
	stat_inc(&oncpu_stats, HC_STAT_UNWIND_CFI);
	if (s->st.fp_frames) {
		r->flags |= HC_SF_UNWIND_FP;
		stat_inc(&oncpu_stats, HC_STAT_UNWIND_FP_FRAMES);
	}
	if (s->st.stop == HC_STAT_USTACK_TRUNC)
		r->flags |= HC_SF_USTACK_TRUNC;
	if (s->st.stop != UNWIND_DONE) {
		r->flags |= HC_SF_UNWIND_PARTIAL;
		if (s->st.stop < HC_STAT_NR)
			stat_inc(&oncpu_stats, s->st.stop);
	}
	return true;
}

static __always_inline void user_stack_fp(struct bpf_perf_event_data *ctx, struct hc_stack_rec *r,
					  __u32 nk)
{
	long n;

	if (nk > HC_MAX_STACK_DEPTH)
		return;
	n = bpf_get_stack(ctx, &r->ips[nk], HC_MAX_STACK_DEPTH * sizeof(__u64),
			  BPF_F_USER_STACK);
	if (n < 0) {
		r->flags |= HC_SF_USTACK_ERR;
		stat_inc(&oncpu_stats, HC_STAT_USTACK_ERR);
		return;
	}
	r->nr_ustack = n / sizeof(__u64);
	if (r->nr_ustack == HC_MAX_STACK_DEPTH) {
		r->flags |= HC_SF_USTACK_TRUNC;
		stat_inc(&oncpu_stats, HC_STAT_USTACK_TRUNC);
	}
}

SEC("perf_event")
int oncpu_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, pid = (__u32)id, zero = 0, nk = 0, size;
	struct task_struct *task;
	struct uw_scratch *s;
	struct hc_stack_rec *r;
	__u64 wakeup;
	long n;

	if (pid == 0 && !cfg_idle)
		return 0;
	if (cfg_filter && !target_match(&proc_targets, tgid, pid))
		return 0;
	s = bpf_map_lookup_elem(&unwind_scratch, &zero);
	if (!s) {
		stat_inc(&oncpu_stats, HC_STAT_SCRATCH_ERR);
		return 0;
	}
	r = &s->rec;
	task = bpf_get_current_task_btf();
	fill_header(r, task, tgid, pid);

	if (cfg_stacks & HC_ONCPU_KSTACK) {
		n = bpf_get_stack(ctx, r->ips, HC_MAX_STACK_DEPTH * sizeof(__u64), 0);
		if (n < 0) {
			r->flags |= HC_SF_KSTACK_ERR;
			stat_inc(&oncpu_stats, HC_STAT_KSTACK_ERR);
		} else {
			nk = n / sizeof(__u64);
			if (nk > HC_MAX_STACK_DEPTH)
				nk = HC_MAX_STACK_DEPTH;
			r->nr_kstack = nk;
		}
	}
	if (task_is_kthread(task)) {
		r->flags |= HC_SF_KTHREAD;
	} else if (cfg_stacks & HC_ONCPU_USTACK) {
		if (cfg_unwind != HC_UNWIND_CFI || !user_stack_cfi(s, task, tgid, nk))
			user_stack_fp(ctx, r, nk);
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
	size = r->nr_kstack + r->nr_ustack;
	if (size > 2 * HC_MAX_STACK_DEPTH)
		size = 2 * HC_MAX_STACK_DEPTH;
	size = sizeof(*r) - sizeof(r->ips) + size * sizeof(__u64);
	r->hdr.size = size;
	if (bpf_ringbuf_output(&proc_events, r, size, wakeup)) {
		stat_inc(&oncpu_stats, HC_STAT_RB_FULL);
		return 0;
	}
	stat_inc(&oncpu_stats, HC_STAT_SAMPLES);
	return 0;
}
