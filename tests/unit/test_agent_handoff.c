// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * agent/handoff.c and agent/writer.c: the loop hands finished intervals to
 * the writer thread. The queue as a state machine (full, order, stop), then
 * the thread with a fake write that the test holds and releases: a full
 * queue refuses without waiting, a failed write is counted, a stop writes
 * what is queued or, past its deadline, counts it lost and leaves the one
 * in flight to finish.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "agent/handoff.h"
#include "agent/writer.h"
#include "util/clock.h"

static struct interval_job job(int64_t start)
{
	return (struct interval_job){ .start_ms = start, .end_ms = start + 1000 };
}

static void a_full_queue_refuses_and_keeps_the_order(void **state)
{
	struct handoff h;
	struct interval_job j = job(1), out;

	(void)state;
	handoff_init(&h);
	assert_false(handoff_take(&h, &out));
	assert_int_equal(handoff_put(&h, &j), 0);
	j = job(2);
	assert_int_equal(handoff_put(&h, &j), 0);
	j = job(3);
	assert_int_equal(handoff_put(&h, &j), -EBUSY);	/* HANDOFF_SLOTS waiting */
	assert_true(handoff_take(&h, &out));
	assert_int_equal(out.start_ms, 1);
	/* one at a time: the second waits until the first is done */
	assert_false(handoff_take(&h, &out));
	assert_int_equal(handoff_put(&h, &j), 0);	/* room again while 1 is written */
	handoff_done(&h, 0);
	assert_true(handoff_take(&h, &out));
	assert_int_equal(out.start_ms, 2);
	handoff_done(&h, -ENOSPC);
	assert_true(handoff_take(&h, &out));
	assert_int_equal(out.start_ms, 3);
	assert_false(handoff_idle(&h));
	handoff_done(&h, 0);
	assert_true(handoff_idle(&h));
	assert_int_equal(h.st.queued, 3);
	assert_int_equal(h.st.written, 2);
	assert_int_equal(h.st.failed, 1);
}

static void a_stopped_queue_takes_no_more_and_drops_what_waits_counted(void **state)
{
	struct handoff h;
	struct interval_job j = job(1), out;

	(void)state;
	handoff_init(&h);
	assert_int_equal(handoff_put(&h, &j), 0);
	j = job(2);
	assert_int_equal(handoff_put(&h, &j), 0);
	handoff_stop(&h);
	assert_int_equal(handoff_put(&h, &j), -ESHUTDOWN);
	assert_true(handoff_take(&h, &out));	/* what waits is still written ... */
	assert_int_equal(out.start_ms, 1);
	assert_true(handoff_drop(&h, &out));	/* ... unless the deadline passed */
	assert_int_equal(out.start_ms, 2);
	assert_false(handoff_drop(&h, &out));
	assert_false(handoff_idle(&h));		/* 1 is still being written */
	handoff_done(&h, 0);
	assert_true(handoff_idle(&h));
	assert_int_equal(h.st.lost_at_stop, 1);
	assert_int_equal(h.st.written, 1);
}

/* ---- the thread, with a write the test controls */

struct fake {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool hold;		/* writes wait while set */
	int in_write;		/* writes begun, not ended */
	int err;		/* what a write returns */
	int64_t order[16];	/* starts, in the order written */
	int nr, released;
};

static int fake_write(struct interval_job *j, void *arg)
{
	struct fake *f = arg;
	int err;

	pthread_mutex_lock(&f->mu);
	f->in_write++;
	pthread_cond_broadcast(&f->cv);
	while (f->hold)
		pthread_cond_wait(&f->cv, &f->mu);
	f->order[f->nr++] = j->start_ms;
	f->in_write--;
	err = f->err;
	pthread_mutex_unlock(&f->mu);
	return err;
}

static struct fake *the_fake;

static void fake_release(struct interval_job *j)
{
	/* the job's memory: ASan sees a leak or a double free */
	free(j->counters);
	j->counters = NULL;
	pthread_mutex_lock(&the_fake->mu);
	the_fake->released++;
	pthread_mutex_unlock(&the_fake->mu);
}

static struct interval_job owned_job(int64_t start)
{
	struct interval_job j = job(start);

	j.counters = strdup("{}");
	j.counters_len = 2;
	return j;
}

static void fake_hold(struct fake *f, bool hold)
{
	pthread_mutex_lock(&f->mu);
	f->hold = hold;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
}

/* Until the writer is inside a write. */
static void fake_wait_in_write(struct fake *f)
{
	pthread_mutex_lock(&f->mu);
	while (!f->in_write)
		pthread_cond_wait(&f->cv, &f->mu);
	pthread_mutex_unlock(&f->mu);
}

static struct writer *start(struct fake *f)
{
	struct writer_ops ops = { fake_write, fake_release, f };
	struct writer *w = NULL;

	memset(f, 0, sizeof(*f));
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->cv, NULL);
	the_fake = f;
	assert_int_equal(writer__start(&w, &ops), 0);
	return w;
}

/* Interval 1 on a stalled disk (the fake holds its write), interval 2 waiting. */
static void stall_with_two(struct fake *f, struct writer *w)
{
	struct interval_job j;

	fake_hold(f, true);
	j = owned_job(1);
	assert_int_equal(writer__put(w, &j, 0), 0);
	fake_wait_in_write(f);
	j = owned_job(2);
	assert_int_equal(writer__put(w, &j, 0), 0);
}

static void a_full_queue_never_blocks_the_loop_and_counts_the_skip(void **state)
{
	struct writer_stats ws;
	struct fake f;
	struct writer *w = start(&f);
	struct interval_job j;
	uint64_t t0;

	(void)state;
	stall_with_two(&f, w);
	j = owned_job(3);
	assert_int_equal(writer__put(w, &j, 0), 0);
	t0 = clock_mono_ns();
	j = owned_job(4);
	assert_int_equal(writer__put(w, &j, 0), -EBUSY);	/* two wait: refused ... */
	assert_true(clock_mono_ns() - t0 < 100000000ull);	/* ... at once */
	/* with a deadline the put waits for room, then gives up: still counted */
	j = owned_job(5);
	t0 = clock_mono_ns();
	assert_int_equal(writer__put(w, &j, t0 + 50000000ull), -EBUSY);
	assert_true(clock_mono_ns() - t0 >= 50000000ull);
	writer__stats(w, &ws);
	assert_int_equal(ws.h.skipped_full, 2);
	assert_int_equal(ws.waiting, 2);
	assert_int_equal(f.released, 2);	/* the refused ones freed */
	fake_hold(&f, false);
	assert_int_equal(writer__stop(w, clock_mono_ns() + 5000000000ull, &ws), 0);
	assert_int_equal(ws.h.written, 3);
	assert_int_equal(f.nr, 3);
	assert_int_equal(f.order[0], 1);	/* in order */
	assert_int_equal(f.order[2], 3);
	assert_int_equal(f.released, 5);
}

static void a_failed_write_is_counted_and_the_writer_goes_on(void **state)
{
	struct writer_stats ws;
	struct fake f;
	struct writer *w = start(&f);
	struct interval_job j;

	(void)state;
	f.err = -ENOSPC;
	j = owned_job(1);
	assert_int_equal(writer__put(w, &j, 0), 0);
	/* the stop waits for it: written (failed) before the deadline */
	assert_int_equal(writer__stop(w, clock_mono_ns() + 5000000000ull, &ws), 0);
	assert_int_equal(ws.h.failed, 1);
	assert_int_equal(ws.h.written, 0);
	w = start(&f);
	f.err = -EIO;
	j = owned_job(1);
	assert_int_equal(writer__put(w, &j, 0), 0);
	j = owned_job(2);
	assert_int_equal(writer__put(w, &j, 0), 0);
	assert_int_equal(writer__stop(w, clock_mono_ns() + 5000000000ull, &ws), 0);
	assert_int_equal(ws.h.failed, 2);	/* the second was still tried */
	assert_int_equal(f.released, 2);
}

static void a_stop_past_its_deadline_counts_the_waiting_lost_and_leaves_the_write(void **state)
{
	struct writer_stats ws;
	struct fake f;
	struct writer *w = start(&f);
	struct interval_job j;
	uint64_t t0;

	(void)state;
	stall_with_two(&f, w);	/* 2: the partial interval, pending */
	t0 = clock_mono_ns();
	assert_int_equal(writer__stop(w, t0 + 100000000ull, &ws), -ETIMEDOUT);
	assert_true(clock_mono_ns() - t0 >= 100000000ull);
	assert_true(clock_mono_ns() - t0 < 1000000000ull);	/* bounded by the deadline */
	assert_int_equal(ws.h.lost_at_stop, 1);
	assert_int_equal(f.released, 1);	/* 2, never begun */
	/* after the stop nothing is taken, and the one in flight still completes */
	j = owned_job(3);
	assert_int_equal(writer__put(w, &j, 0), -ESHUTDOWN);
	fake_hold(&f, false);
	assert_int_equal(writer__stop(w, clock_mono_ns() + 5000000000ull, &ws), 0);
	assert_int_equal(ws.h.written, 1);
	assert_int_equal(f.nr, 1);
	assert_int_equal(f.released, 3);
	assert_int_equal(ws.h.skipped_full, 0);	/* -ESHUTDOWN is no skip */
}

static void a_stop_with_a_pending_interval_writes_it_before_the_deadline(void **state)
{
	struct writer_stats ws;
	struct fake f;
	struct writer *w = start(&f);

	(void)state;
	stall_with_two(&f, w);
	fake_hold(&f, false);
	assert_int_equal(writer__stop(w, clock_mono_ns() + 5000000000ull, &ws), 0);
	assert_int_equal(ws.h.written, 2);
	assert_int_equal(ws.h.lost_at_stop, 0);
	assert_int_equal(f.order[1], 2);
	assert_int_equal(writer__stop(NULL, 0, &ws), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_full_queue_refuses_and_keeps_the_order),
		cmocka_unit_test(a_stopped_queue_takes_no_more_and_drops_what_waits_counted),
		cmocka_unit_test(a_full_queue_never_blocks_the_loop_and_counts_the_skip),
		cmocka_unit_test(a_failed_write_is_counted_and_the_writer_goes_on),
		cmocka_unit_test(a_stop_past_its_deadline_counts_the_waiting_lost_and_leaves_the_write),
		cmocka_unit_test(a_stop_with_a_pending_interval_writes_it_before_the_deadline),
	};

	return cmocka_run_group_tests_name("agent_handoff", tests, NULL, NULL);
}
