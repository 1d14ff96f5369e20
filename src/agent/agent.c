// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The interval loop: poll, write the interval, reset, observe, reload on SIGHUP. */
#include "agent/agent.h"

#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "agent/http.h"
#include "agent/metrics.h"
#include "agent/push.h"
#include "agent/sink.h"
#include "agent/store.h"
#include "agent/writer.h"
#include "record/session.h"
#include "sym/symbolizer.h"
#include "util/clock.h"
#include "util/log.h"

/* A slice of polling: how late a SIGHUP or an HTTP request may be served. */
#define AGENT_SLICE_NS (200 * 1000000ull)
/*
 * A step of the loop longer than this is a stall: half of the second in
 * which SIGTERM must end the agent. Logged once per kind of step, counted.
 */
#define AGENT_STALL_NS (500 * 1000000ull)
#define AGENT_STALL_KINDS 16
/*
 * An interval that ends more than a tenth of its length past its due time
 * is late: said with what its last turn did, for the first few; counted.
 */
#define AGENT_LATE_LOGGED 3
/*
 * Naming left for an interval's end (the stacks of its last turn; the rest
 * was named while it ran): at most 5% of the interval, at most this long.
 * Past it, stacks keep their weight unnamed, counted (session.h).
 */
#define AGENT_NAME_END_NS (250 * 1000000ull)
/*
 * SIGTERM ends the agent within 1 s: the writer gets until 0.8 s after the
 * signal for the partial interval (the loop sees the signal within ~0.15 s,
 * stopping the session takes up to 0.3 s, naming the rest up to 0.25 s;
 * the write itself takes tens of ms unless the disk stalls), and at least
 * this minimum when the stop came late.
 */
#define AGENT_STOP_WRITE_NS (800 * 1000000ull)
#define AGENT_STOP_MIN_NS (50 * 1000000ull)

static volatile sig_atomic_t hup;

static void on_hup(int sig)
{
	hup = 1;
}

struct agent {
	struct agent_config cfg;
	struct record_opts o;
	struct session *s;
	struct store *st;
	struct sink sink;	/* the writer thread's side: the store, its lock, the pusher */
	struct writer *w;	/* the writer thread (writer.h) */
	struct writer_stats final_ws;	/* once it stopped */
	bool writer_stuck;	/* still writing at the stop deadline: not freed */
	uint64_t stop_deadline_ns;	/* monotonic: the partial interval written by then */
	bool log_pending;	/* the last interval's log line waits for its write */
	uint64_t log_seq;	/* ... the writer's queued count when it was handed over */
	uint64_t rotate_cpu_ns;	/* the loop's CPU naming and handing over, all intervals */
	struct http *http;
	struct pusher *push;	/* NULL: no push */
	struct metrics m;
	int64_t start_ms;	/* interval start, Unix ms */
	uint64_t start_ns;	/* the same, monotonic */
	bool runq_warned;
	const char *slowest_what;	/* the agent's own longest step this interval */
	uint64_t slowest_ns, slowest_cpu_ns;	/* its wall time, and the CPU it got */
	const char *stalls_logged[AGENT_STALL_KINDS];	/* kinds of stall already logged */
};

/* A step of the agent's own (encoding, writing) began at @t0 with the thread's CPU at @c0. */
static void agent_step(struct agent *a, const char *what, uint64_t t0, uint64_t c0)
{
	uint64_t ns = clock_mono_ns() - t0;

	if (ns > a->slowest_ns) {
		a->slowest_ns = ns;
		a->slowest_cpu_ns = clock_thread_cpu_ns() - c0;
		a->slowest_what = what;
	}
}

/*
 * The loop came back @ns late (past AGENT_STALL_NS), its slowest step
 * @what having had @cpu_ns of CPU (much less than @ns: the machine's load
 * kept the agent waiting): counted; logged once per kind.
 */
static void agent_stall(struct agent *a, const char *what, uint64_t ns, uint64_t cpu_ns)
{
	size_t i;

	a->m.stalls++;
	for (i = 0; i < AGENT_STALL_KINDS && a->stalls_logged[i]; i++)
		if (a->stalls_logged[i] == what)
			return;
	if (i < AGENT_STALL_KINDS)
		a->stalls_logged[i] = what;
	pr_warn("agent: the loop stalled %.3f s %s (%.3f s of CPU in that step; logged once; "
		"hotcold_agent_stalls_total counts them)\n", ns / 1e9,
		what ? what : "in an unnamed step", cpu_ns / 1e9);
}

/*
 * The session's longest step since the last call joins the agent's; it is
 * given in @what/@ns/@cpu when they are not NULL.
 */
static void agent_merge_slowest_of(struct agent *a, const char **what_out, uint64_t *ns_out,
				   uint64_t *cpu_out)
{
	const char *what;
	uint64_t ns, cpu;

	session__take_slowest(a->s, &what, &ns, &cpu);
	if (ns > a->slowest_ns) {
		a->slowest_ns = ns;
		a->slowest_cpu_ns = cpu;
		a->slowest_what = what;
	}
	if (what_out)
		*what_out = what, *ns_out = ns, *cpu_out = cpu;
}

static void agent_merge_slowest(struct agent *a)
{
	agent_merge_slowest_of(a, NULL, NULL, NULL);
}

/*
 * The interval ends @late_ns past its due time, seen by a turn that began
 * at @t0, the thread's CPU time then @c0, to wait until then. Which of the two it was, the agent's
 * work or the machine's, is in the turn: its slowest step with the CPU the
 * agent got in it, and the whole turn's wall and CPU time (a turn that got
 * little CPU waited for it: the machine's load, or the hypervisor's steal).
 */
static void agent_late(struct agent *a, uint64_t late_ns, uint64_t t0, uint64_t c0,
		       const char *what, uint64_t ns, uint64_t cpu_ns)
{
	uint64_t wall = clock_mono_ns() - t0, cpu = clock_thread_cpu_ns() - c0;

	a->m.intervals_late++;
	if (a->m.intervals_late > AGENT_LATE_LOGGED)
		return;
	pr_warn("agent: interval %llu ended %.0f ms late (past a tenth of its length); its last "
		"turn: %.0f ms, %.0f ms of CPU; its slowest step %.0f ms %s (%.0f ms of CPU); "
		"the first %d are logged, hotcold_agent_intervals_late_total counts them\n",
		(unsigned long long)a->m.intervals + 1, late_ns / 1e6, wall / 1e6, cpu / 1e6,
		ns / 1e6, what ? what : "(no step)", cpu_ns / 1e6, AGENT_LATE_LOGGED);
}

/*
 * HOTCOLD_AGENT_RING_BYTES: a test knob, not an option (the default is
 * sized from the CPU count): a tiny ring overflows on purpose
 * (t_agent_churn). A power of two >= 4096, else ignored with a warning.
 */
static size_t ring_from_env(void)
{
	const char *e = getenv("HOTCOLD_AGENT_RING_BYTES");
	unsigned long long v;
	char *end;

	if (!e)
		return 0;
	errno = 0;
	v = strtoull(e, &end, 10);
	if (errno || *end || v < 4096 || v > (1ull << 30) || (v & (v - 1))) {
		pr_warn("agent: ignoring HOTCOLD_AGENT_RING_BYTES='%s': not a power of two "
			"in 4096..1G\n", e);
		return 0;
	}
	return v;
}

static void opts_from_config(struct record_opts *o, const struct agent_config *c)
{
	record_opts_init(o);
	o->output = NULL;	/* the agent writes through the store */
	o->oncpu = c->oncpu;
	o->freq_hz = c->freq_hz;
	o->offcpu = c->offcpu;
	o->min_block_ns = c->min_block_ns;
	o->block_quantum_ns = c->block_quantum_ns;
	o->runq = c->runq;
	o->min_runq_ns = c->min_runq_ns;
	/* one histogram for all: the agent reads only its totals (waits without a stack) */
	o->runq_per = 0;
	/*
	 * New CFI tables for a process that has lived 2 s: compilers and shell
	 * loops on a busy machine made table builds most of the agent's CPU
	 */
	o->unwind_defer_ns = 2000000000ull;
	/*
	 * Off by default: ~35 us per exec, which at 19 Hz rarely pays off (a
	 * process living a few ms is seldom sampled); for process storms
	 */
	o->snapshot_at_exec = c->maps_at_exec;
	o->label_cmdline = c->label_cmdline;
	o->unwind = c->unwind;
	/* service rules by command line or cgroup, container labels (push.h) */
	o->proc_labels = c->push != NULL;
	o->name_ahead = true;	/* an interval's end names little (session__take_profile) */
	o->exit_while_loading = true;	/* nothing to write yet: a stop is an exit */
	o->locks = c->locks;
	o->counters = c->counters;
	o->pids = c->pids;
	o->nr_pids = c->nr_pids;
	o->rules = c->rules;
	o->system_wide = !c->nr_pids && !target_rules_any(&c->rules);
	o->max_stacks = c->max_stacks;
	o->ring_bytes = ring_from_env();
}

static int live_profile(struct profile *p, void *arg)
{
	struct agent *a = arg;
	int err = session__flush(a->s);

	return err ? err : session__profile(a->s, p);
}

/*
 * The interval's per-process counters as JSON into @j: only the loop may
 * read the session. A failure costs the counters, not the interval (warned).
 */
static void counters_json(struct agent *a, struct interval_job *j)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f) {
		err = -ENOMEM;
	} else {
		err = session__write_counters(a->s, f);
		if (fclose(f) && !err)
			err = -ENOMEM;
	}
	if (err) {
		free(buf);
		pr_warn("agent: the interval's counters not written: %s\n", strerror(-err));
		return;
	}
	j->counters = buf;
	j->counters_len = len;
}

/*
 * Hand the named interval @j to the writer thread; the loop goes on at
 * once. While sampling it never waits: a writer HANDOFF_SLOTS intervals
 * behind (a disk that stalls) costs this interval, said and counted; the
 * last one (@partial) may wait for room until the stop deadline.
 */
static int agent_hand_over(struct agent *a, struct interval_job *j)
{
	uint64_t t0 = clock_mono_ns(), c0 = clock_thread_cpu_ns();
	struct writer_stats ws;
	char stamp[STORE_STAMP_LEN];
	int err;

	store_stamp(j->start_ms, stamp, sizeof(stamp));
	err = writer__put(a->w, j, j->partial ? a->stop_deadline_ns : 0);
	agent_step(a, "handing the interval to the writer", t0, c0);
	if (!err) {
		writer__stats(a->w, &ws);
		a->log_seq = ws.h.queued;	/* logged once written (agent_log_written) */
		return 0;
	}
	writer__stats(a->w, &ws);
	if (err == -EBUSY)
		pr_warn("agent: interval %s not written: the writer is still busy with %llu "
			"earlier ones (a slow or stalled disk); %llu skipped so far "
			"(hotcold_agent_intervals_skipped_total)\n", stamp,
			(unsigned long long)ws.waiting + 1, (unsigned long long)ws.h.skipped_full);
	else
		pr_warn("agent: interval %s not written: %s\n", stamp, strerror(-err));
	return err;
}

/* The writer's statistics, the final ones once it stopped. */
static void agent_writer_stats(struct agent *a, struct writer_stats *ws)
{
	if (a->w && !a->writer_stuck)
		writer__stats(a->w, ws);
	else
		*ws = a->final_ws;
}

/*
 * The last interval's log line once the writer is done with it, so that
 * "agent: interval N:" means its files are in place (or their loss was
 * said): tests and operators read the history after it. @force: now,
 * written or not (a new interval ends, the agent stops).
 */
static void agent_log_written(struct agent *a, bool force)
{
	struct writer_stats ws;

	if (!a->log_pending)
		return;
	agent_writer_stats(a, &ws);
	if (!force && ws.h.written + ws.h.failed + ws.h.lost_at_stop < a->log_seq)
		return;
	a->log_pending = false;
	http__lock(a->http);
	sink_stats(&a->sink, &a->m.store, &a->m.store_intervals);
	a->m.writer = ws;
	a->m.write_ns = a->rotate_cpu_ns + ws.cpu_ns;
	http__unlock(a->http);
	metrics_log(&a->m);
}

/*
 * Close the interval that ended at @end_ms / @end_ns (the loop saw its
 * timer then): name it, hand it to the writer, empty the aggregation,
 * refresh the metrics. The encoding and writing run on the writer thread.
 */
static int agent_rotate(struct agent *a, int64_t end_ms, uint64_t end_ns, bool partial)
{
	struct interval_job j = { .start_ms = a->start_ms, .end_ms = end_ms, .partial = partial };
	struct session_counts c;
	uint64_t c0 = clock_thread_cpu_ns(), t0, c1, due, name_ns;
	int err;

	agent_log_written(a, true);	/* the previous one, if the writer is still at it */
	err = session__fold_unstacked_runq(a->s);
	if (err && !a->runq_warned) {
		pr_warn("agent: run-queue waits without stack not counted: %s\n", strerror(-err));
		a->runq_warned = true;
	}
	session__counts(a->s, &c);
	name_ns = a->cfg.interval_ns / 20;
	if (name_ns > AGENT_NAME_END_NS)
		name_ns = AGENT_NAME_END_NS;
	err = session__take_profile(a->s, name_ns, &j.p);	/* a step of the session's */
	if (!err) {
		/* the interval's span, not the session's: every stored profile says when it was */
		profile__set_time(j.p, (uint64_t)a->start_ms * 1000000ull,
				  (uint64_t)(end_ms - a->start_ms) * 1000000ull);
		if (a->cfg.counters)
			counters_json(a, &j);
		a->log_pending = !agent_hand_over(a, &j);
	} else {
		pr_warn("agent: cannot name the interval: %s\n", strerror(-err));
	}
	session__reset(a->s);
	/*
	 * The interval's frames are named and gone (the agent keeps no waker
	 * stacks across intervals): free what only exited processes used.
	 */
	t0 = clock_mono_ns();
	c1 = clock_thread_cpu_ns();
	if (!partial)		/* the last one: the exit frees everything */
		symbolizer__trim(session__symbolizer(a->s));
	agent_step(a, "trimming symbols after the interval", t0, c1);
	a->rotate_cpu_ns += clock_thread_cpu_ns() - c0;
	http__lock(a->http);	/* the web view's threads read the metrics */
	a->m.intervals++;
	due = a->start_ns + a->cfg.interval_ns;
	a->m.interval_late_ns = end_ns > due ? end_ns - due : 0;
	a->m.loop_lag_max_ns = a->m.loop_lag_max_cur;
	a->m.loop_lag_max_cur = 0;
	agent_merge_slowest(a);
	a->m.slowest_what = a->slowest_what;
	a->m.slowest_ns = a->slowest_ns;
	a->m.slowest_cpu_ns = a->slowest_cpu_ns;
	a->slowest_what = NULL;
	a->slowest_ns = a->slowest_cpu_ns = 0;
	metrics_update(&a->m, a->s, &c, (end_ns - a->start_ns) / 1e9);
	sink_stats(&a->sink, &a->m.store, &a->m.store_intervals);
	agent_writer_stats(a, &a->m.writer);
	a->m.write_ns = a->rotate_cpu_ns + a->m.writer.cpu_ns;
	if (a->push)
		pusher__stats(a->push, &a->m.push);
	http__unlock(a->http);
	if (!a->log_pending)
		metrics_log(&a->m);	/* nothing handed over: no write to wait for */
	a->start_ms = end_ms;
	a->start_ns = end_ns;
	/* a failed write (full disk, too big) is counted on the writer; the agent keeps running */
	return err == -ENOMEM ? err : 0;
}

/* SIGHUP: interval and retention apply now; collector changes need a restart. */
static void agent_reload(struct agent *a, agent_reload_fn reload, void *arg)
{
	struct agent_config n;

	hup = 0;
	if (!reload || reload(&n, arg)) {
		pr_warn("agent: configuration not reloaded; keeping the running one\n");
		return;
	}
	if (n.oncpu != a->cfg.oncpu || n.offcpu != a->cfg.offcpu || n.runq != a->cfg.runq ||
	    n.locks != a->cfg.locks || n.counters != a->cfg.counters ||
	    n.label_cmdline != a->cfg.label_cmdline || n.unwind != a->cfg.unwind ||
	    n.freq_hz != a->cfg.freq_hz ||
	    strcmp(n.dir, a->cfg.dir) || (n.http == NULL) != (a->cfg.http == NULL))
		pr_warn("agent: collector, label, unwind, directory or http changes take effect at restart\n");
	a->cfg.interval_ns = n.interval_ns;
	a->cfg.keep = n.keep;
	sink_set_retention(&a->sink, &n.keep);	/* the writer applies it before its next write */
	pr_info("agent: reloaded: interval %.3f s, retention %llu s, %llu intervals, %llu bytes\n",
		n.interval_ns / 1e9, (unsigned long long)(n.keep.max_age_ns / 1000000000ull),
		(unsigned long long)n.keep.max_intervals, (unsigned long long)n.keep.max_bytes);
	agent_config_release(&n);
}

/*
 * One turn: poll the session until the interval's end or a slice, serve
 * HTTP and SIGHUP, rotate when due. Every part is bounded (session.h), so
 * the turn comes back to the timers and the signal flag; how late it came
 * back is the loop's lag (metrics). 1: stop; 0: go on; or -errno.
 */
static int agent_turn(struct agent *a, agent_reload_fn reload, void *arg)
{
	uint64_t until = a->start_ns + a->cfg.interval_ns, t0 = clock_mono_ns(), t, cpu;
	uint64_t due = until, c0 = clock_thread_cpu_ns(), step_ns, step_cpu;
	const char *what, *step;
	int64_t end_ms;
	bool done = false;
	int err;

	if (t0 + AGENT_SLICE_NS < until)
		until = t0 + AGENT_SLICE_NS;
	err = session__poll(a->s, until, &done);
	if (!err && a->http)
		http__poll(a->http);
	if (!err && hup)
		agent_reload(a, reload, arg);
	if (err || done || session__stopping())
		return err ? err : 1;
	t = clock_mono_ns();
	if (t >= a->start_ns + a->cfg.interval_ns) {
		/*
		 * The interval ends now, when the loop sees its timer: the
		 * flush and the naming below belong to the next one's time
		 */
		end_ms = clock_unix_ms();
		/* this turn's steps, before the rotate's own join them */
		agent_merge_slowest_of(a, &step, &step_ns, &step_cpu);
		if (t > due && t - due > a->cfg.interval_ns / 10)
			agent_late(a, t - due, t0, c0, step, step_ns, step_cpu);
		/* blocks going on across the boundary: each interval gets its part */
		session__cut(a->s, t);
		err = session__flush(a->s);	/* its steps are the session's */
		if (!err)
			err = agent_rotate(a, end_ms, t, false);
	} else {
		agent_log_written(a, false);
	}
	t = clock_mono_ns();
	t = t > until ? t - until : 0;
	http__lock(a->http);	/* the web view's threads read the metrics */
	metrics_loop_turn(&a->m, t);
	agent_merge_slowest(a);
	http__unlock(a->http);
	/* a rotate in this turn moved its steps to the metrics */
	if (a->slowest_ns >= a->m.slowest_ns)
		what = a->slowest_what, cpu = a->slowest_cpu_ns;
	else
		what = a->m.slowest_what, cpu = a->m.slowest_cpu_ns;
	if (t >= AGENT_STALL_NS)
		agent_stall(a, what, t, cpu);
	return err;
}

/*
 * The writer finishes what it holds until the stop deadline. Still writing
 * then (a stalled disk), it is left to it: the process exits as after a
 * crash (the index stays true to the files, store.h), and nothing the
 * writer uses is freed under it (agent_run).
 */
static void agent_stop_writer(struct agent *a)
{
	if (!a->w || a->writer_stuck)
		return;
	if (writer__stop(a->w, a->stop_deadline_ns, &a->final_ws) == -ETIMEDOUT) {
		a->writer_stuck = true;
		pr_warn("agent: exiting while an interval is still being written (a stalled disk): "
			"it may be lost\n");
	} else {
		a->w = NULL;
	}
	if (a->final_ws.h.lost_at_stop)
		pr_warn("agent: %llu intervals not written: the writer was behind at the stop "
			"deadline\n", (unsigned long long)a->final_ws.h.lost_at_stop);
	agent_log_written(a, true);
}

static int agent_loop(struct agent *a, agent_reload_fn reload, void *arg)
{
	uint64_t t0, c0, t1, sig;
	int err;

	do
		err = agent_turn(a, reload, arg);
	while (!err);
	if (err == 1)
		err = 0;
	if (err)
		pr_warn("agent: stopping: %s\n", strerror(-err));
	/* the partial interval: what was recorded up to the signal */
	t0 = clock_mono_ns();
	sig = session__signal_ns();
	if (sig)
		pr_debug("agent: the loop saw the signal %.3f s after it came\n", (t0 - sig) / 1e9);
	a->stop_deadline_ns = (sig ? sig : t0) + AGENT_STOP_WRITE_NS;
	if (a->stop_deadline_ns < t0 + AGENT_STOP_MIN_NS)
		a->stop_deadline_ns = t0 + AGENT_STOP_MIN_NS;
	c0 = clock_thread_cpu_ns();
	if (!session__stop(a->s)) {
		t1 = clock_mono_ns();
		agent_rotate(a, clock_unix_ms(), t1, true);
		agent_stop_writer(a);
		pr_debug("agent: stopped in %.3f s (%.3f s of CPU): %.3f s to stop the session, "
			 "%.3f s to write the partial interval\n", (clock_mono_ns() - t0) / 1e9,
			 (clock_thread_cpu_ns() - c0) / 1e9, (t1 - t0) / 1e9,
			 (clock_mono_ns() - t1) / 1e9);
	}
	agent_stop_writer(a);	/* no partial interval: what is queued */
	return err;
}

/*
 * Kernel symbols now, not in the first interval's naming: parsing
 * /proc/kallsyms takes ~0.3 s of CPU, more on a busy machine, and made the
 * first interval late. Any address loads them.
 */
static void agent_warm_symbols(struct agent *a)
{
	char name[64];
	unsigned int flags;

	symbolizer__kernel_name(session__symbolizer(a->s), 0, name, sizeof(name), &flags);
}

int agent_run(const struct agent_config *c, agent_reload_fn reload, void *arg)
{
	struct sigaction sa = { .sa_handler = on_hup };
	struct http_source hs;
	struct agent *a = calloc(1, sizeof(*a));
	int stats_fd = -1, err;
	uint64_t t0;

	if (!a)
		return -ENOMEM;
	a->cfg = *c;
	/*
	 * A fixed threshold: big transient buffers (CFI rows of a new object, an
	 * interval's encoding) come from mmap and go back at free. glibc's
	 * default raises the threshold after such a free, leaving later ones on
	 * a heap that only grows.
	 */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
	/*
	 * One heap: the unwind builder thread's transient CFI rows would
	 * otherwise grow a second arena that malloc_trim() rarely shrinks.
	 */
	mallopt(M_ARENA_MAX, 1);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGHUP, &sa, NULL);
	opts_from_config(&a->o, c);
	err = store__open(&a->st, c->dir, &c->keep);
	if (err)
		goto out;
	sink_init(&a->sink, a->st);
	if (c->bpf_stats) {
		/* run_time_ns per program while this fd is open (costs ~20 ns per run) */
		stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (stats_fd < 0)
			pr_warn("agent: cannot enable BPF statistics: %s\n", strerror(errno));
	}
	err = session__open(&a->s, &a->o);
	if (err == -EINTR) {
		err = 0;	/* SIGTERM while loading: a stop, before the first interval */
		goto out;
	}
	if (err)
		goto out;
	malloc_trim(0);	/* after loading: the runtime objects' CFI tables were built */
	if (c->http) {
		hs = (struct http_source){ a->st, &a->sink.store_mu, &a->m, live_profile, a,
					  1000000000ull / c->freq_hz, c->http_token_file };
		err = http__start(&a->http, c->http, &hs);
		if (err)
			goto out;
	}
	if (c->push) {
		err = pusher__start(&a->push, c, a->st);
		if (err)
			goto out;
		a->m.push_enabled = true;
	}
	/* the pusher read the history already: from now on only the writer changes it */
	a->sink.push = a->push;
	err = writer__start(&a->w, &(struct writer_ops){ sink_write, sink_release, &a->sink });
	if (err)
		goto out;
	a->start_ms = clock_unix_ms();
	a->start_ns = clock_mono_ns();
	pr_info("agent: writing every %.3f s to '%s'\n", c->interval_ns / 1e9, c->dir);
	agent_warm_symbols(a);	/* in the first interval, before its loop: not in its naming */
	err = agent_loop(a, reload, arg);
out:
	agent_stop_writer(a);	/* after a failed start: nothing queued */
	/* after the partial interval is written: the flush is bounded by push_flush */
	t0 = clock_mono_ns();
	if (!a->writer_stuck)	/* else the writer may still tell the pusher */
		pusher__stop(a->push);
	http__stop(a->http);
	session__close(a->s, NULL);
	pr_debug("agent: closed in %.3f s\n", (clock_mono_ns() - t0) / 1e9);
	if (stats_fd >= 0)
		close(stats_fd);
	if (a->writer_stuck)
		return err;	/* the writer still uses the store and @a: the exit frees them */
	if (a->sink.st)
		sink_destroy(&a->sink);
	store__free(a->st);
	free(a);
	return err;
}
