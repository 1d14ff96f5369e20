// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Lock contention. User locks: a futex wait is timed from sys_enter to
 * sys_exit of the same task (task storage), keyed by process + futex
 * address. Kernel locks: lock:contention_begin/end, keyed by lock address and
 * type, with a small per-task stack for nested contention. Every wait lands
 * in locks_agg; long ones also go to the ring with the waiter's stack.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "abi/locks.h"
#include "abi/unwind.h"
#include "lib/ksym.bpf.h"
#include "lib/refuse.bpf.h"
#include "lib/stats.bpf.h"
#include "lib/target.bpf.h"
#include "lib/task.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile bool cfg_filter = false;
const volatile __u64 cfg_min_wait_ns = 10000;	/* waits >= this carry a stack */
const volatile __u32 cfg_stacks = 0x3;		/* bit 0 kernel, bit 1 user */
const volatile __u32 cfg_unwind = HC_UNWIND_FP;
const volatile __u32 cfg_refuse = 0;	/* test hook: lib/refuse.bpf.h */
const volatile bool cfg_holders = false;	/* stacks of futex wakes that end waits */

/* syscall numbers differ per architecture; only the futex ones matter here */
/*
 * ...and where sys_exit finds the number (syscall_get_nr()): a direct load
 * from tp_btf's trusted regs, so every other task's syscall costs its exit
 * program a compare, not a task-storage lookup. -1: unknown, look it up.
 */
/*
 * The first two arguments likewise, at sys_enter: direct loads, where the
 * probe reads of PT_REGS_PARM*_CORE_SYSCALL cost ~40 ns each on the
 * wake/wait path (its latency is the workload's lock hand-off: the woken
 * waiter returns to user space only after sys_exit, the unlocker's wake
 * happens only after sys_enter).
 */
#if defined(__TARGET_ARCH_x86)
#define NR_FUTEX	202
#define NR_FUTEX_WAITV	449
#define SYSCALL_NR(regs)	((long)(regs)->orig_ax)
#define SYSCALL_ARG1(regs)	((regs)->di)
#define SYSCALL_ARG2(regs)	((regs)->si)
#elif defined(__TARGET_ARCH_arm64)
#define NR_FUTEX	98
#define NR_FUTEX_WAITV	449
#define SYSCALL_NR(regs)	((long)(regs)->syscallno)
#define SYSCALL_ARG1(regs)	((regs)->orig_x0)
#define SYSCALL_ARG2(regs)	((regs)->regs[1])
#else
#define NR_FUTEX	-1
#define NR_FUTEX_WAITV	-1
#define SYSCALL_NR(regs)	(-1L)
#define SYSCALL_ARG1(regs)	PT_REGS_PARM1_CORE_SYSCALL(regs)
#define SYSCALL_ARG2(regs)	PT_REGS_PARM2_CORE_SYSCALL(regs)
#endif

/* futex commands that wait (FUTEX_CMD_MASK strips PRIVATE and CLOCK_REALTIME) */
#define FUTEX_CMD_MASK		0x7f
#define FUTEX_WAIT		0
#define FUTEX_LOCK_PI		6
#define FUTEX_WAIT_BITSET	9
#define FUTEX_WAIT_REQUEUE_PI	11
#define FUTEX_LOCK_PI2		13
#define FUTEX_WAITV_OP		0x7f	/* our marker for futex_waitv */
/* and the ones that wake: the holder's side of a user lock */
#define FUTEX_WAKE		1
#define FUTEX_REQUEUE		3
#define FUTEX_CMP_REQUEUE	4
#define FUTEX_WAKE_OP		5
#define FUTEX_UNLOCK_PI		7
#define FUTEX_WAKE_BITSET	10

#include "shared_maps.bpf.h"

struct kwait {
	__u64 lock;
	__u64 ts;
	__u32 flags;
	__u32 pad;
};

struct lock_task {
	__u64 futex_ts;		/* in a futex wait since, 0 if not */
	__u64 futex_addr;
	__u32 futex_op;
	__u32 depth;		/* kernel contentions in progress */
	struct kwait k[HC_LOCK_NEST];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct lock_task);
} locks_tasks SEC(".maps");

/*
 * Per CPU: every waiter of a hot lock updated one shared value, with atomics
 * whose cache line moved between CPUs on each woken waiter's way back to user
 * space (its lock hand-off). User space sums the CPUs' values. Allocated as
 * keys appear: a preallocated per-CPU table would be 16384 x 40 bytes per CPU.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, struct hc_lock_key);
	__type(value, struct hc_lock_val);
} locks_agg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hc_stat_val);
} locks_stats SEC(".maps");

/* waiters per futex address now (cfg_holders only) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct hc_lock_waited_key);
	__type(value, struct hc_lock_waited);
} locks_waited SEC(".maps");

/* the owner at a kernel contention's begin (cfg_holders only); LRU: a lost end leaks nothing */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct hc_lock_owner_key);
	__type(value, struct hc_lock_owner);
} locks_owners SEC(".maps");

/* a 1 KiB owner record is too big for the BPF stack: built here, then copied in */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hc_lock_owner);
} locks_owner_buf SEC(".maps");

/* 6.2+: without them (6.1) a lock owner's stack is left out, the rest kept */
extern struct task_struct *bpf_task_from_pid(s32 pid) __ksym __weak;
extern void bpf_task_release(struct task_struct *p) __ksym __weak;

/*
 * @t is always bpf_get_current_task_btf()'s trusted pointer here: its fields
 * are direct loads (a probe read each cost ~40 ns on every futex call).
 */
static __always_inline bool tracked(struct task_struct *t)
{
	return !cfg_filter || target_match(&proc_targets, t->tgid, t->pid);
}

static __always_inline void agg_add(struct hc_lock_key *key, struct task_struct *t, __u64 delta)
{
	struct hc_lock_val *v, init = {};

	v = bpf_map_lookup_elem(&locks_agg, key);
	if (!v) {
		BPF_CORE_READ_STR_INTO(&init.comm, t, group_leader, comm);
		if (bpf_map_update_elem(&locks_agg, key, &init, BPF_NOEXIST) == -7 /* E2BIG */)
			stat_inc(&locks_stats, HC_STAT_LOCK_AGG_FULL);
		v = bpf_map_lookup_elem(&locks_agg, key);
		if (!v)
			return;
	}
	/* this CPU's value: only a nested program on this CPU could interleave (not a tracepoint's) */
	v->count++;
	v->total_ns += delta;
	if (delta > v->max_ns)
		v->max_ns = delta;
}

/* A long wait of the current task with its stacks. */
static __always_inline void emit_wait(void *ctx, struct task_struct *t, __u64 addr, __u32 type,
				      __u64 delta, __u64 start, bool kstack, __u32 waker)
{
	__u32 tgid = t->tgid, nk = 0;
	__u64 wakeup = rb_wakeup();
	struct uw_scratch *s;
	struct hc_stack_rec *r;
	long n;

	s = scratch_get();
	if (!s) {
		stat_inc(&locks_stats, HC_STAT_SCRATCH_ERR);
		return;
	}
	r = &s->rec;
	rec_fill_fixed(r, tgid, t->pid, HC_KIND_LOCK, start);
	/* the kernel keeps comm NUL-padded (strscpy_pad): a copy of all of it is the string */
	__builtin_memcpy(r->comm, t->comm, HC_COMM_LEN);
	__builtin_memcpy(r->pcomm, t->group_leader->comm, HC_COMM_LEN);
	r->weight = delta;
	r->addr = addr;
	r->state = type;
	if (waker)
		r->syscall = waker;
	if (kstack && (cfg_stacks & 0x1)) {
		n = bpf_get_stack(ctx, r->ips, HC_MAX_STACK_DEPTH * sizeof(__u64), 0);
		nk = n > 0 ? n / sizeof(__u64) : 0;
		if (nk > HC_MAX_STACK_DEPTH)
			nk = HC_MAX_STACK_DEPTH;
		r->nr_kstack = nk;
	}
	if ((cfg_stacks & 0x2) && !(t->flags & PF_KTHREAD))
		ustack_capture(ctx, s, t, tgid, nk, &locks_stats);
	if (first_sight(tgid)) {
		r->flags |= HC_SF_NEW_TGID;
		wakeup = BPF_RB_FORCE_WAKEUP;
	}
	r->hdr.size = rec_size(r);
	if (bpf_ringbuf_output(&proc_events, r, rec_size(r), wakeup))
		stat_inc(&locks_stats, HC_STAT_RB_FULL);
	else
		stat_inc(&locks_stats, HC_STAT_SAMPLES);
	scratch_put();
}

static __always_inline bool futex_waits(__u32 cmd)
{
	return cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET || cmd == FUTEX_LOCK_PI ||
	       cmd == FUTEX_LOCK_PI2 || cmd == FUTEX_WAIT_REQUEUE_PI;
}

static __always_inline bool futex_wakes(__u32 cmd)
{
	return cmd == FUTEX_WAKE || cmd == FUTEX_WAKE_BITSET || cmd == FUTEX_WAKE_OP ||
	       cmd == FUTEX_UNLOCK_PI || cmd == FUTEX_REQUEUE || cmd == FUTEX_CMP_REQUEUE;
}

/* One more waiter on (@tgid, @addr). */
static __always_inline void waited_enter(__u32 tgid, __u64 addr)
{
	struct hc_lock_waited_key k = { .tgid = tgid, .addr = addr };
	struct hc_lock_waited *v, one = { .waiters = 1 };

	v = bpf_map_lookup_elem(&locks_waited, &k);
	if (v)
		__sync_fetch_and_add(&v->waiters, 1);
	else	/* a full map only costs holder stacks, never a wait */
		bpf_map_update_elem(&locks_waited, &k, &one, BPF_NOEXIST);
}

/* One fewer waiter on (@tgid, @addr); the last thread that woke it, 0 if none. */
static __always_inline __u32 waited_leave(__u32 tgid, __u64 addr)
{
	struct hc_lock_waited_key k = { .tgid = tgid, .addr = addr };
	struct hc_lock_waited *v = bpf_map_lookup_elem(&locks_waited, &k);

	if (!v)
		return 0;
	if (v->waiters)
		__sync_fetch_and_add(&v->waiters, -1);
	return v->waker;
}

/*
 * A wake on an address with waiters is the holder releasing the lock (or a
 * condition being signalled): its stack, a wake, into the ring.
 */
static __always_inline void holder_wake(void *ctx, struct task_struct *t, __u64 addr)
{
	struct hc_lock_waited_key k = { .tgid = t->tgid, .addr = addr };
	struct hc_lock_waited *v = bpf_map_lookup_elem(&locks_waited, &k);
	__u64 now;
	__u32 n;

	if (!v || !v->waiters)
		return;
	/*
	 * Plain updates, racy by design: two wakers at once may lose a count or
	 * both record; the counts only weigh the holders' stacks against each
	 * other (clang 14 has no 32-bit atomic fetch for BPF).
	 */
	v->wakes++;
	v->waker = t->pid;
	now = bpf_ktime_get_ns();
	if (now - v->last_ns < HC_LOCK_HOLDER_GAP_NS)
		return;
	n = v->wakes;
	v->wakes = 0;
	v->last_ns = now;
	emit_wait(ctx, t, addr, HC_LOCK_FUTEX | HC_LOCK_HOLDER, n, now, false, 0);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(locks_sys_enter, struct pt_regs *regs, long id)
{
	struct task_struct *t;
	struct lock_task *lt;
	__u64 addr;
	__u32 cmd;

	hc_refuse_if(HC_PART_CORE);
	if (id != NR_FUTEX && id != NR_FUTEX_WAITV)
		return 0;
	t = bpf_get_current_task_btf();
	if (!tracked(t))
		return 0;
	/* x86-64 and arm64 both pass the first two arguments in regs di/si, x0/x1 */
	addr = SYSCALL_ARG1(regs);
	if (id == NR_FUTEX) {
		cmd = SYSCALL_ARG2(regs) & FUTEX_CMD_MASK;
		if (cfg_holders && futex_wakes(cmd)) {
			hc_refuse_if(HC_PART_HOLDERS);
			holder_wake(ctx, t, addr);
			return 0;
		}
		if (!futex_waits(cmd))
			return 0;
	} else {
		/* futex_waitv(waiters, ...): key on the first waiter's address */
		cmd = FUTEX_WAITV_OP;
		if (bpf_probe_read_user(&addr, sizeof(addr), (void *)(addr + 8)))
			return 0;
	}
	lt = bpf_task_storage_get(&locks_tasks, t, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!lt) {
		stat_inc(&locks_stats, HC_STAT_TASK_STORAGE_ERR);
		return 0;
	}
	lt->futex_ts = bpf_ktime_get_ns();
	lt->futex_addr = addr;
	lt->futex_op = cmd;
	if (cfg_holders)
		waited_enter(t->tgid, addr);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(locks_sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *t;
	struct hc_lock_key key = {};
	struct lock_task *lt;
	__u64 now, delta;
	__u32 waker = 0;
	long nr = SYSCALL_NR(regs);

	if (nr != NR_FUTEX && nr != NR_FUTEX_WAITV && nr != -1)
		return 0;
	t = bpf_get_current_task_btf();
	lt = bpf_task_storage_get(&locks_tasks, t, NULL, 0);
	if (!lt || !lt->futex_ts)
		return 0;
	now = bpf_ktime_get_ns();
	delta = now - lt->futex_ts;
	lt->futex_ts = 0;
	key.tgid = t->tgid;
	key.type = HC_LOCK_FUTEX | lt->futex_op;
	key.addr = lt->futex_addr;
	if (cfg_holders) {
		waker = waited_leave(key.tgid, key.addr);
		/*
		 * woken: 0 (futex_waitv: the woken entry's index); else not by a
		 * holder: timed out, interrupted, or no sleep (-EAGAIN)
		 */
		if (ret < 0 || (ret > 0 && lt->futex_op != FUTEX_WAITV_OP))
			waker = 0;
	}
	agg_add(&key, t, delta);
	/* still in the futex syscall: the user registers are the caller's */
	if (delta >= cfg_min_wait_ns)
		emit_wait(ctx, t, key.addr, key.type, delta, now - delta, false, waker);
	return 0;
}

/* Kernel locks that record their owner: mutexes and (non-percpu) rwsems. */
static __always_inline bool owner_kind(__u32 flags)
{
	if (flags & HC_LCB_F_MUTEX)
		return true;
	flags &= HC_LCB_F_SPIN | HC_LCB_F_READ | HC_LCB_F_WRITE | HC_LCB_F_RT | HC_LCB_F_PERCPU;
	return flags == HC_LCB_F_READ || flags == HC_LCB_F_WRITE;
}

/*
 * The owner task recorded in @lock, 0 if none. Both keep a task pointer with
 * flag bits in the low 3 bits (kernel/locking/mutex.h MUTEX_FLAGS,
 * rwsem.c RWSEM_OWNER_FLAGS_MASK). A reader-owned rwsem keeps only the
 * last reader there, a hint perf does not trust either: none.
 */
static __always_inline __u64 lock_owner(void *lock, __u32 flags)
{
	long owner;

	if (flags & HC_LCB_F_MUTEX) {
		owner = BPF_CORE_READ((struct mutex *)lock, owner.counter);
	} else {
		owner = BPF_CORE_READ((struct rw_semaphore *)lock, owner.counter);
		if (owner & 1)	/* RWSEM_READER_OWNED */
			return 0;
	}
	return (__u64)owner & ~7ull;
}

/* The owner of @lock now, with its kernel stack if it is off-CPU, for wait (@pid, @d). */
static __always_inline void owner_take(void *lock, __u32 flags, __u32 pid, __u32 d)
{
	struct hc_lock_owner_key k = { .pid = pid, .depth = d };
	struct task_struct *ot, *tt;
	struct hc_lock_owner *o;
	__u32 zero = 0;
	__u64 ow;
	long n;

	o = bpf_map_lookup_elem(&locks_owner_buf, &zero);
	if (!o)
		return;
	ow = lock_owner(lock, flags);
	o->lock = (__u64)lock;
	o->pid = o->tgid = o->nr = 0;
	o->comm[0] = o->pcomm[0] = '\0';
	if (ow) {
		ot = (void *)ow;
		o->pid = BPF_CORE_READ(ot, pid);
		o->tgid = BPF_CORE_READ(ot, tgid);
		BPF_CORE_READ_STR_INTO(&o->comm, ot, comm);
		BPF_CORE_READ_STR_INTO(&o->pcomm, ot, group_leader, comm);
		/*
		 * A task on a CPU has no saved stack to walk (bpf_get_task_stack
		 * would read its last switch-out's); the owner pointer is a plain
		 * number, so the helper gets the task by pid, checked to be it.
		 */
		if ((cfg_stacks & 0x1) && o->pid && !BPF_CORE_READ(ot, on_cpu) &&
		    bpf_ksym_exists(bpf_task_from_pid)) {
			tt = bpf_task_from_pid(o->pid);
			if (tt) {
				if ((__u64)tt == ow) {
					n = bpf_get_task_stack(tt, o->ips, sizeof(o->ips), 0);
					o->nr = n > 0 ? n / sizeof(__u64) : 0;
				}
				bpf_task_release(tt);
			}
		}
	}
	bpf_map_update_elem(&locks_owners, &k, o, BPF_ANY);
}

/* The owner's side of a long kernel wait (@type with HOLDER), from owner_take's entry. */
static __always_inline void owner_emit(struct task_struct *t, __u32 d, __u64 lock, __u32 type,
				       __u64 delta, __u64 start)
{
	struct hc_lock_owner_key k = { .pid = t->pid, .depth = d };
	struct hc_lock_owner *o = bpf_map_lookup_elem(&locks_owners, &k);
	struct uw_scratch *s;
	struct hc_stack_rec *r;
	__u32 nr, size;

	if (!o || o->lock != lock || !o->pid)
		stat_inc(&locks_stats, HC_STAT_LOCK_OWNER_UNKNOWN);
	if (!o || o->lock != lock || delta < cfg_min_wait_ns)
		goto out;
	s = scratch_get();
	if (!s) {
		stat_inc(&locks_stats, HC_STAT_SCRATCH_ERR);
		goto out;
	}
	r = &s->rec;
	r->hdr.type = HC_REC_STACK;
	r->tgid = o->tgid;
	r->pid = o->pid;
	r->cpu = bpf_get_smp_processor_id();
	r->kind = HC_KIND_LOCK;
	r->flags = 0;
	r->nr_ustack = 0;
	r->syscall = -1;
	r->count = 1;
	r->addr = lock;
	r->state = type;
	r->weight = delta;
	r->time_ns = start;
	__builtin_memcpy(r->comm, o->comm, sizeof(r->comm));
	__builtin_memcpy(r->pcomm, o->pcomm, sizeof(r->pcomm));
	nr = o->nr < HC_MAX_STACK_DEPTH ? o->nr : HC_MAX_STACK_DEPTH;
	if (nr && bpf_probe_read_kernel(r->ips, (nr & 0x7f) * sizeof(__u64), o->ips))
		nr = 0;
	r->nr_kstack = nr;
	/* not rec_size(): clang keeps the unclamped sum there, the mask here it cannot drop */
	size = sizeof(*r) - sizeof(r->ips) + (nr & 0x7f) * sizeof(__u64);
	r->hdr.size = size;
	if (bpf_ringbuf_output(&proc_events, r, size, rb_wakeup()))
		stat_inc(&locks_stats, HC_STAT_RB_FULL);
	scratch_put();
out:
	if (o)
		bpf_map_delete_elem(&locks_owners, &k);
}

SEC("tp_btf/contention_begin")
int BPF_PROG(locks_contention_begin, void *lock, unsigned int flags)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct lock_task *lt;
	__u32 d;

	hc_refuse_if(HC_PART_CORE);
	if (!tracked(t))
		return 0;
	lt = bpf_task_storage_get(&locks_tasks, t, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!lt) {
		stat_inc(&locks_stats, HC_STAT_TASK_STORAGE_ERR);
		return 0;
	}
	/*
	 * A mutex begins twice, before its optimistic spin and again before it
	 * sleeps, and ends once: one wait from the first begin (as perf counts
	 * it), its owner taken again at the second.
	 */
	if (lt->depth && lt->depth <= HC_LOCK_NEST) {
		d = (lt->depth - 1) & (HC_LOCK_NEST - 1);
		if (lt->k[d].lock == (__u64)lock) {
			if (cfg_holders && owner_kind(flags))
				owner_take(lock, flags, t->pid, d);
			return 0;
		}
	}
	if (lt->depth >= HC_LOCK_NEST) {
		stat_inc(&locks_stats, HC_STAT_LOCK_NEST_LOST);
		return 0;
	}
	d = lt->depth & (HC_LOCK_NEST - 1);
	lt->k[d].lock = (__u64)lock;
	lt->k[d].ts = bpf_ktime_get_ns();
	lt->k[d].flags = flags;
	lt->depth = d + 1;
	if (cfg_holders && owner_kind(flags))
		owner_take(lock, flags, t->pid, d);
	return 0;
}

SEC("tp_btf/contention_end")
int BPF_PROG(locks_contention_end, void *lock, int ret)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct hc_lock_key key = {};
	struct lock_task *lt;
	__u64 now, delta;
	__u32 d;

	lt = bpf_task_storage_get(&locks_tasks, t, NULL, 0);
	if (!lt || !lt->depth)
		return 0;
	if (lt->depth > HC_LOCK_NEST)
		return 0;
	/* masks, not just range checks: clang may reorder those past the verifier */
	d = (lt->depth - 1) & (HC_LOCK_NEST - 1);
	/* innermost first; an unmatched end (begin before we attached) is dropped */
	if (lt->k[d].lock != (__u64)lock) {
		/* the inner contention never ended (a lost event): drop it, count it */
		if (d == 0 || lt->k[(d - 1) & (HC_LOCK_NEST - 1)].lock != (__u64)lock)
			return 0;
		stat_inc(&locks_stats, HC_STAT_LOCK_NEST_LOST);
		d = (d - 1) & (HC_LOCK_NEST - 1);
	}
	now = bpf_ktime_get_ns();
	delta = now - lt->k[d].ts;
	lt->depth = d;
	key.type = HC_LOCK_KERNEL | lt->k[d].flags;
	/* the waiter's own address space lock: cheap to recognise, worth naming */
	if ((__u64)lock == (__u64)t->mm + bpf_core_field_offset(struct mm_struct, mmap_lock))
		key.type |= HC_LOCK_MMAP;
	key.addr = (__u64)lock;
	agg_add(&key, t, delta);
	if (delta >= cfg_min_wait_ns)
		emit_wait(ctx, t, key.addr, key.type, delta, now - delta, true, 0);
	if (cfg_holders && owner_kind(lt->k[d].flags))
		owner_emit(t, d, key.addr, key.type | HC_LOCK_HOLDER, delta, now - delta);
	return 0;
}
