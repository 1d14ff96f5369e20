/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Untraced switch-ins for bpf/sched.bpf.c, which alone includes it, after
 * its maps, struct offcpu_task and emit helpers: a block whose end ran no
 * program is ended at the kernel's sched_info.last_arrival, its CPU wait
 * from run_delay's growth, kept without stacks and counted.
 */
#ifndef HC_BPF_SCHED_UNSEEN_BPF_H
#define HC_BPF_SCHED_UNSEEN_BPF_H

/*
 * A block whose switch-in ran no program: some kernels trace no switch away
 * from certain tasks (a sandbox's own agent threads here: every task they
 * hand the CPU to arrives untraced), and a program busy on that CPU skips
 * one. The kernel's sched_info still saw it arrive: last_arrival, by that
 * run queue's clock like off_ts, is later than the block's start only then
 * (a task blocked or waiting for a CPU last arrived before it blocked).
 * 0: no unseen end.
 */
static __always_inline __u64 unseen_arrival(struct task_struct *t, __u64 off)
{
	__u64 arr = t->sched_info.last_arrival;

	return arr > off ? arr : 0;
}

/* the header of a record without stacks: a constant size for the ring */
#define UNSEEN_REC_SIZE (sizeof(struct hc_stack_rec) - sizeof(((struct hc_stack_rec *)0)->ips))

/*
 * The block from @off ended unseen at @arr: blocked to the wakeup, then the
 * CPU wait run_delay grew by (it ran from @arr until now without another
 * switch, so no later wait is in it). Its stacks were never taken (they
 * are at switch-in): a record without any, marked, so the time is all
 * there and the loss of its stack is shown where it lies.
 */
static __always_inline void emit_unseen(struct task_struct *t, struct offcpu_task *ot, __u64 off,
					__u64 arr)
{
	__u64 wait = t->sched_info.run_delay - ot->off_rd;
	struct hc_stack_rec *r;

	if (wait > arr - off)
		wait = arr - off;
	if (arr - off - wait > cfg_max_block_ns)
		return;
	sched_stat_add(HC_SCHED_UNSEEN, 1);
	r = bpf_ringbuf_reserve(&proc_events, UNSEEN_REC_SIZE, 0);
	if (!r) {
		stat_inc(&offcpu_stats, HC_STAT_RB_FULL);
		return;
	}
	rec_fill_header(r, t, t->tgid, t->pid, HC_KIND_OFFCPU);
	r->hdr.size = UNSEEN_REC_SIZE;
	r->weight = arr - off - wait;
	r->addr = wait;
	r->time_ns = off;
	r->state = ot->state | (__u32)(ot->off_flags | HC_OFFCPU_F_UNSEEN) << HC_OFFCPU_FLAGS_SHIFT;
	if (first_sight(t->tgid))
		r->flags |= HC_SF_NEW_TGID;
	bpf_ringbuf_submit(r, 0);
	stat_inc(&offcpu_stats, HC_STAT_SAMPLES);
}

/* @t switches out while its block is still timed: its switch-in was not seen */
static __always_inline void unseen_end(struct task_struct *t, struct offcpu_task *ot)
{
	/* taken atomically: the agent's interval cut (still_blocked) may move it */
	__u64 off = __sync_lock_test_and_set(&ot->off_ts, 0), arr;

	if (!off)
		return;
	arr = unseen_arrival(t, off);
	if (arr)
		emit_unseen(t, ot, off, arr);
	else
		/* back without a queued wakeup (preempted before it could block): no time */
		sched_stat_add(HC_SCHED_UNSEEN_UNTIMED, 1);
}

#endif /* HC_BPF_SCHED_UNSEEN_BPF_H */
