/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Blocks across the recording's edges, for bpf/sched.bpf.c, which alone
 * includes it, after its maps, struct offcpu_task and emit helpers: task
 * iterators run by the loader that time tasks already blocked at the start
 * (mark_blocked), move batched counts out at the stop (flush_tasks), and
 * emit the blocks still going at the stop or an agent interval's end
 * (still_blocked: sleepable, their user stacks walked by CFI from the
 * blocked task's memory).
 */
#ifndef HC_BPF_SCHED_ITER_BPF_H
#define HC_BPF_SCHED_ITER_BPF_H

#include "lib/ksym.bpf.h"

/* 6.2+: without them (6.1) blocks still going at the stop keep only their pc */
extern struct task_struct *bpf_task_from_pid(s32 pid) __ksym __weak;
extern void bpf_task_release(struct task_struct *p) __ksym __weak;

/* the thread remote_walk() walks (the iterators run one task at a time) */
static __u32 remote_tid;
/*
 * remote_walk()'s passes: the first, then one read each. A native stack
 * needs a window of UW_WIN_BYTES per ~1 KiB of it (16 for the 16 KiB a
 * deep blocked stack may span); a Java frame up to three more (its code
 * heap's segment map, its code blob's head, its words; an interpreter
 * frame's Method*, ConstMethod*, words): 40 of those besides
 */
#define UW_REMOTE_PASSES (1 + 16 + 3 * 40)

/*
 * bpf_loop callback of remote_walk(): pass 0 steps the walk from its first
 * frame; each later one reads the window the walker stopped for, from the
 * walked thread's memory, and resumes it. One call site of the walker: it
 * is verified once (the walk started outside the loop and resumed inside
 * verified it twice, nested; 1.1 s of load time).
 */
static long remote_pass(__u32 i, void *ctx)
{
	__u32 slot = *(__u32 *)ctx;
	struct uw_scratch *s = bpf_map_lookup_elem(&unwind_scratch, &slot);
	struct task_struct *t;
	struct uw_state *st;
	__u64 lo, n;
	long err;

	if (!s)
		return 1;
	st = &s->st;
	if (i > 0) {
		if (st->stop != UW_NEED_READ)
			return 1;
		lo = st->want_lo;
		/* as uw_window(): to the end of lo's page, unless the range crosses it */
		n = UW_PAGE_SIZE - (lo & (UW_PAGE_SIZE - 1));
		if (n > UW_WIN_BYTES)
			n = UW_WIN_BYTES;
		if (n < st->want_hi - lo)
			n = st->want_hi - lo;
		st->stop = HC_STAT_UNWIND_READ_ERR;
		if (n < 8 || n > UW_WIN_BYTES || !bpf_ksym_exists(bpf_task_from_pid))
			return 1;
		t = bpf_task_from_pid(remote_tid);
		if (!t)
			return 1;
		err = bpf_copy_from_user_task(s->win, n, (void *)lo, t, 0);
		bpf_task_release(t);
		if (err)
			return 1;
		st->win_lo = lo;
		st->win_len = n;
	}
	unwind_user_resume(s);
	return st->stop != UW_NEED_READ;
}

/*
 * @t's user stack by CFI, from a sleepable program: the walker stops for
 * every window of @t's stack it needs, read by remote_pass() with
 * bpf_copy_from_user_task() (it may fault pages in). False if the process
 * has no tables published.
 */
static __always_inline bool remote_walk(struct uw_scratch *s, struct task_struct *t, __u32 nk)
{
	struct uw_state *st = &s->st;
	__u32 tgid = t->tgid, slot = st->slot;

	if (!bpf_ksym_exists(bpf_task_from_pid) || !bpf_map_lookup_elem(&unwind_procs, &tgid))
		return false;
	st->remote = 1;
	remote_tid = t->pid;
	unwind_user_init(s, (struct pt_regs *)bpf_task_pt_regs(t), tgid, nk);
	bpf_loop(UW_REMOTE_PASSES, remote_pass, &slot, 0);
	s->rec.nr_ustack = st->n;
	s->rec.flags |= HC_SF_UNWIND_CFI;
	if (st->fp_frames)
		s->rec.flags |= HC_SF_UNWIND_FP;
	if (st->stop != UNWIND_DONE)
		s->rec.flags |= HC_SF_UNWIND_PARTIAL;
	st->remote = 0;
	return true;
}

/*
 * A task still blocked when recording (or the agent's interval) stops: its
 * block from @off to @now, with its kernel stack and its user stack, walked
 * by CFI where the process's tables are published (else only the pc it
 * blocked at); @flags: the block's HC_OFFCPU_F_*.
 */
static __always_inline void emit_still_blocked(struct task_struct *t, struct offcpu_task *ot,
					       __u64 off, __u64 now, __u8 flags)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(t);
	struct uw_scratch *s;
	struct hc_stack_rec *r;
	__u32 nk = 0;
	long n;

	if (now <= off)
		return;
	s = scratch_get();
	if (!s) {
		stat_inc(&offcpu_stats, HC_STAT_SCRATCH_ERR);
		return;
	}
	r = &s->rec;
	rec_fill_header(r, t, t->tgid, t->pid, HC_KIND_OFFCPU);
	r->weight = now - off;
	r->addr = 0;
	r->count = 1;
	r->time_ns = off;
	r->state = ot->state | (__u32)(flags | HC_OFFCPU_F_AT_STOP) << HC_OFFCPU_FLAGS_SHIFT;
	r->syscall = task_syscall(t);
	if (cfg_stacks & 0x1) {
		n = bpf_get_task_stack(t, r->ips, HC_MAX_STACK_DEPTH * sizeof(__u64), 0);
		nk = n > 0 ? n / sizeof(__u64) : 0;
		if (nk > HC_MAX_STACK_DEPTH)
			nk = HC_MAX_STACK_DEPTH;
	}
	r->nr_kstack = nk;
	if ((cfg_stacks & 0x2) && !(t->flags & PF_KTHREAD) && nk < HC_MAX_STACK_DEPTH &&
	    (cfg_unwind != HC_UNWIND_CFI || !remote_walk(s, t, nk))) {
		/* spilled across the walk, nk lost its bound: check it again, opaquely */
		asm volatile("" : "+r"(nk));
		if (nk < HC_MAX_STACK_DEPTH) {
			r->ips[nk] = BPF_CORE_READ(regs, ip);
			r->nr_ustack = 1;
		}
	}
	if (first_sight(t->tgid))
		r->flags |= HC_SF_NEW_TGID;
	r->hdr.size = rec_size(r);
	if (bpf_ringbuf_output(&proc_events, r, rec_size(r), 0))
		stat_inc(&offcpu_stats, HC_STAT_RB_FULL);
	else
		stat_inc(&offcpu_stats, HC_STAT_SAMPLES);
	scratch_put();
}

/*
 * Run by the loader after detaching (nothing writes the storage any more):
 * every live thread's remaining batched counts.
 */
SEC("iter/task")
int flush_tasks(struct bpf_iter__task *ctx)
{
	/* one load: the verifier tracks the NULL check on this copy only */
	struct task_struct *t = ctx->task;

	if (t)
		flush_task(t);
	return 0;
}

/* set by the loader before it runs still_blocked: an agent interval's end, not the stop */
bool ctl_cut = false;
/* and when it ended: bpf_ktime_get_ns()'s clock (CLOCK_MONOTONIC); 0: now */
__u64 ctl_cut_ns = 0;

/*
 * Blocks still going, emitted up to now (the loader's run queue's clock,
 * updated as it woke just before), marked "still blocked". Sleepable:
 * reading a blocked task's user stack may fault its pages in.
 * - At the stop (after flush_tasks, programs detached) the block ends here.
 * - At an agent interval's end (ctl_cut, programs attached) it goes on from
 *   the end (ctl_cut_ns), marked "blocked at start", so each interval holds
 *   its own part; a block that began after the end is the next interval's
 *   whole. The move of off_ts is a compare-and-swap against switch_in's
 *   exchange: whichever comes first owns the time up to the end.
 */
SEC("iter.s/task")
int still_blocked(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	struct offcpu_task *ot;
	__u64 off, now, arr, k;
	__u8 flags;

	if (!t)
		return 0;
	ot = bpf_task_storage_get(&offcpu_tasks, t, NULL, 0);
	if (!ot)
		return 0;
	off = ot->off_ts;
	now = sched_now(bpf_get_current_task_btf());
	k = bpf_ktime_get_ns();
	/*
	 * The interval's end on the run queue's clock, which blocks are timed
	 * on: as long before now as it is on CLOCK_MONOTONIC (the two tick at
	 * one rate; their offset is not known, the time since the end is)
	 */
	if (ctl_cut && ctl_cut_ns && k > ctl_cut_ns && now > k - ctl_cut_ns)
		now -= k - ctl_cut_ns;
	if (!off || now <= off)
		return 0;
	flags = ot->off_flags;
	/* back on a CPU by a switch no program saw: that block is over, not going on */
	arr = unseen_arrival(t, off);
	if (!ctl_cut) {
		ot->off_ts = 0;
	} else {
		if (__sync_val_compare_and_swap(&ot->off_ts, off, arr ? 0 : now) != off)
			return 0;	/* it woke meanwhile: switch_in counts it whole */
		if (!arr)
			ot->off_flags = flags | HC_OFFCPU_F_AT_START;
	}
	if (arr)
		emit_unseen(t, ot, off, arr);
	else
		emit_still_blocked(t, ot, off, now, flags);
	return 0;
}

/*
 * Run by the loader right after attaching: tasks already blocked are timed
 * from now, as if they had just blocked (HC_OFFCPU_F_AT_START); their stacks
 * are taken as usual when they wake, or at the stop if they never do.
 */
SEC("iter/task")
int mark_blocked(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	struct offcpu_task *ot;
	__u32 state;

	if (!t || !tracked(t))
		return 0;
	/* the command hotcold runs, parked until the loader releases it: not its wait */
	if (BPF_CORE_READ(t, real_parent, tgid) == bpf_get_current_task_btf()->tgid)
		return 0;
	state = t->__state;
	if (state == TASK_RUNNING || !state_wanted(state) || t->on_cpu)
		return 0;
	ot = bpf_task_storage_get(&offcpu_tasks, t, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!ot) {
		stat_inc(&offcpu_stats, HC_STAT_TASK_STORAGE_ERR);
		return 0;
	}
	if (ot->off_ts)
		return 0;	/* it blocked since attach: timed already */
	/* have the loader read its maps (and publish unwind tables) now */
	note_seen(t, ot);
	ot->state = state;
	ot->off_rd = t->sched_info.run_delay;
	ot->off_kt = bpf_ktime_get_ns();
	ot->off_flags = HC_OFFCPU_F_AT_START;
	ot->nr_ustack = 0;
	ot->off_ts = sched_now(bpf_get_current_task_btf());
	return 0;
}

#endif /* HC_BPF_SCHED_ITER_BPF_H */
