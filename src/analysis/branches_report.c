// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* report --branches: the mispredicted branch sites of a `record -b`, as text or JSON. */
#include "analysis/branches.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "util/json.h"

void branch_end_name(const struct branch_end *e, char *buf, size_t len)
{
	const char *mod = e->module ? strrchr(e->module, '/') : NULL;
	int n;

	mod = mod ? mod + 1 : e->module;
	if (e->func && e->has_func_off)
		n = snprintf(buf, len, "%s+0x%" PRIx64, e->func, e->func_off);
	else if (e->func)
		n = snprintf(buf, len, "%s", e->func);
	else if (mod)
		n = snprintf(buf, len, "%s+0x%" PRIx64, mod, e->off);
	else
		n = snprintf(buf, len, "[unknown] 0x%" PRIx64, e->off);
	if (n < 0 || (size_t)n >= len)
		return;
	/* the file name: the JSON and the branch file keep the path */
	if (e->file && e->line)
		snprintf(buf + n, len - n, " (%s:%" PRIu32 ")",
			 strrchr(e->file, '/') ? strrchr(e->file, '/') + 1 : e->file, e->line);
}

/* Whether the PMU flagged any entry either way: without flags there is no mispredict data. */
static bool has_flags(const struct branch_totals *t)
{
	return t->mispred || t->predicted;
}

/* How many of @t's sites the report lists (they are in branch_table_sort() order). */
static size_t listed(const struct branch_table *t, size_t top)
{
	size_t n = 0;

	while (n < t->nr && (!top || n < top) && (!has_flags(&t->t) || t->v[n].mispred))
		n++;
	return n;
}

static void write_totals(FILE *out, const struct branch_totals *t)
{
	fprintf(out, "Branch records: %" PRIu64 " samples, %" PRIu64 " taken branches (%.1f per "
		     "sample), %" PRIu64 " mispredicted (%.2f%%)\n",
		t->samples, t->entries, t->samples ? (double)t->entries / t->samples : 0.0,
		t->mispred, branch_pct(t->mispred, t->entries));
	if (t->entries && !has_flags(t))
		fputs("note: this PMU flagged no branch as predicted or mispredicted: sites are "
		      "listed by how often they were taken\n", out);
	if (t->dropped_sites)
		fprintf(out, "note: %" PRIu64 " branches of sites past the %u-site limit are in the "
			     "totals only\n", t->dropped_sites, BRANCH_MAX_SITES);
	if (t->bad_records)
		fprintf(out, "note: %" PRIu64 " branch stacks were not fully counted while "
			     "recording (out of memory)\n", t->bad_records);
}

int branches_write_report(FILE *out, const struct branch_table *t, size_t top)
{
	size_t n = listed(t, top);
	char from[512], to[512];

	write_totals(out, &t->t);
	if (!n) {
		fputs(t->t.entries ? "No mispredicted branch site.\n" : "No branch recorded.\n",
		      out);
		return ferror(out) ? -EIO : 0;
	}
	fprintf(out, "\n%s (miss%%: of that branch's executions; share: of all %s):\n",
		has_flags(&t->t) ? "Mispredicted branch sites" : "Taken branch sites",
		has_flags(&t->t) ? "mispredicts" : "taken branches");
	fprintf(out, "%10s %7s %10s %7s %7s  %s\n", "mispred", "miss%", "taken", "share",
		"cycles", "branch -> target");
	for (size_t i = 0; i < n; i++) {
		const struct branch_site *s = &t->v[i];

		branch_end_name(&s->from, from, sizeof(from));
		branch_end_name(&s->to, to, sizeof(to));
		fprintf(out, "%10" PRIu64 " %6.2f%% %10" PRIu64 " %6.2f%% ", s->mispred,
			branch_pct(s->mispred, s->taken), s->taken,
			has_flags(&t->t) ? branch_pct(s->mispred, t->t.mispred)
					 : branch_pct(s->taken, t->t.entries));
		if (s->cycles_n)
			fprintf(out, "%7.1f", (double)s->cycles / s->cycles_n);
		else
			fprintf(out, "%7s", "-");
		fprintf(out, "  %s -> %s\n", from, to);
	}
	if (n < t->nr) {
		size_t more = 0;

		for (size_t i = n; i < t->nr && (!has_flags(&t->t) || t->v[i].mispred); i++)
			more++;
		if (more)
			fprintf(out, "(%zu more sites: --top 0 lists all)\n", more);
		if (n + more < t->nr)
			fprintf(out, "(%zu sites never mispredicted not shown)\n", t->nr - n - more);
	}
	return ferror(out) ? -EIO : 0;
}

static void json_end(FILE *out, const char *key, const struct branch_end *e)
{
	fprintf(out, "\"%s\":{\"module\":", key);
	if (e->module)
		json_write_string(out, e->module);
	else
		fputs("null", out);
	fprintf(out, ",\"offset\":%" PRIu64 ",\"function\":", e->off);
	if (e->func)
		json_write_string(out, e->func);
	else
		fputs("null", out);
	if (e->func && e->has_func_off)
		fprintf(out, ",\"function_offset\":%" PRIu64, e->func_off);
	fputs(",\"file\":", out);
	if (e->file)
		json_write_string(out, e->file);
	else
		fputs("null", out);
	fprintf(out, ",\"line\":%" PRIu32 "}", e->line);
}

int branches_write_json(FILE *out, const struct branch_table *t, size_t top)
{
	size_t n = listed(t, top);

	fprintf(out, "{\"samples\":%" PRIu64 ",\"taken\":%" PRIu64 ",\"mispredicted\":%" PRIu64
		     ",\"predicted\":%" PRIu64 ",\"mispredict_pct\":%.4f,\"per_sample\":%.2f,"
		     "\"dropped_sites\":%" PRIu64 ",\"sites\":[",
		t->t.samples, t->t.entries, t->t.mispred, t->t.predicted,
		branch_pct(t->t.mispred, t->t.entries),
		t->t.samples ? (double)t->t.entries / t->t.samples : 0.0, t->t.dropped_sites);
	for (size_t i = 0; i < n; i++) {
		const struct branch_site *s = &t->v[i];

		fprintf(out, "%s{\"taken\":%" PRIu64 ",\"mispredicted\":%" PRIu64
			     ",\"predicted\":%" PRIu64 ",\"mispredict_pct\":%.4f,",
			i ? "," : "", s->taken, s->mispred, s->predicted,
			branch_pct(s->mispred, s->taken));
		if (s->cycles_n)
			fprintf(out, "\"avg_cycles\":%.2f,", (double)s->cycles / s->cycles_n);
		json_end(out, "from", &s->from);
		fputc(',', out);
		json_end(out, "to", &s->to);
		fputc('}', out);
	}
	fputs("]}\n", out);
	return ferror(out) ? -EIO : 0;
}
