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
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect/collector.h"
#include "collect/locknames.h"
#include "collect/locks.h"
#include "collect/proc.h"
#include "analysis/profile.h"
#include "output/outfile.h"
#include "output/pprof.h"
#include "output/svg.h"
#include "record/emit.h"
#include "record/locks_report.h"
#include "record/reason.h"
#include "record/target.h"
#include "record/wakers.h"
#include "unwind/tables.h"
#include "util/log.h"

#define SESSION_MAX_COLLECTORS 4
#define SESSION_POLL_MS 100
/* kernel ips + user frames of EMIT_UFR_WORDS each, for the stack and its waker */
#define SESSION_MAX_WORDS (2 * (128 + 128 * EMIT_UFR_WORDS))
#define SESSION_WAKER_SLOTS 4096

struct session {
	const struct record_opts *o;
	struct proc_tracker *pt;
	struct collector_env env;
	bool *online;
	struct collector cols[SESSION_MAX_COLLECTORS];
	size_t nr_cols;
	struct symbolizer *sym;
	struct unwind_tables *ut;	/* NULL: frame pointers only */
	struct stack_agg *agg;
	struct wakers *wakers;		/* NULL without --wakers */
	struct locknames *locknames;	/* NULL without lock collection */
	uint64_t lock_ns, lock_waits;	/* lock waits with stacks */
	struct target_child child;
	int child_wstatus;
	bool child_done;
	bool exec_failed;	/* the command could not be executed: status 127 */
	uint64_t *words;	/* scratch: one stack's words */
	uint64_t samples;	/* on-CPU */
	uint64_t off_ns, off_blocks;		/* off-CPU blocks with stacks */
	uint64_t short_ns, short_blocks;	/* off-CPU blocks below --min-block */
	uint64_t runq_ns, runq_waits;		/* run-queue waits with stacks */
	uint64_t procs_late;	/* first sample arrived after the process exited */
	struct outfile out;	/* created before recording: fail early, not after */
	bool out_open;
	struct emit_stats written;
	bool wrote;
};

static volatile sig_atomic_t stop_signal;

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

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* First sight of a process: its maps for naming and, with CFI, its unwind tables. */
static void session_add_process(struct session *s, uint32_t tgid)
{
	int err = symbolizer__add_process(s->sym, tgid);

	if (err == -ESRCH)
		s->procs_late++;
	/* the record that showed it was walked by frame pointer; the next ones get CFI */
	if (s->ut && !err)
		unwind_tables__add_process(s->ut, tgid);
}

static int on_seen(uint32_t tgid, void *arg)
{
	session_add_process(arg, tgid);
	return 0;
}

/* Kernel ips then normalized user frames (of @tgid) into @w; returns the word count. */
static size_t stack_words(struct session *s, uint32_t tgid, const struct sample_view *v,
			  uint64_t *w, uint16_t *nr_kernel)
{
	struct sym_ufr f;
	size_t n = 0;

	for (size_t i = 0; i < v->nr_kips; i++)
		w[n++] = v->kips[i];
	*nr_kernel = n;
	for (size_t i = 0; i < v->nr_uips; i++) {
		/*
		 * Frames above the leaf are return addresses: ip - 1 lies in the
		 * call instruction, so a call to a noreturn function at the very end
		 * of a function is not named after the next function.
		 */
		symbolizer__normalize(s->sym, tgid, i ? v->uips[i] - 1 : v->uips[i], &f);
		emit_ufr_pack(&f, &w[n]);
		n += EMIT_UFR_WORDS;
	}
	return n;
}

static int on_sample(const struct sample_view *v, void *arg)
{
	struct session *s = arg;
	struct waker_stack wk;
	struct stack_key key;
	uint16_t nk;
	size_t n;

	if (v->new_tgid && !v->kthread)
		session_add_process(s, v->tgid);
	/* a CFI walk that ended early may have met a library mapped since (dlopen) */
	else if (v->unwind_unmapped && s->ut)
		unwind_tables__refresh(s->ut, v->tgid);
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

static int on_proc_exec(uint32_t tgid, const char *comm, void *arg)
{
	struct session *s = arg;

	/* the next sample is flagged new and re-reads the new image's maps */
	symbolizer__forget_process(s->sym, tgid);
	if (s->ut)
		unwind_tables__remove_process(s->ut, tgid);
	return 0;
}

static int on_proc_exit(uint32_t tgid, void *arg)
{
	struct session *s = arg;

	/* ring order: every sample of @tgid was normalized before this record */
	symbolizer__forget_process(s->sym, tgid);
	if (s->ut)
		unwind_tables__remove_process(s->ut, tgid);
	return 0;
}

static const struct proc_handlers handlers_proto = {
	.sample = on_sample,
	.exec = on_proc_exec,
	.exit = on_proc_exit,
	.seen = on_seen,
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
	err = outfile_open(&s->out, o->output, 0644);
	if (err) {
		pr_warn("record: cannot create '%s': %s\n", o->output, strerror(-err));
		return err;
	}
	s->out_open = true;
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

static void report_stats(struct session *s, bool final);

/* In-kernel aggregates (off-CPU short blocks) into the same aggregation as ring samples. */
static int session_drain(struct session *s)
{
	int err;

	for (size_t i = 0; i < s->nr_cols; i++) {
		if (!s->cols[i].ops->drain)
			continue;
		err = s->cols[i].ops->drain(&s->cols[i], on_sample, s);
		if (err)
			return err;
	}
	return 0;
}

static int session_loop(struct session *s)
{
	struct proc_handlers h = handlers_proto;
	uint64_t start = now_ns(), next_report = start + s->o->drain_interval_ns;
	uint64_t next_drain = start + s->o->drain_interval_ns;
	uint64_t end = s->o->duration_ns ? start + s->o->duration_ns : UINT64_MAX;
	int err;

	h.arg = s;
	while (!stop_signal) {
		uint64_t t = now_ns();
		int timeout = SESSION_POLL_MS;

		if (t >= end)
			break;
		if (end - t < (uint64_t)SESSION_POLL_MS * 1000000)
			timeout = (end - t) / 1000000 + 1;
		err = proc_tracker__poll(s->pt, timeout, &h);
		if (err && err != -EINTR) {
			pr_warn("record: reading the event ring failed: %s\n", strerror(-err));
			return err;
		}
		if (now_ns() >= next_drain) {
			err = session_drain(s);
			if (err)
				return err;
			next_drain += s->o->drain_interval_ns;
		}
		if (targets_gone(s)) {
			pr_debug("record: targets exited\n");
			break;
		}
		if (log_get_level() >= LOG_DEBUG && now_ns() >= next_report) {
			report_stats(s, false);
			next_report += s->o->drain_interval_ns;
		}
	}
	return 0;
}

static void print_stat_group(const char *name, const struct collector_stats *st, bool final)
{
	char line[1024];
	size_t off = 0;
	bool any = false;

	for (size_t i = 0; i < st->nr; i++) {
		if (!st->s[i].loss || (!final && !st->s[i].value))
			continue;
		off += snprintf(line + off, sizeof(line) - off, "%s%llu %s", any ? ", " : "",
				(unsigned long long)st->s[i].value, st->s[i].name);
		any = true;
		if (off >= sizeof(line))
			break;
	}
	if (any)
		pr_warn("%s: %s\n", name, line);
}

static void report_unwind(const struct unwind_tables *ut)
{
	struct unwind_tables_stats us;

	unwind_tables__stats(ut, &us);
	pr_info("unwind: %llu tables built (peak %llu rows, %.2f MiB of kernel memory; %.0f ms), "
		"%llu objects without CFI, %llu unreadable, %llu over limits, %llu mappings dropped\n",
		(unsigned long long)us.objects_built, (unsigned long long)us.rows_peak,
		us.bytes_peak / 1048576.0, us.build_ns / 1e6, (unsigned long long)us.objects_no_cfi,
		(unsigned long long)us.objects_failed, (unsigned long long)us.over_limit,
		(unsigned long long)us.maps_dropped);
}

/* Every loss counter, BPF side and user side; with !final only the non-zero ones. */
static void report_stats(struct session *s, bool final)
{
	struct collector_stats st;
	struct symbolizer_stats ss;

	for (size_t i = 0; i < s->nr_cols; i++) {
		s->cols[i].ops->stats(&s->cols[i], &st);
		print_stat_group(s->cols[i].ops->name, &st, final);
	}
	proc_tracker__stats(s->pt, &st);
	symbolizer__stats(s->sym, &ss);
	st.s[st.nr++] = (struct collector_stat){ "stacks over the aggregation limit",
						 stack_agg__dropped(s->agg), true };
	st.s[st.nr++] = (struct collector_stat){ "processes gone before their maps were read",
						 s->procs_late, true };
	st.s[st.nr++] = (struct collector_stat){ "objects unreadable", ss.object_errors, true };
	print_stat_group("lost", &st, final);
	if (s->ut && final)
		report_unwind(s->ut);
}

static bool ends_with(const char *s, const char *sfx)
{
	size_t n = strlen(s), k = strlen(sfx);

	return n >= k && !strcmp(s + n - k, sfx);
}

static enum out_format output_format(const struct record_opts *o)
{
	if (o->format != FORMAT_AUTO)
		return o->format;
	if (ends_with(o->output, ".svg"))
		return FORMAT_SVG;
	if (ends_with(o->output, ".pb.gz") || ends_with(o->output, ".pprof") ||
	    ends_with(o->output, ".pb"))
		return FORMAT_PPROF;
	return FORMAT_FOLDED;
}

/* pprof or SVG: through the in-memory profile (kinds, flags and labels kept). */
static int session_write_profile(struct session *s, const struct emit_opts *eo,
				 enum out_format fmt, struct emit_stats *es)
{
	struct profile *p = profile__new();
	struct svg_opts so;
	char subtitle[256];
	int err;

	if (!p)
		return -ENOMEM;
	memset(es, 0, sizeof(*es));
	err = emit_profile(s->agg, s->sym, eo, p);
	if (!err && fmt == FORMAT_PPROF) {
		err = pprof_write(p, s->out.f);
	} else if (!err) {
		svg_opts_init(&so);
		snprintf(subtitle, sizeof(subtitle), "hotcold record: %s%s%s%s, %s",
			 s->o->oncpu ? "on-CPU " : "", s->o->offcpu ? "off-CPU " : "",
			 s->o->runq ? "run-queue " : "", s->o->locks ? "lock waits" : "",
			 s->o->cmd_argv ? s->o->cmd_argv[0] :
			 (s->o->nr_pids || s->o->nr_tids) ? "selected tasks" : "system-wide");
		so.subtitle = subtitle;
		err = svg_write(p, &so, s->out.f);
	}
	es->lines = profile__nr_stacks(p);
	profile__free(p);
	return err;
}

/* `hotcold locks`: the lock table, with each lock's top stacks. */
static int session_locks_report(struct session *s, const struct emit_opts *eo)
{
	struct lock_row *rows = NULL;
	size_t nr = 0;
	int err = -ENOENT;

	for (size_t i = 0; i < s->nr_cols; i++) {
		if (s->cols[i].ops != &locks_ops)
			continue;
		err = locks_collector_rows(&s->cols[i], &rows, &nr);
		break;
	}
	if (err)
		return err;
	err = locks_report_write(s->out.f, rows, nr, s->locknames, s->agg, s->sym, eo, s->o);
	free(rows);
	return err;
}

static int session_write(struct session *s)
{
	struct emit_stats es;
	int err = 0;

	struct emit_opts eo = {
		.root = s->o->root,
		.period_ns = 1000000000ull / s->o->freq_hz,
		.mixed = s->o->oncpu && (s->o->offcpu || s->o->runq || s->o->locks),
		.locknames = s->locknames,
	};

	if (s->o->runq_report) {
		/* `hotcold runqlat`: the histograms are the data */
		memset(&es, 0, sizeof(es));
		for (size_t i = 0; !err && i < s->nr_cols; i++)
			if (s->cols[i].ops->report)
				err = s->cols[i].ops->report(&s->cols[i], s->out.f);
	} else if (s->o->locks_report) {
		memset(&es, 0, sizeof(es));
		err = session_locks_report(s, &eo);
	} else if (output_format(s->o) != FORMAT_FOLDED) {
		err = session_write_profile(s, &eo, output_format(s->o), &es);
	} else {
		err = emit_folded(s->agg, s->sym, &eo, s->out.f, &es);
	}
	if (!err)
		err = outfile_commit(&s->out);
	else
		outfile_discard(&s->out);
	s->out_open = false;
	if (err) {
		pr_warn("record: cannot write '%s': %s\n", s->o->output, strerror(-err));
		return err;
	}
	s->written = es;
	s->wrote = true;
	return 0;
}

/* record --counters: the collector's one-line snapshot joins the summary on stderr. */
static void report_counters(struct session *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	for (size_t i = 0; i < s->nr_cols; i++) {
		if (s->cols[i].ops != &counters_ops)
			continue;
		f = open_memstream(&buf, &len);
		if (!f)
			return;
		err = s->cols[i].ops->report(&s->cols[i], f);
		if (!fclose(f) && !err && len)
			pr_info("%s", buf);
		free(buf);
		return;
	}
}

/* The loader's own cost, for -v and the benchmarks. */
static void report_self(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return;
	pr_debug("hotcold: loader cpu %.3f s user + %.3f s sys, max RSS %ld KiB\n",
		 ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		 ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss);
}

/* The last line: what was recorded, in which unit, and where it went. */
static void report_written(struct session *s)
{
	const struct record_opts *o = s->o;
	char what[256];
	size_t off = 0;

	if (o->oncpu)
		off += snprintf(what + off, sizeof(what) - off, "%llu on-CPU samples",
				(unsigned long long)s->samples);
	if (o->offcpu)
		off += snprintf(what + off, sizeof(what) - off,
				"%s%.3f s off-CPU in %llu blocks with stacks + %.3f s in %llu short blocks",
				off ? ", " : "", s->off_ns / 1e9, (unsigned long long)s->off_blocks,
				s->short_ns / 1e9, (unsigned long long)s->short_blocks);
	if (o->runq && !o->runq_report)
		off += snprintf(what + off, sizeof(what) - off,
				"%s%.3f s run-queue wait in %llu preemptions with stacks",
				off ? ", " : "", s->runq_ns / 1e9, (unsigned long long)s->runq_waits);
	if (o->locks && !o->locks_report)
		off += snprintf(what + off, sizeof(what) - off,
				"%s%.3f s lock wait in %llu waits with stacks", off ? ", " : "",
				s->lock_ns / 1e9, (unsigned long long)s->lock_waits);
	if (o->locks_report) {
		pr_info("hotcold: lock table -> %s\n", strcmp(o->output, "-") ? o->output : "stdout");
		return;
	}
	if (o->runq_report) {
		pr_info("hotcold: run-queue latency histograms -> %s\n",
			strcmp(o->output, "-") ? o->output : "stdout");
		return;
	}
	pr_info("hotcold: %s; %llu stacks (%llu of %llu frames unnamed), unit %s -> %s\n", what,
		(unsigned long long)s->written.lines, (unsigned long long)s->written.frames_unknown,
		(unsigned long long)s->written.frames,
		output_format(o) != FORMAT_FOLDED ? (output_format(o) == FORMAT_SVG ? "svg" : "pprof") :
		o->offcpu || o->runq || o->locks ? "microseconds" : "samples", strcmp(o->output, "-") ? o->output : "stdout");
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
	stack_agg__free(s->agg);
	wakers__free(s->wakers);
	locknames__free(s->locknames);
	free(s->online);
	free(s->words);
}

static void describe(struct session *s)
{
	char what[256];
	size_t off = 0;

	for (size_t i = 0; i < s->nr_cols; i++) {
		off += snprintf(what + off, sizeof(what) - off, "%s", off ? " + " : "");
		s->cols[i].ops->describe(&s->cols[i], what + off, sizeof(what) - off);
		off = strlen(what);
	}
	pr_info("hotcold: recording %s, %s; Ctrl-C to stop\n", what,
		s->o->cmd_argv ? s->o->cmd_argv[0] :
		(s->o->nr_pids || s->o->nr_tids) ? "selected tasks" : "system-wide");
}

/* After recording: wait for the command so we can exit with its status. */
static void reap_child(struct session *s, int *cmd_status)
{
	if (!s->o->cmd_argv || s->child.pid <= 0)
		return;
	if (!s->child_done) {
		while (waitpid(s->child.pid, &s->child_wstatus, 0) < 0 && errno == EINTR)
			;
		s->child_done = true;
	}
	*cmd_status = target_exit_status(s->child_wstatus);
}

int session_run(const struct record_opts *o, int *cmd_status)
{
	struct proc_handlers h = handlers_proto;
	struct session s = { .o = o };
	int err;

	*cmd_status = -1;
	install_signals();
	err = session_open(&s);
	if (!err)
		err = session_start(&s);
	if (err)
		goto out;
	describe(&s);
	err = session_loop(&s);
	for (size_t i = 0; i < s.nr_cols; i++)
		s.cols[i].ops->stop(&s.cols[i]);
	/* what the programs wrote before detach is still in the ring */
	h.arg = &s;
	if (!err)
		err = proc_tracker__consume(s.pt, &h);
	if (!err)
		err = session_drain(&s);
	if (!err)
		err = session_write(&s);
	report_stats(&s, true);
	report_counters(&s);
	report_self();
	if (s.wrote)
		report_written(&s);
	reap_child(&s, cmd_status);
out:
	if (s.exec_failed)
		*cmd_status = 127;
	session_close(&s);
	return err;
}
