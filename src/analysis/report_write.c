// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* report text (aligned tables) and JSON writers. */
#include "analysis/report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/termsafe.h"

static const char *const kind_titles[PROFILE_KIND_NR] = {
	[PROFILE_KIND_ONCPU] = "on-CPU",
	[PROFILE_KIND_OFFCPU] = "off-CPU",
	[PROFILE_KIND_RUNQ] = "run-queue wait",
	[PROFILE_KIND_LOCK] = "lock wait",
};

static double pct(uint64_t part, uint64_t total)
{
	return total ? (double)part * 100.0 / (double)total : 0.0;
}

static size_t rows(const struct report *r, size_t nr)
{
	return r->o.top_n && r->o.top_n < nr ? r->o.top_n : nr;
}

static int digits(uint64_t v)
{
	int n = 1;

	while (v >= 10)
		v /= 10, n++;
	return n;
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

static void put_frame(const struct report *r, uint32_t id, FILE *out)
{
	const struct profile_frame *f = profile__frame(r->p, id);

	/* names come from the profiled processes: nothing reaches the terminal raw */
	termsafe_put(f->name, out);
	fputs(profile_frame_suffix(f->flags), out);
}

/* One frame table: self, self%, inclusive, incl%, frame; numbers right-aligned. */
static void frame_table(const struct report *r, const struct frame_total *t, const char *by,
			FILE *out)
{
	size_t n = rows(r, r->nr_frames), i;
	int w = max_int(digits(r->total), 9);

	fprintf(out, "\ntop %zu frames by %s (of %zu)\n", n, by, r->nr_frames);
	fprintf(out, "%*s  %7s  %*s  %7s  %s\n", w, "self", "self%", w, "inclusive", "incl%",
		"frame");
	for (i = 0; i < n; i++) {
		fprintf(out, "%*" PRIu64 "  %6.2f%%  %*" PRIu64 "  %6.2f%%  ", w, t[i].self,
			pct(t[i].self, r->total), w, t[i].inclusive, pct(t[i].inclusive, r->total));
		put_frame(r, t[i].frame, out);
		putc('\n', out);
	}
}

static void proc_table(const struct report *r, FILE *out)
{
	size_t n = rows(r, r->nr_procs), i;
	int w = max_int(digits(r->total), 9);

	fprintf(out, "\nper process (root frame), top %zu of %zu\n", n, r->nr_procs);
	fprintf(out, "%*s  %7s  %s\n", w, profile_kind_unit(r->o.kind), "%", "process");
	for (i = 0; i < n; i++) {
		fprintf(out, "%*" PRIu64 "  %6.2f%%  ", w, r->procs[i].weight,
			pct(r->procs[i].weight, r->total));
		put_frame(r, r->procs[i].frame, out);
		putc('\n', out);
	}
}

/* The stacks of the kind shown (a hot/cold profile holds others too). */
static size_t stacks_shown(const struct report *r)
{
	size_t n = 0;

	for (size_t i = 0; i < profile__nr_stacks(r->p); i++)
		n += profile__stack(r->p, i)->kind == r->o.kind;
	return n;
}

/* The sampling event of on-CPU samples (record -e page-faults), or NULL: a clock. */
static const char *event_of(const struct report *r)
{
	return r->o.kind == PROFILE_KIND_ONCPU ? profile__event(r->p) : NULL;
}

/* "on-CPU", or "page-faults (one sample per 10)" for an event profile. */
static void put_title(const struct report *r, FILE *out)
{
	if (!event_of(r)) {
		fputs(kind_titles[r->o.kind], out);
		return;
	}
	termsafe_put(event_of(r), out);
	fprintf(out, " (one sample per %" PRIu64 ")", profile__event_period(r->p));
}

static void header(const struct report *r, FILE *out)
{
	const struct folded_read_stats *in = r->o.input;

	size_t ns = stacks_shown(r);

	fputs("profile: ", out);
	termsafe_put(r->o.source ? r->o.source : "-", out);
	fputs(", ", out);
	put_title(r, out);
	fprintf(out, ", %" PRIu64 " %s in %zu stack%s, %zu frame%s\n", r->total,
		profile_kind_unit(r->o.kind), ns, ns == 1 ? "" : "s", r->nr_frames,
		r->nr_frames == 1 ? "" : "s");
	if (in && in->malformed)
		fprintf(out, "input: %" PRIu64 " of %" PRIu64 " lines malformed and skipped "
			     "(first: line %" PRIu64 "; -v lists them)\n",
			in->malformed, in->lines, in->first_bad_line);
	if (r->o.unfiltered_total)
		fprintf(out, "filter: %" PRIu64 " of %" PRIu64 " %s kept (%.2f%%)\n", r->total,
			r->o.unfiltered_total, profile_kind_unit(r->o.kind),
			pct(r->total, r->o.unfiltered_total));
	if (!r->has_hottest) {
		fprintf(out, "hottest: none (empty profile)\n");
		return;
	}
	fprintf(out, "hottest: ");
	put_frame(r, r->by_self[0].frame, out);
	fprintf(out, " %.2f%% self (%" PRIu64 " %s)\n", r->hottest_pct, r->by_self[0].self,
		profile_kind_unit(r->o.kind));
}

static void notes(const struct report *r, FILE *out)
{
	char *expr;
	size_t i;

	if (!r->flat && !r->contaminated)
		return;
	fprintf(out, "\nnotes\n");
	if (r->flat)
		fprintf(out, "profile is flat: no frame above %.0f%% self (hottest %.2f%%)\n"
			     "  the stop rule: no single fix pays off much here; the rest is "
			     "architecture\n",
			REPORT_FLAT_PCT, r->hottest_pct);
	if (!r->contaminated)
		return;
	fprintf(out, "contaminated profile: idle-looking frames hold %.2f%% of self %s (",
		pct(r->idle_weight, r->total), profile_kind_unit(r->o.kind));
	for (i = 0; i < r->nr_idle && i < 5; i++) {
		fprintf(out, "%s", i ? ", " : "");
		put_frame(r, r->idle[i].frame, out);
		fprintf(out, " %.2f%%", pct(r->idle[i].weight, r->total));
	}
	fprintf(out, "%s)\n  threads waiting, not working, can hide the real hotspots; "
		     "to look past them:\n", r->nr_idle > 5 ? ", ..." : "");
	expr = report__idle_exclude(r);
	if (expr) {
		fputs("  hotcold report --exclude '", out);
		termsafe_put(expr, out);
		fputs("' ", out);
		termsafe_put(r->o.source ? r->o.source : "FILE", out);
		putc('\n', out);
	}
	free(expr);
}

int report__write_text(const struct report *r, FILE *out)
{
	header(r, out);
	if (r->has_hottest) {
		frame_table(r, r->by_self, "self", out);
		frame_table(r, r->by_incl, "inclusive", out);
		proc_table(r, out);
	}
	notes(r, out);
	return ferror(out) ? -EIO : 0;
}

/* ---- JSON ---------------------------------------------------------------------- */

static void json_frame(const struct report *r, uint32_t id, FILE *out)
{
	const struct profile_frame *f = profile__frame(r->p, id);
	char *text = NULL;

	if (asprintf(&text, "%s%s", f->name, profile_frame_suffix(f->flags)) < 0)
		text = NULL;
	json_write_string(out, text ? text : f->name);
	free(text);
}

static void json_frames(const struct report *r, const struct frame_total *t, FILE *out)
{
	size_t n = rows(r, r->nr_frames), i;

	fputc('[', out);
	for (i = 0; i < n; i++) {
		fprintf(out, "%s\n    {\"frame\": ", i ? "," : "");
		json_frame(r, t[i].frame, out);
		fprintf(out, ", \"self\": %" PRIu64 ", \"self_percent\": %.4f, \"inclusive\": %"
			PRIu64 ", \"inclusive_percent\": %.4f}", t[i].self,
			pct(t[i].self, r->total), t[i].inclusive, pct(t[i].inclusive, r->total));
	}
	fprintf(out, "%s]", n ? "\n  " : "");
}

/* report_proc and report_idle: [{"frame": name, "weight": n, "percent": x}] */
static void json_weights(const struct report *r, const struct report_proc *v, size_t nr,
			 FILE *out)
{
	size_t i;

	fputc('[', out);
	for (i = 0; i < nr; i++) {
		fprintf(out, "%s\n    {\"frame\": ", i ? "," : "");
		json_frame(r, v[i].frame, out);
		fprintf(out, ", \"weight\": %" PRIu64 ", \"percent\": %.4f}", v[i].weight,
			pct(v[i].weight, r->total));
	}
	fprintf(out, "%s]", nr ? "\n  " : "");
}

static void json_header(const struct report *r, FILE *out)
{
	const struct folded_read_stats *in = r->o.input;

	fprintf(out, "{\n  \"source\": ");
	json_write_string(out, r->o.source ? r->o.source : "-");
	fprintf(out, ",\n  \"kind\": \"%s\",\n  \"unit\": \"%s\",\n  \"total\": %" PRIu64
		     ",\n  \"unfiltered_total\": %" PRIu64 ",\n  \"stacks\": %zu,\n"
		     "  \"frames\": %zu,\n",
		profile_kind_name(r->o.kind), profile_kind_unit(r->o.kind), r->total,
		r->o.unfiltered_total ? r->o.unfiltered_total : r->total,
		stacks_shown(r), r->nr_frames);
	if (event_of(r)) {
		fputs("  \"event\": ", out);
		json_write_string(out, event_of(r));
		fprintf(out, ",\n  \"event_period\": %" PRIu64 ",\n", profile__event_period(r->p));
	}
	if (in)
		fprintf(out, "  \"input\": {\"lines\": %" PRIu64 ", \"malformed\": %" PRIu64
			     ", \"first_bad_line\": %" PRIu64 "},\n",
			in->lines, in->malformed, in->first_bad_line);
	fprintf(out, "  \"hottest\": ");
	if (r->has_hottest) {
		fprintf(out, "{\"frame\": ");
		json_frame(r, r->by_self[0].frame, out);
		fprintf(out, ", \"self\": %" PRIu64 ", \"percent\": %.4f}", r->by_self[0].self,
			r->hottest_pct);
	} else {
		fprintf(out, "null");
	}
	fprintf(out, ",\n  \"flat\": %s,\n  \"flat_threshold_percent\": %.1f,\n",
		r->flat ? "true" : "false", REPORT_FLAT_PCT);
}

int report__write_json(const struct report *r, FILE *out)
{
	char *expr = report__idle_exclude(r);

	json_header(r, out);
	fprintf(out, "  \"contaminated\": %s,\n  \"idle_threshold_percent\": %.1f,\n"
		     "  \"idle_weight\": %" PRIu64 ",\n  \"idle_percent\": %.4f,\n"
		     "  \"idle_exclude\": ",
		r->contaminated ? "true" : "false", REPORT_IDLE_PCT, r->idle_weight,
		pct(r->idle_weight, r->total));
	if (expr)
		json_write_string(out, expr);
	else
		fputs("null", out);
	free(expr);
	fprintf(out, ",\n  \"idle_frames\": ");
	json_weights(r, (const struct report_proc *)r->idle, r->nr_idle, out);
	fprintf(out, ",\n  \"top_self\": ");
	json_frames(r, r->by_self, out);
	fprintf(out, ",\n  \"top_inclusive\": ");
	json_frames(r, r->by_incl, out);
	fprintf(out, ",\n  \"processes\": ");
	json_weights(r, r->procs, rows(r, r->nr_procs), out);
	fprintf(out, "\n}\n");
	return ferror(out) ? -EIO : 0;
}
