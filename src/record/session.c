// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A recording run: start the proc tracker and collectors, drain the event
 * ring into bounded user-space aggregation on a timer until the duration,
 * a signal or the targets' exit ends it, then name the stacks and write.
 * The drain is the same one a continuous agent will run forever.
 */
#include "record/session.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect/locknames.h"
#include "record/reason.h"
#include "record/session_int.h"
#include "record/wakers.h"
#include "unwind/tables.h"
#include "util/clock.h"
#include "util/log.h"

/* SIGINT/SIGTERM during -- CMD: CMD gets SIGTERM, then SIGKILL this much later */
#define SESSION_CMD_GRACE_MS 2000

static volatile sig_atomic_t stop_signal;
/* session__open() failed because the command could not be executed */
static bool exec_failed_last;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	/* no SA_RESTART: the ring poll must return early on ^C */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static int on_seen(uint32_t tgid, const char *comm, void *arg)
{
	session_seen(arg, tgid, comm);
	return 0;
}

/*
 * When the user stack of @v was on the CPU, at the latest: a block's stack
 * is read as it ends. UINT64_MAX when unknown (the waker's, a record
 * without time).
 */
static uint64_t stack_time(const struct sample_view *v)
{
	if (!v->time_ns || v->kind == SAMPLE_WAKER)
		return UINT64_MAX;
	if (v->kind == SAMPLE_OFFCPU || v->kind == SAMPLE_LOCK)
		return v->time_ns + v->weight;
	return v->time_ns;
}

/* Kernel ips then normalized user frames (of @tgid) into @w; returns the word count. */
static size_t stack_words(struct session *s, uint32_t tgid, const struct sample_view *v,
			  uint64_t *w, uint16_t *nr_kernel)
{
	struct sym_ufr f[SESSION_MAX_UFRAMES];
	size_t n = 0, nu = v->nr_uips < SESSION_MAX_UFRAMES ? v->nr_uips : SESSION_MAX_UFRAMES, keep;

	for (size_t i = 0; i < v->nr_kips; i++)
		w[n++] = v->kips[i];
	*nr_kernel = n;
	/*
	 * Frames above the leaf are return addresses, normalized as ip - 1: that
	 * lies in the call instruction, so a call to a noreturn function at the
	 * very end of a function is not named after the next function.
	 */
	keep = symbolizer__normalize_stack(s->sym, tgid, v->uips, nu, stack_time(v), f);
	/*
	 * A frame-pointer walk through code built without them (ld.so, glibc)
	 * goes on from a garbage %rbp: its first return address in no mapping
	 * and all after it are noise, not frames to show as [unknown]; so is a
	 * leaf sampled inside execve (the replaced image's ip). CFI walks stop
	 * at such a pc themselves (and ask for a refresh).
	 */
	if (keep < nu && !v->unwind_cfi) {
		s->fp_cut++;
		nu = keep;
	}
	for (size_t i = 0; i < nu; i++) {
		emit_ufr_pack(&f[i], &w[n]);
		n += EMIT_UFR_WORDS;
	}
	return n;
}

int session_sample(struct session *s, const struct sample_view *v)
{
	struct waker_stack wk;
	struct stack_key key;
	uint16_t nk;
	size_t n;

	if (v->new_tgid && !v->kthread)
		session_add_process(s, v->tgid);
	/* first seen without a stack and not read then (session_seen): after this batch */
	else if (v->nr_uips && !v->kthread && !symbolizer__knows(s->sym, v->tgid))
		session_defer_read(s, v->tgid);
	/* a CFI walk that ended early may have met a library mapped since (dlopen) */
	else if (v->unwind_unmapped && s->ut)
		session_refresh_unwind(s, v->tgid);
	/* gone before its maps were read: named when its exit maps come */
	if (session_hold(s, v))
		return 0;
	if (v->kind == SAMPLE_WAKER) {
		/* the waker's stack waits for the record of the block it ended */
		if (s->wakers) {
			n = stack_words(s, v->state, v, s->words, &nk);
			wakers__put(s->wakers, v->pid, v->time_ns, s->words, nk, n - nk);
		}
		return 0;
	}
	memset(&key, 0, sizeof(key));
	key.kind = v->kind;
	if (v->kind == SAMPLE_RUNQ) {
		s->runq_ns += v->weight;
		s->runq_waits++;
		s->rq_stacked_ns += v->weight;
		s->rq_stacked_waits++;
	}
	if (v->kind == SAMPLE_LOCK) {
		key.aux = s->locknames ? locknames__id(s->locknames, v->state & 0x20000 ? 0 : v->tgid,
						       v->state, v->addr) : 0;
		s->lock_ns += v->weight;
		s->lock_waits++;
	}
	if (v->kind == SAMPLE_OFFCPU) {
		key.aux = v->short_blocks ? REASON_NONE : offcpu_reason(v->syscall, v->state);
		key.aux2 = v->short_blocks ? EMIT_AUX2_SHORT : 0;
		if (v->short_blocks) {
			s->short_ns += v->weight;
			s->short_blocks += v->count;
		} else {
			s->off_ns += v->weight;
			s->off_blocks += v->count;
		}
	}
	key.tgid = v->tgid;
	key.pid = v->pid;
	memcpy(key.comm, v->comm, sizeof(key.comm));
	memcpy(key.pcomm, v->pcomm, sizeof(key.pcomm));
	n = stack_words(s, v->tgid, v, s->words, &nk);
	key.nr_kernel = nk;
	if (v->kind == SAMPLE_OFFCPU && !v->short_blocks && s->wakers &&
	    wakers__take(s->wakers, v->pid, v->time_ns, &wk)) {
		/* the waker's words follow; nr_user covers them, aux2 says how many */
		memcpy(&s->words[n], wk.words, ((size_t)wk.nr_kernel + wk.nr_user) * sizeof(uint64_t));
		n += wk.nr_kernel + wk.nr_user;
		key.aux2 = (uint32_t)wk.nr_kernel << 16 | wk.nr_user;
	}
	key.nr_user = n - key.nr_kernel;
	if (v->ustack_truncated)
		key.aux2 |= EMIT_AUX2_TRUNC;
	if (v->kind == SAMPLE_ONCPU)
		s->samples++;
	int err = stack_agg__add(s->agg, &key, s->words, v->weight);
	/* -ENOSPC is counted by the aggregator and reported at the end */
	return err == -ENOSPC ? 0 : err;
}

static int on_sample(const struct sample_view *v, void *arg)
{
	struct session *s = arg;

	s->work.records++;
	return session_sample(s, v);
}

static int on_proc_exec(uint32_t tgid, const char *comm, void *arg)
{
	struct session *s = arg;

	/* the old image's held records: no exit maps will come for it */
	session_gone_exit(s, tgid);
	/* the next sample is flagged new and re-reads the new image's maps */
	symbolizer__forget_process(s->sym, tgid);
	if (s->ut)
		unwind_tables__remove_process(s->ut, tgid);
	if (keymap__del(&s->deferred, tgid, 0, NULL))
		s->deferred_gone++;
	if (s->o->snapshot_at_exec)
		session_snapshot_exec(s, tgid);
	return 0;
}

static int on_proc_maps(uint32_t tgid, const struct procmap *m, size_t n, void *arg)
{
	session_exit_maps(arg, tgid, m, n);
	return 0;
}

static int on_proc_exit(uint32_t tgid, void *arg)
{
	struct session *s = arg;

	session_gone_exit(s, tgid);
	/* ring order: every sample of @tgid was normalized before this record */
	symbolizer__forget_process(s->sym, tgid);
	if (s->ut)
		unwind_tables__remove_process(s->ut, tgid);
	if (keymap__del(&s->deferred, tgid, 0, NULL))
		s->deferred_gone++;
	return 0;
}

static const struct proc_handlers handlers_proto = {
	.sample = on_sample,
	.exec = on_proc_exec,
	.exit = on_proc_exit,
	.seen = on_seen,
	.maps = on_proc_maps,
};

static bool cfi_supported(void)
{
#if defined(__x86_64__)
	return true;
#else
	return false;
#endif
}

/* CFI tables for user stacks, pre-loaded for -p targets so their first samples use them. */
static int session_open_unwind(struct session *s)
{
	struct unwind_tables_opts uo = { .max_rows = s->o->unwind_max_rows };
	int err;

	if (s->o->unwind == UNWIND_FP || !s->o->user_stacks || !cfi_supported())
		return 0;
	err = unwind_tables__new(&s->ut, &uo);
	if (err) {
		if (s->o->unwind == UNWIND_CFI)
			return err;
		pr_info("record: CFI unwinding unavailable, using frame pointers\n");
		return 0;
	}
	s->env.unwind_cfi = true;
	unwind_tables__preload_runtime(s->ut);
	s->env.unwind_procs_fd = unwind_tables__procs_fd(s->ut);
	s->env.unwind_objs_fd = unwind_tables__objs_fd(s->ut);
	for (size_t i = 0; i < s->o->nr_pids; i++)
		unwind_tables__add_process(s->ut, s->o->pids[i]);
	return 0;
}

static int session_open(struct session *s)
{
	const struct record_opts *o = s->o;
	struct symbolizer_opts so = { .no_demangle = o->no_demangle };
	uint32_t child_pid = 0;
	int err;

	s->child.pid = -1;
	s->child.go_fd = s->child.err_fd = -1;
	s->words = malloc(sizeof(*s->words) * SESSION_MAX_WORDS);
	s->sym = symbolizer__new(&so);
	s->agg = stack_agg__new(o->max_stacks);
	if (!s->words || !s->sym || !s->agg)
		return -ENOMEM;
	if (o->wakers) {
		s->wakers = wakers__new(SESSION_WAKER_SLOTS);
		if (!s->wakers)
			return -ENOMEM;
	}
	if (o->locks) {
		s->locknames = locknames__new();
		if (!s->locknames)
			return -ENOMEM;
	}
	/* NULL: the caller writes through session__write() (the agent) */
	if (o->output) {
		err = outfile_open(&s->out, o->output, 0644);
		if (err) {
			pr_warn("record: cannot create '%s': %s\n", o->output, strerror(-err));
			return err;
		}
		s->out_open = true;
	}
	err = target_check(o->pids, o->nr_pids, "process");
	if (!err)
		err = target_check(o->tids, o->nr_tids, "thread");
	if (err)
		return err;
	if (o->cmd_argv) {
		err = target_child_spawn(o->cmd_argv, &s->child);
		if (err) {
			pr_warn("record: cannot start '%s': %s\n", o->cmd_argv[0], strerror(-err));
			return err;
		}
		child_pid = s->child.pid;
	}
	err = proc_tracker__open(&s->pt, o, child_pid, &s->env);
	if (err)
		return err;
	err = session_open_unwind(s);
	if (err)
		return err;
	s->online = calloc(s->env.nr_cpus, sizeof(*s->online));
	if (!s->online)
		return -ENOMEM;
	err = pmu_online_cpus(s->online, s->env.nr_cpus);
	if (err)
		return err;
	s->env.online = s->online;
	s->env.locknames = s->locknames;

	if (o->oncpu)
		s->cols[s->nr_cols++].ops = &oncpu_ops;
	if (o->offcpu || o->runq)
		s->cols[s->nr_cols++].ops = &sched_ops;
	if (o->locks)
		s->cols[s->nr_cols++].ops = &locks_ops;
	if (o->counters)
		s->cols[s->nr_cols++].ops = &counters_ops;	/* record --counters */
	for (size_t i = 0; i < s->nr_cols; i++) {
		err = s->cols[i].ops->open(&s->cols[i], o, &s->env);
		if (err) {
			s->nr_cols = i;	/* close only what opened */
			return err;
		}
	}
	return 0;
}

static int session_start(struct session *s)
{
	int err = proc_tracker__start(s->pt);

	for (size_t i = 0; !err && i < s->nr_cols; i++)
		err = s->cols[i].ops->start(&s->cols[i]);
	if (err)
		return err;
	if (s->o->cmd_argv) {
		err = target_child_release(&s->child);
		if (err) {
			pr_warn("record: cannot execute '%s': %s\n", s->o->cmd_argv[0],
				strerror(-err));
			s->child.pid = -1;	/* reaped by target_child_release() */
			s->exec_failed = true;
			exec_failed_last = true;
			return err;
		}
	}
	return 0;
}

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


/* In-kernel aggregates (off-CPU short blocks) into the same aggregation as ring samples. */
static int session_drain(struct session *s)
{
	uint64_t c = clock_thread_cpu_ns();
	int err = 0;

	for (size_t i = 0; !err && i < s->nr_cols; i++) {
		if (s->cols[i].ops->drain)
			err = s->cols[i].ops->drain(&s->cols[i], on_sample, s);
	}
	s->work.drain_ns += clock_thread_cpu_ns() - c;
	return err;
}

/*
 * Drain until the monotonic time @until_ns (0: no limit of its own), the
 * duration, a signal or the targets' exit. *done says whether the run is
 * over (anything but @until_ns). 0 or -errno.
 */
static int session_loop(struct session *s, uint64_t until_ns, bool *done)
{
	struct proc_handlers h = handlers_proto;
	uint64_t end = s->end_ns, limit, c;
	int err;

	*done = true;
	h.arg = s;
	while (!stop_signal) {
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
		c = clock_thread_cpu_ns();
		err = proc_tracker__poll(s->pt, timeout, &h);
		if (s->to_read.nr)
			session_read_deferred(s);
		s->work.ring_ns += clock_thread_cpu_ns() - c;
		s->work.polls++;
		if (err && err != -EINTR) {
			pr_warn("record: reading the event ring failed: %s\n", strerror(-err));
			return err;
		}
		if (clock_mono_ns() >= s->next_drain_ns) {
			err = session_drain(s);
			if (err)
				return err;
			if (s->deferred.nr)
				session_build_deferred(s);
			s->next_drain_ns += s->o->drain_interval_ns;
		}
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

static void session_close(struct session *s)
{
	if (s->out_open)
		outfile_discard(&s->out);
	for (size_t i = 0; i < s->nr_cols; i++)
		s->cols[i].ops->close(&s->cols[i]);
	proc_tracker__close(s->pt);
	if (s->child.pid > 0 && !s->child_done)
		target_child_abort(&s->child);
	symbolizer__free(s->sym);
	unwind_tables__free(s->ut);
	keymap__release(&s->deferred);
	keymap__release(&s->comm_read);
	keymap__release(&s->to_read);
	session_free_held(s);
	stack_agg__free(s->agg);
	wakers__free(s->wakers);
	locknames__free(s->locknames);
	free(s->online);
	free(s->words);
}

/*
 * After recording: wait for the command so we can exit with its status;
 * stopped by SIGINT/SIGTERM, end it first (SIGTERM, SIGKILL after
 * SESSION_CMD_GRACE_MS) instead of waiting for it to finish on its own.
 */
static void reap_child(struct session *s, int *cmd_status)
{
	if (!s->o->cmd_argv || s->child.pid <= 0)
		return;
	if (!s->child_done && stop_signal) {
		if (target_child_end(&s->child, SESSION_CMD_GRACE_MS, &s->child_wstatus))
			pr_warn("hotcold: %s did not exit %d ms after SIGTERM: killed\n",
				s->o->cmd_argv[0], SESSION_CMD_GRACE_MS);
		s->child_done = true;
	}
	if (!s->child_done) {
		while (waitpid(s->child.pid, &s->child_wstatus, 0) < 0 && errno == EINTR)
			;
		s->child_done = true;
	}
	*cmd_status = target_exit_status(s->child_wstatus);
}

int session__open(struct session **out, const struct record_opts *o)
{
	struct session *s = calloc(1, sizeof(*s));
	uint64_t t;
	int err;

	if (!s)
		return -ENOMEM;
	s->o = o;
	s->held_tail = &s->held_head;
	install_signals();
	err = session_open(s);
	if (!err)
		err = session_start(s);
	if (err) {
		session__close(s, NULL);
		return err;
	}
	t = clock_mono_ns();
	s->start_ns = t;
	s->start_unix_ns = clock_ns(CLOCK_REALTIME);
	s->end_ns = o->duration_ns ? t + o->duration_ns : UINT64_MAX;
	s->next_drain_ns = s->next_report_ns = t + o->drain_interval_ns;
	session_describe(s);
	*out = s;
	return 0;
}

int session__poll(struct session *s, uint64_t until_ns, bool *done)
{
	return session_loop(s, until_ns, done);
}

int session__stop(struct session *s)
{
	struct proc_handlers h = handlers_proto;
	int err;

	for (size_t i = 0; i < s->nr_cols; i++)
		s->cols[i].ops->stop(&s->cols[i]);
	/* what the programs wrote before detach is still in the ring */
	h.arg = s;
	err = proc_tracker__consume(s->pt, &h);
	session_release_held(s);
	if (!err)
		err = session_drain(s);
	return err;
}

int session__flush(struct session *s)
{
	struct proc_handlers h = handlers_proto;
	int err;

	h.arg = s;
	err = proc_tracker__consume(s->pt, &h);
	session_release_held(s);
	if (!err)
		err = session_drain(s);
	return err;
}

int session__write(struct session *s, FILE *f, enum out_format fmt)
{
	struct emit_stats es;

	return session_write_to(s, f, fmt, &es);
}

void session__reset(struct session *s)
{
	stack_agg__clear(s->agg);
	s->samples = s->off_ns = s->off_blocks = s->short_ns = s->short_blocks = 0;
	s->runq_ns = s->runq_waits = s->lock_ns = s->lock_waits = 0;
}

void session__report(struct session *s, bool final)
{
	session_report_stats(s, final);
	session_report_self();
}

void session__counts(const struct session *s, struct session_counts *c)
{
	memset(c, 0, sizeof(*c));
	c->samples = s->samples;
	c->off_ns = s->off_ns;
	c->off_blocks = s->off_blocks;
	c->short_ns = s->short_ns;
	c->short_blocks = s->short_blocks;
	c->runq_ns = s->runq_ns;
	c->runq_waits = s->runq_waits;
	c->lock_ns = s->lock_ns;
	c->lock_waits = s->lock_waits;
	c->stacks = stack_agg__nr_entries(s->agg);
	c->stacks_dropped = stack_agg__dropped(s->agg);
	c->procs_late = s->procs_late;
	c->held_dropped = s->held_dropped;
}

void session__stats(struct session *s, session_stat_fn fn, void *arg)
{
	struct collector_stats st;

	for (size_t i = 0; i < s->nr_cols; i++) {
		s->cols[i].ops->stats(&s->cols[i], &st);
		for (size_t j = 0; j < st.nr; j++)
			fn(s->cols[i].ops->name, st.s[j].name, st.s[j].value, st.s[j].loss, arg);
	}
	proc_tracker__stats(s->pt, &st);
	for (size_t j = 0; j < st.nr; j++)
		fn("proc", st.s[j].name, st.s[j].value, st.s[j].loss, arg);
	if (s->ut) {
		struct unwind_tables_stats us;

		unwind_tables__stats(s->ut, &us);
		fn("unwind", "tables built", us.objects_built, false, arg);
		fn("unwind", "idle tables reused", us.objects_reused, false, arg);
		fn("unwind", "tables refused (row or object limit)", us.over_limit, true, arg);
		fn("unwind", "mappings beyond the per-process limit", us.maps_dropped, true, arg);
		fn("unwind", "processes without tables", us.procs_failed, true, arg);
		fn("unwind", "processes given their new tables late", s->deferred_built, false,
		   arg);
		fn("unwind", "processes gone before their new tables were built",
		   s->deferred_gone, false, arg);
	}
	/* where the loader's own CPU goes (thread CPU time, ns) */
	fn("loader", "ring polls", s->work.polls, false, arg);
	fn("loader", "records decoded", s->work.records, false, arg);
	fn("loader", "cpu ns in ring polls (records and new processes)", s->work.ring_ns, false,
	   arg);
	fn("loader", "new processes read", s->work.adds, false, arg);
	fn("loader", "first sights left to a process's first stack", s->seen_lazy, false, arg);
	fn("loader", "records held for exit maps and replayed", s->held_replayed, false, arg);
	fn("user", "frame-pointer stacks cut at an address in no mapping", s->fp_cut, false,
	   arg);
	fn("loader", "cpu ns reading new processes (maps, tables)", s->work.add_ns, false, arg);
	fn("loader", "cpu ns draining in-kernel maps", s->work.drain_ns, false, arg);
	fn("loader", "execs snapshotted", s->work.execs, false, arg);
	fn("loader", "cpu ns snapshotting execs", s->work.exec_ns, false, arg);
}

struct symbolizer *session__symbolizer(struct session *s)
{
	return s->sym;
}

bool session__stopping(void)
{
	return stop_signal != 0;
}

void session__close(struct session *s, int *cmd_status)
{
	if (!s)
		return;
	if (cmd_status)
		reap_child(s, cmd_status);
	if (cmd_status && s->exec_failed)
		*cmd_status = 127;
	session_close(s);
	free(s);
}

/* Write the aggregation to the output opened at the start; commit or discard it. */
static int session_write_output(struct session *s)
{
	struct emit_stats es;
	int err;

	err = session_write_to(s, s->out.f, session_output_format(s->o), &es);
	if (!err)
		err = outfile_commit(&s->out);
	else
		err = outfile_fail(&s->out, err);	/* -ENOSPC, not the writer's -EIO */
	s->out_open = false;
	if (err) {
		pr_warn("record: cannot write '%s': %s\n", s->o->output, strerror(-err));
		return err;
	}
	s->written = es;
	s->wrote = true;
	return 0;
}

int session_run(const struct record_opts *o, int *cmd_status)
{
	struct session *s;
	bool done;
	int err;

	*cmd_status = -1;
	err = session__open(&s, o);
	if (err) {
		/* the command never ran: 127 when its exec failed */
		if (err && o->cmd_argv && err != -ENOMEM && exec_failed_last)
			*cmd_status = 127;
		return err;
	}
	err = session__poll(s, 0, &done);
	if (!err)
		err = session__stop(s);
	if (!err)
		err = session_write_output(s);
	session_report_stats(s, true);
	session_report_counters(s);
	session_report_self();
	if (s->wrote)
		session_report_written(s);
	session__close(s, cmd_status);
	return err;
}
