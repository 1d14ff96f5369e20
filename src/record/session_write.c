// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The aggregation out: folded, pprof, SVG, or the runqlat / locks reports. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/profile.h"
#include "collect/locks.h"
#include "output/pprof.h"
#include "output/svg.h"
#include "record/locks_report.h"
#include "record/session.h"
#include "record/session_int.h"
#include "sym/srcline.h"
#include "util/clock.h"
#include "util/log.h"

static bool ends_with(const char *s, const char *sfx)
{
	size_t n = strlen(s), k = strlen(sfx);

	return n >= k && !strcmp(s + n - k, sfx);
}

enum out_format session_output_format(const struct record_opts *o)
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

/* Frames left without source lines: each object remembers SRCLINE_CACHE_MAX addresses. */
static void report_srclines(struct session *s)
{
	struct symbolizer_stats ss;

	symbolizer__stats(s->sym, &ss);
	if (ss.srclines_skipped)
		pr_info("symbolizer: %llu frames without source lines in pprof (an object's "
			"%d-address line cache was full)\n",
			(unsigned long long)ss.srclines_skipped, SRCLINE_CACHE_MAX);
}

/* pprof or SVG: through the in-memory profile (kinds, flags and labels kept). */
static int write_profile(struct session *s, FILE *f, const struct emit_opts *eo,
			 enum out_format fmt, struct emit_stats *es)
{
	struct profile *p = profile__new();
	struct emit_opts peo = *eo;
	struct svg_opts so;
	int err;

	if (!p)
		return -ENOMEM;
	/* pprof has room for source lines and inline frames (go tool pprof -lines) */
	peo.srclines = fmt == FORMAT_PPROF;
	err = emit_profile_stats(s->agg, s->sym, &peo, p, es);
	if (peo.srclines)
		report_srclines(s);
	if (!err && fmt == FORMAT_PPROF) {
		err = pprof_write(p, f);
	} else if (!err) {
		/* the default title and subtitle say what is drawn and its total per kind */
		svg_opts_init(&so);
		err = svg_write(p, &so, f);
	}
	profile__free(p);
	return err;
}

/*
 * `hotcold locks`: the lock table, with each lock's top stacks (@f); else
 * (record --locks) the site groups' labels for the stacks' lock frames.
 */
static int locks_report(struct session *s, FILE *f, const struct emit_opts *eo)
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
	if (f)
		err = locks_report_write(f, rows, nr, s->locknames, s->agg, s->sym, eo, s->o);
	else
		err = locks_relabel_sites(rows, nr, s->locknames, s->agg, s->sym, eo);
	free(rows);
	return err;
}

/*
 * What one on-CPU sample is: 1/freq seconds of a clock, PERIOD ns of a clock
 * sampled with -c, or PERIOD events of anything else (then no time at all).
 */
static void sample_unit(const struct record_opts *o, struct emit_opts *eo)
{
	if (!o->sample_ev_set)
		return;
	if (o->sample_ev.clock) {
		if (o->sample_period)
			eo->period_ns = o->sample_period;
		return;
	}
	eo->period_ns = 0;
	eo->event = o->sample_ev.name;
	eo->event_period = o->sample_period;
}

struct emit_opts session_emit_opts(const struct session *s)
{
	struct emit_opts eo = {
		.root = s->o->root,
		.labels = s->labels,
		.root_label = s->o->label_cmdline,
		.period_ns = 1000000000ull / s->o->freq_hz,
		.mixed = s->o->oncpu && (s->o->offcpu || s->o->runq || s->o->locks),
		.kinds = (s->o->oncpu ? 1u << PROFILE_KIND_ONCPU : 0) |
			 (s->o->offcpu ? 1u << PROFILE_KIND_OFFCPU : 0) |
			 (s->o->runq ? 1u << PROFILE_KIND_RUNQ : 0) |
			 (s->o->locks ? 1u << PROFILE_KIND_LOCK : 0),
		.locknames = s->locknames,
		/* the profile's time span: from the start to now (it is written at the end) */
		.start_ns = s->start_unix_ns,
		.duration_ns = s->start_ns ? clock_mono_ns() - s->start_ns : 0,
	};

	sample_unit(s->o, &eo);
	return eo;
}

int session_write_to(struct session *s, FILE *f, enum out_format fmt, struct emit_stats *es)
{
	struct emit_opts eo = session_emit_opts(s);
	int err = 0;

	memset(es, 0, sizeof(*es));
	if (s->o->runq_report) {
		/* `hotcold runqlat`: the histograms are the data */
		for (size_t i = 0; !err && i < s->nr_cols; i++)
			if (s->cols[i].ops->report)
				err = s->cols[i].ops->report(&s->cols[i], f);
		return err;
	}
	if (s->o->locks_report)
		return locks_report(s, f, &eo);
	/* record --locks: the lock frames follow the table's site grouping */
	if (s->o->locks && s->locknames)
		err = locks_report(s, NULL, &eo);
	if (err)
		return err;
	if (fmt != FORMAT_FOLDED)
		return write_profile(s, f, &eo, fmt, es);
	return emit_folded(s->agg, s->sym, &eo, f, es);
}

int session__profile(struct session *s, struct profile *p)
{
	struct emit_opts eo = session_emit_opts(s);

	/*
	 * The agent's intervals, as its name-ahead path names them (session_name.c):
	 * without DWARF source lines. libdw's line tables of the objects sampled
	 * stay loaded while they live, tens of MiB for one -g build (with --push,
	 * whose labels turn name-ahead off, the agent sat at 60-72 MiB against 26
	 * without); a back end symbolizes lines from the mappings' build IDs and
	 * addresses, and record -o x.pb.gz still writes them.
	 */
	profile__set_period_ns(p, eo.period_ns);
	profile__set_event(p, eo.event, eo.event_period);
	return emit_profile(s->agg, s->sym, &eo, p);
}
