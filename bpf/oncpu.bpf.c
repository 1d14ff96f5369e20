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

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile bool cfg_filter = false;
const volatile bool cfg_idle = false;		/* sample the idle task (pid 0) too */
const volatile __u32 cfg_stacks = HC_ONCPU_KSTACK | HC_ONCPU_USTACK;
const volatile __u32 cfg_unwind = HC_UNWIND_FP;	/* enum hc_unwind_mode */

#include "shared_maps.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hc_stat_val);
} oncpu_stats SEC(".maps");

SEC("perf_event")
int oncpu_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, pid = (__u32)id, nk = 0, size;
	struct task_struct *task;
	struct uw_scratch *s;
	struct hc_stack_rec *r;
	__u64 wakeup;
	long n;

	if (pid == 0 && !cfg_idle)
		return 0;
	if (cfg_filter && !target_match(&proc_targets, tgid, pid))
		return 0;
	s = scratch_get();
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
	wakeup = rb_wakeup();
	if (first_sight(tgid)) {
		r->flags |= HC_SF_NEW_TGID;
		wakeup = BPF_RB_FORCE_WAKEUP;
	}
	/* a library mapped since the tables were published: have them refreshed now */
	if (r->flags & HC_SF_UNWIND_UNMAPPED)
		wakeup = BPF_RB_FORCE_WAKEUP;
	size = rec_size(r);
	r->hdr.size = size;
	if (bpf_ringbuf_output(&proc_events, r, size, wakeup))
		stat_inc(&oncpu_stats, HC_STAT_RB_FULL);
	else
		stat_inc(&oncpu_stats, HC_STAT_SAMPLES);
	scratch_put();
	return 0;
}
