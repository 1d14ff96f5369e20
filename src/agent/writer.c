// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The writer thread around the hand-off queue (see writer.h). @mu guards
 * the queue and the statistics, never a write: the loop's put and stats
 * take it for a few instructions, whatever the disk does.
 */
#include "agent/writer.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "util/clock.h"

struct writer {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t work_cv;		/* to the thread: an interval queued, or the stop */
	pthread_cond_t done_cv;		/* from the thread: one written (room, idle) */
	struct handoff h;
	struct writer_ops ops;
	uint64_t last_ns, max_ns, cpu_ns;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct interval_job j;
	uint64_t t0, c0;

	pthread_setname_np(pthread_self(), "hotcold-write");	/* its CPU apart in top -H */
	int err;

	/*
	 * Not niced: at load 20 a nice-5 writer got 3% of its wall time (0.04 s
	 * of CPU in 0.7 s of encoding), and the partial interval missed the
	 * stop deadline; the loop, one thread among the machine's 20, gains
	 * little from it
	 */
	pthread_mutex_lock(&w->mu);
	for (;;) {
		if (!handoff_take(&w->h, &j)) {
			if (w->h.stopping)
				break;
			pthread_cond_wait(&w->work_cv, &w->mu);
			continue;
		}
		pthread_mutex_unlock(&w->mu);
		t0 = clock_mono_ns();
		c0 = clock_thread_cpu_ns();
		err = w->ops.write(&j, w->ops.arg);
		w->ops.release(&j);
		pthread_mutex_lock(&w->mu);
		handoff_done(&w->h, err);
		w->last_ns = clock_mono_ns() - t0;
		if (w->last_ns > w->max_ns)
			w->max_ns = w->last_ns;
		w->cpu_ns += clock_thread_cpu_ns() - c0;
		pthread_cond_broadcast(&w->done_cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

static void writer_free(struct writer *w)
{
	pthread_cond_destroy(&w->done_cv);
	pthread_cond_destroy(&w->work_cv);
	pthread_mutex_destroy(&w->mu);
	free(w);
}

int writer__start(struct writer **out, const struct writer_ops *ops)
{
	struct writer *w = calloc(1, sizeof(*w));
	pthread_condattr_t ca;
	int err;

	if (!w)
		return -ENOMEM;
	w->ops = *ops;
	handoff_init(&w->h);
	pthread_mutex_init(&w->mu, NULL);
	/* deadlines are monotonic: a clock step must not stretch the stop */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->work_cv, NULL);
	pthread_cond_init(&w->done_cv, &ca);
	pthread_condattr_destroy(&ca);
	err = -pthread_create(&w->thread, NULL, writer_main, w);
	if (err) {
		writer_free(w);
		return err;
	}
	*out = w;
	return 0;
}

/* Wait on done_cv until the monotonic @until_ns; false once it has passed. */
static bool wait_until(struct writer *w, uint64_t until_ns)
{
	struct timespec ts = { .tv_sec = until_ns / 1000000000ull,
			       .tv_nsec = until_ns % 1000000000ull };

	if (clock_mono_ns() >= until_ns)
		return false;
	pthread_cond_timedwait(&w->done_cv, &w->mu, &ts);
	return true;
}

int writer__put(struct writer *w, struct interval_job *j, uint64_t wait_until_ns)
{
	int err;

	pthread_mutex_lock(&w->mu);
	while ((err = handoff_put(&w->h, j)) == -EBUSY && wait_until_ns &&
	       wait_until(w, wait_until_ns))
		;
	if (!err)
		pthread_cond_signal(&w->work_cv);
	else if (err == -EBUSY)
		w->h.st.skipped_full++;
	pthread_mutex_unlock(&w->mu);
	if (err)
		w->ops.release(j);	/* outside the lock: a profile's free takes a while */
	return err;
}

static void stats_locked(struct writer *w, struct writer_stats *st)
{
	st->h = w->h.st;
	st->waiting = w->h.nr;
	st->last_ns = w->last_ns;
	st->max_ns = w->max_ns;
	st->cpu_ns = w->cpu_ns;
}

int writer__stop(struct writer *w, uint64_t deadline_ns, struct writer_stats *st)
{
	struct interval_job j;
	bool busy;

	if (!w)
		return 0;
	pthread_mutex_lock(&w->mu);
	handoff_stop(&w->h);
	pthread_cond_signal(&w->work_cv);
	while (!handoff_idle(&w->h) && wait_until(w, deadline_ns))
		;
	/* past the deadline: what has not begun is given up, counted */
	while (handoff_drop(&w->h, &j))
		w->ops.release(&j);
	busy = w->h.busy;
	stats_locked(w, st);
	pthread_mutex_unlock(&w->mu);
	if (busy)
		return -ETIMEDOUT;
	pthread_join(w->thread, NULL);
	writer_free(w);
	return 0;
}

void writer__stats(struct writer *w, struct writer_stats *st)
{
	pthread_mutex_lock(&w->mu);
	stats_locked(w, st);
	pthread_mutex_unlock(&w->mu);
}
