/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Wakers for bpf/sched.bpf.c, which alone includes it, after its maps,
 * struct offcpu_task and emit helpers: at sched_waking, in the waker's
 * context, the waker's stacks for a tracked task's current long block
 * (at most one per block), and what became of them for the loader's
 * miss counters.
 */
#ifndef HC_BPF_SCHED_WAKER_BPF_H
#define HC_BPF_SCHED_WAKER_BPF_H

/* What became of the waker's stacks of the current block: the loader counts misses by it. */
static __always_inline void waker_status(struct offcpu_task *ot, __u8 st)
{
	ot->off_flags = (ot->off_flags & ~(3 << HC_OFFCPU_F_WK_SHIFT)) | st << HC_OFFCPU_F_WK_SHIFT;
}

/*
 * The current task wakes @p, blocked since off_ts: if that is already a long
 * block, emit the waker's stacks now (only the waker's context has them).
 */
static __always_inline void emit_waker(void *ctx, struct task_struct *p, struct offcpu_task *ot,
				       __u64 now)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	__u32 nk = 0;
	struct uw_scratch *s;
	struct hc_stack_rec *r;
	long n;

	if (!ot->off_ts)
		return;
	if (now < ot->off_kt || now - ot->off_kt < cfg_min_block_ns) {
		waker_status(ot, HC_OFFCPU_WK_SHORT);
		return;
	}
	s = scratch_get();
	if (!s) {
		stat_inc(&offcpu_stats, HC_STAT_SCRATCH_ERR);
		waker_status(ot, HC_OFFCPU_WK_LOST);
		return;
	}
	r = &s->rec;
	rec_fill_header(r, cur, BPF_CORE_READ(p, tgid), BPF_CORE_READ(p, pid), HC_KIND_WAKER);
	r->time_ns = ot->off_ts;
	r->state = BPF_CORE_READ(cur, tgid);
	r->syscall = BPF_CORE_READ(cur, pid);
	if (cfg_stacks & 0x1) {
		n = bpf_get_stack(ctx, r->ips, HC_MAX_STACK_DEPTH * sizeof(__u64), 0);
		nk = n > 0 ? n / sizeof(__u64) : 0;
		if (nk > HC_MAX_STACK_DEPTH)
			nk = HC_MAX_STACK_DEPTH;
		r->nr_kstack = nk;
	}
	/*
	 * Woken from an interrupt, the current task is just whoever was
	 * interrupted: the loader drops the user part when the kernel stack
	 * shows interrupt entry (no portable in_interrupt() for BPF here).
	 */
	if ((cfg_stacks & 0x2) && !task_is_kthread(cur))
		ustack_capture(ctx, s, cur, r->state, nk, &offcpu_stats);
	r->hdr.size = rec_size(r);
	if (bpf_ringbuf_output(&proc_events, r, rec_size(r), rb_wakeup())) {
		stat_inc(&offcpu_stats, HC_STAT_RB_FULL);
		waker_status(ot, HC_OFFCPU_WK_LOST);
	} else {
		waker_status(ot, HC_OFFCPU_WK_SENT);
	}
	scratch_put();
}

/*
 * A tracked task is being woken: emit its waker's stacks if it blocked long
 * enough. sched_waking, not sched_wakeup: a wakeup of a task on an idle
 * CPU is queued to that CPU and completed there in an IPI, where
 * sched_wakeup fires with no trace of who woke it; sched_waking fires in
 * the waker's context every time.
 */
SEC("tp_btf/sched_waking")
int BPF_PROG(offcpu_waking, struct task_struct *p)
{
	struct offcpu_task *ot;

	hc_refuse_if(HC_PART_WAKERS);
	/* storage exists only for tracked tasks that blocked */
	ot = bpf_task_storage_get(&offcpu_tasks, p, NULL, 0);
	if (ot)
		emit_waker(ctx, p, ot, bpf_ktime_get_ns());
	return 0;
}

#endif /* HC_BPF_SCHED_WAKER_BPF_H */
