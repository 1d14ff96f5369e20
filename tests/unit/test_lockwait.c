// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "record/lockwait.h"

static enum lockwait_class classify(const char *text, char *site, size_t len)
{
	char buf[1024];
	const char *frames[64];
	size_t n;
	enum lockwait_class c;
	int s;

	strcpy(buf, text);
	n = lockwait_split(buf, frames, 64);
	c = lockwait_classify(frames, n, &s);
	snprintf(site, len, "%s", s < 0 ? "-" : frames[s]);
	return c;
}

static void a_mutex_wait_is_contention_at_the_caller_of_pthread_mutex_lock(void **state)
{
	char site[64];

	(void)state;
	assert_int_equal(classify("app;main;worker;take_queue_lock;pthread_mutex_lock;"
				  "__lll_lock_wait;futex_wait;[lock g_queue_mutex]", site, 64),
			 LW_MUTEX);
	assert_string_equal(site, "take_queue_lock");
	assert_true(lockwait_is_contention(LW_MUTEX));
}

static void a_queued_lock_on_a_semaphore_is_sited_at_its_acquire_function(void **state)
{
	char site[64];

	(void)state;
	assert_int_equal(classify("postgres;PostmasterMain;XLogFlush;LWLockAcquireOrWait;"
				  "PGSemaphoreLock;sem_wait;__new_sem_wait_slow64;do_futex_wait;"
				  "__futex_abstimed_wait_common;[lock 0x7f00]", site, 64),
			 LW_SEMAPHORE);
	/* PGSemaphoreLock is where every LWLock sleeps: the site is its caller */
	assert_string_equal(site, "LWLockAcquireOrWait");
	assert_true(lockwait_is_contention(LW_SEMAPHORE));
}

static void condvar_join_and_barrier_are_waiting_not_contention(void **state)
{
	char site[64];

	(void)state;
	/* the condvar's wait re-takes its mutex: still a condvar wait */
	assert_int_equal(classify("app;main;consumer;___pthread_cond_wait;__pthread_mutex_cond_lock;"
				  "__lll_lock_wait;[lock 0x1]", site, 64), LW_CONDVAR);
	assert_string_equal(site, "consumer");
	assert_int_equal(classify("app;main;__pthread_clockjoin_ex;[lock 0x2]", site, 64), LW_JOIN);
	assert_string_equal(site, "main");
	assert_int_equal(classify("app;start_thread;w;pthread_barrier_wait;[lock 0x3]", site, 64),
			 LW_BARRIER);
	assert_false(lockwait_is_contention(LW_CONDVAR));
	assert_false(lockwait_is_contention(LW_JOIN));
	assert_false(lockwait_is_contention(LW_BARRIER));
	assert_string_equal(lockwait_class_name(LW_JOIN), "join");
}

static void an_unknown_futex_wait_is_contention_and_unnamed_libc_frames_are_skipped(void **state)
{
	char site[64];

	(void)state;
	assert_int_equal(classify("app;main;wait_slot;libc.so.6+0x8a0f1;[lock 0x4]", site, 64), LW_FUTEX);
	assert_string_equal(site, "wait_slot");
	assert_true(lockwait_is_contention(LW_FUTEX));
	/* a stack entirely inside libc has no site */
	assert_int_equal(classify("app;__libc_start_main;pthread_mutex_lock;[lock x]", site, 64),
			 LW_MUTEX);
	assert_string_equal(site, "-");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_mutex_wait_is_contention_at_the_caller_of_pthread_mutex_lock),
		cmocka_unit_test(a_queued_lock_on_a_semaphore_is_sited_at_its_acquire_function),
		cmocka_unit_test(condvar_join_and_barrier_are_waiting_not_contention),
		cmocka_unit_test(an_unknown_futex_wait_is_contention_and_unnamed_libc_frames_are_skipped),
	};

	return cmocka_run_group_tests_name("lockwait", tests, NULL, NULL);
}
