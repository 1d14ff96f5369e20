// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * annotate output: the hottest source lines first (where to look), then the
 * whole function in address order with each line's source above its
 * instructions (why it costs). Shares are of the function's self samples.
 */
#include "analysis/annotate.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "util/json.h"
#include "util/termsafe.h"

static double pct(uint64_t w, uint64_t total)
{
	return total ? 100.0 * (double)w / (double)total : 0;
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static const struct annotate_line *find_line(const struct annotate_result *r, const char *file,
					     uint32_t line)
{
	for (size_t i = 0; i < r->nr_lines; i++)
		if (r->lines[i].file == file && r->lines[i].line == line)
			return &r->lines[i];
	return NULL;
}

static void put_src(FILE *out, const struct annotate_line *l)
{
	fputs("  ", out);
	termsafe_put(base(l->file), out);
	fprintf(out, ":%" PRIu32, l->line);
	if (l->inlined) {
		fputs(" [inlined ", out);
		termsafe_put(l->inlined, out);
		fputc(']', out);
	}
	fputs("  ", out);
	termsafe_put(l->text ? l->text : "(source not found)", out);
	fputc('\n', out);
}

static const struct annotate_branch *branch_at(const struct annotate_result *r, uint64_t addr)
{
	for (size_t i = 0; i < r->nr_branches; i++)
		if (r->branches[i].addr == addr)
			return &r->branches[i];
	return NULL;
}

static void put_branch(FILE *out, const struct annotate_branch *b)
{
	fprintf(out, "mispredicted %" PRIu64 " of %" PRIu64 " (%.1f%%) -> ", b->mispred, b->taken,
		pct(b->mispred, b->taken));
	termsafe_put(b->target, out);
	fputc('\n', out);
}

/* record -b: the function's branch sites, most mispredicted first */
static void put_branches(FILE *out, const struct annotate_result *r, size_t top)
{
	if (!r->nr_branches)
		return;
	fprintf(out, "\nBranch sites (record -b; taken branches recorded, %% mispredicted):\n");
	for (size_t i = 0; i < r->nr_branches && (!top || i < top); i++) {
		fprintf(out, "%16s  %8" PRIx64 ":  ", "", r->branches[i].addr);
		put_branch(out, &r->branches[i]);
	}
}

int annotate_write_text(FILE *out, const struct annotate_sel *s, const struct annotate_result *r,
			size_t top)
{
	uint64_t total = s->total;
	const char *file = NULL;
	uint32_t line = 0;

	fputs("annotate ", out);
	termsafe_put(r->symbol, out);
	fputs(" in ", out);
	termsafe_put(r->obj_path, out);
	if (s->build_id && *s->build_id)
		fprintf(out, " (build ID %s)", s->build_id);
	fprintf(out, ": %" PRIu64 " %s of %" PRIu64 " in the profile (%.1f%%), self only\n", total,
		s->type && *s->type ? s->type : "samples", s->profile_total,
		pct(total, s->profile_total));
	if (r->debug_path) {
		fputs("  symbols and lines from ", out);
		termsafe_put(r->debug_path, out);
		fputc('\n', out);
	}
	if (r->missing[0]) {
		fputs("  missing: ", out);
		termsafe_put(r->missing, out);
		fputc('\n', out);
	}
	if (r->outside)
		fprintf(out, "  %" PRIu64 " samples fell outside %s's code (%.1f%%)\n", r->outside,
			r->symbol, pct(r->outside, total));
	if (s->no_addr)
		fprintf(out, "  %" PRIu64 " samples had no address\n", s->no_addr);
	if (r->nr_lines) {
		fprintf(out, "\nHottest lines (%% of the function's samples):\n");
		for (size_t i = 0; i < r->nr_lines && (!top || i < top); i++) {
			if (!r->lines[i].weight)
				break;
			fprintf(out, "%6.1f%% %8" PRIu64, pct(r->lines[i].weight, total),
				r->lines[i].weight);
			put_src(out, &r->lines[i]);
		}
		if (r->no_line)
			fprintf(out, "%6.1f%% %8" PRIu64 "  (no line information)\n",
				pct(r->no_line, total), r->no_line);
	}
	put_branches(out, r, top);
	fputs("\n", out);
	termsafe_put(r->symbol, out);
	fprintf(out, " in address order:\n");
	for (size_t i = 0; i < r->nr_insns; i++) {
		const struct annotate_insn *in = &r->insns[i];

		if (in->file && (in->file != file || in->line != line)) {
			const struct annotate_line *l = find_line(r, in->file, in->line);

			fprintf(out, "%16s", "");
			if (l)
				put_src(out, l);
			file = in->file;
			line = in->line;
		} else if (!in->file && file) {
			/* DWARF line 0: code the compiler made up (spills, loop set-up) */
			fprintf(out, "%16s  (no source line)\n", "");
			file = NULL;
			line = 0;
		}
		if (in->weight)
			fprintf(out, "%6.1f%% %8" PRIu64, pct(in->weight, total), in->weight);
		else
			fprintf(out, "%16s", "");
		fprintf(out, "  %8" PRIx64 ":  ", in->addr);
		termsafe_put(in->text, out);
		fputc('\n', out);
		if (branch_at(r, in->addr)) {
			fprintf(out, "%16s  %8s   ^ ", "", "");
			put_branch(out, branch_at(r, in->addr));
		}
	}
	return ferror(out) ? -EIO : 0;
}

static void jstr(FILE *out, const char *key, const char *v)
{
	fprintf(out, "\"%s\":", key);
	if (v)
		json_write_string(out, v);
	else
		fputs("null", out);
}

int annotate_write_json(FILE *out, const struct annotate_sel *s, const struct annotate_result *r)
{
	fputc('{', out);
	jstr(out, "function", r->symbol);
	fputc(',', out);
	jstr(out, "object", r->obj_path);
	fputc(',', out);
	jstr(out, "build_id", s->build_id && *s->build_id ? s->build_id : NULL);
	fputc(',', out);
	jstr(out, "debug_file", r->debug_path);
	fputc(',', out);
	jstr(out, "unit", s->type && *s->type ? s->type : "samples");
	fprintf(out, ",\"samples\":%" PRIu64 ",\"profile_samples\":%" PRIu64
		",\"outside\":%" PRIu64 ",\"no_address\":%" PRIu64 ",\"no_line\":%" PRIu64
		",\"address\":%" PRIu64 ",\"size\":%" PRIu64 ",",
		s->total, s->profile_total, r->outside, s->no_addr, r->no_line, r->sym_addr,
		r->sym_size);
	jstr(out, "missing", r->missing[0] ? r->missing : NULL);
	fputs(",\"lines\":[", out);
	for (size_t i = 0; i < r->nr_lines; i++) {
		const struct annotate_line *l = &r->lines[i];

		fprintf(out, "%s{", i ? "," : "");
		jstr(out, "file", l->file);
		fprintf(out, ",\"line\":%" PRIu32 ",\"samples\":%" PRIu64 ",", l->line, l->weight);
		jstr(out, "inlined", l->inlined);
		fputc(',', out);
		jstr(out, "source", l->text);
		fputc('}', out);
	}
	fputs("],\"instructions\":[", out);
	for (size_t i = 0; i < r->nr_insns; i++) {
		const struct annotate_insn *in = &r->insns[i];

		fprintf(out, "%s{\"address\":%" PRIu64 ",\"size\":%u,", i ? "," : "", in->addr,
			in->size);
		jstr(out, "text", in->text);
		fputc(',', out);
		jstr(out, "file", in->file);
		fprintf(out, ",\"line\":%" PRIu32 ",\"samples\":%" PRIu64 ",", in->line, in->weight);
		jstr(out, "inlined", in->inlined);
		fputc('}', out);
	}
	fputs("],\"branches\":[", out);
	for (size_t i = 0; i < r->nr_branches; i++) {
		const struct annotate_branch *b = &r->branches[i];

		fprintf(out, "%s{\"address\":%" PRIu64 ",\"taken\":%" PRIu64
			",\"mispredicted\":%" PRIu64 ",", i ? "," : "", b->addr, b->taken, b->mispred);
		jstr(out, "target", b->target);
		fputc('}', out);
	}
	fputs("]}\n", out);
	return ferror(out) ? -EIO : 0;
}
