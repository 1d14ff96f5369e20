// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * OUTPUT.branches, the branch sites of a `record -b` (docs/output-formats.md):
 *   # hotcold branches v1 samples=N entries=N mispredicted=N predicted=N ...
 * then per site, tab-separated: taken mispred predicted cycles cycles_n,
 * then for from and to each: module 0xOFF func 0xFUNC_OFF file line
 * ("-" for an unknown string or function offset, line 0 unknown).
 */
#include "analysis/branches.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define BRANCHES_MAGIC "# hotcold branches v1"
#define BRANCHES_FIELDS 17
#define BRANCHES_LINE_MAX 8192

/* A name as one field: "-" for none; tabs and newlines would split the line. */
static void put_field(FILE *out, const char *s)
{
	if (!s || !*s || !strcmp(s, "-")) {
		fputs("\t-", out);
		return;
	}
	fputc('\t', out);
	for (; *s; s++)
		fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, out);
}

static void put_end(FILE *out, const struct branch_end *e)
{
	put_field(out, e->module);
	fprintf(out, "\t0x%" PRIx64, e->off);
	put_field(out, e->func);
	if (e->func && e->has_func_off)
		fprintf(out, "\t0x%" PRIx64, e->func_off);
	else
		fputs("\t-", out);
	put_field(out, e->file);
	fprintf(out, "\t%" PRIu32, e->line);
}

int branches_write(FILE *out, const struct branch_table *t)
{
	fprintf(out,
		BRANCHES_MAGIC " samples=%" PRIu64 " entries=%" PRIu64 " mispredicted=%" PRIu64
			       " predicted=%" PRIu64 " dropped_sites=%" PRIu64
			       " bad_records=%" PRIu64 "\n",
		t->t.samples, t->t.entries, t->t.mispred, t->t.predicted, t->t.dropped_sites,
		t->t.bad_records);
	for (size_t i = 0; i < t->nr; i++) {
		const struct branch_site *s = &t->v[i];

		fprintf(out, "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64,
			s->taken, s->mispred, s->predicted, s->cycles, s->cycles_n);
		put_end(out, &s->from);
		put_end(out, &s->to);
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}

struct reader {
	struct branch_table *t;
	const char **modules;	/* a module's index + 1 is its ends' obj */
	size_t nr_modules;
	char *err;
	size_t errlen;
	size_t lineno;
};

static int bad(struct reader *r, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (!r->err || !r->errlen)
		return -EINVAL;
	if (r->lineno)
		n = snprintf(r->err, r->errlen, "line %zu: ", r->lineno);
	if (n < 0 || (size_t)n >= r->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(r->err + n, r->errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Decimal (or with @hex, "0x" hex) u64 filling the whole field. */
static int field_u64(const char *s, bool hex, uint64_t *out)
{
	char *end;

	if (hex && strncmp(s, "0x", 2))
		return -EINVAL;
	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, hex ? 16 : 10);
	return errno || *end ? -EINVAL : 0;
}

static uint32_t module_id(struct reader *r, const char *name)
{
	const char **v;

	for (size_t i = 0; i < r->nr_modules; i++)
		if (!strcmp(r->modules[i], name))
			return (uint32_t)i + 1;
	v = realloc(r->modules, (r->nr_modules + 1) * sizeof(*v));
	if (!v)
		return 0;
	r->modules = v;
	v[r->nr_modules++] = name;
	return (uint32_t)r->nr_modules;
}

static const char *opt_str(struct reader *r, const char *s)
{
	return strcmp(s, "-") ? branch_table_intern(r->t, s) : NULL;
}

/* Fields f[0..6) of one end. */
static int parse_end(struct reader *r, char **f, struct branch_end *e)
{
	uint64_t line;

	memset(e, 0, sizeof(*e));
	if (field_u64(f[1], true, &e->off))
		return bad(r, "bad offset '%s'", f[1]);
	if (strcmp(f[3], "-")) {
		if (field_u64(f[3], true, &e->func_off))
			return bad(r, "bad function offset '%s'", f[3]);
		e->has_func_off = true;
	}
	if (field_u64(f[5], false, &line) || line > UINT32_MAX)
		return bad(r, "bad line number '%s'", f[5]);
	e->line = (uint32_t)line;
	e->module = opt_str(r, f[0]);
	e->func = opt_str(r, f[2]);
	e->file = opt_str(r, f[4]);
	if ((strcmp(f[0], "-") && !e->module) || (strcmp(f[2], "-") && !e->func) ||
	    (strcmp(f[4], "-") && !e->file))
		return -ENOMEM;
	if (e->module) {
		e->obj = module_id(r, e->module);
		if (!e->obj)
			return -ENOMEM;
	}
	return 0;
}

static int parse_site(struct reader *r, char *line, struct branch_site *s)
{
	char *f[BRANCHES_FIELDS + 1], *save = NULL, *tok;
	uint64_t *n[5] = { &s->taken, &s->mispred, &s->predicted, &s->cycles, &s->cycles_n };
	size_t nf = 0;
	int err;

	for (tok = strtok_r(line, "\t", &save); tok && nf <= BRANCHES_FIELDS;
	     tok = strtok_r(NULL, "\t", &save))
		f[nf++] = tok;
	if (nf != BRANCHES_FIELDS)
		return bad(r, "%zu%s fields, want %d (truncated?)", nf,
			   nf > BRANCHES_FIELDS ? " or more" : "", BRANCHES_FIELDS);
	for (size_t i = 0; i < 5; i++)
		if (field_u64(f[i], false, n[i]))
			return bad(r, "bad count '%s'", f[i]);
	if (!s->taken || s->mispred + s->predicted > s->taken || s->cycles_n > s->taken)
		return bad(r, "counts do not add up (taken %" PRIu64 ", mispredicted %" PRIu64
			      ", predicted %" PRIu64 ")", s->taken, s->mispred, s->predicted);
	err = parse_end(r, &f[5], &s->from);
	return err ? err : parse_end(r, &f[11], &s->to);
}

static int parse_header(struct reader *r, char *line)
{
	struct { const char *key; uint64_t *v; bool seen; } keys[] = {
		{ "samples", &r->t->t.samples, false }, { "entries", &r->t->t.entries, false },
		{ "mispredicted", &r->t->t.mispred, false },
		{ "predicted", &r->t->t.predicted, false },
		{ "dropped_sites", &r->t->t.dropped_sites, false },
		{ "bad_records", &r->t->t.bad_records, false },
	};
	char *save = NULL, *tok;

	if (strncmp(line, BRANCHES_MAGIC " ", sizeof(BRANCHES_MAGIC)))
		return bad(r, "not a hotcold branches file (no '" BRANCHES_MAGIC "' header)");
	for (tok = strtok_r(line + sizeof(BRANCHES_MAGIC), " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq)
			return bad(r, "bad header field '%s'", tok);
		*eq = '\0';
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			if (strcmp(keys[i].key, tok))
				continue;
			if (field_u64(eq + 1, false, keys[i].v))
				return bad(r, "bad header value %s='%s'", tok, eq + 1);
			keys[i].seen = true;
		}
		/* other keys: from a newer writer; ignored */
	}
	if (!keys[0].seen || !keys[1].seen || !keys[2].seen)
		return bad(r, "header without samples, entries or mispredicted");
	return 0;
}

/* One line into @buf, without its newline; 0, 1 at EOF, -EINVAL (no newline: truncated). */
static int get_line(struct reader *r, FILE *in, char *buf, size_t len)
{
	size_t n;

	if (!fgets(buf, (int)len, in))
		return ferror(in) ? -EIO : 1;
	r->lineno++;
	n = strlen(buf);
	if (!n || buf[n - 1] != '\n')
		return bad(r, n + 1 >= len ? "longer than %zu bytes" : "no newline (truncated?)",
			   len - 1);
	buf[n - 1] = '\0';
	return 0;
}

/* The sites' sums cannot pass the header's totals: a file cut or edited. */
static int check_totals(struct reader *r)
{
	uint64_t taken = 0, mispred = 0;

	for (size_t i = 0; i < r->t->nr; i++) {
		taken += r->t->v[i].taken;
		mispred += r->t->v[i].mispred;
	}
	r->lineno = 0;
	if (taken > r->t->t.entries || mispred > r->t->t.mispred)
		return bad(r, "sites add up to more than the header's totals (%" PRIu64
			      " taken, %" PRIu64 " mispredicted)", taken, mispred);
	return 0;
}

int branches_read(FILE *in, struct branch_table *t, char *err, size_t errlen)
{
	struct reader r = { .t = t, .err = err, .errlen = errlen };
	char *buf = malloc(BRANCHES_LINE_MAX);
	int ret;

	if (!buf)
		return -ENOMEM;
	if (err && errlen)
		err[0] = '\0';
	ret = get_line(&r, in, buf, BRANCHES_LINE_MAX);
	if (ret == 1)
		ret = bad(&r, "empty file");
	if (!ret)
		ret = parse_header(&r, buf);
	while (!ret) {
		struct branch_site s;

		ret = get_line(&r, in, buf, BRANCHES_LINE_MAX);
		if (ret)
			break;
		ret = parse_site(&r, buf, &s);
		if (!ret)
			ret = branch_table_put(t, &s);
		if (ret == -EEXIST)
			ret = bad(&r, "the same site twice");
	}
	if (ret == 1)
		ret = check_totals(&r);
	free(r.modules);
	free(buf);
	return ret;
}
