// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Off-CPU reasons from syscall numbers and task states. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/syscall.h>

#include "record/reason.h"
#include <linux/types.h>

#include "abi/sched.h"

static void futex_waits_are_futex(void **state)
{
	(void)state;
	assert_int_equal(offcpu_reason(SYS_futex, 1), REASON_FUTEX);
	assert_string_equal(offcpu_reason_name(REASON_FUTEX), "futex");
}

static void epoll_poll_and_select_are_poll(void **state)
{
	(void)state;
	assert_int_equal(offcpu_reason(SYS_epoll_wait, 1), REASON_POLL);
	assert_int_equal(offcpu_reason(SYS_epoll_pwait, 1), REASON_POLL);
	assert_int_equal(offcpu_reason(SYS_poll, 1), REASON_POLL);
	assert_int_equal(offcpu_reason(SYS_pselect6, 1), REASON_POLL);
}

static void fsync_family_is_fsync_even_in_d_state(void **state)
{
	(void)state;
	assert_int_equal(offcpu_reason(SYS_fsync, 2), REASON_FSYNC);
	assert_int_equal(offcpu_reason(SYS_fdatasync, 2), REASON_FSYNC);
}

static void sleeps_reads_writes_and_waits(void **state)
{
	(void)state;
	assert_int_equal(offcpu_reason(SYS_nanosleep, 1), REASON_SLEEP);
	assert_int_equal(offcpu_reason(SYS_clock_nanosleep, 1), REASON_SLEEP);
	assert_int_equal(offcpu_reason(SYS_read, 1), REASON_READ);
	assert_int_equal(offcpu_reason(SYS_accept4, 1), REASON_READ);
	assert_int_equal(offcpu_reason(SYS_sendto, 1), REASON_WRITE);
	assert_int_equal(offcpu_reason(SYS_wait4, 1), REASON_WAIT);
}

/* nginx's master in sigsuspend waits for a signal, not for "other" (#29) */
static void signal_waits_are_signal(void **state)
{
	(void)state;
	assert_int_equal(offcpu_reason(SYS_rt_sigsuspend, 1), REASON_SIGNAL);
	assert_int_equal(offcpu_reason(SYS_rt_sigtimedwait, 1), REASON_SIGNAL);
#ifdef SYS_pause
	assert_int_equal(offcpu_reason(SYS_pause, 1), REASON_SIGNAL);
#endif
	assert_string_equal(offcpu_reason_name(REASON_SIGNAL), "signal");
	assert_string_equal(offcpu_reason_name(offcpu_reason(SYS_rt_sigsuspend,
			    1 | HC_OFFCPU_F_AT_START << HC_OFFCPU_FLAGS_SHIFT)),
			    "signal, blocked at start");
	/* a sleep is still a sleep */
	assert_int_equal(offcpu_reason(SYS_clock_nanosleep, 1), REASON_SLEEP);
}

static void d_state_outside_a_known_syscall_is_io(void **state)
{
	(void)state;
	assert_int_equal(offcpu_reason(-1, 2), REASON_IO);
	assert_int_equal(offcpu_reason(SYS_getpid, 2), REASON_IO);
}

static void anything_else_is_other(void **state)
{
	(void)state;
	assert_int_equal(offcpu_reason(-1, 1), REASON_OTHER);
	assert_int_equal(offcpu_reason(SYS_getpid, 1), REASON_OTHER);
	assert_string_equal(offcpu_reason_name(REASON_NR + 3), "other");
}

/* flags in the state's top byte become marks on the frame */
static void marks_name_the_window_edges_and_unseen_ends(void **state)
{
	uint32_t start = HC_OFFCPU_F_AT_START << HC_OFFCPU_FLAGS_SHIFT;
	uint32_t stop = HC_OFFCPU_F_AT_STOP << HC_OFFCPU_FLAGS_SHIFT;
	uint32_t unseen = HC_OFFCPU_F_UNSEEN << HC_OFFCPU_FLAGS_SHIFT;

	(void)state;
	assert_string_equal(offcpu_reason_name(offcpu_reason(SYS_futex, 1 | start)),
			    "futex, blocked at start");
	assert_string_equal(offcpu_reason_name(offcpu_reason(SYS_futex, 1 | start | stop)),
			    "futex, blocked throughout");
	/* an unseen end has no syscall (read at switch-in): the state says what it can */
	assert_string_equal(offcpu_reason_name(offcpu_reason(-1, 1 | unseen)),
			    "other, end not traced");
	assert_string_equal(offcpu_reason_name(offcpu_reason(-1, 2 | start | unseen)),
			    "io, blocked at start, end not traced");
	/* waker status bits (abi/sched.h) are no mark */
	assert_string_equal(offcpu_reason_name(offcpu_reason(
		SYS_nanosleep, 1 | (3u << HC_OFFCPU_F_WK_SHIFT) << HC_OFFCPU_FLAGS_SHIFT)), "sleep");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(futex_waits_are_futex),
		cmocka_unit_test(epoll_poll_and_select_are_poll),
		cmocka_unit_test(fsync_family_is_fsync_even_in_d_state),
		cmocka_unit_test(sleeps_reads_writes_and_waits),
		cmocka_unit_test(signal_waits_are_signal),
		cmocka_unit_test(d_state_outside_a_known_syscall_is_io),
		cmocka_unit_test(anything_else_is_other),
		cmocka_unit_test(marks_name_the_window_edges_and_unseen_ends),
	};

	return cmocka_run_group_tests_name("reason", tests, NULL, NULL);
}
