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
#include "lib/stats.bpf.h"
#include "lib/target.bpf.h"
#include "lib/task.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile bool cfg_filter = false;
const volatile __u64 cfg_min_wait_ns = 10000;	/* waits >= this carry a stack */
const volatile __u32 cfg_stacks = 0x3;		/* bit 0 kernel, bit 1 user */
const volatile __u32 cfg_unwind = HC_UNWIND_FP;
const volatile bool cfg_holders = false;	/* stacks of futex wakes that end waits */

/* syscall numbers differ per architecture; only the futex ones matter here */
#if defined(__TARGET_ARCH_x86)
#define NR_FUTEX	202
#define NR_FUTEX_WAITV	449
#elif defined(__TARGET_ARCH_arm64)
#define NR_FUTEX	98
#define NR_FUTEX_WAITV	449
#else
#define NR_FUTEX	-1
#define NR_FUTEX_WAITV	-1
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

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
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

static __always_inline bool tracked(struct task_struct *t)
{
	return !cfg_filter || target_match(&proc_targets, BPF_CORE_READ(t, tgid),
					   BPF_CORE_READ(t, pid));
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
	__sync_fetch_and_add(&v->count, 1);
	__sync_fetch_and_add(&v->total_ns, delta);
	if (delta > v->max_ns)
		v->max_ns = delta;	/* racy max: a concurrent larger one may be lost */
}

/* A long wait of the current task with its stacks. */
static __always_inline void emit_wait(void *ctx, struct task_struct *t, __u64 addr, __u32 type,
				      __u64 delta, __u64 start, bool kstack)
{
	__u32 tgid = BPF_CORE_READ(t, tgid), nk = 0;
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
	rec_fill_header(r, t, tgid, BPF_CORE_READ(t, pid), HC_KIND_LOCK);
	r->weight = delta;
	r->time_ns = start;
	r->addr = addr;
	r->state = type;
	if (kstack && (cfg_stacks & 0x1)) {
		n = bpf_get_stack(ctx, r->ips, HC_MAX_STACK_DEPTH * sizeof(__u64), 0);
		nk = n > 0 ? n / sizeof(__u64) : 0;
		if (nk > HC_MAX_STACK_DEPTH)
			nk = HC_MAX_STACK_DEPTH;
		r->nr_kstack = nk;
	}
	if ((cfg_stacks & 0x2) && !task_is_kthread(t))
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

/* One more (@delta 1) or one fewer (-1) waiter on (@tgid, @addr). */
static __always_inline void waited_add(__u32 tgid, __u64 addr, int delta)
{
	struct hc_lock_waited_key k = { .tgid = tgid, .addr = addr };
	struct hc_lock_waited *v, one = { .waiters = 1 };

	v = bpf_map_lookup_elem(&locks_waited, &k);
	if (v) {
		if (delta > 0 || v->waiters)
			__sync_fetch_and_add(&v->waiters, delta);
	} else if (delta > 0) {
		/* a full map only costs holder stacks, never a wait */
		bpf_map_update_elem(&locks_waited, &k, &one, BPF_NOEXIST);
	}
}

/*
 * A wake on an address with waiters is the holder releasing the lock (or a
 * condition being signalled): its stack, a wake, into the ring.
 */
static __always_inline void holder_wake(void *ctx, struct task_struct *t, __u64 addr)
{
	struct hc_lock_waited_key k = { .tgid = BPF_CORE_READ(t, tgid), .addr = addr };
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
	now = bpf_ktime_get_ns();
	if (now - v->last_ns < HC_LOCK_HOLDER_GAP_NS)
		return;
	n = v->wakes;
	v->wakes = 0;
	v->last_ns = now;
	emit_wait(ctx, t, addr, HC_LOCK_FUTEX | HC_LOCK_HOLDER, n, now, false);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(locks_sys_enter, struct pt_regs *regs, long id)
{
	struct task_struct *t;
	struct lock_task *lt;
	__u64 addr;
	__u32 cmd;

	if (id != NR_FUTEX && id != NR_FUTEX_WAITV)
		return 0;
	t = bpf_get_current_task_btf();
	if (!tracked(t))
		return 0;
	/* x86-64 and arm64 both pass the first two arguments in regs di/si, x0/x1 */
	addr = PT_REGS_PARM1_CORE_SYSCALL(regs);
	if (id == NR_FUTEX) {
		cmd = PT_REGS_PARM2_CORE_SYSCALL(regs) & FUTEX_CMD_MASK;
		if (cfg_holders && futex_wakes(cmd)) {
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
		waited_add(BPF_CORE_READ(t, tgid), addr, 1);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(locks_sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct hc_lock_key key = {};
	struct lock_task *lt;
	__u64 now, delta;

	lt = bpf_task_storage_get(&locks_tasks, t, NULL, 0);
	if (!lt || !lt->futex_ts)
		return 0;
	now = bpf_ktime_get_ns();
	delta = now - lt->futex_ts;
	lt->futex_ts = 0;
	key.tgid = BPF_CORE_READ(t, tgid);
	key.type = HC_LOCK_FUTEX | lt->futex_op;
	key.addr = lt->futex_addr;
	if (cfg_holders)
		waited_add(key.tgid, key.addr, -1);
	agg_add(&key, t, delta);
	/* still in the futex syscall: the user registers are the caller's */
	if (delta >= cfg_min_wait_ns)
		emit_wait(ctx, t, key.addr, key.type, delta, now - delta, false);
	return 0;
}

SEC("tp_btf/contention_begin")
int BPF_PROG(locks_contention_begin, void *lock, unsigned int flags)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct lock_task *lt;
	__u32 d;

	if (!tracked(t))
		return 0;
	lt = bpf_task_storage_get(&locks_tasks, t, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!lt) {
		stat_inc(&locks_stats, HC_STAT_TASK_STORAGE_ERR);
		return 0;
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
	if ((__u64)lock == (__u64)BPF_CORE_READ(t, mm) + bpf_core_field_offset(struct mm_struct,
										  mmap_lock))
		key.type |= HC_LOCK_MMAP;
	key.addr = (__u64)lock;
	agg_add(&key, t, delta);
	if (delta >= cfg_min_wait_ns)
		emit_wait(ctx, t, key.addr, key.type, delta, now - delta, true);
	return 0;
}
