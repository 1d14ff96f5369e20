// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "record/locks_group.h"

static struct locks_member mk(uint32_t id, uint32_t tgid, uint64_t total, enum lockwait_class c,
			      const char *site)
{
	struct locks_member m = { .id = id, .tgid = tgid, .count = 1, .total_ns = total,
				  .max_ns = total, .cls = c };

	strcpy(m.site, site);
	return m;
}

static void futexes_of_one_site_are_one_row_and_a_lone_lock_stays_a_lock(void **state)
{
	struct locks_member m[] = {
		mk(1, 10, 100, LW_SEMAPHORE, "lw_acquire"), mk(2, 10, 200, LW_SEMAPHORE, "lw_acquire"),
		mk(3, 10, 50, LW_MUTEX, "take_queue_lock"), mk(4, 10, 300, LW_SEMAPHORE, "lw_acquire"),
		mk(5, 0, 10, LW_KERNEL, ""), mk(6, 0, 20, LW_KERNEL, ""),
	};
	struct locks_disp d[6];
	size_t n;

	(void)state;
	n = locks_group(m, 6, true, false, 0, d);
	assert_int_equal(n, 4);
	/* heaviest first: the site row with 600 ns over 3 futexes */
	assert_true(d[0].by_site);
	assert_int_equal(d[0].nr, 3);
	assert_int_equal(d[0].total_ns, 600);
	assert_int_equal(d[0].max_ns, 300);
	assert_string_equal(m[d[0].first].site, "lw_acquire");
	assert_false(d[1].by_site);
	assert_int_equal(m[d[1].first].id, 3);
	/* kernel locks have no site: never grouped */
	assert_int_equal(d[2].nr, 1);
	assert_int_equal(d[3].nr, 1);
	assert_int_equal(d[2].total_ns, 20);
}

static void by_lock_gives_every_lock_its_row(void **state)
{
	struct locks_member m[] = {
		mk(1, 10, 100, LW_SEMAPHORE, "lw_acquire"), mk(2, 10, 200, LW_SEMAPHORE, "lw_acquire"),
	};
	struct locks_disp d[2];

	(void)state;
	assert_int_equal(locks_group(m, 2, false, false, 0, d), 2);
	assert_false(d[0].by_site);
	assert_int_equal(d[0].total_ns, 200);
}

static void waits_for_work_are_shown_only_with_all_waits_and_never_mixed_with_contention(void **state)
{
	struct locks_member m[] = {
		mk(1, 10, 900, LW_CONDVAR, "consumer"), mk(2, 10, 800, LW_JOIN, "main"),
		mk(3, 10, 700, LW_JOIN, "main"), mk(4, 10, 5, LW_MUTEX, "main"),
	};
	struct locks_disp d[4];
	size_t n;

	(void)state;
	n = locks_group(m, 4, true, false, 0, d);
	assert_int_equal(n, 1);
	assert_int_equal(m[d[0].first].cls, LW_MUTEX);
	n = locks_group(m, 4, true, true, 0, d);
	assert_int_equal(n, 3);
	/* the joins (1500) group, the mutex at the same site does not join them */
	assert_int_equal(d[0].total_ns, 1500);
	assert_int_equal(m[d[0].first].cls, LW_JOIN);
	assert_int_equal(d[2].total_ns, 5);
}

static void processes_of_one_program_share_a_site_row_others_do_not(void **state)
{
	struct locks_member m[] = {
		mk(1, 10, 100, LW_SEMAPHORE, "LWLockAcquire"), mk(2, 11, 100, LW_SEMAPHORE, "LWLockAcquire"),
		mk(3, 12, 100, LW_SEMAPHORE, "LWLockAcquire"), mk(4, 13, 100, LW_SEMAPHORE, "LWLockAcquire"),
	};
	struct locks_disp d[4];

	(void)state;
	strcpy(m[0].comm, "postgres");
	strcpy(m[1].comm, "postgres");
	strcpy(m[2].comm, "postgres");
	strcpy(m[3].comm, "other");
	assert_int_equal(locks_group(m, 4, true, false, 0, d), 2);
	assert_int_equal(d[0].nr, 3);
	assert_int_equal(d[0].nr_procs, 3);
	assert_string_equal(m[d[0].first].comm, "postgres");
	assert_false(d[1].by_site);
}

static void rows_sort_by_max_or_count_when_asked(void **state)
{
	struct locks_member m[] = {
		mk(1, 10, 100, LW_MUTEX, "a"), mk(2, 10, 50, LW_MUTEX, "b"),
	};
	struct locks_disp d[2];

	(void)state;
	m[1].count = 9;
	locks_group(m, 2, true, false, 2, d);
	assert_int_equal(m[d[0].first].id, 2);
	locks_group(m, 2, true, false, 1, d);
	assert_int_equal(m[d[0].first].id, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(futexes_of_one_site_are_one_row_and_a_lone_lock_stays_a_lock),
		cmocka_unit_test(by_lock_gives_every_lock_its_row),
		cmocka_unit_test(waits_for_work_are_shown_only_with_all_waits_and_never_mixed_with_contention),
		cmocka_unit_test(processes_of_one_program_share_a_site_row_others_do_not),
		cmocka_unit_test(rows_sort_by_max_or_count_when_asked),
	};

	return cmocka_run_group_tests_name("locks_group", tests, NULL, NULL);
}
