// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The session's loop: turns of one budgeted read of the event ring, the
 * periodic drain of in-kernel maps, and (the agent) the interval's stacks
 * named ahead, each bounded so that timers and signals are always served;
 * the slowest step of each stretch is kept for the agent's stall log.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "collect/hotspot_walk.h"
#include "record/labels.h"
#include "record/session.h"
#include "record/session_int.h"
#include "unwind/tables.h"
#include "util/budget.h"
#include "util/clock.h"
#include "util/log.h"

static int on_seen(uint32_t tgid, const char *comm, void *arg)
{
	struct session *s = arg;

	proclife__seen(s->life, tgid, comm, clock_mono_ns());
	return 0;
}

/* A ring record: through the process lifecycle (read, defer, hold) to the aggregation. */
static int on_sample(const struct sample_view *v, void *arg)
{
	struct session *s = arg;

	s->work.records++;
	/* a CFI walk that ended early may have met a library mapped since (dlopen) */
	if (v->unwind_unmapped && s->ut && !v->new_tgid && !v->kthread &&
	    symbolizer__knows(s->sym, v->tgid))
		session_refresh_unwind(s, v->tgid, v->uips, v->nr_uips, v->time_ns);
	/*
	 * A walk that met a table still being built (cut there, or by frame
	 * pointer before the process had any): the process runs, so its
	 * tables go before those of processes that do not
	 */
	if (s->ut && !v->kthread && !v->new_tgid && v->nr_uips &&
	    (v->unwind_pending || !v->unwind_cfi))
		session_unwind_demand(s, v->tgid);
	return proclife__sample(s->life, v);
}

static int on_proc_exec(uint32_t tgid, const char *comm, void *arg)
{
	struct session *s = arg;

	/* the old image's held records, then its state: the next sample re-reads */
	s->keep_unwind = tgid == s->held_tgid && !s->held_exec_seen;
	s->held_exec_seen |= s->keep_unwind;
	proclife__exec(s->life, tgid);
	s->keep_unwind = false;
	if (s->o->snapshot_at_exec)
		session_snapshot_exec(s, tgid);
	return 0;
}

static int on_proc_maps(uint32_t tgid, const struct procmap *m, size_t n, void *arg)
{
	struct session *s = arg;

	proclife__exit_maps(s->life, tgid, m, n);
	return 0;
}

static int on_proc_exit(uint32_t tgid, void *arg)
{
	struct session *s = arg;

	proclife__exit(s->life, tgid);
	/* kept until the profile that names its stacks is written */
	if (s->labels)
		labels__exit(s->labels, tgid);
	return 0;
}

static const struct proc_handlers handlers_proto = {
	.sample = on_sample,
	.exec = on_proc_exec,
	.exit = on_proc_exit,
	.seen = on_seen,
	.maps = on_proc_maps,
	.branches = session_branches_add,
};

static bool targets_gone(struct session *s)
{
	const struct record_opts *o = s->o;
	pid_t r;

	if (o->cmd_argv) {
		if (s->child_done)
			return true;
		r = waitpid(s->child.pid, &s->child_wstatus, WNOHANG);
		if (r == s->child.pid) {
			s->child_done = true;
			return true;
		}
		return false;
	}
	if (!o->nr_pids && !o->nr_tids)
		return false;
	for (size_t i = 0; i < o->nr_pids; i++)
		if (target_alive(o->pids[i]))
			return false;
	for (size_t i = 0; i < o->nr_tids; i++)
		if (target_alive(o->tids[i]))
			return false;
	return true;
}

void session_step(struct session *s, const char *what, uint64_t t0, uint64_t c0)
{
	uint64_t ns = clock_mono_ns() - t0;

	if (ns > s->slowest_ns) {
		s->slowest_ns = ns;
		s->slowest_cpu_ns = clock_thread_cpu_ns() - c0;
		s->slowest_what = what;
	}
}

int session_drain(struct session *s, bool all)
{
	uint64_t c = clock_thread_cpu_ns(), t0 = clock_mono_ns();
	struct budget b;
	int err = 0;

	budget_init(&b, NULL, SESSION_DRAIN_ENTRIES, SESSION_DRAIN_NS);
	s->drain_more = false;
	for (size_t i = 0; !err && i < s->nr_cols; i++) {
		struct collector *col = &s->cols[i];

		if (!col->ops->drain)
			continue;
		col->budget = all ? NULL : &b;
		col->drain_more = false;
		err = col->ops->drain(col, on_sample, s);
		col->budget = NULL;
		s->drain_more |= col->drain_more;
	}
	s->work.drain_cut += s->drain_more;
	/* new processes' titles, set after the fork (labels.h): once each */
	if (s->labels)
		labels__settle(s->labels, clock_mono_ns());
	s->work.drain_ns += clock_thread_cpu_ns() - c;
	session_step(s, "draining in-kernel maps", t0, c);
	return err;
}

int session_ring_turn(struct session *s, int wait_ms)
{
	struct proc_handlers h = handlers_proto;
	uint64_t c = clock_thread_cpu_ns(), t0, c0;
	int ret;

	h.arg = s;
	h.max_records = SESSION_TURN_RECORDS;
	h.budget_ns = SESSION_TURN_NS;
	/* work left from the last turn (records, stacks to name): no wait */
	ret = proc_tracker__wait(s->pt, s->ring_more || s->name_more ? 0 : wait_ms);
	/*
	 * The wait is not a step: with it, an idle agent's slowest step read
	 * "100.2 ms (decoding ring records)" every interval, its poll timeout
	 */
	t0 = clock_mono_ns();
	c0 = clock_thread_cpu_ns();
	if (!ret)
		ret = proc_tracker__consume(s->pt, &h);
	session_step(s, "decoding ring records", t0, c0);
	t0 = clock_mono_ns();
	c0 = clock_thread_cpu_ns();
	s->ring_more = ret == 1;
	s->work.cut_turns += s->ring_more;
	/* the wait is not work: the step is the budgeted read alone, as near as it gets */
	proclife__end_batch(s->life);
	session_step(s, "reading new processes' maps", t0, c0);
	s->work.ring_ns += clock_thread_cpu_ns() - c;
	s->work.polls++;
	if (ret < 0)
		pr_warn("record: reading the event ring failed: %s\n", strerror(-ret));
	return ret < 0 ? ret : 0;
}

/* The periodic work besides the ring: in-kernel maps, deferred unwind tables. */
static int session_periodic(struct session *s)
{
	uint64_t t = clock_mono_ns(), t0, c0;
	int err;

	/*
	 * New processes' titles, set after the fork (labels.h), looked at every
	 * LABELS_SETTLE_NS / 2, not only at drains (1 s): a process read before
	 * its title and gone before the next drain kept its parent's command
	 * line for its whole life (t_labels' beta, 0.75 s of CPU: fresh-clone
	 * run 2 of session 15, its 75 samples under the parent's argv). A look
	 * walks the labels (<= LABELS_MAX) and reads only the due ones.
	 */
	if (s->labels && t >= s->next_settle_ns) {
		labels__settle(s->labels, t);
		s->next_settle_ns = t + LABELS_SETTLE_NS / 2;
	}
	/* a drain its budget cut goes on at once, the next one when due */
	if (t < s->next_drain_ns && !s->drain_more)
		return 0;
	err = session_drain(s, false);
	if (err || t < s->next_drain_ns)
		return err;
	if (err)
		return err;
	if (s->deferred.nr) {
		t0 = clock_mono_ns();
		c0 = clock_thread_cpu_ns();
		session_build_deferred(s);
		session_step(s, "building deferred unwind tables", t0, c0);
	}
	/* after a stall, the next drain is an interval from now, not a burst to catch up */
	s->next_drain_ns += s->o->drain_interval_ns;
	if (s->next_drain_ns < t)
		s->next_drain_ns = t + s->o->drain_interval_ns;
	return 0;
}

/*
 * Drain until the monotonic time @until_ns (0: no limit of its own), the
 * duration, a signal or the targets' exit. *done says whether the run is
 * over (anything but @until_ns). Every turn is bounded (session_ring_turn,
 * session_periodic, session_name_turn), so the limits and the signal flag are seen at least
 * every SESSION_POLL_MS plus a turn's budget. 0 or -errno.
 */
static int session_loop(struct session *s, uint64_t until_ns, bool *done)
{
	uint64_t end = s->end_ns, limit;
	int err;

	*done = true;
	while (!session__stopping()) {
		uint64_t t = clock_mono_ns();
		int timeout = SESSION_POLL_MS;

		if (t >= end)
			return 0;
		if (until_ns && t >= until_ns) {
			*done = false;
			return 0;
		}
		limit = until_ns && until_ns < end ? until_ns : end;
		if (limit - t < (uint64_t)SESSION_POLL_MS * 1000000)
			timeout = (limit - t) / 1000000 + 1;
		err = session_ring_turn(s, timeout);
		/*
		 * Tables the builder thread (unwind/tables_build.c) finished: into
		 * the BPF maps; and the re-reads of mappings put off meanwhile.
		 * Under the tables' lock, only tried: while a deferred process
		 * build runs (session_unwind.c), the next turn does them.
		 */
		if (!err && session_unwind_lock(s)) {
			session_refresh_queued(s);
			unwind_tables__poll(s->ut);
			session_unwind_unlock(s);
		}
		/*
		 * JVMs that were starting when first seen: their layouts, once
		 * they have one. Each turn, not each drain (1 s): until then their
		 * stacks end at the first Java frame. Nothing due costs a look.
		 */
		if (!err && s->hw)
			hotspot_walk__poll(s->hw);
		if (!err)
			err = session_periodic(s);
		if (err)
			return err;
		session_name_turn(s);
		if (targets_gone(s)) {
			pr_debug("record: targets exited\n");
			return 0;
		}
		if (log_get_level() >= LOG_DEBUG && clock_mono_ns() >= s->next_report_ns) {
			session_report_stats(s, false);
			s->next_report_ns += s->o->drain_interval_ns;
		}
	}
	return 0;
}

int session__poll(struct session *s, uint64_t until_ns, bool *done)
{
	return session_loop(s, until_ns, done);
}

/* Replay up to a budget of held records (their exits may never come). */
static void session_release(struct session *s)
{
	uint64_t t0 = clock_mono_ns(), c0 = clock_thread_cpu_ns();

	proclife__release(s->life, SESSION_REPLAY_BUDGET);
	session_step(s, "replaying held records", t0, c0);
}

void session__cut(struct session *s, uint64_t at_ns)
{
	for (size_t i = 0; i < s->nr_cols; i++)
		if (s->cols[i].ops->cut)
			s->cols[i].ops->cut(&s->cols[i], at_ns);	/* a failure is logged: nothing lost */
}

int session__flush(struct session *s)
{
	/* one budgeted turn: what is left in the ring goes to the next interval */
	int err = session_ring_turn(s, 0);

	session_release(s);
	/* once per interval, bounded: the titles the interval's profile shows */
	if (s->labels)
		labels__refresh(s->labels);
	/* budgeted as well: what is left goes to the next interval, as in the ring */
	if (!err)
		err = session_drain(s, false);
	return err;
}

void session__take_slowest(struct session *s, const char **what, uint64_t *ns,
			   uint64_t *cpu_ns)
{
	*what = s->slowest_what;
	*ns = s->slowest_ns;
	*cpu_ns = s->slowest_cpu_ns;
	s->slowest_what = NULL;
	s->slowest_ns = s->slowest_cpu_ns = 0;
}

