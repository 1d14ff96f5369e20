// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The summary on stderr (loss counters, unwinder tables, loader cost, what
 * was written) and the same counters for callers (session__counts, _stats).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "collect/counters.h"
#include "collect/hotspot_walk.h"
#include "collect/v8_walk.h"
#include "collect/python.h"
#include "record/labels.h"
#include "record/session.h"
#include "record/session_int.h"
#include "record/wakers.h"
#include "unwind/tables.h"
#include "util/diag.h"
#include "util/log.h"

/* symbolizer_stat_fn: one more line of a group, while it has room */
static void add_stat(const char *name, uint64_t value, bool loss, void *arg)
{
	struct collector_stats *st = arg;

	if (st->nr < COLLECTOR_MAX_STATS)
		st->s[st->nr++] = (struct collector_stat){ name, value, loss };
}

/* Losses and degradations printed by the last final report; for the last line. */
static unsigned problems;

/*
 * Final under -v: the full table, one counter a line: group, class, value,
 * name. Returns how many losses and degradations were non-zero.
 */
static unsigned print_stat_table(const char *name, const struct collector_stats *st)
{
	unsigned n = 0;

	for (size_t i = 0; i < st->nr; i++) {
		enum diag_class cls = diag__class(st->s[i].name, st->s[i].loss);

		pr_debug("  %-8s %-8s %12llu %s\n", name, diag__class_name(cls),
			 (unsigned long long)st->s[i].value, st->s[i].name);
		n += cls != DIAG_WORK && st->s[i].value;
	}
	return n;
}

/* Periodic (-v, !final): the non-zero losses and degradations of a group on one line. */
static void print_stat_group(const char *name, const struct collector_stats *st)
{
	char line[2048];
	size_t off = 0;
	bool any = false;

	for (size_t i = 0; i < st->nr && off < sizeof(line); i++) {
		if (!st->s[i].value || diag__class(st->s[i].name, st->s[i].loss) == DIAG_WORK)
			continue;
		off += snprintf(line + off, sizeof(line) - off, "%s%llu %s", any ? ", " : "",
				(unsigned long long)st->s[i].value, st->s[i].name);
		any = true;
	}
	if (any)
		pr_debug("%s: %s\n", name, line);
}

/*
 * Default: one line per non-zero loss or degradation, with its remedy.
 * Returns how many were printed.
 */
static unsigned print_problems(const char *name, const struct collector_stats *st)
{
	unsigned n = 0;

	for (size_t i = 0; i < st->nr; i++) {
		const struct diag *d = diag__find(st->s[i].name);
		enum diag_class cls = diag__class(st->s[i].name, st->s[i].loss);

		if (!st->s[i].value || cls == DIAG_WORK)
			continue;
		pr_info("%s: %llu %s%s%s%s\n", name, (unsigned long long)st->s[i].value,
			st->s[i].name, cls == DIAG_LOSS && !strstr(st->s[i].name, "lost") ?
			" (lost)" : "", d && *d->remedy ? ": " : "", d ? d->remedy : "");
		n++;
	}
	return n;
}

static void report_unwind(const struct session *s, const struct unwind_tables *ut)
{
	struct unwind_tables_stats us;

	unwind_tables__stats(ut, &us);
	pr_debug("unwind: %llu tables built (peak %llu rows, %.2f MiB of kernel memory; %.0f ms), "
		 "%llu reused while idle, %llu from debug files' .debug_frame, %llu objects without "
		 "CFI, %llu unreadable, %llu over limits, %llu mappings dropped, %llu processes not "
		 "published\n",
		 (unsigned long long)us.objects_built, (unsigned long long)us.rows_peak,
		 us.bytes_peak / 1048576.0, us.build_ns / 1e6, (unsigned long long)us.objects_reused,
		 (unsigned long long)us.objects_debug_frame, (unsigned long long)us.objects_no_cfi,
		 (unsigned long long)us.objects_failed, (unsigned long long)us.over_limit,
		 (unsigned long long)us.maps_dropped, (unsigned long long)us.procs_failed);
	if (us.objects_queued)
		pr_debug("unwind: %llu tables built on the builder thread (%.0f ms in line), %llu "
			 "mappings walked by frame pointer until theirs came (%llu samples meanwhile, "
			 "each putting its tables first), %llu builds still pending at the end, %llu "
			 "discarded (object gone)\n",
			 (unsigned long long)us.objects_queued, us.build_loop_ns / 1e6,
			 (unsigned long long)us.maps_waiting, (unsigned long long)us.demand_samples,
			 (unsigned long long)us.objects_pending, (unsigned long long)us.builds_discarded);
	if (us.refreshes || us.refresh_stale || us.refresh_backoff)
		pr_debug("unwind: walks ended in unmapped code: %llu mappings re-read (%llu did not "
			 "find the pc; at most %.1f ms after the walk), %llu not needed (read "
			 "since), %llu put off (backoff)\n",
			 (unsigned long long)us.refreshes, (unsigned long long)us.refresh_missed,
			 s->refresh_lag_max_ns / 1e6, (unsigned long long)us.refresh_stale,
			 (unsigned long long)us.refresh_backoff);
}

/* One group: the full table under -v, else its problems only (final) or nothing. */
static void report_group(struct session *s, const char *name, const struct collector_stats *st,
			 bool final)
{
	if (!final)
		print_stat_group(name, st);
	else if (log_get_level() >= LOG_DEBUG)
		problems += print_stat_table(name, st);
	else
		problems += print_problems(name, st);
}

/*
 * Every counter, BPF side and user side. Final: the full table under -v, only
 * the non-zero losses and degradations otherwise (session_report_written
 * says "nothing lost" when there were none); !final (periodic, -v): the
 * non-zero ones.
 */
void session_report_stats(struct session *s, bool final)
{
	struct collector_stats st;
	struct symbolizer_stats ss;
	struct proclife_stats ls;

	problems = 0;
	for (size_t i = 0; i < s->nr_cols; i++) {
		s->cols[i].ops->stats(&s->cols[i], &st);
		report_group(s, s->cols[i].ops->name, &st, final);
	}
	proc_tracker__stats(s->pt, &st);
	symbolizer__stats(s->sym, &ss);
	proclife__stats(s->life, &ls);
	st.s[st.nr++] = (struct collector_stat){ "stacks over the aggregation limit",
						 stack_agg__dropped(s->agg), true };
	/* gone early but named from the maps BPF read at their exit: not a loss */
	st.s[st.nr++] = (struct collector_stat){ "processes gone before their maps were read "
						 "and without exit maps", ls.late > ss.procs_exit_maps ?
						 ls.late - ss.procs_exit_maps : 0, true };
	st.s[st.nr++] = (struct collector_stat){ "records not held for exit maps (limit)",
						 ls.dropped, true };
	st.s[st.nr++] = (struct collector_stat){ "objects unreadable", ss.object_errors, true };
	/* sym/hotspot.h: JIT frames of JVMs named without a perf map, and why others were not */
	symbolizer_stats_hotspot(&ss, add_stat, &st);
	/* sym/v8.h: JavaScript frames of V8 processes */
	symbolizer_stats_v8(&ss, add_stat, &st);
	if (s->wakers) {
		struct wakers_stats ws;

		wakers__stats(s->wakers, &ws);
		st.s[st.nr++] = (struct collector_stat){ "waker stacks evicted before their block's "
							 "record", ws.unjoined, true };
	}
	report_group(s, "session", &st, final);
	if (final && s->fp_cut) {
		/*
		 * with the walker refused, --unwind cfi is no way out: not a hint;
		 * with it on, these walks came before their process's table
		 */
		log_printf(log_get_level() >= LOG_DEBUG ? LOG_DEBUG : LOG_INFO,
			   "user: %llu frame-pointer stacks cut at an address in no mapping: code "
			   "without frame pointers; %s\n", (unsigned long long)s->fp_cut,
			   s->cfi_refused ? "this kernel refused the CFI walker (said at the start)" :
			   s->ut ? "walked before their process's CFI table was built: record longer, "
				   "or start before the workload" :
				   "try --unwind cfi");
		problems++;
	}
	if (final && ls.late)
		pr_debug("symbolizer: %llu processes gone before their maps were read, %llu named "
			 "from the maps BPF read at their exit (%llu records held for them)\n",
			 (unsigned long long)ls.late, (unsigned long long)ss.procs_exit_maps,
			 (unsigned long long)ls.held);
	if (final && s->labels) {
		struct labels_stats lb;

		labels__stats(s->labels, &lb);
		/* named by comm instead: a degradation, shown only when it happened */
		if (lb.missed || lb.full) {
			pr_info("labels: %llu command lines unreadable or empty (gone, zombie), "
				"%llu not kept (table full); those roots keep their comm\n",
				(unsigned long long)lb.missed, (unsigned long long)lb.full);
			problems++;
		}
	}
	if (final && ss.dbg_requested) {
		bool bad = ss.dbg_failed || ss.dbg_timed_out || ss.dbg_pending;

		/* a fetch that failed leaves frames unnamed: shown; success only under -v */
		log_printf(bad ? LOG_INFO : LOG_DEBUG,
			   "debuginfod: %llu debug files fetched, %llu not found or failed, %llu "
			   "timed out, %llu skipped (a fetch had timed out), %llu not asked (limit), "
			   "%llu still pending; %.1f s in fetches\n",
			   (unsigned long long)ss.dbg_fetched, (unsigned long long)ss.dbg_failed,
			   (unsigned long long)ss.dbg_timed_out, (unsigned long long)ss.dbg_skipped,
			   (unsigned long long)ss.dbg_dropped, (unsigned long long)ss.dbg_pending,
			   ss.dbg_busy_ns / 1e9);
		problems += bad;
	}
	if (final) {
		problems += python__report(s->py, log_get_level() >= LOG_DEBUG);
		hotspot_walk__report(s->hw, log_get_level() >= LOG_DEBUG);
		v8_walk__report(s->vw, log_get_level() >= LOG_DEBUG);
	}
	if (final && session_unwind_lock(s)) {
		report_unwind(s, s->ut);
		session_unwind_unlock(s);
	}
	/* what held up the loop longest (a stall delays every re-read and wakeup behind it) */
	if (final && s->slowest_what && s->slowest_ns > 2ull * SESSION_POLL_MS * 1000000)	/* a read includes its wait */
		pr_debug("record: the loop's slowest step: %.1f ms %s (%.1f ms of CPU)\n",
			 s->slowest_ns / 1e6, s->slowest_what, s->slowest_cpu_ns / 1e6);
}

/* record --counters: the collector's one-line snapshot joins the summary on stderr. */
void session_report_counters(struct session *s)
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

int session__write_counters(struct session *s, FILE *f)
{
	for (size_t i = 0; i < s->nr_cols; i++)
		if (s->cols[i].ops == &counters_ops)
			return counters_collector_interval(&s->cols[i], f);
	return -ENOENT;
}

/* The loader's own cost, for -v and the benchmarks. */
void session_report_self(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return;
	pr_debug("hotcold: loader cpu %.3f s user + %.3f s sys, max RSS %ld KiB\n",
		 ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		 ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss);
}

/* The last line: what was recorded, in which unit, and where it went. */
void session_report_written(struct session *s)
{
	const struct record_opts *o = s->o;
	char what[256];
	size_t off = 0;

	if (o->oncpu && o->sample_ev_set && !o->sample_ev.clock)
		off += snprintf(what + off, sizeof(what) - off, "%llu %s samples (one per %llu %s)",
				(unsigned long long)s->samples, o->sample_ev.name,
				(unsigned long long)o->sample_period, o->sample_ev.name);
	else if (o->oncpu)
		off += snprintf(what + off, sizeof(what) - off, "%llu on-CPU samples",
				(unsigned long long)s->samples);
	if (o->offcpu)
		off += snprintf(what + off, sizeof(what) - off,
				"%s%.3f s off-CPU in %llu blocks with stacks + %.3f s stackless in "
				"%llu short blocks, %.3f s [cpu wait] after wakeups",
				off ? ", " : "", s->off_ns / 1e9, (unsigned long long)s->off_blocks,
				s->short_ns / 1e9, (unsigned long long)s->short_blocks,
				s->cpuwait_ns / 1e9);
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
	pr_info("hotcold: %s; %llu stacks (%llu of %llu frames unnamed), %s -> %s; %s\n", what,
		(unsigned long long)s->written.lines, (unsigned long long)s->written.frames_unknown,
		(unsigned long long)s->written.frames,
		session_output_format(o) == FORMAT_SVG ? "SVG flame graph" :
		session_output_format(o) == FORMAT_PPROF ? "pprof" :
		o->offcpu || o->runq || o->locks ? "folded, nanoseconds" : "folded, samples",
		strcmp(o->output, "-") ? o->output : "stdout",
		problems ? "problems above (-v: all counters)" : "nothing lost");
}

void session_describe(struct session *s)
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

void session__counts(const struct session *s, struct session_counts *c)
{
	struct proclife_stats ls;

	memset(c, 0, sizeof(*c));
	c->samples = s->samples;
	c->off_ns = s->off_ns;
	c->off_blocks = s->off_blocks;
	c->short_ns = s->short_ns;
	c->short_blocks = s->short_blocks;
	c->runq_ns = s->runq_ns;
	c->runq_waits = s->runq_waits;
	c->cpuwait_ns = s->cpuwait_ns;
	c->lock_ns = s->lock_ns;
	c->lock_waits = s->lock_waits;
	c->stacks = stack_agg__nr_entries(s->agg);
	c->stacks_dropped = stack_agg__dropped(s->agg);
	proclife__stats(s->life, &ls);
	c->procs_late = ls.late;
	c->held_dropped = ls.dropped;
}

void session__stats(struct session *s, session_stat_fn fn, void *arg)
{
	struct proclife_stats ls;
	struct collector_stats st;

	proclife__stats(s->life, &ls);
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

		if (session_unwind_lock(s)) {
			unwind_tables__stats(s->ut, &s->ut_stats);
			session_unwind_unlock(s);
		}
		us = s->ut_stats;
		fn("unwind", "tables built", us.objects_built, false, arg);
		fn("unwind", "idle tables reused", us.objects_reused, false, arg);
		fn("unwind", "tables refused (row or object limit)", us.over_limit, true, arg);
		fn("unwind", "mappings beyond the per-process limit", us.maps_dropped, true, arg);
		fn("unwind", "processes without tables", us.procs_failed, true, arg);
		fn("unwind", "processes given their new tables late",
		   __atomic_load_n(&s->deferred_built, __ATOMIC_RELAXED), false, arg);
		fn("unwind", "processes gone before their new tables were built",
		   __atomic_load_n(&s->deferred_gone, __ATOMIC_RELAXED), false, arg);
	}
	if (s->naming || s->na.st.unnamed) {
		const struct name_ahead_stats *ns = &s->na.st;

		fn("naming", "stacks not named in time (interval budget)", ns->unnamed, true, arg);
		fn("naming", "stacks named during their interval", ns->ahead, false, arg);
		fn("naming", "stacks named at their interval's end", ns->at_end, false, arg);
		fn("naming", "intervals named again (stack table evictions)", ns->discarded, false,
		   arg);
	}
	/* where the loader's own CPU goes (thread CPU time, ns) */
	fn("loader", "ring polls", s->work.polls, false, arg);
	fn("loader", "ring reads cut by the turn's budget", s->work.cut_turns, false, arg);
	fn("loader", "in-kernel drains cut by the turn's budget", s->work.drain_cut, false, arg);
	fn("loader", "records decoded", s->work.records, false, arg);
	fn("loader", "cpu ns in ring polls (records and new processes)", s->work.ring_ns, false,
	   arg);
	fn("loader", "new processes read", s->work.adds, false, arg);
	fn("loader", "first sights left to a process's first stack", ls.lazy, false, arg);
	fn("loader", "records held for exit maps and replayed", ls.replayed, false, arg);
	fn("loader", "new processes under a pid still held (exit record lost)", ls.reused, false,
	   arg);
	fn("loader", "records not held twice (replay)", ls.refused, true, arg);
	fn("user", "frame-pointer stacks cut at an address in no mapping", s->fp_cut, false,
	   arg);
	fn("loader", "cpu ns reading new processes (maps, tables)", s->work.add_ns, false, arg);
	fn("loader", "cpu ns draining in-kernel maps", s->work.drain_ns, false, arg);
	fn("loader", "execs snapshotted", s->work.execs, false, arg);
	fn("loader", "cpu ns snapshotting execs", s->work.exec_ns, false, arg);
}
