// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Drill-down ratios and their bands (counters_drill.h; the table is SEEDS.md §2's). */
#include "analysis/counters_drill.h"

#include <errno.h>
#include <string.h>

#include "util/json.h"

#define A DRILL_ARM
#define X DRILL_X86

static const struct drill_metric metrics[] = {
	{ "L1d miss rate", DRILL_CACHE, { [A] = "l1d_cache_refill", [X] = "L1-dcache-load-misses" },
	  { [A] = "l1d_cache", [X] = "L1-dcache-loads" }, 0.05, 0.10,
	  "struct layout, false sharing, random access" },
	{ "L1d->L2 miss", DRILL_CACHE, { [A] = "l1d_cache_lmiss_rd" }, { [A] = "l1d_cache_refill" },
	  0.30, 0.50, "L1 misses that also miss L2: working set beyond L2" },
	{ "L2 miss rate", DRILL_CACHE, { [A] = "l2d_cache_refill" }, { [A] = "l2d_cache" },
	  0.10, 0.20, "working set larger than L2" },
	{ "L2->LLC/DRAM", DRILL_CACHE, { [A] = "l2d_cache_lmiss_rd" }, { [A] = "l2d_cache_refill" },
	  0.20, 0.40, "L2 misses going on to the LLC or DRAM" },
	{ "dTLB miss", DRILL_CACHE, { [A] = "dtlb_walk", [X] = "dTLB-load-misses" },
	  { [A] = "mem_access", [X] = "dTLB-loads" }, 0.005, 0.02,
	  "scattered heap pages (huge pages, arenas)" },
	{ "iTLB miss", DRILL_CACHE, { [A] = "itlb_walk", [X] = "iTLB-load-misses" },
	  { [A] = "l1i_cache", [X] = "iTLB-loads" }, 0.001, 0.01,
	  "code bloat (inlining, monomorphization)" },
	{ "speculative mispredict", DRILL_BRANCHES, { [A] = "br_mis_pred" }, { [A] = "br_pred" },
	  0.02, 0.05, "hard-to-predict branches, incl. wrong-path ones" },
	{ "retired mispredict", DRILL_BRANCHES, { [A] = "br_mis_pred_retired", [X] = "branch-misses" },
	  { [A] = "br_retired", [X] = "branches" }, 0.01, 0.03,
	  "data-dependent branches: sample on mispredicts to find them" },
	{ "branch density", DRILL_BRANCHES, { [A] = "br_retired", [X] = "branches" },
	  { [A] = "inst_retired", [X] = "instructions" }, 0.20, 0.30,
	  "branchy code: fewer, more predictable branches (branchless, tables)" },
};

int drill_mode_parse(const char *s, enum drill_mode *out)
{
	if (!strcmp(s, "cache") || !strcmp(s, "tlb") || !strcmp(s, "memory"))
		*out = DRILL_CACHE;
	else if (!strcmp(s, "branches") || !strcmp(s, "branch"))
		*out = DRILL_BRANCHES;
	else
		return -EINVAL;
	return 0;
}

const char *drill_mode_name(enum drill_mode m)
{
	return m == DRILL_CACHE ? "cache and TLB" : m == DRILL_BRANCHES ? "branches" : "?";
}

const char *drill_verdict_name(enum drill_verdict v)
{
	static const char *const n[] = { "not available", "healthy", "watch", "investigate" };

	return (unsigned int)v < 4 ? n[v] : "?";
}

static size_t add_name(const char **names, size_t nr, const char *name)
{
	if (!name || nr == DRILL_MAX_EVENTS)
		return nr;
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(names[i], name))
			return nr;
	names[nr] = name;
	return nr + 1;
}

size_t drill_events(enum drill_mode m, enum drill_isa isa, const char **names)
{
	size_t nr = 0;

	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++) {
		if (metrics[i].mode != m || (unsigned int)isa >= DRILL_ISA_NR)
			continue;
		nr = add_name(names, nr, metrics[i].num[isa]);
		nr = add_name(names, nr, metrics[i].den[isa]);
	}
	return nr;
}

/* Index of @name in @names[0..nr), or nr. */
static size_t name_index(const char *const *names, size_t nr, const char *name)
{
	size_t i = 0;

	while (i < nr && strcmp(names[i], name))
		i++;
	return i;
}

size_t drill_pairs(enum drill_mode m, enum drill_isa isa, const char *const *names, size_t nr,
		   size_t *num, size_t *den)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++) {
		const struct drill_metric *d = &metrics[i];

		if (d->mode != m || (unsigned int)isa >= DRILL_ISA_NR || !d->num[isa] || !d->den[isa])
			continue;
		num[n] = name_index(names, nr, d->num[isa]);
		den[n] = name_index(names, nr, d->den[isa]);
		if (num[n] < nr && den[n] < nr)
			n++;
	}
	return n;
}

size_t drill_compute(enum drill_mode m, enum drill_isa isa, drill_lookup look, void *ctx,
		     struct drill_row *rows)
{
	size_t nr = 0;

	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++) {
		const struct drill_metric *d = &metrics[i];
		struct drill_row *r;
		double num, den, run_n, run_d;

		if (d->mode != m || (unsigned int)isa >= DRILL_ISA_NR)
			continue;
		r = &rows[nr++];
		memset(r, 0, sizeof(*r));
		r->m = d;
		if (!d->num[isa] || !d->den[isa]) {
			r->why = isa == DRILL_X86 ? "no generic x86 event" : "no event";
			continue;
		}
		if (!look(ctx, d->num[isa], &num, &run_n)) {
			r->why = d->num[isa];
			continue;
		}
		if (!look(ctx, d->den[isa], &den, &run_d)) {
			r->why = d->den[isa];
			continue;
		}
		if (den <= 0) {
			r->why = "denominator 0";
			continue;
		}
		r->value = num / den;
		r->running = run_n < run_d ? run_n : run_d;
		r->verdict = r->value < d->healthy ? DRILL_HEALTHY :
			     r->value > d->investigate ? DRILL_INVESTIGATE : DRILL_WATCH;
	}
	return nr;
}

int drill_write_text(FILE *out, enum drill_mode m, const struct drill_row *rows, size_t nr)
{
	fprintf(out, "\n  %s drill-down (SEEDS.md bands; (running %%) when multiplexed below 100%%):\n",
		drill_mode_name(m));
	for (size_t i = 0; i < nr; i++) {
		const struct drill_row *r = &rows[i];
		char band[64];

		snprintf(band, sizeof(band), "healthy < %g%%, investigate > %g%%",
			 100 * r->m->healthy, 100 * r->m->investigate);
		if (r->verdict == DRILL_NA) {
			fprintf(out, "  %-24s %9s   %-36s not available (%s)\n", r->m->name, "-", band,
				r->why);
			continue;
		}
		fprintf(out, "  %-24s %8.2f%%   %-36s (%5.1f%%) %s", r->m->name, 100 * r->value,
			band, 100 * r->running, drill_verdict_name(r->verdict));
		if (r->verdict == DRILL_INVESTIGATE)
			fprintf(out, ": %s", r->m->points_at);
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}

int drill_write_json(FILE *out, enum drill_mode m, const struct drill_row *rows, size_t nr,
		     const char *status)
{
	static const char *const keys[DRILL_NR] = { "cache", "branches" };

	fprintf(out, "{\"mode\":\"%s\",\"available\":%s", (unsigned)m < DRILL_NR ? keys[m] : "?",
		status ? "false" : "true");
	if (status) {
		fputs(",\"why\":", out);
		json_write_string(out, status);
	}
	fputs(",\"metrics\":[", out);
	for (size_t i = 0; i < nr; i++) {
		const struct drill_row *r = &rows[i];

		fputs(i ? ",{\"name\":" : "{\"name\":", out);
		json_write_string(out, r->m->name);
		/* a ratio that could not be computed is null, never 0 */
		if (r->verdict == DRILL_NA)
			fputs(",\"value\":null,\"running\":null", out);
		else
			fprintf(out, ",\"value\":%.6f,\"running\":%.4f", r->value, r->running);
		fprintf(out, ",\"healthy_below\":%g,\"investigate_above\":%g,\"verdict\":\"%s\"",
			r->m->healthy, r->m->investigate, drill_verdict_name(r->verdict));
		if (r->verdict == DRILL_NA) {
			fputs(",\"why\":", out);
			json_write_string(out, r->why ? r->why : "");
		}
		fputs(",\"points_at\":", out);
		json_write_string(out, r->m->points_at);
		fputc('}', out);
	}
	fputs("]}", out);
	return ferror(out) ? -EIO : 0;
}
