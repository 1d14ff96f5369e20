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

#include "abi/branches.h"
#include "abi/oncpu.h"
#include "abi/unwind.h"
#include "lib/refuse.bpf.h"
#include "lib/stats.bpf.h"
#include "lib/target.bpf.h"
#include "lib/task.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile bool cfg_filter = false;
const volatile bool cfg_idle = false;		/* sample the idle task (pid 0) too */
const volatile __u32 cfg_stacks = HC_ONCPU_KSTACK | HC_ONCPU_USTACK;
const volatile __u32 cfg_unwind = HC_UNWIND_FP;	/* enum hc_unwind_mode */
const volatile __u32 cfg_refuse = 0;	/* test hook: lib/refuse.bpf.h */
/* dithering: the sampling interval, 0 = every tick is a sample (no dithering) */
const volatile __u64 cfg_period_ns = 0;
/* a tick later than this after its interval's instant does not sample it (CPU halted) */
const volatile __u64 cfg_max_late_ns = 0;
/* a thread's tick-charged CPU time never runs further ahead of the kernel's */
const volatile __u64 cfg_max_ahead_ns = 0;
/* record -b: the event carries a branch stack; copy it after each sample */
const volatile bool cfg_branches = false;

/*
 * Debug build only (make BPF_DEFS=-DHC_ONCPU_TIMING): ns spent per path and
 * per section of an emitted sample, read with bpftool from oncpu_timing
 * (bench/unwind.sh --timing). Each mark is one more clock read (~20-40 ns).
 */
#ifdef HC_ONCPU_TIMING
enum {
	TM_FILTERED,	/* idle or not a target: ns, count */
	TM_NOT_TAKEN,	/* a target's tick that is not its interval's instant */
	TM_DECIDE,	/* emitted: from entry to the decision */
	TM_HEADER,	/* emitted: scratch and record header */
	TM_KSTACK,
	TM_USTACK,
	TM_TAIL,	/* emitted: first sight, ring output, stats */
	TM_US_PRE,	/* user stack: process lookup, registers, walker init */
	TM_US_WALK,	/* user stack: the walk */
	TM_US_POST,	/* user stack: flags and stats */
	TM_US_PY,	/* user stack: python_capture */
	TM_NR,
};

struct oncpu_timing {
	__u64 ns[TM_NR];
	__u64 cnt[TM_NR];
	__u64 prev;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct oncpu_timing);
} oncpu_timing SEC(".maps");

static __always_inline void timing_mark(__u32 i)
{
	__u32 zero = 0;
	struct oncpu_timing *t = bpf_map_lookup_elem(&oncpu_timing, &zero);
	__u64 now = bpf_ktime_get_ns();

	if (!t)
		return;
	if (i < TM_NR) {
		t->ns[i] += now - t->prev;
		t->cnt[i]++;
	}
	t->prev = now;
}
#define TIMING_START timing_mark(TM_NR)
#define TIMING_MARK(i) timing_mark(i)
#define USTACK_MARK(i) timing_mark(i)
#else
#define TIMING_START
#define TIMING_MARK(i)
#endif

#include "shared_maps.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hc_stat_val);
} oncpu_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct oncpu_dither_cpu);
} oncpu_dither_cpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct oncpu_dither_task);
} oncpu_dither_task SEC(".maps");


/* a uniformly random instant in the interval [k * period, (k + 1) * period) */
static __always_inline __u64 interval_instant(__u64 k)
{
	return hc_dither_instant(k, cfg_period_ns, bpf_get_prandom_u32());
}

/*
 * Time since this CPU's previous tick, capped at cfg_max_late_ns: a cycles
 * event does not tick while the CPU halts, and that time is no task's.
 * Every tick calls this, idle and filtered ones too. *@lead_out: how far
 * the running task's charge may lead its kernel account (hc_dither_charge()).
 */
static __always_inline __u64 tick_elapsed(struct oncpu_dither_cpu *c, __u64 now, __u32 pid,
					  __u64 *sum_out, __u64 *lead_out, bool *own_out)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 dt = c->last_tick_ns ? now - c->last_tick_ns : 0;
	/* direct loads (a BTF pointer): a probe read cost ~40 ns on every tick */
	__u64 sum = task->se.sum_exec_runtime, ran = sum - c->last_sum_ns;
	__u64 nsw = task->nvcsw + task->nivcsw;
	bool same = pid && pid == c->last_pid && c->last_tick_ns;

	/* the task ran alone since this CPU's previous tick: no switch since */
	*own_out = same && nsw == c->last_nsw;
	/*
	 * The account moved since this CPU's previous tick of the same task:
	 * it was right at some instant since, so the task can have run at
	 * most the time since that tick beyond it.
	 */
	*lead_out = cfg_max_ahead_ns;
	if (same && sum != c->last_sum_ns && dt < cfg_max_ahead_ns)
		*lead_out = dt;
	if (dt > cfg_max_late_ns) {
		/*
		 * Ticks missed: only if one task ran on through the gap and its
		 * own account grew by over an interval. Else the CPU idled or
		 * switched (idle CPUs tick less): counted apart, no one's time.
		 */
		if (pid && pid == c->last_pid && sum > c->last_sum_ns && ran > cfg_max_late_ns) {
			c->late++;
			c->late_ns += ran - cfg_max_late_ns;
		} else {
			c->gaps++;
		}
		dt = cfg_max_late_ns;
	}
	c->last_tick_ns = now;
	c->last_pid = pid;
	c->last_sum_ns = sum;
	c->last_nsw = nsw;
	*sum_out = sum;
	return dt;
}

/* hc_dither_charge(), its give-backs and keeps counted */
static __always_inline __u64 dither_charge(struct oncpu_dither_cpu *c, __u64 cpu_ns, __u64 dt,
					   __u64 kern, __u64 *steal, __u64 lead, bool own)
{
	__u64 given, kept;

	cpu_ns = hc_dither_charge(cpu_ns, dt, kern, steal, lead, own, &given, &kept);
	if (given) {
		c->pulled++;
		c->pulled_ns += given;
	}
	if (kept) {
		c->kept++;
		c->kept_ns += kept;
	}
	return cpu_ns;
}

/*
 * Whether this tick samples the running @task. A fixed sampling period
 * phase-locks with work that repeats at a near multiple of it (a 10 ms loop
 * under 99 Hz): every sample lands at the same phase. Here each thread's
 * CPU time is cut into intervals of cfg_period_ns and each interval is
 * sampled once, at the tick that crosses an instant drawn uniformly inside
 * it (jittered, i.e. stratified, sampling): every moment of the thread's
 * CPU time is equally likely to be sampled whatever the work's period, the
 * rate stays one per interval and each sample stands for exactly one
 * interval of the thread's own CPU time, so a thread's samples times the
 * period is its CPU time to within one interval and the ticks' resolution.
 * The ticks come about 8 times per interval, their own period re-drawn by
 * the loader at every drain so their grid cannot lock. A tick that crosses
 * several instants (two: rare, both near an interval's edge; many: the
 * thread's account caught up after a gap without ticks) takes them all in
 * one sample weighing that many intervals (hc_dither_next()). Returns the
 * intervals sampled, 0 for none.
 */
static __always_inline __u32 dither_take(struct oncpu_dither_cpu *c, struct task_struct *task,
					 __u32 pid, __u64 dt, __u64 sum, __u64 lead, bool own)
{
	struct oncpu_dither_task *t;
	__u64 copied = 0;
	__u32 n;
	bool mine = c->c_pid == pid && c->c_task == (__u64)task;

	/*
	 * ~7 of a thread's 8 ticks per interval sample nothing: while it runs
	 * on this CPU they advance this CPU's copy of its state, with the same
	 * arithmetic, and only the tick that reaches the instant looks up its
	 * task storage (to draw the next one). The copy may lag the thread's
	 * stored state if it ran on another CPU meanwhile: it is re-based on
	 * the kernel's account at every tick, so it errs by at most
	 * cfg_max_ahead_ns, the bound the stored state itself keeps; a "take"
	 * from the copy is checked against the stored state.
	 */
	if (mine && sum >= c->c_base_ns) {
		c->c_cpu_ns = dither_charge(c, c->c_cpu_ns, dt, sum - c->c_base_ns, &c->c_steal_ns,
					    lead, own);
		if (c->c_target_ns > c->c_cpu_ns) {
			c->copied++;
			return 0;
		}
		copied = c->c_cpu_ns;
		dt = 0;		/* in the copy already */
	}
	t = bpf_task_storage_get(&oncpu_dither_task, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t) {
		c->no_storage++;
		c->c_pid = 0;
		return 0;
	}
	if (!t->target_ns) {
		/* first tick of this thread: its first interval's instant; this tick's time counts */
		t->target_ns = interval_instant(0) + 1;
		t->base_ns = sum > dt ? sum - dt : 0;
	}
	/*
	 * Ticks charge the time since the previous one to the thread they find
	 * running, and a task woken by a timer that expires with a tick (timer
	 * slack coalesces them) runs and sleeps between two ticks: its time
	 * goes to the thread running at the next one. Kept within the kernel's
	 * own account (sum_exec_runtime, updated at switches and scheduler
	 * ticks, so behind by at most a jiffy) plus the steal its ticks saw
	 * (hc_dither_charge()), a thread's samples are its CPU time as perf's
	 * cpu-clock counts it; between the kernel's updates the ticks place
	 * the instants.
	 */
	if (copied) {
		if (copied > t->cpu_ns)
			t->cpu_ns = copied;	/* the ticks charged here since the last look */
		if (c->c_steal_ns > t->steal_ns)
			t->steal_ns = c->c_steal_ns;	/* and the steal they kept */
	}
	t->cpu_ns = dither_charge(c, t->cpu_ns, dt, sum > t->base_ns ? sum - t->base_ns : 0,
				  &t->steal_ns, lead, own);
	/* this CPU's copy is now of this thread, from here */
	c->c_pid = pid;
	c->c_task = (__u64)task;
	c->c_cpu_ns = t->cpu_ns;
	c->c_base_ns = t->base_ns;
	c->c_steal_ns = t->steal_ns;
	c->c_target_ns = t->target_ns;
	if (t->target_ns > t->cpu_ns)
		return 0;
	/* every instant up to the charge: a gap's are this tick's (hc_dither_next()) */
	n = hc_dither_next(t->target_ns, t->cpu_ns, cfg_period_ns, bpf_get_prandom_u32(),
			   bpf_get_prandom_u32(), &t->target_ns);
	c->c_target_ns = t->target_ns;
	c->intervals += n;
	if (n > 1) {
		c->multi++;
		c->multi_extra += n - 1;
	}
	return n;
}

/*
 * The PMU's branch stack at this overflow (LBR/BRBE), newest first, into
 * its own ring record. Reserved at full size: the helper writes straight
 * into the ring and the record needs no scratch buffer. Without a branch
 * stack on the event (a PMU without LBR) the helper fails with -ENOENT;
 * an empty stack is possible too: both are counted, never sent.
 */
static __always_inline void branches_emit(struct bpf_perf_event_data *ctx, __u32 tgid, __u32 pid)
{
	struct hc_branch_rec *b;
	long n;

	b = bpf_ringbuf_reserve(&proc_events, sizeof(*b), 0);
	if (!b) {
		stat_inc(&oncpu_stats, HC_STAT_BRANCH_RB_FULL);
		return;
	}
	n = bpf_read_branch_records(ctx, b->e, sizeof(b->e), 0);
	if (n < (long)sizeof(b->e[0])) {
		bpf_ringbuf_discard(b, BPF_RB_NO_WAKEUP);
		stat_inc(&oncpu_stats, HC_STAT_BRANCH_NONE);
		return;
	}
	b->hdr.type = HC_REC_BRANCH;
	b->hdr.size = sizeof(*b);
	b->tgid = tgid;
	b->pid = pid;
	b->nr = n / sizeof(b->e[0]);
	b->cpu = bpf_get_smp_processor_id();
	b->time_ns = bpf_ktime_get_ns();
	bpf_ringbuf_submit(b, rb_wakeup());
}

/*
 * The event interrupted user mode: the kernel stack is empty (perf collects
 * kernel frames only from kernel-mode registers), so bpf_get_stack() is not
 * asked for it (~0.3 us of a sample).
 */
static __always_inline bool sample_in_user_mode(struct bpf_perf_event_data *ctx)
{
#if defined(__TARGET_ARCH_x86)
#define HC_X86_PTREGS_CS 136
	/*
	 * The context allows only 8-byte loads of registers; cs is its slot's
	 * low 16 bits. No CO-RE relocation: cs is an unsigned long up to 6.8
	 * and a u16 in a union since 6.9 (FRED; so in vmlinux.h), and libbpf
	 * will not resize an 8-byte load of a 2-byte field (6.1: "unexpected
	 * mem size: got 8, exp 2").
	 * The slot's offset is ABI (asm/ptrace-abi.h: CS 136; regs is the
	 * context's first member).
	 */
	return *(volatile __u64 *)((void *)ctx + HC_X86_PTREGS_CS) & 3;
#else
	return false;
#endif
}

/* The header of the current task's record: names by direct loads, not probe reads. */
static __always_inline void oncpu_fill_header(struct hc_stack_rec *r, struct task_struct *task,
					      __u32 tgid, __u32 pid, __u64 now)
{
	rec_fill_fixed(r, tgid, pid, HC_KIND_ONCPU, now);
	/* the kernel keeps comm NUL-padded (strscpy_pad): a copy of all of it is the string */
	__builtin_memcpy(r->comm, task->comm, HC_COMM_LEN);
	__builtin_memcpy(r->pcomm, task->group_leader->comm, HC_COMM_LEN);
}

SEC("perf_event")
int oncpu_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, pid = (__u32)id, nk = 0, size;
	struct task_struct *task;
	struct uw_scratch *s;
	struct hc_stack_rec *r;
	__u64 wakeup;
	struct oncpu_dither_cpu *c = NULL;
	__u32 zero = 0;
	__u64 dt = 0, sum = 0, lead = 0, now = bpf_ktime_get_ns();	/* sum: the task's sum_exec_runtime */
	__u32 weight = 1;
	bool own = false;
	long n;
	TIMING_START;

	hc_refuse_if(HC_PART_CORE);
	if (cfg_period_ns) {
		c = bpf_map_lookup_elem(&oncpu_dither_cpu, &zero);
		if (!c)
			return 0;
		dt = tick_elapsed(c, now, pid, &sum, &lead, &own);
	}
	if ((pid == 0 && !cfg_idle) || (cfg_filter && !target_match(&proc_targets, tgid, pid))) {
		if (c)
			c->filtered++;
		TIMING_MARK(TM_FILTERED);
		return 0;
	}
	task = bpf_get_current_task_btf();
	if (c) {
		weight = dither_take(c, task, pid, dt, sum, lead, own);
		if (!weight) {
			TIMING_MARK(TM_NOT_TAKEN);
			return 0;
		}
	}
	TIMING_MARK(TM_DECIDE);
	s = scratch_get();
	if (!s) {
		stat_inc(&oncpu_stats, HC_STAT_SCRATCH_ERR);
		return 0;
	}
	r = &s->rec;
	oncpu_fill_header(r, task, tgid, pid, now);
	r->weight = weight;	/* the intervals it stands for (dithered; else 1) */
	r->count = weight;
	TIMING_MARK(TM_HEADER);

	if ((cfg_stacks & HC_ONCPU_KSTACK) && !sample_in_user_mode(ctx)) {
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
	TIMING_MARK(TM_KSTACK);
	if (task->flags & PF_KTHREAD) {
		r->flags |= HC_SF_KTHREAD;
	} else if (cfg_stacks & HC_ONCPU_USTACK) {
		ustack_capture(ctx, s, task, tgid, nk, &oncpu_stats);
	}
	TIMING_MARK(TM_USTACK);

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
	if (cfg_branches) {
		hc_refuse_if(HC_PART_BRANCHES);
		branches_emit(ctx, tgid, pid);
	}
	TIMING_MARK(TM_TAIL);
	return 0;
}
