/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Lock contention (bpf/locks.bpf.c): user futex waits, timed from syscall
 * entry to exit, and kernel lock contention from lock:contention_begin/end.
 * Every wait is counted in locks_agg (exact count/total/max per lock); waits
 * of at least cfg_min_wait_ns are also HC_KIND_LOCK records with the waiter's
 * stack (user stack for futexes, kernel stack for kernel locks), addr = the
 * lock, state = HC_LOCK_* type bits.
 */
#ifndef HC_ABI_LOCKS_H
#define HC_ABI_LOCKS_H

#include "abi/common.h"

/* type bits (hc_stack_rec::state, hc_lock_key::type) */
#define HC_LOCK_FUTEX		0x10000	/* user futex wait; low bits: futex op */
#define HC_LOCK_KERNEL		0x20000	/* kernel lock; low bits: LCB_F_* flags */
#define HC_LOCK_MMAP		0x40000	/* with KERNEL: the waiter's own mm->mmap_lock */
/*
 * With FUTEX: not a wait but the holder's side, a futex wake (the unlock)
 * on an address that had waiters, with the waker's stack; weight = the
 * wakes on that address since its previous holder record (one record per
 * address per HC_LOCK_HOLDER_GAP_NS at most: a stack per unlock would cost
 * a contended lock its throughput); only with cfg_holders (`hotcold
 * locks`), never in locks_agg.
 */
#define HC_LOCK_HOLDER		0x80000
#define HC_LOCK_HOLDER_GAP_NS	1000000ull

/*
 * With KERNEL: the owner's side of a kernel mutex or rwsem wait of at least
 * cfg_min_wait_ns: tgid, pid, comm of the task recorded as the lock's owner
 * (mutex.owner, rw_semaphore.owner with their flag bits masked) when the
 * wait began, its kernel stack if it was not running then (a running
 * task's saved stack is stale), weight = the wait's nanoseconds; pid 0:
 * no owner recorded (released in between, or readers own an rwsem). Only
 * with cfg_holders, never in locks_agg.
 */

/* locks_owners: the owner seen at a kernel contention's begin, per waiter and depth */
struct hc_lock_owner_key {
	__u32 pid;		/* the waiter */
	__u32 depth;
};

struct hc_lock_owner {
	__u64 lock;		/* the contended lock (a stale entry of another wait differs) */
	__u32 pid;		/* owner; 0: none recorded */
	__u32 tgid;
	__u32 nr;		/* kernel frames in ips */
	__u32 pad;
	char comm[HC_COMM_LEN];
	char pcomm[HC_COMM_LEN];
	__u64 ips[HC_MAX_STACK_DEPTH];
};

/*
 * Which holder ended a wait: with cfg_holders, a futex wait's record (not
 * the holder's) carries in `syscall` the tid of the last thread that woke
 * the address before the wait returned woken (0: not woken, or by no
 * tracked thread). The report weighs each holder thread's stacks by the
 * wait time its wakes ended.
 */
struct hc_lock_waited {
	__u32 waiters;		/* in a wait on the address now */
	__u32 wakes;		/* wakes since the last holder record */
	__u64 last_ns;		/* of the last holder record */
	__u32 waker;		/* tid of the last wake on the address */
	__u32 pad;
};

/* include/trace/events/lock.h */
#define HC_LCB_F_SPIN		0x01
#define HC_LCB_F_READ		0x02
#define HC_LCB_F_WRITE		0x04
#define HC_LCB_F_RT		0x08
#define HC_LCB_F_PERCPU		0x10
#define HC_LCB_F_MUTEX		0x20

/* nested kernel contention tracked per task (a spinlock taken while waiting on a mutex) */
#define HC_LOCK_NEST		4

/* locks_waited: futex addresses with waiters now, so a wake can tell it ends a wait */
struct hc_lock_waited_key {
	__u32 tgid;
	__u32 pad;
	__u64 addr;
};

struct hc_lock_key {
	__u32 tgid;		/* 0 for kernel locks: they are shared by everyone */
	__u32 type;		/* HC_LOCK_* bits */
	__u64 addr;
};

struct hc_lock_val {
	__u64 count;
	__u64 total_ns;
	__u64 max_ns;
	char comm[HC_COMM_LEN];	/* first waiter's process */
};

#endif /* HC_ABI_LOCKS_H */
