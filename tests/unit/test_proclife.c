// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The process lifecycle as a state machine (record/proclife.c), against a
 * fake host: processes alive or gone, maps readable or not, and a sample
 * path that records what reached it. Orders are adversarial on purpose:
 * lost exits, pid reuse, reads that fail, replays that would re-hold.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/proclife.h"

#define NR_TGIDS 16
#define MAX_SEQ 8192

struct fake {
	struct proclife *pl;
	bool alive[NR_TGIDS];
	bool unreadable[NR_TGIDS];
	bool known[NR_TGIDS];
	int reads[NR_TGIDS], gones[NR_TGIDS], exit_maps[NR_TGIDS], forgets[NR_TGIDS];
	unsigned int seen_seq[MAX_SEQ];	/* times each record reached the sample path */
	uint64_t order[MAX_SEQ];	/* sequence numbers in the order they arrived */
	size_t nr_sampled;
	bool reenter;	/* the sample path goes through proclife__sample() (the old replay) */
	bool inside;
};

static int fake_sample(const struct sample_view *v, void *arg)
{
	struct fake *f = arg;
	int r;

	if (f->reenter && !f->inside) {
		f->inside = true;
		r = proclife__sample(f->pl, v);
		f->inside = false;
		return r;
	}
	assert_true(v->time_ns < MAX_SEQ);
	f->seen_seq[v->time_ns]++;
	f->order[f->nr_sampled++] = v->time_ns;
	return 0;
}

static int fake_read(uint32_t tgid, void *arg)
{
	struct fake *f = arg;

	f->reads[tgid]++;
	if (!f->alive[tgid]) {
		f->known[tgid] = true;	/* as symbolizer__add_gone() */
		return -ESRCH;
	}
	if (f->unreadable[tgid])
		return -EACCES;
	f->known[tgid] = true;
	return 0;
}

static bool fake_known(uint32_t tgid, void *arg)
{
	return ((struct fake *)arg)->known[tgid];
}

static void fake_gone(uint32_t tgid, void *arg)
{
	struct fake *f = arg;

	f->gones[tgid]++;
	f->known[tgid] = true;
}

static void fake_exit_maps(uint32_t tgid, const struct procmap *m, size_t n, void *arg)
{
	((struct fake *)arg)->exit_maps[tgid]++;
}

static void fake_forget(uint32_t tgid, void *arg)
{
	struct fake *f = arg;

	f->forgets[tgid]++;
	f->known[tgid] = false;
}

static struct fake *fake_new(bool eager)
{
	struct fake *f = calloc(1, sizeof(*f));
	struct proclife_host h = {
		.sample = fake_sample, .read = fake_read, .known = fake_known,
		.gone = fake_gone, .exit_maps = fake_exit_maps, .forget = fake_forget,
	};

	assert_non_null(f);
	h.arg = f;
	f->pl = proclife__new(&h, eager);
	assert_non_null(f->pl);
	return f;
}

static void fake_free(struct fake *f)
{
	proclife__free(f->pl);
	free(f);
}

/* One on-CPU record of @tgid with a user stack; @seq travels in time_ns. */
static void rec(struct fake *f, uint32_t tgid, bool new_tgid, uint64_t seq)
{
	static const uint64_t kips[2] = { 0xffffffff81000000ull, 0xffffffff81000100ull };
	static const uint64_t uips[3] = { 0x401000, 0x401100, 0x401200 };
	struct sample_view v = {
		.kind = SAMPLE_ONCPU, .tgid = tgid, .pid = tgid, .new_tgid = new_tgid,
		.weight = 1, .count = 1, .time_ns = seq, .comm = "work", .pcomm = "work",
		.kips = kips, .nr_kips = 2, .uips = uips, .nr_uips = 3,
	};

	assert_int_equal(proclife__sample(f->pl, &v), 0);
}

static void first_sight_reads_one_process_per_name_then_again_after_ten_seconds(void **state)
{
	struct fake *f = fake_new(false);
	struct proclife_stats st;

	(void)state;
	f->alive[1] = f->alive[2] = f->alive[3] = true;
	proclife__seen(f->pl, 1, "true", 1000);
	proclife__seen(f->pl, 2, "true", 2000);	/* same name: left to its first stack */
	proclife__seen(f->pl, 3, "true", 1000 + PROCLIFE_COMM_REREAD_NS);
	assert_int_equal(f->reads[1], 1);
	assert_int_equal(f->reads[2], 0);
	assert_int_equal(f->reads[3], 1);
	proclife__stats(f->pl, &st);
	assert_int_equal(st.lazy, 1);
	/* its first stack record: deferred to the end of the batch, held meanwhile */
	rec(f, 2, false, 0);
	assert_int_equal(proclife__nr_held(f->pl), 1);
	assert_int_equal(f->nr_sampled, 0);
	assert_int_equal(proclife__end_batch(f->pl), 0);
	assert_int_equal(f->reads[2], 1);
	assert_int_equal(f->nr_sampled, 1);
	assert_int_equal(proclife__nr_held(f->pl), 0);
	fake_free(f);
}

static void eager_first_sight_reads_every_process(void **state)
{
	struct fake *f = fake_new(true);

	(void)state;
	f->alive[1] = f->alive[2] = true;
	proclife__seen(f->pl, 1, "true", 1000);
	proclife__seen(f->pl, 2, "true", 1001);
	assert_int_equal(f->reads[1] + f->reads[2], 2);
	fake_free(f);
}

static void known_process_samples_pass_straight_through(void **state)
{
	struct fake *f = fake_new(false);

	(void)state;
	f->alive[4] = true;
	rec(f, 4, true, 0);
	rec(f, 4, false, 1);
	assert_int_equal(f->reads[4], 1);
	assert_int_equal(f->nr_sampled, 2);
	assert_int_equal(proclife__nr_held(f->pl), 0);
	fake_free(f);
}

static void gone_process_is_held_until_exit_maps_and_exit_in_ring_order(void **state)
{
	struct fake *f = fake_new(false);
	struct proclife_stats st;

	(void)state;
	rec(f, 7, true, 0);	/* gone before its maps were read */
	rec(f, 7, false, 1);
	rec(f, 7, false, 2);
	assert_int_equal(proclife__nr_held(f->pl), 3);
	assert_int_equal(f->nr_sampled, 0);
	proclife__exit_maps(f->pl, 7, NULL, 0);
	assert_int_equal(f->exit_maps[7], 1);
	proclife__exit(f->pl, 7);
	assert_int_equal(proclife__nr_held(f->pl), 0);
	assert_int_equal(f->nr_sampled, 3);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(f->order[i], i);
	assert_int_equal(f->forgets[7], 1);
	proclife__stats(f->pl, &st);
	assert_int_equal(st.late, 1);
	assert_int_equal(st.held, 3);
	assert_int_equal(st.replayed, 3);
	fake_free(f);
}

static void exit_maps_of_a_process_not_gone_are_ignored(void **state)
{
	struct fake *f = fake_new(false);

	(void)state;
	f->alive[5] = true;
	rec(f, 5, true, 0);
	proclife__exit_maps(f->pl, 5, NULL, 0);
	assert_int_equal(f->exit_maps[5], 0);
	fake_free(f);
}

static void exec_replays_the_old_image_then_forgets_it(void **state)
{
	struct fake *f = fake_new(false);

	(void)state;
	f->alive[6] = true;
	f->known[6] = false;
	rec(f, 6, false, 0);	/* unknown: deferred read, held */
	assert_int_equal(proclife__nr_held(f->pl), 1);
	proclife__exec(f->pl, 6);	/* before the batch ended: old image's records go now */
	assert_int_equal(f->nr_sampled, 1);
	assert_int_equal(proclife__nr_held(f->pl), 0);
	assert_int_equal(f->forgets[6], 1);
	assert_int_equal(f->gones[6], 1);	/* named from what is known of the old image */
	/* the deferred read was for the old image: none now */
	assert_int_equal(proclife__end_batch(f->pl), 0);
	assert_int_equal(f->reads[6], 0);
	fake_free(f);
}

static void maps_read_failure_processes_at_once_without_holding(void **state)
{
	struct fake *f = fake_new(false);

	(void)state;
	f->alive[8] = true;
	f->unreadable[8] = true;
	rec(f, 8, true, 0);
	assert_int_equal(proclife__nr_held(f->pl), 0);
	assert_int_equal(f->nr_sampled, 1);
	/* a deferred read that fails likewise replays at once, not at the interval's end */
	f->alive[9] = true;
	f->unreadable[9] = true;
	rec(f, 9, false, 1);
	assert_int_equal(proclife__nr_held(f->pl), 1);
	proclife__end_batch(f->pl);
	assert_int_equal(proclife__nr_held(f->pl), 0);
	assert_int_equal(f->nr_sampled, 2);
	fake_free(f);
}

static void lost_exit_record_is_released_at_interval_end_and_not_held_again(void **state)
{
	struct fake *f = fake_new(false);

	(void)state;
	rec(f, 10, true, 0);
	rec(f, 10, false, 1);
	assert_int_equal(proclife__release(f->pl, SIZE_MAX), 0);
	assert_int_equal(f->nr_sampled, 2);
	/* the gone set started over: a late record of it is not held */
	rec(f, 10, false, 2);
	assert_int_equal(proclife__nr_held(f->pl), 0);
	assert_int_equal(f->nr_sampled, 3);
	fake_free(f);
}

static void pid_reuse_after_a_lost_exit_finishes_the_old_process_first(void **state)
{
	struct fake *f = fake_new(false);
	struct proclife_stats st;

	(void)state;
	rec(f, 11, true, 0);	/* gone, held; its exit record is lost */
	rec(f, 11, false, 1);
	f->alive[11] = true;	/* the pid is reused by a live process */
	f->known[11] = false;
	rec(f, 11, true, 2);
	proclife__stats(f->pl, &st);
	assert_int_equal(st.reused, 1);
	assert_int_equal(f->forgets[11], 1);	/* the old snapshot went before the new read */
	assert_int_equal(f->reads[11], 2);
	assert_int_equal(proclife__nr_held(f->pl), 0);
	assert_int_equal(f->nr_sampled, 3);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(f->order[i], i);
	fake_free(f);
}

static void process_gone_before_its_deferred_read_waits_for_its_exit_maps(void **state)
{
	struct fake *f = fake_new(false);

	(void)state;
	f->alive[12] = true;
	rec(f, 12, false, 0);	/* unknown: deferred */
	f->alive[12] = false;	/* dies before the batch ends */
	proclife__end_batch(f->pl);
	assert_int_equal(f->reads[12], 1);
	assert_int_equal(proclife__nr_held(f->pl), 1);
	rec(f, 12, false, 1);	/* known now (as gone): still held, behind the first */
	assert_int_equal(proclife__nr_held(f->pl), 2);
	proclife__exit_maps(f->pl, 12, NULL, 0);
	assert_int_equal(f->exit_maps[12], 1);
	proclife__exit(f->pl, 12);
	assert_int_equal(f->nr_sampled, 2);
	assert_int_equal(f->order[0], 0);
	assert_int_equal(f->order[1], 1);
	fake_free(f);
}

static void hold_limit_counts_the_excess_and_processes_it_at_once(void **state)
{
	struct fake *f = fake_new(false);
	struct proclife_stats st;

	(void)state;
	rec(f, 13, true, 0);
	for (uint64_t i = 1; i < PROCLIFE_MAX_HELD + 10; i++)
		rec(f, 13, false, i);
	assert_int_equal(proclife__nr_held(f->pl), PROCLIFE_MAX_HELD);
	proclife__stats(f->pl, &st);
	assert_int_equal(st.dropped, 10);
	assert_int_equal(f->nr_sampled, 10);
	proclife__exit(f->pl, 13);
	assert_int_equal(f->nr_sampled, PROCLIFE_MAX_HELD + 10);
	assert_int_equal(proclife__nr_held(f->pl), 0);
	fake_free(f);
}

static void wakers_and_stackless_records_are_never_held(void **state)
{
	struct fake *f = fake_new(false);
	struct sample_view v = { .kind = SAMPLE_WAKER, .tgid = 14, .time_ns = 1,
				 .comm = "w", .pcomm = "w", .nr_uips = 1,
				 .uips = (const uint64_t[]){ 1 } };

	(void)state;
	rec(f, 14, true, 0);
	assert_int_equal(proclife__nr_held(f->pl), 1);
	proclife__sample(f->pl, &v);
	v.kind = SAMPLE_OFFCPU;
	v.nr_uips = 0;
	v.time_ns = 2;
	proclife__sample(f->pl, &v);
	assert_int_equal(proclife__nr_held(f->pl), 1);
	assert_int_equal(f->nr_sampled, 2);
	fake_free(f);
}

/*
 * The agent's livelock: the interval's flush replayed a deferred process's
 * records through the whole sample path, which found the process unknown,
 * deferred it again and held the record again, behind the replay's cursor.
 * Here the sample path re-enters proclife__sample() as the old one did: the
 * record must reach the aggregation once, and nothing stay held. (alarm():
 * the old logic never returns; a hang fails the test instead of stalling it.)
 */
static void replay_that_would_re_hold_ends_and_samples_each_record_once(void **state)
{
	struct fake *f = fake_new(false);
	struct proclife_stats st;

	(void)state;
	alarm(5);
	f->alive[15] = true;
	f->unreadable[15] = true;	/* stays unknown through every read */
	rec(f, 15, false, 0);
	rec(f, 15, false, 1);
	assert_int_equal(proclife__nr_held(f->pl), 2);
	f->reenter = true;
	assert_int_equal(proclife__release(f->pl, SIZE_MAX), 0);
	alarm(0);
	assert_int_equal(f->nr_sampled, 2);
	assert_int_equal(f->seen_seq[0], 1);
	assert_int_equal(f->seen_seq[1], 1);
	assert_int_equal(proclife__nr_held(f->pl), 0);
	proclife__stats(f->pl, &st);
	assert_int_equal(st.refused, 2);
	assert_int_equal(st.held, 2);
	assert_int_equal(st.replayed, 2);
	fake_free(f);
}

static void release_takes_at_most_its_budget_and_each_call_lowers_the_count(void **state)
{
	struct fake *f = fake_new(false);
	size_t left = 100, calls = 0;

	(void)state;
	rec(f, 3, true, 0);
	for (uint64_t i = 1; i < 100; i++)
		rec(f, 3, false, i);
	while (left) {
		size_t before = f->nr_sampled, now = proclife__release(f->pl, 30);

		assert_true(f->nr_sampled - before <= 30);
		assert_true(now < left);
		left = now;
		calls++;
	}
	assert_int_equal(calls, 4);
	assert_int_equal(f->nr_sampled, 100);
	for (size_t i = 0; i < 100; i++)
		assert_int_equal(f->order[i], i);
	fake_free(f);
}

/*
 * Random orders of every event over a few tgids (fixed seeds): each record
 * reaches the sample path exactly once, the held count matches what was
 * held and not replayed, and a final release empties it.
 */
static void random_orders_sample_every_record_exactly_once(void **state)
{
	(void)state;
	for (unsigned int seed = 1; seed <= 200; seed++) {
		struct fake *f = fake_new(seed & 1);
		struct proclife_stats st;
		uint64_t seq = 0;

		srandom(seed);
		for (int step = 0; step < 400 && seq < MAX_SEQ; step++) {
			uint32_t t = 1 + random() % 6;

			switch (random() % 10) {
			case 0: f->alive[t] = !f->alive[t]; break;
			case 1: proclife__exec(f->pl, t); break;
			case 2: proclife__exit(f->pl, t); f->alive[t] = false; break;
			case 3: proclife__seen(f->pl, t, t & 1 ? "a" : "b", step * 100000000ull); break;
			case 4: proclife__exit_maps(f->pl, t, NULL, 0); break;
			case 5: proclife__end_batch(f->pl); break;
			case 6: proclife__release(f->pl, random() % 4); break;
			case 7: rec(f, t, true, seq++); break;
			default: rec(f, t, false, seq++); break;
			}
			proclife__stats(f->pl, &st);
			assert_int_equal(proclife__nr_held(f->pl), st.held - st.replayed);
		}
		while (proclife__release(f->pl, 7))
			;
		assert_int_equal(f->nr_sampled, seq);
		for (uint64_t i = 0; i < seq; i++)
			assert_int_equal(f->seen_seq[i], 1);
		fake_free(f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(first_sight_reads_one_process_per_name_then_again_after_ten_seconds),
		cmocka_unit_test(eager_first_sight_reads_every_process),
		cmocka_unit_test(known_process_samples_pass_straight_through),
		cmocka_unit_test(gone_process_is_held_until_exit_maps_and_exit_in_ring_order),
		cmocka_unit_test(exit_maps_of_a_process_not_gone_are_ignored),
		cmocka_unit_test(exec_replays_the_old_image_then_forgets_it),
		cmocka_unit_test(maps_read_failure_processes_at_once_without_holding),
		cmocka_unit_test(lost_exit_record_is_released_at_interval_end_and_not_held_again),
		cmocka_unit_test(pid_reuse_after_a_lost_exit_finishes_the_old_process_first),
		cmocka_unit_test(process_gone_before_its_deferred_read_waits_for_its_exit_maps),
		cmocka_unit_test(hold_limit_counts_the_excess_and_processes_it_at_once),
		cmocka_unit_test(wakers_and_stackless_records_are_never_held),
		cmocka_unit_test(replay_that_would_re_hold_ends_and_samples_each_record_once),
		cmocka_unit_test(release_takes_at_most_its_budget_and_each_call_lowers_the_count),
		cmocka_unit_test(random_orders_sample_every_record_exactly_once),
	};

	return cmocka_run_group_tests_name("proclife", tests, NULL, NULL);
}
