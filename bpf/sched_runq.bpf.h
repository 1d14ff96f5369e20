/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Run-queue latency for bpf/sched.bpf.c, which alone includes it, after its
 * maps, struct offcpu_task and emit helpers: waits read from the kernel's
 * sched_info.run_delay at switch-out, summed per task and flushed in
 * batches into the per-thread histograms, and stacks for preemption waits
 * of at least cfg_min_runq_ns.
 */
#ifndef HC_BPF_SCHED_RUNQ_BPF_H
#define HC_BPF_SCHED_RUNQ_BPF_H

static struct hc_runq_hist runq_zero;

static __always_inline __u32 log2_slot(__u64 v)
{
	__u32 r = 0;

	/* bounded shifts instead of a loop: the verifier sees one path */
	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) r += 1;
	return r;
}

/*
 * Like short blocks, run-queue waits are counted in the task's storage and
 * moved to the shared histogram (a hash lookup and atomics) every
 * RUNQ_BATCH waits, at exit, and by the iterator when recording stops.
 */
#define RUNQ_BATCH 64

static __always_inline void runq_flush(struct task_struct *t, struct offcpu_task *ot)
{
	struct hc_offcpu_thread key = {};
	struct hc_runq_hist *h;

	if (!ot->rq_count)
		return;
	if (cfg_runq_per != HC_RUNQ_PER_ALL)
		key.tgid = t->tgid;
	if (cfg_runq_per == HC_RUNQ_PER_THREAD)
		key.pid = t->pid;
	h = bpf_map_lookup_elem(&runq_hist, &key);
	if (!h) {
		/* from a zeroed global: the value is too big for the 512-byte stack */
		if (bpf_map_update_elem(&runq_hist, &key, &runq_zero, BPF_NOEXIST) == -7 /* E2BIG */)
			stat_inc(&offcpu_stats, HC_STAT_RUNQ_FULL);
		h = bpf_map_lookup_elem(&runq_hist, &key);
		if (!h)
			goto out;
		if (cfg_runq_per == HC_RUNQ_PER_THREAD)
			BPF_CORE_READ_STR_INTO(&h->comm, t, comm);
		else if (cfg_runq_per == HC_RUNQ_PER_PROCESS)
			BPF_CORE_READ_STR_INTO(&h->comm, t, group_leader, comm);
	}
	for (int i = 0; i < HC_RUNQ_SLOTS; i++) {
		if (ot->rq_slots[i])
			__sync_fetch_and_add(&h->slots[i], ot->rq_slots[i]);
	}
	__sync_fetch_and_add(&h->count, ot->rq_count);
	__sync_fetch_and_add(&h->total_ns, ot->rq_total_ns);
	if (ot->rq_max_ns > h->max_ns)
		h->max_ns = ot->rq_max_ns;	/* racy max: at worst a concurrent larger one is lost */
out:
	__builtin_memset(ot->rq_slots, 0, sizeof(ot->rq_slots));
	ot->rq_count = 0;
	ot->rq_total_ns = 0;
	ot->rq_max_ns = 0;
}

/* Count one run-queue wait of @t (current or exiting). */
static __always_inline void runq_account(struct task_struct *t, struct offcpu_task *ot,
					 __u64 delta)
{
	__u32 slot = log2_slot(delta);

	if (slot >= HC_RUNQ_SLOTS)
		slot = HC_RUNQ_SLOTS - 1;
	ot->rq_slots[slot]++;
	ot->rq_total_ns += delta;
	if (delta > ot->rq_max_ns)
		ot->rq_max_ns = delta;
	if (++ot->rq_count >= RUNQ_BATCH)
		runq_flush(t, ot);
}

/* @prev (current) was preempted: it waits on the run queue from now. */
static __always_inline void runq_preempted(void *ctx, struct task_struct *prev,
					   struct offcpu_task *ot)
{
	long n;

	ot->runq_stacks = 0;
	if (cfg_min_runq_ns == ~0ull)
		return;
	/* prev is current: its stacks are readable now, and nowhere later */
	ot->nr_kstack = 0;
	ot->nr_ustack = 0;
	if (cfg_stacks & 0x1) {
		n = bpf_get_stack(ctx, ot->kstack, sizeof(ot->kstack), 0);
		ot->nr_kstack = n > 0 ? n / sizeof(__u64) : 0;
	}
	if ((cfg_stacks & 0x2) && !task_is_kthread(prev)) {
		n = bpf_get_stack(ctx, ot->ustack, sizeof(ot->ustack), BPF_F_USER_STACK);
		ot->nr_ustack = n > 0 ? n / sizeof(__u64) : 0;
	}
	ot->runq_stacks = 1;
}

/* A preemption wait long enough for a stack: emit it from the stored stacks. */
static __always_inline void runq_emit(struct task_struct *t, struct offcpu_task *ot, __u64 delta)
{
	__u32 nk, nu;
	struct uw_scratch *s;
	struct hc_stack_rec *r;

	s = scratch_get();
	if (!s) {
		stat_inc(&offcpu_stats, HC_STAT_SCRATCH_ERR);
		return;
	}
	r = &s->rec;
	rec_fill_header(r, t, BPF_CORE_READ(t, tgid), BPF_CORE_READ(t, pid), HC_KIND_RUNQ);
	r->weight = delta;
	nk = ot->nr_kstack;
	if (nk > HC_MAX_STACK_DEPTH)
		nk = HC_MAX_STACK_DEPTH;
	nu = ot->nr_ustack;
	if (nu > HC_MAX_STACK_DEPTH)
		nu = HC_MAX_STACK_DEPTH;
	bpf_probe_read_kernel(r->ips, nk * sizeof(__u64), ot->kstack);
	bpf_probe_read_kernel(&r->ips[nk], nu * sizeof(__u64), ot->ustack);
	r->nr_kstack = nk;
	r->nr_ustack = nu;
	r->hdr.size = rec_size(r);
	if (bpf_ringbuf_output(&proc_events, r, rec_size(r), rb_wakeup()))
		stat_inc(&offcpu_stats, HC_STAT_RB_FULL);
	scratch_put();
}

/*
 * The run-queue wait that preceded @prev's run now ending. The kernel folds
 * every piece of a wait (a queued task that migrates is dequeued and queued
 * again) into sched_info.run_delay when the task gets the CPU
 * (sched_info_arrive, right after the switch-in tracepoint), so at switch-out
 * run_delay has grown by exactly that wait: the sum of our waits is the
 * schedstat figure, and no clock is read. A task's first switch-out seen
 * only sets the baseline, unless it was created while we watched.
 */
static __always_inline void runq_switch_out(struct task_struct *prev, struct offcpu_task *ot)
{
	__u64 rd = prev->sched_info.run_delay, delta = rd - ot->rd_seen;

	if (!ot->rd_valid) {
		ot->rd_valid = 1;
		ot->rd_seen = rd;
		return;
	}
	ot->rd_seen = rd;
	runq_account(prev, ot, delta);
	if (ot->runq_stacks && delta >= cfg_min_runq_ns)
		runq_emit(prev, ot, delta);
	ot->runq_stacks = 0;
}

/*
 * At exit (and at the stop), the waits run_delay gained since @t's last
 * switch-out: the one before the run now ending. A switch-out would count
 * it, but an exiting task's last switch-out counts into storage that is
 * never flushed again: each thread lost its last wait (t_runqlat: -6 % and
 * -8 % of 2.55 s at load 7, where a wait lasts tens of ms).
 */
static __always_inline void runq_settle(struct task_struct *t, struct offcpu_task *ot)
{
	__u64 rd = BPF_CORE_READ(t, sched_info.run_delay);

	if (!ot->rd_valid || rd == ot->rd_seen)
		return;
	runq_account(t, ot, rd - ot->rd_seen);
	ot->rd_seen = rd;
}

#endif /* HC_BPF_SCHED_RUNQ_BPF_H */
