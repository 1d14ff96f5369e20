// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Deferred CFI table builds off the loop's thread. One process's build is a
 * single call (unwind_tables__add_process) that took 0.3 s of CPU for a
 * postgres and over 1.5 s on a busy machine for a big program: in the loop
 * it delayed intervals and SIGTERM by as much. A builder thread runs those
 * calls, leaving every table to the tables' builder thread
 * (unwind_tables__add_process_async), so a call holds the tables for
 * milliseconds; every use of the tables is under one mutex, and the loop only ever
 * try-locks it: while a build runs, a new process is deferred (walked by
 * frame pointer meanwhile, as any young process is), a refresh is skipped,
 * an exit's removal waits in a set applied at the next lock, and the stats
 * are the last ones read.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "record/child_hold.h"
#include "record/session.h"
#include "record/session_int.h"
#include "unwind/tables.h"
#include "util/clock.h"
#include "util/log.h"

#define BUILD_QUEUE 256
/* how long the builder thread waits for a process's tables to load them itself */
#define BUILD_WAIT_NS (2 * 1000000000ull)
/* ... in slices, each ended early by the last table */
#define BUILD_SLICE_NS (50 * 1000000ull)

struct session_builder {
	pthread_t th;
	pthread_mutex_t qlock;		/* the queue and stop */
	pthread_cond_t qcond;
	uint32_t q[BUILD_QUEUE];
	size_t head, nr;
	bool stop, done;
};

static void apply_removals(struct session *s)
{
	size_t it = 0;
	uint64_t v;

	if (!s->ut_rm.nr)
		return;
	while (keymap__next(&s->ut_rm, &it, &v))
		unwind_tables__remove_process(s->ut, (uint32_t)v);
	keymap__release(&s->ut_rm);
	keymap__init(&s->ut_rm);
}

bool session_unwind_lock(struct session *s)
{
	if (!s->ut || pthread_mutex_trylock(&s->ut_lock))
		return false;
	apply_removals(s);
	return true;
}

void session_unwind_unlock(struct session *s)
{
	pthread_mutex_unlock(&s->ut_lock);
}

void session_unwind_remove(struct session *s, uint32_t tgid)
{
	if (!s->ut)
		return;
	if (session_unwind_lock(s)) {
		unwind_tables__remove_process(s->ut, tgid);
		session_unwind_unlock(s);
		return;
	}
	/* no memory: the entry stays until the tgid is reused or the limit evicts it */
	keymap__put(&s->ut_rm, tgid, 0, tgid);
}

/* A process queued or a stop asked: the builder thread has better to do than wait. */
static bool builder_has_work(struct session_builder *b)
{
	bool any;

	pthread_mutex_lock(&b->qlock);
	any = b->nr || b->stop;
	pthread_mutex_unlock(&b->qlock);
	return any;
}

void session_unwind_demand(struct session *s, uint32_t tgid)
{
	/* a try-lock, as every use of the tables by the loop: one sample less is no loss */
	if (!session_unwind_lock(s))
		return;
	unwind_tables__demand(s->ut, tgid, 1);
	session_unwind_unlock(s);
}

static void *builder_main(void *arg)
{
	struct session *s = arg;
	struct session_builder *b = s->builder;
	uint32_t tgid;
	int err;

	pthread_setname_np(pthread_self(), "hotcold-procs");	/* its CPU apart in top -H */

	for (;;) {
		pthread_mutex_lock(&b->qlock);
		while (!b->stop && !b->nr)
			pthread_cond_wait(&b->qcond, &b->qlock);
		if (b->stop) {
			pthread_mutex_unlock(&b->qlock);
			break;
		}
		tgid = b->q[b->head];
		b->head = (b->head + 1) % BUILD_QUEUE;
		b->nr--;
		pthread_mutex_unlock(&b->qlock);
		/*
		 * Its tables on the tables' own builder thread: the lock is held
		 * for reading and publishing the mappings only. Held across the
		 * builds (0.3 s for a postgres, 1.5 s loaded), it kept every
		 * other process's re-read (a dlopen) waiting as long.
		 */
		pthread_mutex_lock(&s->ut_lock);
		err = unwind_tables__add_process_async(s->ut, tgid);
		pthread_mutex_unlock(&s->ut_lock);
		/*
		 * And loaded as soon as built, not at the loop's next turn (up
		 * to 100 ms). Not while another process waits here: the wait is
		 * for every queued table, and with the tables' builder busy (a
		 * system-wide start, a slow machine) each ran its whole 2 s, so
		 * the processes queued behind were published one per 2 s. The
		 * loop loads what comes meanwhile.
		 */
		for (uint64_t w = 0; !err && w < BUILD_WAIT_NS && !builder_has_work(b);
		     w += BUILD_SLICE_NS) {
			if (!unwind_tables__wait_builds(s->ut, BUILD_SLICE_NS))
				continue;
			pthread_mutex_lock(&s->ut_lock);
			unwind_tables__poll(s->ut);
			pthread_mutex_unlock(&s->ut_lock);
			break;
		}
		__atomic_add_fetch(err == -ESRCH ? &s->deferred_gone : &s->deferred_built, 1,
				   __ATOMIC_RELAXED);
	}
	__atomic_store_n(&b->done, true, __ATOMIC_RELEASE);
	return NULL;
}

bool session_unwind_queue(struct session *s, uint32_t tgid)
{
	struct session_builder *b = s->builder;
	bool ok;

	if (!b) {
		b = calloc(1, sizeof(*b));
		if (!b)
			return false;
		pthread_mutex_init(&b->qlock, NULL);
		pthread_cond_init(&b->qcond, NULL);
		s->builder = b;
		if (pthread_create(&b->th, NULL, builder_main, s)) {
			pr_warn("record: no thread for unwind table builds; they are not deferred\n");
			s->builder = NULL;
			free(b);
			return false;
		}
	}
	pthread_mutex_lock(&b->qlock);
	ok = b->nr < BUILD_QUEUE;
	if (ok) {
		b->q[(b->head + b->nr) % BUILD_QUEUE] = tgid;
		b->nr++;
		pthread_cond_signal(&b->qcond);
	}
	pthread_mutex_unlock(&b->qlock);
	return ok;
}

bool session_unwind_stop(struct session *s, uint64_t wait_ns)
{
	struct session_builder *b = s->builder;
	struct timespec ts = { 0, 10 * 1000000 };
	uint64_t waited = 0;

	if (!b)
		return true;
	pthread_mutex_lock(&b->qlock);
	b->stop = true;
	pthread_cond_signal(&b->qcond);
	pthread_mutex_unlock(&b->qlock);
	/* a build in progress finishes first: wait a bounded time, not for it */
	while (!__atomic_load_n(&b->done, __ATOMIC_ACQUIRE) && waited < wait_ns) {
		nanosleep(&ts, NULL);
		waited += 10 * 1000000;
	}
	if (!__atomic_load_n(&b->done, __ATOMIC_ACQUIRE)) {
		if (wait_ns)
			pr_info("record: an unwind table build still running; left to the exit\n");
		return false;
	}
	pthread_join(b->th, NULL);
	pthread_mutex_destroy(&b->qlock);
	pthread_cond_destroy(&b->qcond);
	free(b);
	s->builder = NULL;
	return true;
}

static void *preload_main(void *arg)
{
	struct session *s = arg;

	pthread_setname_np(pthread_self(), "hotcold-preload");
	pthread_mutex_lock(&s->ut_lock);
	unwind_tables__preload_runtime(s->ut);
	pthread_mutex_unlock(&s->ut_lock);
	return NULL;
}

/*
 * Start-up (issue 15): libdw on the runtime libraries (~13 ms of CPU
 * quiet, 50-80 ms on a loaded machine) and the verifier on the sampling
 * program (~75 ms of CPU) are independent: side by side they use both CPUs
 * (or twice the share of a busy machine's), and sampling starts sooner.
 */
void session_unwind_preload_start(struct session *s)
{
	if (!pthread_create(&s->preload_th, NULL, preload_main, s)) {
		s->preloading = true;
		return;
	}
	unwind_tables__preload_runtime(s->ut);
}

void session_unwind_preload_join(struct session *s)
{
	if (!s->preloading)
		return;
	pthread_join(s->preload_th, NULL);
	s->preloading = false;
}

static int hold_ready(pid_t pid, void *arg)
{
	struct session *s = arg;
	int err;

	/* a blocking lock: the builder thread may be on a -p target's build */
	pthread_mutex_lock(&s->ut_lock);
	apply_removals(s);
	err = unwind_tables__add_process_now(s->ut, (uint32_t)pid);
	pthread_mutex_unlock(&s->ut_lock);
	if (!err)
		s->held_tgid = (uint32_t)pid;
	return err;
}

/* ld.so's start-up is walked with its table; failing here, the entry point tries again */
static int hold_exec(pid_t pid, void *arg)
{
	return hold_ready(pid, arg);
}

static bool hold_stop(void *arg)
{
	return session__stopping();
}

void session_unwind_hold_child(struct session *s, bool attached)
{
	struct child_hold_ops ops = { .exec = hold_exec, .ready = hold_ready, .stop = hold_stop,
				      .arg = s };
	static const char *const how[] = { "at its entry point", "exited before its entry point",
					   "given up" };
	uint64_t t0 = clock_mono_ns();
	enum child_hold_end end;
	int st = 0, err;

	if (!attached)
		return;
	end = child_hold_run(s->child.pid, CHILD_HOLD_MAX_NS, &ops, &st, &err);
	if (end == CHILD_HOLD_EXITED) {
		s->child_wstatus = st;
		s->child_done = true;	/* reaped by the hold */
	}
	if (err)
		pr_info("record: tables of '%s' not published at its start: %s\n",
			s->o->cmd_argv[0], strerror(-err));
	pr_debug("record: '%s' held %.1f ms from exec, %s\n", s->o->cmd_argv[0],
		 (clock_mono_ns() - t0) / 1e6, how[end]);
}
