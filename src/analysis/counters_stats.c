// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Counter statistics over repeated runs and their A/B comparison (counters_stats.h). */
#include "analysis/counters_stats.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"

static struct cstats_counter *slot(struct cstats *s, const char *name, bool clock)
{
	for (size_t i = 0; i < s->nr; i++)
		if (!strcmp(s->c[i].name, name))
			return &s->c[i];
	if (s->nr == CSTATS_MAX_COUNTERS)
		return NULL;
	snprintf(s->c[s->nr].name, sizeof(s->c[s->nr].name), "%s", name);
	s->c[s->nr].clock = clock;
	return &s->c[s->nr++];
}

static void add_value(struct cstats_counter *c, double v)
{
	double d = v - c->mean;

	if (!c->n || v < c->min)
		c->min = v;
	if (!c->n || v > c->max)
		c->max = v;
	c->n++;
	c->mean += d / (double)c->n;
	c->m2 += d * (v - c->mean);
}

void cstats_add(struct cstats *s, const struct counters_snapshot *snap)
{
	s->runs++;
	s->seconds_sum += snap->seconds;
	if (snap->target)
		snprintf(s->target, sizeof(s->target), "%s", snap->target);
	for (size_t i = 0; i < snap->nr; i++) {
		const struct counters_row *r = &snap->rows[i];
		struct cstats_counter *c;

		if (!r->supported || !r->counted)
			continue;
		c = slot(s, r->name, r->clock);
		if (c)
			add_value(c, r->value);
	}
}

void cstats_finish(struct cstats *s)
{
	for (size_t i = 0; i < s->nr; i++)
		s->c[i].stddev = s->c[i].n > 1 ? sqrt(s->c[i].m2 / (double)(s->c[i].n - 1)) : 0;
}

const struct cstats_counter *cstats_find(const struct cstats *s, const char *name)
{
	for (size_t i = 0; i < s->nr; i++)
		if (!strcmp(s->c[i].name, name))
			return &s->c[i];
	return NULL;
}

static double shown(const struct cstats_counter *c, double v)
{
	return c->clock ? v / 1e6 : v;	/* clocks count ns, shown as msec */
}

int cstats_write_text(FILE *out, const struct cstats *s)
{
	fprintf(out, "\n Counter stats for %s, %zu runs, %.3f s each on average:\n\n",
		s->target[0] ? s->target : "the target", s->runs,
		s->runs ? s->seconds_sum / (double)s->runs : 0);
	fprintf(out, "  %18s %-5s %-20s %12s %7s %14s %14s\n", "mean", "", "event", "stddev", "",
		"min", "max");
	for (size_t i = 0; i < s->nr; i++) {
		const struct cstats_counter *c = &s->c[i];

		fprintf(out, "  %18.2f %-5s %-20s %12.2f %6.2f%% %14.2f %14.2f", shown(c, c->mean),
			c->clock ? "msec" : "", c->name, shown(c, c->stddev),
			c->mean ? 100.0 * c->stddev / fabs(c->mean) : 0.0, shown(c, c->min),
			shown(c, c->max));
		if (c->n != s->runs)
			fprintf(out, "  (in %zu of %zu runs)", c->n, s->runs);
		fputc('\n', out);
	}
	if (!cstats_find(s, "cycles"))
		fprintf(out, "\n  no hardware PMU: software events only (cycles, IPC and stall "
			     "classes are not available)\n");
	return ferror(out) ? -EIO : 0;
}

int cstats_write_json(FILE *out, const struct cstats *s)
{
	fprintf(out, "{\"runs\":%zu,\"target\":", s->runs);
	json_write_string(out, s->target);
	fprintf(out, ",\"seconds\":%.6f,\"counters\":[", s->runs ? s->seconds_sum / (double)s->runs : 0);
	for (size_t i = 0; i < s->nr; i++) {
		const struct cstats_counter *c = &s->c[i];

		fprintf(out, "%s{\"event\":", i ? "," : "");
		json_write_string(out, c->name);
		fprintf(out, ",\"unit\":\"%s\",\"value\":%.17g,\"stddev\":%.17g,\"min\":%.17g,"
			"\"max\":%.17g,\"runs\":%zu}", c->clock ? "msec" : "", shown(c, c->mean),
			shown(c, c->stddev), shown(c, c->min), shown(c, c->max), c->n);
	}
	fputs("]}\n", out);
	return ferror(out) ? -EIO : 0;
}

/* The number after "key": in [p, end); false if absent or null. */
static bool num_after(const char *p, const char *end, const char *key, double *v)
{
	char pat[40];
	const char *k;
	char *e;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	k = strstr(p, pat);
	if (!k || k >= end)
		return false;
	k += strlen(pat);
	if (!strncmp(k, "null", 4))
		return false;
	*v = strtod(k, &e);
	return e != k && isfinite(*v);
}

/*
 * A narrow reader for the two JSON shapes hotcold writes: counter objects
 * are flat ({...} with no nesting) inside "counters":[...], keys unique.
 */
int cstats_parse_json(const char *text, struct cstats *s)
{
	const char *p = strstr(text, "\"counters\":["), *arr_end;
	double runs = 1, secs = 0;

	memset(s, 0, sizeof(*s));
	if (!p)
		return -EBADMSG;
	arr_end = strchr(p, ']');
	if (!arr_end)
		return -EBADMSG;
	num_after(text, p, "runs", &runs);
	num_after(text, p, "seconds", &secs);
	if (runs < 1 || runs > 1e6)
		return -EBADMSG;
	s->runs = (size_t)runs;
	s->seconds_sum = secs * (double)s->runs;
	for (p = strchr(p, '{'); p && p < arr_end; p = strchr(p, '{')) {
		const char *end = strchr(p, '}'), *n = strstr(p, "\"event\":\""), *q;
		struct cstats_counter *c;
		char name[64];
		double v, x;
		size_t len;

		if (!end || end > arr_end)
			return -EBADMSG;
		if (!n || n > end || !num_after(p, end, "value", &v)) {
			p = end;
			continue;	/* not measured: never read as 0 */
		}
		n += 9;
		q = memchr(n, '"', (size_t)(end - n));
		len = q ? (size_t)(q - n) : 0;
		if (!len || len >= sizeof(name))
			return -EBADMSG;
		memcpy(name, n, len);
		name[len] = 0;
		c = slot(s, name, false);
		if (!c)
			break;
		{
			const char *u = strstr(p, "\"unit\":\"msec\"");

			c->clock = u && u < end;
		}
		if (c->clock)
			v *= 1e6;
		c->mean = v;
		c->min = c->max = v;
		c->n = s->runs;
		if (num_after(p, end, "stddev", &x))
			c->stddev = c->clock ? x * 1e6 : x;
		if (num_after(p, end, "min", &x))
			c->min = c->clock ? x * 1e6 : x;
		if (num_after(p, end, "max", &x))
			c->max = c->clock ? x * 1e6 : x;
		if (num_after(p, end, "runs", &x) && x >= 1)
			c->n = (size_t)x;
		p = end;
	}
	return s->nr ? 0 : -EBADMSG;
}

static const struct cstats_delta *delta(const struct cstats_cmp *c, const char *name)
{
	for (size_t i = 0; i < c->nr; i++)
		if (!strcmp(c->d[i].name, name))
			return &c->d[i];
	return NULL;
}

__attribute__((format(printf, 2, 3)))
static void say(struct cstats_cmp *c, const char *fmt, ...)
{
	size_t len = strlen(c->verdict);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->verdict + len, sizeof(c->verdict) - len, fmt, ap);
	va_end(ap);
}

static const char *sig(const struct cstats_delta *d)
{
	if (!d->spread_known)
		return " (single runs: no spread to judge by; use -r)";
	return d->significant ? "" : " (within the runs' spread)";
}

/* Did IPC fall, and which modelled stall class grew (SEEDS.md §2 cost model)? */
static void why_cycles_rose(const struct cstats *a, const struct cstats *b,
			    const struct counters_model *m, struct cstats_cmp *c)
{
	const struct cstats_delta *cyc = delta(c, "cycles"), *ins = delta(c, "instructions");
	const struct cstats_delta *bm = delta(c, "branch-misses"), *br = delta(c, "branches");
	const struct cstats_delta *llc = delta(c, "LLC-load-misses");
	double ipc_a, ipc_b, bs_a, bs_b, ms_a, ms_b;

	if (!llc)
		llc = delta(c, "cache-misses");
	if (!ins) {
		say(c, "  instructions not counted: IPC cannot be told\n");
		return;
	}
	ipc_a = counters_ipc(ins->a, cyc->a);
	ipc_b = counters_ipc(ins->b, cyc->b);
	say(c, "2. IPC %.2f -> %.2f, instructions %+.1f%%%s\n", ipc_a, ipc_b, ins->pct, sig(ins));
	if (ins->significant && ins->b > ins->a)
		say(c, "   more instructions: more work (branch density %.1f%% -> %.1f%%)\n",
		    br ? 100 * br->a / (ins->a ? ins->a : 1) : 0,
		    br ? 100 * br->b / (ins->b ? ins->b : 1) : 0);
	if (ipc_b >= ipc_a)
		return;
	bs_a = bm ? counters_branch_stall(bm->a, m->mispredict_penalty, cyc->a) : 0;
	bs_b = bm ? counters_branch_stall(bm->b, m->mispredict_penalty, cyc->b) : 0;
	ms_a = llc ? counters_memory_stall(llc->a, m->dram_latency, m->mlp, cyc->a) : 0;
	ms_b = llc ? counters_memory_stall(llc->b, m->dram_latency, m->mlp, cyc->b) : 0;
	say(c, "3. IPC fell: memory stall %.0f%% -> %.0f%%, branch stall %.0f%% -> %.0f%%: ",
	    100 * ms_a, 100 * ms_b, 100 * bs_a, 100 * bs_b);
	if (ms_b - ms_a > 0.02 && ms_b - ms_a >= bs_b - bs_a)
		say(c, "the memory class grew (LLC misses)\n");
	else if (bs_b - bs_a > 0.02)
		say(c, "the branch-mispredict class grew\n");
	else
		say(c, "neither modelled class grew (frontend or core: see top-down)\n");
}

void cstats_compare(const struct cstats *a, const struct cstats *b, const struct counters_model *m,
		    struct cstats_cmp *out)
{
	const struct cstats_delta *cyc, *tc;
	size_t listed = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < a->nr; i++) {
		const struct cstats_counter *ca = &a->c[i], *cb = cstats_find(b, ca->name);
		struct cstats_delta *d;

		if (!cb)
			continue;
		d = &out->d[out->nr++];
		d->name = ca->name;
		d->clock = ca->clock;
		d->a = ca->mean;
		d->b = cb->mean;
		d->pct = ca->mean ? 100 * (cb->mean - ca->mean) / fabs(ca->mean) : 0;
		d->noise = sqrt(ca->stddev * ca->stddev + cb->stddev * cb->stddev);
		d->spread_known = ca->n > 1 && cb->n > 1;
		d->significant = d->a != d->b && (!d->spread_known ||
						  fabs(d->b - d->a) > 2 * d->noise);
	}
	cyc = delta(out, "cycles");
	if (cyc) {
		say(out, "1. cycles %+.1f%%%s\n", cyc->pct, sig(cyc));
		if (cyc->significant && cyc->b > cyc->a)
			why_cycles_rose(a, b, m, out);
		else if (cyc->significant)
			say(out, "   B is faster\n");
	} else {
		tc = delta(out, "task-clock");
		say(out, "1. no cycles (no hardware PMU): IPC and stall classes cannot be told;");
		if (tc)
			say(out, " task-clock %+.1f%%%s\n", tc->pct, sig(tc));
		else
			say(out, " no task-clock either\n");
	}
	for (size_t i = 0; i < out->nr; i++) {
		const struct cstats_delta *d = &out->d[i];

		if (!d->significant || !strcmp(d->name, "cycles") ||
		    !strcmp(d->name, "instructions") || !strcmp(d->name, "task-clock") ||
		    !strcmp(d->name, "cpu-clock"))
			continue;
		if (!listed++)
			say(out, "%s. beyond the spread:\n", cyc ? "4" : "2");
		say(out, "   %s %+.1f%% (%.0f -> %.0f)\n", d->name, d->pct, d->a, d->b);
	}
}

int cstats_write_compare(FILE *out, const struct cstats_cmp *c, const char *name_a,
			 const char *name_b)
{
	fprintf(out, "\n A: %s\n B: %s\n (clocks in msec)\n\n", name_a, name_b);
	fprintf(out, "  %-20s %16s %16s %9s %14s\n", "event", "A", "B", "delta", "spread (2 sd)");
	for (size_t i = 0; i < c->nr; i++) {
		const struct cstats_delta *d = &c->d[i];
		double k = d->clock ? 1e-6 : 1;	/* clocks in msec, as stat prints them */

		fprintf(out, "  %-20s %16.2f %16.2f %+8.1f%% ", d->name, d->a * k, d->b * k, d->pct);
		if (d->spread_known)
			fprintf(out, "%14.2f%s\n", 2 * d->noise * k, d->significant ? "  *" : "");
		else
			fprintf(out, "%14s%s\n", "-", d->significant ? "  *" : "");
	}
	fprintf(out, "\n  (* differs by more than twice the runs' spread, or single runs differ)\n"
		     "\n%s", c->verdict);
	return ferror(out) ? -EIO : 0;
}

int cstats_write_compare_json(FILE *out, const struct cstats_cmp *c, const char *name_a,
			      const char *name_b)
{
	const char *v = c->verdict;

	fputs("{\"a\":", out);
	json_write_string(out, name_a);
	fputs(",\"b\":", out);
	json_write_string(out, name_b);
	fputs(",\"counters\":[", out);
	for (size_t i = 0; i < c->nr; i++) {
		const struct cstats_delta *d = &c->d[i];

		fputs(i ? ",{\"event\":" : "{\"event\":", out);
		json_write_string(out, d->name);
		/* clocks in nanoseconds here: scripts get the unit the counts have */
		fprintf(out, ",\"unit\":\"%s\",\"a\":%.6g,\"b\":%.6g,\"delta_pct\":%.4f",
			d->clock ? "ns" : "", d->a, d->b, d->pct);
		if (d->spread_known)
			fprintf(out, ",\"noise\":%.6g", d->noise);
		else
			fputs(",\"noise\":null", out);
		fprintf(out, ",\"significant\":%s}", d->significant ? "true" : "false");
	}
	/* the reasoning, one step per line as the text shows it */
	fputs("],\"verdict\":[", out);
	for (int first = 1; *v; first = 0) {
		size_t n = strcspn(v, "\n");
		char line[1024];

		snprintf(line, sizeof(line), "%.*s", (int)n, v);
		if (!first)
			fputc(',', out);
		json_write_string(out, line);
		v += n + (v[n] == '\n');
	}
	fputs("]}\n", out);
	return ferror(out) ? -EIO : 0;
}
