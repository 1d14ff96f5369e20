// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Counter snapshots and per-process tables as text, JSON and CSV. Missing never prints as 0. */
#include "analysis/counters.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "analysis/counters_drill.h"
#include "util/json.h"

/* @v with thousands separators and @dec decimals: "5,649,595,479", "1,998.42". */
static const char *grouped(char *buf, size_t len, double v, int dec)
{
	char tmp[64], *dot;
	size_t n, lead, o = 0;

	if (!isfinite(v)) {
		snprintf(buf, len, "nan");
		return buf;
	}
	snprintf(tmp, sizeof(tmp), "%.*f", dec, v);
	dot = strchr(tmp, '.');
	n = dot ? (size_t)(dot - tmp) : strlen(tmp);
	lead = tmp[0] == '-';
	for (size_t i = 0; i < n && o + 2 < len; i++) {
		if (i > lead && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	snprintf(buf + o, len - o, "%s", dot ? dot : "");
	return buf;
}

/* A row's value in its display unit: msec for clocks. */
static double shown(const struct counters_row *r)
{
	return r->clock ? r->value / 1e6 : r->value;
}

static bool measured(const struct counters_row *r)
{
	return r && r->supported && r->counted;
}

static void annotate(const struct counters_snapshot *s, const struct counters_row *r, char *buf,
		     size_t len)
{
	const struct counters_row *clk = counters_row_find(s, "task-clock");

	buf[0] = '\0';
	if (!measured(clk))
		clk = counters_row_find(s, "cpu-clock");
	if (!strcmp(r->name, "task-clock") && s->seconds > 0)
		snprintf(buf, len, "# %8.3f CPUs utilized", r->value / 1e9 / s->seconds);
	else if (!strcmp(r->name, "cycles") && measured(clk) && clk->value > 0)
		snprintf(buf, len, "# %8.3f GHz", r->value / clk->value);
	else if (!strcmp(r->name, "instructions") && s->derived.ipc.ok)
		snprintf(buf, len, "# %8.2f insn per cycle", s->derived.ipc.v);
	else if (!strcmp(r->name, "branch-misses") && s->derived.branch_miss_pct.ok)
		snprintf(buf, len, "# %7.2f%% of all branches", s->derived.branch_miss_pct.v);
	else if (!r->clock && s->seconds > 0)
		snprintf(buf, len, "# %8.1f /s", r->value / s->seconds);
}

static void text_row(FILE *out, const struct counters_snapshot *s, const char *pfx,
		     const struct counters_row *r)
{
	char val[48], note[64];

	if (!r->supported) {
		fprintf(out, "%s%18s %-5s %s\n", pfx, "<not supported>", "", r->name);
		return;
	}
	if (!r->counted) {
		fprintf(out, "%s%18s %-5s %s\n", pfx, "<not counted>", r->clock ? "msec" : "",
			r->name);
		return;
	}
	annotate(s, r, note, sizeof(note));
	fprintf(out, "%s%18s %-5s %-20s %-28s (%6.2f%%)\n", pfx,
		grouped(val, sizeof(val), shown(r), r->clock ? 2 : 0), r->clock ? "msec" : "",
		r->name, note, r->running * 100);
}

static const char *num_str(char *buf, size_t len, struct counters_num n, const char *fmt)
{
	if (!n.ok)
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, fmt, n.v);
	return buf;
}

static bool any_derived(const struct counters_derived *d)
{
	return d->ipc.ok || d->branch_miss_pct.ok || d->llc_mpki.ok || d->branch_stall.ok ||
	       d->memory_stall.ok;
}

static void text_derived(FILE *out, const struct counters_snapshot *s, const char *pfx)
{
	const struct counters_derived *d = &s->derived;
	char a[32], b[32], c[32];

	if (!any_derived(d)) {
		fprintf(out, "%s  IPC, branch-miss %%, LLC MPKI, class: not available (%s)\n", pfx,
			s->pmu ? "hardware counters not counted" : "no hardware PMU");
		return;
	}
	fprintf(out, "%s  IPC %s, branch-miss %s, LLC MPKI %s\n", pfx,
		num_str(a, sizeof(a), d->ipc, "%.2f"),
		num_str(b, sizeof(b), d->branch_miss_pct, "%.2f%%"),
		num_str(c, sizeof(c), d->llc_mpki, "%.2f"));
	fprintf(out, "%s  cost model (mispredict %g cycles, DRAM %g cycles, MLP %g): "
		"branch stall %s, memory stall %s\n", pfx, s->model.mispredict_penalty,
		s->model.dram_latency, s->model.mlp, num_str(a, sizeof(a), d->branch_stall, "%.3f"),
		num_str(b, sizeof(b), d->memory_stall, "%.3f"));
	fprintf(out, "%s  class: %s: %s\n", pfx, counters_class_name(d->cls),
		counters_class_advice(d->cls));
}

static void text_topdown(FILE *out, const struct counters_snapshot *s, const char *pfx)
{
	char verdict[256];

	if (!s->topdown_ok) {
		fprintf(out, "%s  top-down: %s\n", pfx,
			s->topdown_status ? s->topdown_status : "not available");
		return;
	}
	fprintf(out,
		"%s  top-down (%s): retiring %.1f%%, bad speculation %.1f%%, frontend %.1f%%, "
		"backend %.1f%%",
		pfx, s->topdown_label ? s->topdown_label : "", s->td.retiring * 100,
		s->td.bad_spec * 100, s->td.frontend * 100, s->td.backend * 100);
	if (s->td.smt > 0)
		fprintf(out, ", SMT contention %.1f%%", s->td.smt * 100);
	fprintf(out, " (%.2f%%)\n%s  verdict: %s\n", s->td_running * 100, pfx,
		topdown_verdict(&s->td, verdict, sizeof(verdict)));
	if (s->td2_ok) {
		const char *f = topdown2_focus(&s->td, &s->td2);

		topdown2_write_text(out, &s->td2, pfx);
		if (f)
			fprintf(out, "%s  level 2: mostly %s\n", pfx, f);
	} else if (s->td2_status) {
		fprintf(out, "%s  level 2: %s\n", pfx, s->td2_status);
	}
}

int counters_write_text(FILE *out, const struct counters_snapshot *s)
{
	char pfx[32] = "";

	if (s->interval_end >= 0)
		snprintf(pfx, sizeof(pfx), "%12.3f ", s->interval_end);
	else
		fprintf(out, "\n Counter stats for %s, %.3f s:\n\n", s->target, s->seconds);
	for (size_t i = 0; i < s->nr; i++)
		text_row(out, s, pfx, &s->rows[i]);
	if (s->interval_end < 0)
		fputc('\n', out);
	text_derived(out, s, pfx);
	text_topdown(out, s, pfx);
	return ferror(out) ? -EIO : 0;
}

static void json_num(FILE *out, struct counters_num n, const char *fmt)
{
	if (n.ok && isfinite(n.v))
		fprintf(out, fmt, n.v);
	else
		fputs("null", out);
}

static void json_row(FILE *out, const struct counters_row *r)
{
	fputs("{\"event\":", out);
	json_write_string(out, r->name);
	fprintf(out, ",\"unit\":\"%s\",\"value\":", r->clock ? "msec" : "");
	json_num(out, (struct counters_num){ shown(r), measured(r) }, r->clock ? "%.3f" : "%.0f");
	fputs(",\"running\":", out);
	json_num(out, (struct counters_num){ r->running, measured(r) }, "%.6f");
	fprintf(out, ",\"status\":\"%s\"", !r->supported ? "not supported" :
		!r->counted ? "not counted" : "counted");
	if (!r->supported && r->error) {
		fputs(",\"error\":", out);
		json_write_string(out, r->error);
	}
	fputc('}', out);
}

static void json_topdown(FILE *out, const struct counters_snapshot *s)
{
	char verdict[256];

	fputs(",\"topdown\":{", out);
	if (!s->topdown_ok) {
		fputs("\"status\":", out);
		json_write_string(out, s->topdown_status ? s->topdown_status : "not available");
		fputc('}', out);
		return;
	}
	fputs("\"status\":\"ok\",\"method\":", out);
	json_write_string(out, s->topdown_label ? s->topdown_label : "");
	fprintf(out, ",\"retiring\":%.6f,\"bad_speculation\":%.6f,\"frontend_bound\":%.6f,"
		"\"backend_bound\":%.6f,\"smt_contention\":%.6f,\"running\":%.6f,\"verdict\":",
		s->td.retiring, s->td.bad_spec, s->td.frontend, s->td.backend, s->td.smt,
		s->td_running);
	json_write_string(out, topdown_verdict(&s->td, verdict, sizeof(verdict)));
	if (s->td2_ok) {
		fputs(",\"level2\":", out);
		topdown2_write_json(out, &s->td2);
	} else if (s->td2_status) {
		fputs(",\"level2_status\":", out);
		json_write_string(out, s->td2_status);
	}
	fputc('}', out);
}

int counters_write_json(FILE *out, const struct counters_snapshot *s)
{
	const struct counters_derived *d = &s->derived;

	fputs("{\"target\":", out);
	json_write_string(out, s->target ? s->target : "");
	fprintf(out, ",\"seconds\":%.6f,\"interval_end\":", s->seconds);
	json_num(out, (struct counters_num){ s->interval_end, s->interval_end >= 0 }, "%.6f");
	fprintf(out, ",\"pmu\":%s,\"counters\":[", s->pmu ? "true" : "false");
	for (size_t i = 0; i < s->nr; i++) {
		if (i)
			fputc(',', out);
		json_row(out, &s->rows[i]);
	}
	fputs("],\"derived\":{\"ipc\":", out);
	json_num(out, d->ipc, "%.6f");
	fputs(",\"branch_miss_pct\":", out);
	json_num(out, d->branch_miss_pct, "%.6f");
	fputs(",\"llc_mpki\":", out);
	json_num(out, d->llc_mpki, "%.6f");
	fputs(",\"branch_stall\":", out);
	json_num(out, d->branch_stall, "%.6f");
	fputs(",\"memory_stall\":", out);
	json_num(out, d->memory_stall, "%.6f");
	fputs(",\"class\":", out);
	if (d->cls == COUNTERS_CLASS_NONE)
		fputs("null", out);
	else
		json_write_string(out, counters_class_name(d->cls));
	fprintf(out, "},\"model\":{\"mispredict_penalty\":%g,\"dram_latency\":%g,\"mlp\":%g}",
		s->model.mispredict_penalty, s->model.dram_latency, s->model.mlp);
	json_topdown(out, s);
	if (s->drill) {
		fputs(",\"drill\":", out);
		drill_write_json(out, s->drill_mode, s->drill_rows, s->nr_drill, s->drill_status);
	}
	fputs("}\n", out);
	return ferror(out) ? -EIO : 0;
}

/* One CSV field: quoted when it holds a comma or a quote. */
static void csv_str(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void csv_num(FILE *out, double t, const char *event, struct counters_num n,
		    const char *unit)
{
	fprintf(out, "%.3f,%s,", t, event);
	if (n.ok && isfinite(n.v))
		fprintf(out, "%.6f", n.v);
	fprintf(out, ",%s,,%s\n", unit, n.ok ? "ok" : "not available");
}

int counters_write_csv(FILE *out, const struct counters_snapshot *s, bool header)
{
	const struct counters_derived *d = &s->derived;
	double t = s->interval_end >= 0 ? s->interval_end : s->seconds;

	if (header)
		fputs("time,event,value,unit,running,status\n", out);
	for (size_t i = 0; i < s->nr; i++) {
		const struct counters_row *r = &s->rows[i];

		fprintf(out, "%.3f,", t);
		csv_str(out, r->name);
		fputc(',', out);
		if (measured(r))
			fprintf(out, r->clock ? "%.3f" : "%.0f", shown(r));
		fprintf(out, ",%s,", r->clock ? "msec" : "");
		if (measured(r))
			fprintf(out, "%.4f", r->running);
		fprintf(out, ",%s\n", !r->supported ? "not supported" :
			!r->counted ? "not counted" : "counted");
	}
	csv_num(out, t, "ipc", d->ipc, "");
	csv_num(out, t, "branch-miss-pct", d->branch_miss_pct, "%");
	csv_num(out, t, "llc-mpki", d->llc_mpki, "");
	csv_num(out, t, "branch-stall", d->branch_stall, "");
	csv_num(out, t, "memory-stall", d->memory_stall, "");
	fprintf(out, "%.3f,class,%s,,,%s\n", t,
		d->cls == COUNTERS_CLASS_NONE ? "" : counters_class_name(d->cls),
		d->cls == COUNTERS_CLASS_NONE ? "not available" : "ok");
	csv_num(out, t, "topdown-retiring", (struct counters_num){ s->td.retiring, s->topdown_ok },
		"");
	csv_num(out, t, "topdown-bad-speculation",
		(struct counters_num){ s->td.bad_spec, s->topdown_ok }, "");
	csv_num(out, t, "topdown-frontend-bound",
		(struct counters_num){ s->td.frontend, s->topdown_ok }, "");
	csv_num(out, t, "topdown-backend-bound",
		(struct counters_num){ s->td.backend, s->topdown_ok }, "");
	return ferror(out) ? -EIO : 0;
}

const char *counters_summary(const struct counters_snapshot *s, char *buf, size_t len)
{
	const struct counters_derived *d = &s->derived;
	size_t off = snprintf(buf, len, "counters:");
	char val[48], a[32], b[32], c[32];
	double run = 1;

	for (size_t i = 0; i < s->nr && off < len; i++) {
		const struct counters_row *r = &s->rows[i];
		const char *sep = i ? "," : "";

		if (!measured(r))
			off += snprintf(buf + off, len - off, "%s <not %s> %s", sep,
					r->supported ? "counted" : "supported", r->name);
		else
			off += snprintf(buf + off, len - off, "%s %s%s %s", sep,
					grouped(val, sizeof(val), shown(r), r->clock ? 2 : 0),
					r->clock ? " msec" : "", r->name);
		if (measured(r) && r->running < run)
			run = r->running;
	}
	if (off < len)
		off += snprintf(buf + off, len - off, " (running %.1f%%)", run * 100);
	if (off >= len)
		return buf;
	if (!any_derived(d))
		snprintf(buf + off, len - off, "; %s: IPC, branch-miss %%, LLC MPKI and class not "
			 "available", s->pmu ? "hardware counters not counted" : "no hardware PMU");
	else
		snprintf(buf + off, len - off, "; IPC %s, branch-miss %s, LLC MPKI %s, class %s",
			 num_str(a, sizeof(a), d->ipc, "%.2f"),
			 num_str(b, sizeof(b), d->branch_miss_pct, "%.2f%%"),
			 num_str(c, sizeof(c), d->llc_mpki, "%.2f"),
			 d->cls == COUNTERS_CLASS_NONE ? "n/a" : counters_class_name(d->cls));
	return buf;
}
