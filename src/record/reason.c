// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Syscall number + task state -> off-CPU reason. <sys/syscall.h> gives this arch's numbers. */
#include "record/reason.h"

#include <stdio.h>
#include <sys/syscall.h>

#include <linux/types.h>

#include "abi/sched.h"

#include "util/compiler.h"

#define TASK_UNINTERRUPTIBLE 0x2

static const char *const names[REASON_NR] = {
	[REASON_NONE] = "none",	  [REASON_FUTEX] = "futex", [REASON_POLL] = "poll",
	[REASON_FSYNC] = "fsync", [REASON_SLEEP] = "sleep", [REASON_READ] = "read",
	[REASON_WRITE] = "write", [REASON_WAIT] = "wait",   [REASON_IO] = "io",
	[REASON_OTHER] = "other",  [REASON_SIGNAL] = "signal",
};

/* [reason][marks]: "sleep", "sleep, blocked at start", ... built once */
static char marked[REASON_NR][8][56];

const char *offcpu_reason_name(uint32_t r)
{
	static const char *const marks[4] = { "", ", blocked at start", ", still blocked",
					      ", blocked throughout" };
	uint32_t base = r & 0xff, m = (r >> 8) & 7;

	if (base >= REASON_NR)
		base = REASON_OTHER;
	if (!m)
		return names[base];
	if (!marked[base][m][0])
		snprintf(marked[base][m], sizeof(marked[base][m]), "%s%s%s", names[base],
			 marks[m & 3], m & 4 ? ", end not traced" : "");
	return marked[base][m];
}

static enum offcpu_reason by_syscall(int32_t nr)
{
	switch (nr) {
	case SYS_futex:
#ifdef SYS_futex_waitv
	case SYS_futex_waitv:
#endif
		return REASON_FUTEX;
#ifdef SYS_epoll_wait
	case SYS_epoll_wait:
#endif
	case SYS_epoll_pwait:
#ifdef SYS_epoll_pwait2
	case SYS_epoll_pwait2:
#endif
#ifdef SYS_poll
	case SYS_poll:
#endif
	case SYS_ppoll:
#ifdef SYS_select
	case SYS_select:
#endif
	case SYS_pselect6:
		return REASON_POLL;
	case SYS_fsync:
	case SYS_fdatasync:
	case SYS_sync_file_range:
	case SYS_msync:
	case SYS_sync:
	case SYS_syncfs:
		return REASON_FSYNC;
	case SYS_nanosleep:
	case SYS_clock_nanosleep:
		return REASON_SLEEP;
	/*
	 * a signal wait (nginx's master in sigsuspend, a sigwait thread); a
	 * signalfd is read with read(2): [read], its fd is not known here
	 */
	case SYS_rt_sigsuspend:
#ifdef SYS_pause
	case SYS_pause:
#endif
	case SYS_rt_sigtimedwait:
		return REASON_SIGNAL;
	case SYS_read:
	case SYS_readv:
	case SYS_pread64:
	case SYS_recvfrom:
	case SYS_recvmsg:
	case SYS_recvmmsg:
#ifdef SYS_accept
	case SYS_accept:
#endif
	case SYS_accept4:
		return REASON_READ;
	case SYS_write:
	case SYS_writev:
	case SYS_pwrite64:
	case SYS_sendto:
	case SYS_sendmsg:
	case SYS_sendmmsg:
		return REASON_WRITE;
	case SYS_wait4:
	case SYS_waitid:
#ifdef SYS_vfork
	case SYS_vfork:		/* the parent sleeps until the child execs or exits */
#endif
		return REASON_WAIT;
	default:
		return REASON_NONE;
	}
}

uint32_t offcpu_reason(int32_t syscall, uint32_t state)
{
	enum offcpu_reason r = syscall >= 0 ? by_syscall(syscall) : REASON_NONE;
	uint32_t flags = state >> HC_OFFCPU_FLAGS_SHIFT, marks = 0;

	if (flags & HC_OFFCPU_F_AT_START)
		marks |= REASON_MARK_AT_START;
	if (flags & HC_OFFCPU_F_AT_STOP)
		marks |= REASON_MARK_AT_STOP;
	if (flags & HC_OFFCPU_F_UNSEEN)
		marks |= REASON_MARK_UNSEEN;
	if (r != REASON_NONE)
		return r | marks;
	/* D state outside a known wait: disk I/O, a page fault, a kernel mutex */
	return (state & TASK_UNINTERRUPTIBLE ? REASON_IO : REASON_OTHER) | marks;
}
