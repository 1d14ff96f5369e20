// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The lock table: numbers from the BPF per-lock map, stacks from the aggregation. */
#include "record/locks_report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect/locknames.h"

#define TOP_STACKS 3
#define STACK_TEXT 8192

static unsigned int sort_key;

static int cmp_rows(const void *a, const void *b)
{
	const struct lock_row *x = a, *y = b;
	uint64_t vx = sort_key == 1 ? x->max_ns : sort_key == 2 ? x->count : x->total_ns;
	uint64_t vy = sort_key == 1 ? y->max_ns : sort_key == 2 ? y->count : y->total_ns;

	if (vx != vy)
		return vx < vy ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

struct top {
	struct stack_entry e[TOP_STACKS];	/* copies: for_each's pointer is temporary */
	size_t nr;
	uint32_t id;
};

/* Keep the TOP_STACKS heaviest lock stacks of one lock. */
static int pick(const struct stack_entry *e, void *arg)
{
	struct top *t = arg;
	size_t i;

	if (e->key.kind != SAMPLE_LOCK || e->key.aux != t->id)
		return 0;
	if (t->nr < TOP_STACKS)
		t->nr++;
	else if (e->weight <= t->e[TOP_STACKS - 1].weight)
		return 0;
	/* insertion into the sorted (heaviest first) list; the last one falls off */
	for (i = t->nr - 1; i > 0 && t->e[i - 1].weight < e->weight; i--)
		t->e[i] = t->e[i - 1];
	t->e[i] = *e;
	return 0;
}

static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(out, "\\u%04x", *s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

static void write_row_text(FILE *out, const struct lock_row *r, const struct lock_ident *li)
{
	fprintf(out, "%11.3f %9llu %10.1f %10.1f  %-11s %7u  %-16s %s\n", r->total_ns / 1e6,
		(unsigned long long)r->count, r->count ? r->total_ns / 1e3 / r->count : 0.0,
		r->max_ns / 1e3, li ? lock_type_name(li->type) : "?", li ? li->tgid : 0,
		li && li->tgid ? r->comm : "[kernel]", li ? li->label : "?");
}

static void write_row_json(FILE *out, const struct lock_row *r, const struct lock_ident *li,
			   bool first)
{
	fprintf(out, "%s\n  {\"lock\": ", first ? "" : ",");
	json_str(out, li ? li->label : "?");
	fprintf(out, ", \"named\": %s, \"type\": \"%s\", \"address\": \"0x%llx\", \"pid\": %u, "
		     "\"comm\": ",
		li && li->named ? "true" : "false", li ? lock_type_name(li->type) : "?",
		(unsigned long long)(li ? li->addr : 0), li ? li->tgid : 0);
	json_str(out, li && li->tgid ? r->comm : "[kernel]");
	fprintf(out, ", \"waits\": %llu, \"total_ns\": %llu, \"max_ns\": %llu, \"stacks\": [",
		(unsigned long long)r->count, (unsigned long long)r->total_ns,
		(unsigned long long)r->max_ns);
}

int locks_report_write(FILE *out, struct lock_row *rows, size_t nr, const struct locknames *ln,
		       const struct stack_agg *agg, struct symbolizer *sym,
		       const struct emit_opts *eo, const struct record_opts *o)
{
	size_t n = nr < o->locks_top ? nr : o->locks_top;
	char *text = malloc(STACK_TEXT);

	if (!text)
		return -ENOMEM;
	sort_key = o->locks_sort;
	qsort(rows, nr, sizeof(*rows), cmp_rows);
	if (o->json)
		fputc('[', out);
	else
		fprintf(out, "%11s %9s %10s %10s  %-11s %7s  %-16s %s\n", "total(ms)", "waits",
			"avg(us)", "max(us)", "type", "pid", "comm", "lock");
	for (size_t i = 0; i < n; i++) {
		const struct lock_ident *li = locknames__get(ln, rows[i].id);
		struct top t = { .id = rows[i].id };

		stack_agg__for_each(agg, pick, &t);
		if (o->json)
			write_row_json(out, &rows[i], li, i == 0);
		else
			write_row_text(out, &rows[i], li);
		for (size_t k = 0; k < t.nr; k++) {
			emit_stack_text(&t.e[k], sym, eo, text, STACK_TEXT);
			if (o->json) {
				fprintf(out, "%s{\"wait_ns\": %llu, \"stack\": ", k ? ", " : "",
					(unsigned long long)t.e[k].weight);
				json_str(out, text);
				fputc('}', out);
			} else {
				fprintf(out, "%24.3f ms  %s\n", t.e[k].weight / 1e6, text);
			}
		}
		if (o->json)
			fputs("]}", out);
	}
	if (o->json)
		fputs("\n]\n", out);
	else if (!n)
		fprintf(out, "no contended lock waits recorded\n");
	free(text);
	return ferror(out) ? -EIO : 0;
}
