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

#include "collect/kfuncs.h"
#include "collect/locknames.h"
#include "collect/parts.h"
#include "collect/hotspot_walk.h"
#include "collect/v8_walk.h"
#include "collect/python.h"
#include "record/child_hold.h"
#include "record/labels.h"
#include "record/session_int.h"
#include "record/wakers.h"
#include "sym/procmaps.h"
#include "unwind/tables.h"
#include "util/clock.h"
#include "util/log.h"

/* SIGINT/SIGTERM during -- CMD: CMD gets SIGTERM, then SIGKILL this much later */
#define SESSION_CMD_GRACE_MS 2000

static volatile sig_atomic_t stop_signal;
static volatile uint64_t stop_signal_ns;	/* monotonic, when it came (clock_gettime is signal-safe) */
/* session__open() failed because the command could not be executed */
static bool exec_failed_last;

/*
 * Set while an agent loads its BPF programs: nothing is recorded or being
 * written yet, and one program's verification can take seconds on a busy
 * machine, so SIGINT/SIGTERM end the process at once (the kernel releases
 * what was loaded) rather than after the load.
 */
static volatile sig_atomic_t exit_while_loading;

static void on_signal(int sig)
{
	static const char msg[] = "hotcold: stopped by a signal while loading: nothing recorded\n";

	if (exit_while_loading) {
		/* write(2) and _exit(2) are async-signal-safe; the message is best effort */
		if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
			_exit(0);
		_exit(0);
	}
	if (!stop_signal)
		stop_signal_ns = clock_mono_ns();
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

static bool host_known(uint32_t tgid, void *arg)
{
	struct session *s = arg;

	return symbolizer__knows(s->sym, tgid);
}

static void host_gone(uint32_t tgid, void *arg)
{
	struct session *s = arg;

	symbolizer__add_gone(s->sym, tgid);
}

static void host_exit_maps(uint32_t tgid, const struct procmap *m, size_t n, void *arg)
{
	struct session *s = arg;

	symbolizer__add_exit_maps(s->sym, tgid, m, n);
}

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
	s->env.unwind_procs_fd = unwind_tables__procs_fd(s->ut);
	s->env.unwind_objs_fd = unwind_tables__objs_fd(s->ut);
	/* joined in session_open_targets(), after the collectors load */
	session_unwind_preload_start(s);
	return 0;
}

/*
 * The runtime tables are in; then -p targets' own, built in line before
 * sampling starts, so their first samples use them: on the builder thread
 * (as they were) a postgres's table took 0.3-1 s, its backends' stacks were
 * cut at the first frame meanwhile, and a 4 s recording missed up to a
 * quarter of their WAL flush waits (t_locks_pg, CI). Bounded: past
 * SESSION_TARGETS_INLINE_NS (or a signal) the rest go to the builder.
 */
/*
 * The kernel refused the CFI walker of every collector that would walk
 * (collect/parts.c said so): the tables, and the Python frames riding on
 * the walk, would be built for no reader, at a process's first sight, for
 * the whole run. Dropped here, before any target's build.
 */
static void session_drop_unwind_if_refused(struct session *s)
{
	bool refused = false;

	if (!s->ut)
		return;
	for (size_t i = 0; i < s->nr_cols; i++) {
		if (s->cols[i].walks_cfi)
			return;
		refused |= s->cols[i].parts_refused & PART_BIT(HC_PART_CFI);
	}
	if (!refused)
		return;
	session_unwind_preload_join(s);
	unwind_tables__free(s->ut);
	s->ut = NULL;
	s->env.unwind_cfi = false;
	if (s->py) {
		symbolizer__set_python(s->sym, NULL);
		python__free(s->py);
		s->py = NULL;
		s->env.python = false;
	}
	hotspot_walk__free(s->hw);
	s->hw = NULL;
	s->env.hotspot = false;
	v8_walk__free(s->vw);
	s->vw = NULL;
	s->env.v8 = false;
	s->cfi_refused = true;
	pr_debug("record: no collector walks CFI: no unwind tables built\n");
}

/*
 * A -p target's V8 layout before the start: its first samples name their
 * JavaScript frames (else those before the loader saw it do not).
 */
static void session_v8_targets(struct session *s)
{
	char path[64];

	for (size_t i = 0; s->vw && i < s->o->nr_pids; i++) {
		struct procmaps *pm;

		snprintf(path, sizeof(path), "/proc/%u/maps", s->o->pids[i]);
		pm = procmaps__load(path, PROCMAPS_EXEC_ONLY);
		if (pm)
			v8_walk__add_process(s->vw, s->o->pids[i], pm);
		procmaps__free(pm);
	}
}

static void session_open_targets(struct session *s)
{
	uint64_t t0 = clock_mono_ns();
	size_t late = 0;

	session_unwind_preload_join(s);
	session_drop_unwind_if_refused(s);
	session_v8_targets(s);
	for (size_t i = 0; s->ut && i < s->o->nr_pids; i++) {
		if (!stop_signal && clock_mono_ns() - t0 < SESSION_TARGETS_INLINE_NS) {
			unwind_tables__add_process_now(s->ut, s->o->pids[i]);
			continue;
		}
		unwind_tables__add_process(s->ut, s->o->pids[i]);
		late++;
	}
	if (s->ut && s->o->nr_pids)
		pr_debug("record: tables of %zu -p targets built in %.0f ms before the start, %zu "
			 "left to the builder thread\n", s->o->nr_pids - late,
			 (clock_mono_ns() - t0) / 1e6, late);
}

/*
 * Python frames ride on the CFI walk: the interpreter's native frames must
 * be found to put them in place. Without BPF maps for them, native only.
 */
static void session_open_python(struct session *s)
{
	const char *env = getenv("HOTCOLD_PYTHON");
	int err;

	/* HOTCOLD_PYTHON=0: native frames only (the benchmark's control arm) */
	if (!s->env.unwind_cfi || (env && !strcmp(env, "0")))
		return;
	err = python__new(&s->py, s->env.nr_cpus);
	if (err) {
		pr_info("record: no Python frames: %s\n", strerror(-err));
		return;
	}
	s->env.python = true;
	s->env.python_procs_fd = python__procs_fd(s->py);
	s->env.python_stats_fd = python__stats_fd(s->py);
	s->env.python_nprocs_fd = python__nprocs_fd(s->py);
	symbolizer__set_python(s->sym, python__names(s->py));
}

/*
 * JVMs' Java frames ride on the CFI walk too: without its tables the walk
 * is by frame pointer, which stops at the first Java frame anyway.
 */
static void session_open_hotspot(struct session *s)
{
	const char *env = getenv("HOTCOLD_HOTSPOT");
	int err;

	/* HOTCOLD_HOTSPOT=0: no JVM memory read, for naming or walking (a test's control arm) */
	if (!s->env.unwind_cfi || (env && !strcmp(env, "0")))
		return;
	err = hotspot_walk__new(&s->hw, "/proc");
	if (err) {
		pr_info("record: Java frames not walked: %s\n", strerror(-err));
		return;
	}
	s->env.hotspot = true;
	s->env.hotspot_procs_fd = hotspot_walk__procs_fd(s->hw);
	s->env.hotspot_nprocs_fd = hotspot_walk__nprocs_fd(s->hw);
}

/*
 * V8's JavaScript frames are found by the CFI walk's frame-pointer steps
 * (bpf/lib/unwind_v8.bpf.h): without the walker, none.
 */
static void session_open_v8(struct session *s)
{
	const char *env = getenv("HOTCOLD_V8");
	int err;

	/* HOTCOLD_V8=0: no V8 binary or memory read (a test's control arm) */
	if (!s->env.unwind_cfi || (env && !strcmp(env, "0")))
		return;
	err = v8_walk__new(&s->vw, "/proc");
	if (err) {
		pr_info("record: JavaScript frames not named: %s\n", strerror(-err));
		return;
	}
	s->env.v8 = true;
	s->env.v8_procs_fd = v8_walk__procs_fd(s->vw);
	s->env.v8_nprocs_fd = v8_walk__nprocs_fd(s->vw);
}

static int session_open(struct session *s)
{
	const struct record_opts *o = s->o;
	struct symbolizer_opts so = { .no_demangle = o->no_demangle };
	uint32_t child_pid = 0;
	int err;
	struct proclife_host host = {
		.sample = session_aggregate,
		.read = session_add_process,
		.known = host_known,
		.gone = host_gone,
		.exit_maps = host_exit_maps,
		.forget = session_forget_process,
		.arg = s,
	};

	s->child.pid = -1;
	s->child.go_fd = s->child.err_fd = -1;
	s->words = malloc(sizeof(*s->words) * SESSION_MAX_WORDS);
	/* HOTCOLD_HOTSPOT=0: JVMs' JIT frames named only from perf maps (a test's control arm) */
	so.no_hotspot = getenv("HOTCOLD_HOTSPOT") && !strcmp(getenv("HOTCOLD_HOTSPOT"), "0");
	so.no_v8 = getenv("HOTCOLD_V8") && !strcmp(getenv("HOTCOLD_V8"), "0");
	s->sym = symbolizer__new(&so);
	s->agg = stack_agg__new(o->max_stacks);
	s->life = proclife__new(&host, o->snapshot_at_exec);
	if (!s->words || !s->sym || !s->agg || !s->life)
		return -ENOMEM;
	if (o->label_cmdline || o->proc_labels) {
		s->labels = labels__new();
		if (!s->labels)
			return -ENOMEM;
		labels__set_cgroups(s->labels, o->proc_labels);
	}
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
	if (o->branches && o->output) {
		err = session_branches_open(s);
		if (err)
			return err;
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
	/* the CFI tables' maps first: the proc tracker's exec hook clears theirs */
	err = session_open_unwind(s);
	if (err)
		return err;
	err = proc_tracker__open(&s->pt, o, child_pid, &s->env);
	if (err)
		return err;
	session_open_python(s);
	session_open_hotspot(s);
	session_open_v8(s);
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
		if (!err && stop_signal)
			err = -EINTR;	/* loading can take seconds on a loaded machine */
		if (err) {
			s->nr_cols = i + (err == -EINTR);	/* close only what opened */
			if (err == -EINTR)
				pr_warn("record: stopped by a signal while loading: nothing "
					"recorded\n");
			return err;
		}
	}
	kernel_btf_release();	/* every loader has asked it */
	session_open_targets(s);
	return session_name_open(s);
}

static int session_start(struct session *s)
{
	/*
	 * The tracker first: a tracepoint runs its programs in the order they
	 * were attached, and the collectors' exec hooks (counters.bpf.c) read
	 * the target set as the tracker's has just left it at the same exec.
	 */
	int err = proc_tracker__start(s->pt);

	for (size_t i = 0; !err && i < s->nr_cols; i++)
		err = s->cols[i].ops->start(&s->cols[i]);
	if (err)
		return err;
	if (s->o->cmd_argv) {
		/* HOTCOLD_NO_HOLD=1: published when first seen (the control arm) */
		const char *no_hold = getenv("HOTCOLD_NO_HOLD");
		bool held = false;

		if (s->ut && !(no_hold && !strcmp(no_hold, "1"))) {
			err = child_hold_attach(s->child.pid);
			held = !err;
			if (err)
				pr_debug("record: '%s' not held at its start (ptrace: %s): its "
					 "tables come when it is first seen\n", s->o->cmd_argv[0],
					 strerror(-err));
		}

		err = target_child_release(&s->child);
		if (err) {
			pr_warn("record: cannot execute '%s': %s\n", s->o->cmd_argv[0],
				strerror(-err));
			s->child.pid = -1;	/* reaped by target_child_release() */
			s->exec_failed = true;
			exec_failed_last = true;
			return err;
		}
		session_unwind_hold_child(s, held);
	}
	return 0;
}

static void session_close(struct session *s)
{
	session_unwind_preload_join(s);	/* a failed open: it must not outlive ut */
	if (s->out_open)
		outfile_discard(&s->out);
	for (size_t i = 0; i < s->nr_cols; i++)
		s->cols[i].ops->close(&s->cols[i]);
	proc_tracker__close(s->pt);
	if (s->child.pid > 0 && !s->child_done)
		target_child_abort(&s->child);
	session_name_close(s);	/* before the symbolizer its namer uses */
	session_branches_close(s);
	symbolizer__free(s->sym);
	python__free(s->py);
	hotspot_walk__free(s->hw);
	v8_walk__free(s->vw);
	/* a build still running owns ut: left to the exit, not freed under it */
	if (session_unwind_stop(s, SESSION_BUILDER_WAIT_NS)) {
		unwind_tables__free(s->ut);
		pthread_mutex_destroy(&s->ut_lock);
	}
	keymap__release(&s->ut_rm);
	keymap__release(&s->deferred);
	proclife__free(s->life);
	labels__free(s->labels);
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
	pthread_mutex_init(&s->ut_lock, NULL);
	exit_while_loading = o->exit_while_loading;
	install_signals();
	err = session_open(s);
	exit_while_loading = 0;
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

int session__stop(struct session *s)
{
	uint64_t deadline;
	int err;

	for (size_t i = 0; i < s->nr_cols; i++)
		s->cols[i].ops->stop(&s->cols[i]);
	session_unwind_stop(s, 0);	/* no new builds; the one running ends by itself */
	/*
	 * What the programs wrote before detach is still in the ring; exec and
	 * exit records keep coming (the tracker stays attached), so the read
	 * has a deadline: the exit must come within a second of the signal.
	 */
	deadline = clock_mono_ns() + SESSION_STOP_NS;
	do
		err = session_ring_turn(s, 0);
	while (!err && s->ring_more && clock_mono_ns() < deadline);
	if (s->ring_more)
		pr_warn("record: stopped with records left in the ring (read for %llu ms)\n",
			(unsigned long long)(SESSION_STOP_NS / 1000000));
	/* each call lowers the count: no record is held twice (proclife.h) */
	while (proclife__release(s->life, SESSION_REPLAY_BUDGET))
		;
	if (s->labels)
		labels__refresh(s->labels);	/* titles as they are at the end */
	if (!err)
		err = session_drain(s, true);	/* everything, as the ring above */
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
	session_name_reset(s);
	/* the interval's profile was written: exited processes' labels go */
	if (s->labels)
		labels__purge(s->labels);
	s->samples = s->off_ns = s->off_blocks = s->short_ns = s->short_blocks = s->cpuwait_ns = 0;
	s->runq_ns = s->runq_waits = s->lock_ns = s->lock_waits = 0;
}

void session__report(struct session *s, bool final)
{
	session_report_stats(s, final);
	session_report_self();
}

struct symbolizer *session__symbolizer(struct session *s)
{
	return s->sym;
}

bool session__stopping(void)
{
	return stop_signal != 0;
}

uint64_t session__signal_ns(void)
{
	return stop_signal ? stop_signal_ns : 0;
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
	/* a table build still running uses @s: the process exit takes both */
	if (!s->builder)
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
	err = session_branches_write(s);
	if (err)
		return err;
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
