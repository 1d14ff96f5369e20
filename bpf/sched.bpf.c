// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The scheduler collectors: off-CPU time by stack and run-queue latency,
 * from one sched_switch program (one hook per switch whatever is enabled).
 *
 * Off-CPU time by stack. At switch-out of a blocking task we only note the
 * time, state and syscall (task storage: survives migration, dies with the
 * task). At switch-in the duration is known: a short block is summed per
 * thread without any stack walk (most switches are short), a long one gets
 * its kernel stack now (bpf_get_task_stack on the sleeping task) and its user
 * stack when the task itself runs and can be read from, user registers and
 * stack unchanged: on its way back to user space, by BPF task work (6.18+)
 * scheduled for long blocks only; on older kernels at sys_exit of the syscall
 * it blocked in, a program every syscall of every task pays for. Failing
 * both, at its next switch-out. Preemption is run-queue wait, not blocking.
 *
 * Run-queue latency comes from the kernel's own schedstat bookkeeping
 * (sched_info.run_delay, read at switch-out), so no program runs at wakeup
 * and none at switch-in for it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "abi/sched.h"
#include "abi/unwind.h"
#include "lib/refuse.bpf.h"
#include "lib/stats.bpf.h"
#include "lib/target.bpf.h"
#include "lib/task.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile bool cfg_filter = false;
const volatile bool cfg_kthreads = false;	/* kernel threads excluded by default */
const volatile __u64 cfg_min_block_ns = 50000;	/* blocks >= this carry a stack */
/* shorter blocks: a stack per this much of a thread's blocked time (and CPU wait) */
const volatile __u64 cfg_quantum_ns = 1000000;
/* ... and, all threads together, at most one such stack per this much time on a CPU */
const volatile __u64 cfg_sample_cost_ns = 1000000000 / HC_OFFCPU_SAMPLES_PER_CPU;
const volatile __u64 cfg_max_block_ns = ~0ull;	/* longer blocks are ignored */
const volatile __u32 cfg_states = HC_OFFCPU_STATE_S | HC_OFFCPU_STATE_D;
const volatile __u32 cfg_stacks = 0x3;		/* bit 0 kernel, bit 1 user */
const volatile __u32 cfg_unwind = HC_UNWIND_FP;
const volatile __u32 cfg_refuse = 0;	/* test hook: lib/refuse.bpf.h */
const volatile bool cfg_offcpu = true;
const volatile bool cfg_runq = false;
const volatile __u32 cfg_runq_per = HC_RUNQ_PER_PROCESS;
const volatile __u64 cfg_min_runq_ns = ~0ull;	/* preemption waits >= this carry a stack */
const volatile bool cfg_wakers = false;		/* stacks of who woke long blocks */
const volatile bool cfg_task_work = false;	/* defer user stacks by task work, not sys_exit */
const volatile bool cfg_prev_state = false;	/* sched_switch passes prev_state (5.18+) */

#define TASK_RUNNING		0x0
#define TASK_INTERRUPTIBLE	0x1
#define TASK_UNINTERRUPTIBLE	0x2

#include "shared_maps.bpf.h"

/* Per-task state; created at a tracked task's first block. */
struct offcpu_task {
	__u64 off_ts;		/* switch-out of the current block, 0 if none */
	__u64 off_rd;		/* sched_info.run_delay then: CPU waits since add to it */
	__u64 pending_ns;	/* blocked time of the pending record */
	__u64 pending_wait;	/* CPU wait of the pending record (wakeup -> switch-in) */
	__u64 pending_ts;
	__u64 q_blk;		/* short blocks' blocked time not yet on a stack (< quantum) */
	__u64 q_wait;		/* ... and their CPU wait */
	__u8 pending;		/* a record waits for its user stack */
	__u8 pending_flags;	/* HC_OFFCPU_F_* of it */
	__u8 off_flags;		/* HC_OFFCPU_F_* of the current block */
	__u8 deferred;		/* its due sample waits for the CPU's budget (counted once) */
	__u8 pad4[4];
	__u32 state;		/* of the current / pending block */
	__u32 pending_state;
	__s32 pending_syscall;
	__u64 rd_seen;		/* run queue: sched_info.run_delay at its last switch-out */
	__u64 off_kt;		/* --wakers: off_ts by bpf_ktime_get_ns(), for the waker's check */
	__u8 rd_valid;		/* rd_seen is a baseline (else the first switch-out sets it) */
	__u8 pad2[3];
	__u32 short_count;	/* short blocks not yet moved to offcpu_short */
	__u32 pad5;
	__u64 off_kstack_ts;	/* AT_STOP flush: kstack[] holds the block from off_ts */
	__u32 rq_count;		/* run-queue waits not yet moved to runq_hist */
	__u32 pad3;
	__u64 rq_total_ns;
	__u64 rq_max_ns;
	__u8 rq_slots[HC_RUNQ_SLOTS];	/* of those waits, per log2 slot (< RUNQ_BATCH each) */
	__u64 pending_ip;	/* user ip and sp when the pending block's walk was deferred */
	__u64 pending_sp;
	__u32 runq_stacks;	/* kstack/ustack hold the preemption point's stacks */
	__u8 seen;		/* its process was announced to the loader */
	__u8 pad[3];
	__u32 nr_kstack;	/* kernel stack of the pending block (or preemption) */
	__u32 nr_ustack;	/* > 0: user stack taken at switch-out (not in a syscall) */
	__u64 kstack[HC_MAX_STACK_DEPTH];
	__u64 ustack[HC_MAX_STACK_DEPTH];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct offcpu_task);
} offcpu_tasks SEC(".maps");

/* thread -> time in blocks too short for a stack; drained by the loader */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct hc_offcpu_thread);
	__type(value, struct hc_offcpu_short);
} offcpu_short SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct hc_offcpu_thread);
	__type(value, struct hc_runq_hist);
} runq_hist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hc_stat_val);
} offcpu_stats SEC(".maps");

/* one per-CPU slot of HC_SCHED_STAT_NR counters, as percpu_stats_read() reads them */
struct sched_stat_val {
	__u64 v[HC_SCHED_STAT_NR];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sched_stat_val);
} sched_stats SEC(".maps");

static __always_inline void sched_stat_add(__u32 i, __u64 v)
{
	__u32 zero = 0;
	struct sched_stat_val *c = bpf_map_lookup_elem(&sched_stats, &zero);

	if (c && i < HC_SCHED_STAT_NR)
		c->v[i] += v;	/* per-CPU slot, programs do not nest on it */
}

/*
 * Deferred user-stack walks. The kernel keeps struct bpf_task_work only in
 * hash, LRU-hash or array values (not task storage): one slot per thread
 * that had a long block, LRU so that exited threads' slots are recycled.
 */
struct offcpu_tw {
	struct bpf_task_work tw;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct offcpu_tw);
} offcpu_tw SEC(".maps");

extern void bpf_preempt_disable(void) __ksym __weak;
extern void bpf_preempt_enable(void) __ksym __weak;
extern int bpf_task_work_schedule_resume_impl(struct task_struct *task, struct bpf_task_work *tw,
					      void *map__map, bpf_task_work_callback_t callback,
					      void *aux__prog) __ksym __weak;

/*
 * Direct loads, not BPF_CORE_READ: tp_btf hands us trusted task pointers,
 * and each probe-read helper call costs ~35 ns on a path that runs twice per
 * context switch (vmlinux.h's preserve_access_index keeps them CO-RE).
 */
static __always_inline bool tracked(struct task_struct *t)
{
	__u32 pid = t->pid;

	if (!pid)
		return false;	/* idle */
	if (!cfg_kthreads && (t->flags & PF_KTHREAD))
		return false;
	return !cfg_filter || target_match(&proc_targets, t->tgid, pid);
}
static __always_inline bool state_wanted(__u32 state)
{
	if (state & TASK_INTERRUPTIBLE)
		return cfg_states & HC_OFFCPU_STATE_S;
	if (state & TASK_UNINTERRUPTIBLE)
		return cfg_states & HC_OFFCPU_STATE_D;
	return cfg_states & HC_OFFCPU_STATE_OTHER;
}

/*
 * Now, by the clock of @t's run queue: the scheduler updated it just before
 * the switch (and before a wakeup's tracepoint), and reading it is three
 * loads where bpf_ktime_get_ns() costs ~45 ns, twice per context switch.
 * It is sched_clock, not CLOCK_MONOTONIC: only differences of it and
 * matching waker/block times (both from here) leave this program. Kernels
 * without group scheduling have no se.cfs_rq: the monotonic clock then.
 */
static __always_inline __u64 sched_now(struct task_struct *t)
{
	struct cfs_rq *cfs;
	struct rq *rq;

	if (!bpf_core_field_exists(t->se.cfs_rq))
		return bpf_ktime_get_ns();
	/* set for every task at fork (set_task_rq), whatever its class */
	cfs = t->se.cfs_rq;
	rq = cfs ? cfs->rq : NULL;
	return rq ? rq->clock : 0;	/* 0 (never seen): the block goes untimed */
}

/* The syscall @t is in (orig_ax on x86-64), -1 if it entered the kernel otherwise. */
static __always_inline __s32 task_syscall(struct task_struct *t)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(t);

	return (__s32)BPF_CORE_READ(regs, orig_ax);
}

/*
 * Names whose first sight woke the loader lately -> seen_stamp(). The loader
 * reads the maps of one process per name and HC_NAME_READ_WINDOW
 * (session_seen()); a wakeup for the others would only cost it a context
 * switch, so their records wait for its next timer drain.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, char[HC_COMM_LEN]);
	__type(value, __u32);
} offcpu_woken_names SEC(".maps");

/*
 * A process's first switch-out: have the loader read its maps while it
 * sleeps, if it reads this name's. Its first record comes only after the
 * block, when a short-lived process may already be gone.
 */
static __always_inline void note_seen(struct task_struct *t, struct offcpu_task *ot)
{
	char comm[HC_COMM_LEN] = {};
	__u32 tgid = t->tgid, now, *last;
	struct hc_proc_rec *r;
	__u64 wake = 0;

	/* once per task, not an LRU lookup per block */
	if (ot->seen)
		return;
	ot->seen = 1;
	if (!first_sight(tgid))
		return;
	r = bpf_ringbuf_reserve(&proc_events, sizeof(*r), 0);
	if (!r) {
		stat_inc(&offcpu_stats, HC_STAT_PROC_RB_FULL);
		return;
	}
	r->hdr.type = HC_REC_SEEN;
	r->hdr.size = sizeof(*r);
	r->tgid = tgid;
	r->pad = 0;
	BPF_CORE_READ_STR_INTO(&comm, t, comm);
	__builtin_memcpy(r->comm, comm, sizeof(comm));
	now = seen_stamp();
	last = bpf_map_lookup_elem(&offcpu_woken_names, comm);
	if (!last || now - *last >= HC_NAME_READ_WINDOW) {
		bpf_map_update_elem(&offcpu_woken_names, comm, &now, BPF_ANY);
		wake = BPF_RB_FORCE_WAKEUP;
	}
	bpf_ringbuf_submit(r, wake);
}

/*
 * Emit the pending long block of the current task @t with its stacks; @walk:
 * take its user stack now (else only one taken at switch-out).
 */
static __always_inline void emit_block(void *ctx, struct task_struct *t, struct offcpu_task *ot,
				       bool walk)
{
	__u32 tgid = BPF_CORE_READ(t, tgid), pid = BPF_CORE_READ(t, pid), nk, nu;
	struct uw_scratch *s;
	struct hc_stack_rec *r;
	__u64 wakeup = rb_wakeup();

	s = scratch_get();
	if (!s) {
		stat_inc(&offcpu_stats, HC_STAT_SCRATCH_ERR);
		return;
	}
	r = &s->rec;
	rec_fill_header(r, t, tgid, pid, HC_KIND_OFFCPU);
	r->weight = ot->pending_ns;
	r->addr = ot->pending_wait;
	/* a sample of short blocks stands for many: the loader counts those apart */
	r->count = ot->pending_flags & HC_OFFCPU_F_SAMPLED ? 0 : 1;
	r->time_ns = ot->pending_ts;
	r->state = ot->pending_state | (__u32)ot->pending_flags << HC_OFFCPU_FLAGS_SHIFT;
	r->syscall = ot->pending_syscall;
	nk = ot->nr_kstack;
	if (nk > HC_MAX_STACK_DEPTH)
		nk = HC_MAX_STACK_DEPTH;
	bpf_probe_read_kernel(r->ips, nk * sizeof(__u64), ot->kstack);
	r->nr_kstack = nk;
	nu = ot->nr_ustack;
	if (nu > HC_MAX_STACK_DEPTH)
		nu = HC_MAX_STACK_DEPTH;
	if (nu) {
		/* blocked outside a syscall: the user stack was taken at switch-out */
		bpf_probe_read_kernel(&r->ips[nk], nu * sizeof(__u64), ot->ustack);
		r->nr_ustack = nu;
	} else if (walk && (cfg_stacks & 0x2)) {
		ustack_capture(ctx, s, t, tgid, nk, &offcpu_stats);
	}
	ot->pending = 0;
	ot->pending_ns = 0;
	ot->pending_wait = 0;
	ot->nr_ustack = 0;
	if (first_sight(tgid)) {
		r->flags |= HC_SF_NEW_TGID;
		wakeup = BPF_RB_FORCE_WAKEUP;
	}
	r->hdr.size = rec_size(r);
	if (bpf_ringbuf_output(&proc_events, r, rec_size(r), wakeup))
		stat_inc(&offcpu_stats, HC_STAT_RB_FULL);
	else
		stat_inc(&offcpu_stats, HC_STAT_SAMPLES);
	scratch_put();
}

static __always_inline void flush_pending(void *ctx, struct task_struct *t, struct offcpu_task *ot)
{
	emit_block(ctx, t, ot, true);
}

static __always_inline void emit_pending(void *ctx, struct task_struct *t, struct offcpu_task *ot)
{
	emit_block(ctx, t, ot, false);
}

/*
 * Short blocks are counted in the task's own storage (only its switch-in
 * writes there: no atomics, no lookup); their count is moved to offcpu_short
 * every SHORT_BATCH blocks and at a long block, and with it, at exit and by
 * the flush_tasks iterator once the programs are detached, the time left
 * below a quantum (q_blk, q_wait): the only time that never gets a stack.
 */
#define SHORT_BATCH 64

static __always_inline void add_short(struct task_struct *t, __u64 ns, __u64 wait_ns, __u64 count)
{
	/* direct loads: @t is a trusted task pointer */
	struct hc_offcpu_thread key = { .tgid = t->tgid, .pid = t->pid };
	struct hc_offcpu_short *v, init = {};

	v = bpf_map_lookup_elem(&offcpu_short, &key);
	if (!v) {
		BPF_CORE_READ_STR_INTO(&init.comm, t, comm);
		BPF_CORE_READ_STR_INTO(&init.pcomm, t, group_leader, comm);
		/* the loader may delete the entry meanwhile: then ours is the new one */
		if (bpf_map_update_elem(&offcpu_short, &key, &init, BPF_NOEXIST) == -7 /* E2BIG */)
			stat_inc(&offcpu_stats, HC_STAT_SHORT_FULL);
		v = bpf_map_lookup_elem(&offcpu_short, &key);
		if (!v)
			return;
	}
	if (ns)
		__sync_fetch_and_add(&v->ns, ns);
	if (wait_ns)
		__sync_fetch_and_add(&v->wait_ns, wait_ns);
	__sync_fetch_and_add(&v->count, count);
}

/* @rest: with the time left below a quantum (the thread exits, or we stop) */
static __always_inline void short_flush(struct task_struct *t, struct offcpu_task *ot, bool rest)
{
	if (rest && (ot->q_blk || ot->q_wait)) {
		add_short(t, ot->q_blk, ot->q_wait, ot->short_count);
		ot->q_blk = ot->q_wait = 0;
	} else if (ot->short_count) {
		add_short(t, 0, 0, ot->short_count);
	}
	ot->short_count = 0;
}

#include "sched_runq.bpf.h"
#include "sched_unseen.bpf.h"

/* @prev leaves the CPU in @state. Current task == prev. */
static __always_inline void switch_out(void *ctx, struct task_struct *prev, __u32 state, __u64 now)
{
	struct offcpu_task *ot;
	long n;

	/* storage exists only for tracked tasks: its presence spares the filter lookups */
	ot = bpf_task_storage_get(&offcpu_tasks, prev, NULL, 0);
	if (!ot) {
		if (!tracked(prev))
			return;
		ot = bpf_task_storage_get(&offcpu_tasks, prev, NULL,
					  BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!ot) {
			stat_inc(&offcpu_stats, HC_STAT_TASK_STORAGE_ERR);
			return;
		}
	}
	if (cfg_runq)
		runq_switch_out(prev, ot);
	/* a long block still waiting for its user stack: prev's registers are readable now */
	if (ot->pending)
		flush_pending(ctx, prev, ot);
	/* still timed as blocked: it got the CPU back by a switch no program saw */
	if (ot->off_ts)
		unseen_end(prev, ot);
	/* still runnable: preempted or yielding, which is run-queue time, not blocking */
	if (state == TASK_RUNNING) {
		ot->off_ts = 0;
		if (cfg_runq)
			runq_preempted(ctx, prev, ot);
		return;
	}
	if (!cfg_offcpu || !state_wanted(state)) {
		ot->off_ts = 0;
		return;
	}
	note_seen(prev, ot);
	ot->off_ts = now;
	ot->off_rd = prev->sched_info.run_delay;
	ot->off_flags = 0;
	/*
	 * The waker runs on another CPU, or before the wakee's run queue clock
	 * is updated: only a global clock tells it how long the block lasts.
	 */
	if (cfg_wakers)
		ot->off_kt = bpf_ktime_get_ns();
	ot->state = state;
	ot->nr_ustack = 0;
	/*
	 * The syscall is read at switch-in, for long blocks only. Uninterruptible
	 * sleep outside a syscall (a page fault) gets no sys_exit to take the
	 * user stack at: take it now.
	 */
	if ((state & TASK_UNINTERRUPTIBLE) && (cfg_stacks & 0x2) && task_syscall(prev) < 0) {
		n = bpf_get_stack(ctx, ot->ustack, sizeof(ot->ustack), BPF_F_USER_STACK);
		ot->nr_ustack = n > 0 ? n / sizeof(__u64) : 0;
	}
}

static __always_inline void emit_pending(void *ctx, struct task_struct *t, struct offcpu_task *ot);

/*
 * Task work: @t is about to return to user space from the block. Its user
 * registers must still be the ones saved when it blocked; if the work ran
 * late (it was queued while @t was already back in user space) they are not,
 * and a walk would name the wrong stack.
 */
static int deferred_walk(struct bpf_map *map, void *key, void *value)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct offcpu_task *ot;
	struct pt_regs *regs;

	ot = bpf_task_storage_get(&offcpu_tasks, t, NULL, 0);
	if (!ot || !ot->pending)
		return 0;	/* flushed already, at a switch-out */
	regs = (struct pt_regs *)bpf_task_pt_regs(t);
	/*
	 * Task work runs preemptible; the per-CPU scratch is shared with the
	 * sched_switch program, which would run right here if we were
	 * preempted (and the per-CPU stat slots are plain increments).
	 */
	bpf_preempt_disable();
	if (BPF_CORE_READ(regs, ip) != ot->pending_ip || BPF_CORE_READ(regs, sp) != ot->pending_sp) {
		stat_inc(&offcpu_stats, HC_STAT_USTACK_MOVED);
		ot->nr_ustack = 0;
		emit_pending(NULL, t, ot);	/* the time and kernel stack still count */
	} else {
		flush_pending(NULL, t, ot);
	}
	bpf_preempt_enable();
	return 0;
}

/* Ask for @next's user stack on its way back to user space; false if we cannot. */
static __always_inline bool defer_walk(struct task_struct *next, struct offcpu_task *ot)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(next);
	static const struct offcpu_tw empty;
	__u32 tid = next->pid;
	struct offcpu_tw *w;
	int err;

	hc_refuse_if(HC_PART_TASK_WORK);
	ot->pending_ip = BPF_CORE_READ(regs, ip);
	ot->pending_sp = BPF_CORE_READ(regs, sp);
	w = bpf_map_lookup_elem(&offcpu_tw, &tid);
	if (!w) {
		bpf_map_update_elem(&offcpu_tw, &tid, &empty, BPF_NOEXIST);
		w = bpf_map_lookup_elem(&offcpu_tw, &tid);
		if (!w)
			return false;
	}
	/*
	 * -EBUSY: work is already queued for this thread (it blocked again
	 * before getting back to user space); that callback walks for this
	 * block too, or a switch-out flushes it first.
	 */
	err = bpf_task_work_schedule_resume_impl(next, &w->tw, &offcpu_tw, deferred_walk, NULL);
	return !err || err == -16 /* EBUSY */;
}

/*
 * @next, back on the CPU, waited for it since its wakeup: the kernel's
 * sched_info says how long without a program at wakeup. last_queued is when
 * it was put on this run queue (this run queue's clock, like @now); waits on
 * other run queues after the wakeup (it was migrated while queued) were
 * already folded into run_delay, which did not move while it was blocked.
 * sched_info_arrive() folds the last piece in right after this tracepoint.
 */
static __always_inline __u64 cpu_wait(struct task_struct *next, struct offcpu_task *ot, __u64 now)
{
	__u64 wait = next->sched_info.run_delay - ot->off_rd, lq = next->sched_info.last_queued;

	if (lq && now > lq)
		wait += now - lq;
	return wait;
}

/* --wakers: a long block without its waker's stacks, counted by cause */
static __always_inline void waker_check(__u8 flags)
{
	__u32 st = (flags >> HC_OFFCPU_F_WK_SHIFT) & 3;

	if (st == HC_OFFCPU_WK_NONE)
		sched_stat_add(HC_SCHED_WK_NONE, 1);
	else if (st == HC_OFFCPU_WK_SHORT)
		sched_stat_add(HC_SCHED_WK_SHORT, 1);
	else if (st == HC_OFFCPU_WK_LOST)
		sched_stat_add(HC_SCHED_WK_LOST, 1);
}

/* Take @next's kernel stack for the pending record and ask for its user stack. */
static __always_inline void take_stacks(struct task_struct *next, struct offcpu_task *ot)
{
	long n;

	/* still inside the syscall it blocked in: its number is in the saved registers */
	ot->pending_syscall = task_syscall(next);
	ot->nr_kstack = 0;
	if (cfg_stacks & 0x1) {
		n = bpf_get_task_stack(next, ot->kstack, sizeof(ot->kstack), 0);
		if (n > 0)
			ot->nr_kstack = n / sizeof(__u64);
		else
			stat_inc(&offcpu_stats, HC_STAT_KSTACK_ERR);
	}
	/* user stack taken at switch-out, or none wanted: nothing to defer */
	if (cfg_task_work && !ot->nr_ustack && (cfg_stacks & 0x2) && !defer_walk(next, ot))
		stat_inc(&offcpu_stats, HC_STAT_DEFER_FAIL);
}

/*
 * The system-wide bound on short-block samples: each thread takes at most
 * one per quantum of its own blocked time, but thousands of threads (-a)
 * would take thousands each a second. A token bucket per CPU, refilled by
 * that run queue's clock: a sample costs cfg_sample_cost_ns of credit, the
 * credit holds at most HC_OFFCPU_SAMPLE_BURST_NS of it (a tenth of a
 * second's samples, or one). Without credit the
 * quanta stay in the thread's sums: the time is kept, its next sample
 * weighs more (counted, HC_SCHED_SAMPLE_DEFERRED).
 */
struct sample_budget {
	__u64 last;		/* run queue clock at the last refill */
	__u64 credit;		/* ns of sampling earned, not spent */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sample_budget);
} sample_budget SEC(".maps");

static __always_inline bool sample_budget_take(__u64 now)
{
	__u64 cap = cfg_sample_cost_ns > HC_OFFCPU_SAMPLE_BURST_NS ? cfg_sample_cost_ns :
									HC_OFFCPU_SAMPLE_BURST_NS;
	struct sample_budget *b;
	__u32 zero = 0;

	b = bpf_map_lookup_elem(&sample_budget, &zero);
	if (!b)
		return true;
	/* per-CPU slot, one program at a time on it (sched_switch) */
	if (now > b->last)
		b->credit += now - b->last;
	b->last = now;
	if (b->credit > cap)
		b->credit = cap;
	if (b->credit < cfg_sample_cost_ns)
		return false;
	b->credit -= cfg_sample_cost_ns;
	return true;
}

/*
 * A short block: its time joins the thread's stackless sums, and each time a
 * sum crosses a quantum this block's stacks are taken with the whole quanta
 * as weight. A block's chance of carrying a sample is its time / quantum, so
 * each stack's expected weight is its true time (docs/offcpu.md: Off-CPU sampling).
 * While a record still waits for its user stack the sums just grow: the next
 * short block takes them all.
 */
static __always_inline void short_block(struct task_struct *next, struct offcpu_task *ot,
					__u64 blocked, __u64 wait, __u64 off, __u64 now)
{
	__u64 wb, ww;

	ot->q_blk += blocked;
	ot->q_wait += wait;
	if (++ot->short_count >= SHORT_BATCH)
		short_flush(next, ot, false);
	if (ot->pending || (ot->q_blk < cfg_quantum_ns && ot->q_wait < cfg_quantum_ns))
		return;
	if (!sample_budget_take(now)) {
		/* it tries again at each block: one count per sample put off */
		if (!ot->deferred)
			sched_stat_add(HC_SCHED_SAMPLE_DEFERRED, 1);
		ot->deferred = 1;
		return;
	}
	ot->deferred = 0;
	wb = ot->q_blk - ot->q_blk % cfg_quantum_ns;
	ww = ot->q_wait - ot->q_wait % cfg_quantum_ns;
	ot->q_blk -= wb;
	ot->q_wait -= ww;
	ot->pending = 1;
	ot->pending_flags = HC_OFFCPU_F_SAMPLED;
	ot->pending_ns = wb;
	ot->pending_wait = ww;
	ot->pending_ts = off;
	ot->pending_state = ot->state;
	take_stacks(next, ot);
}

/* @next gets the CPU back. */
static __always_inline void switch_in(struct task_struct *next, __u64 now)
{
	struct offcpu_task *ot;
	__u64 delta, wait, off;

	ot = bpf_task_storage_get(&offcpu_tasks, next, NULL, 0);
	if (!ot)
		return;
	if (!ot->off_ts)
		return;
	/* taken atomically: the agent's interval cut (still_blocked) may move it */
	off = __sync_lock_test_and_set(&ot->off_ts, 0);
	if (!off)
		return;
	/* per-CPU scheduler clocks: never let a slightly earlier one wrap */
	delta = now > off ? now - off : 0;
	if (now < off) {
		sched_stat_add(HC_SCHED_CLOCK_BACK, 1);
		sched_stat_add(HC_SCHED_CLOCK_BACK_NS, off - now);
	}
	wait = cpu_wait(next, ot, now);
	if (wait > delta)
		wait = delta;
	delta -= wait;		/* blocked: switch-out to wakeup */
	if (delta > cfg_max_block_ns)
		return;
	if (delta < cfg_min_block_ns || ot->pending) {
		/* a pending block not yet flushed keeps its slot; this one is sampled */
		if (cfg_wakers && delta >= cfg_min_block_ns)
			sched_stat_add(HC_SCHED_WK_SAMPLED, 1);
		short_block(next, ot, delta, wait, off, now);
		return;
	}
	short_flush(next, ot, false);
	if (cfg_wakers)
		waker_check(ot->off_flags);
	ot->pending = 1;
	ot->pending_flags = ot->off_flags;
	ot->pending_ns = delta;
	ot->pending_wait = wait;
	ot->pending_ts = off;	/* with the pid, what the waker's record is joined by */
	ot->pending_state = ot->state;
	take_stacks(next, ot);
}

static __always_inline int on_switch(void *ctx, struct task_struct *prev, struct task_struct *next,
				     __u32 state)
{
	/* only off-CPU time needs a clock; run-queue waits come from run_delay */
	__u64 now = cfg_offcpu ? sched_now(prev) : 0;

	switch_out(ctx, prev, state, now);
	/* no filter here: only tracked tasks have storage for switch_in to find */
	if (cfg_offcpu)
		switch_in(next, now);
	return 0;
}

/* Back from the syscall it blocked in: flush a pending long block with its user stack. */
static __always_inline int on_sys_exit(void *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct offcpu_task *ot;

	ot = bpf_task_storage_get(&offcpu_tasks, t, NULL, 0);
	if (ot && ot->pending)
		flush_pending(ctx, t, ot);
	return 0;
}

#include "sched_waker.bpf.h"

/* A new tracked task: give it storage now, so that its first wait counts. */
SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(runq_wakeup_new, struct task_struct *p)
{
	struct offcpu_task *ot;

	if (!tracked(p))
		return 0;
	ot = bpf_task_storage_get(&offcpu_tasks, p, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!ot) {
		stat_inc(&offcpu_stats, HC_STAT_TASK_STORAGE_ERR);
		return 0;
	}
	/* a new task's run_delay starts at 0: every wait of it counts */
	ot->rd_valid = 1;
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(offcpu_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	/*
	 * The state it blocked in, as __schedule() saw it; prev->__state can
	 * be TASK_WAKING by now (a waker on another CPU waits for this switch
	 * to end), which would drop the block. Older kernels pass no state:
	 * the branch is dead there, its load never verified.
	 */
	__u32 state = cfg_prev_state ? (__u32)ctx[3] : prev->__state;

	hc_refuse_if(HC_PART_CORE);
	return on_switch(ctx, prev, next, state);
}

/* Move @t's batched short blocks and run-queue waits to the shared maps. */
static __always_inline void flush_task(struct task_struct *t)
{
	struct offcpu_task *ot = bpf_task_storage_get(&offcpu_tasks, t, NULL, 0);

	if (!ot)
		return;
	short_flush(t, ot, true);
	if (cfg_runq) {
		runq_settle(t, ot);
		runq_flush(t, ot);
	}
}

/* A tracked thread exits: its batched counts would die with its storage. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(offcpu_exit, struct task_struct *p)
{
	flush_task(bpf_get_current_task_btf());
	return 0;
}

#include "sched_iter.bpf.h"

SEC("tp_btf/sys_exit")
int BPF_PROG(offcpu_sys_exit, struct pt_regs *regs, long ret)
{
	return on_sys_exit(ctx);
}

/*
 * No raw_tp twins here: task storage needs the trusted task pointers only
 * tp_btf gives, and every kernel with task storage (5.11) has tp_btf (5.5).
 */
