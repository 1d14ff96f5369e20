/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Why a thread was off-CPU, from the syscall it blocked in and its task state. */
#ifndef HC_RECORD_REASON_H
#define HC_RECORD_REASON_H

#include <stdint.h>

enum offcpu_reason {
	REASON_NONE = 0,	/* not an off-CPU stack */
	REASON_FUTEX,		/* futex, futex_waitv: locks, condition variables, joins */
	REASON_POLL,		/* epoll_wait, poll, select and their variants */
	REASON_FSYNC,		/* fsync, fdatasync, sync_file_range, msync, sync, syncfs */
	REASON_SLEEP,		/* nanosleep, clock_nanosleep */
	REASON_READ,		/* read, recv*, accept*: waiting for a socket or pipe */
	REASON_WRITE,		/* write, send*: waiting for buffer space */
	REASON_WAIT,		/* wait4, waitid: waiting for a child */
	REASON_IO,		/* uninterruptible, not in one of the above: disk I/O, page fault */
	REASON_OTHER,
	/* after OTHER, so the values above keep their numbers */
	REASON_SIGNAL,		/* rt_sigsuspend, pause, rt_sigtimedwait: waiting for a signal */
	REASON_NR,
};

/*
 * Marks or'ed into a reason (stack_key.aux of off-CPU stacks): the block
 * began before recording (or the interval) did, or had not ended when it
 * stopped; a hang shows as "[futex, blocked throughout]".
 */
#define REASON_MARK_AT_START	0x100u
#define REASON_MARK_AT_STOP	0x200u
/* its switch-in was not traced: timed from the kernel's sched_info, no stacks */
#define REASON_MARK_UNSEEN	0x400u

/* stack_key.aux of run-queue stacks: the wait from a block's wakeup to its switch-in */
#define RUNQ_AUX_CPU_WAIT	1u

/*
 * @syscall: the syscall number it blocked in (this architecture's), -1 for
 * none; @state: task state bits at switch-out (TASK_UNINTERRUPTIBLE = 2),
 * with abi/sched.h's HC_OFFCPU_F_* flags in the top byte. Returns an enum
 * offcpu_reason with REASON_MARK_* bits.
 */
uint32_t offcpu_reason(int32_t syscall, uint32_t state);

/*
 * "futex", "poll", ..., "futex, still blocked" with a mark; the frame
 * hotcold prints next to the leaf is "[futex]".
 */
const char *offcpu_reason_name(uint32_t r);

#endif /* HC_RECORD_REASON_H */
