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
#include "lib/ustack.bpf.h"

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
	rec_fill_header(r, task, tgid, pid, HC_KIND_ONCPU);

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
		ustack_capture(ctx, s, task, tgid, nk, &oncpu_stats);
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
	/* a library mapped since the tables were published: have them refreshed now */
	if (r->flags & HC_SF_UNWIND_UNMAPPED)
		wakeup = BPF_RB_FORCE_WAKEUP;
	size = rec_size(r);
	r->hdr.size = size;
	if (bpf_ringbuf_output(&proc_events, r, size, wakeup)) {
		stat_inc(&oncpu_stats, HC_STAT_RB_FULL);
		return 0;
	}
	stat_inc(&oncpu_stats, HC_STAT_SAMPLES);
	return 0;
}
