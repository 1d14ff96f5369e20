// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The lock table: numbers from the BPF per-lock map, class and site from
 * the waiters' stacks, rows by site or by lock (locks_group.h), each with
 * its heaviest waiting stacks and the holders', weighted by the wait time
 * they ended (futex wakes: locks_holders.h; kernel mutex and rwsem owners),
 * identical ones merged with their threads.
 */
#include "record/locks_report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "abi/locks.h"
#include "collect/locknames.h"
#include "record/locks_group.h"
#include "record/locks_holders.h"
#include "record/lockwait.h"

#define TOP_STACKS 3
#define STACK_TEXT 8192
#define MAX_FRAMES 512
#define THREAD_NAMES 3
#define THREAD_IDS 64	/* distinct threads counted exactly up to this many */

/* One distinct stack text of a row, merged over threads. */
struct rstack {
	char *text;
	uint64_t weight, count;
	size_t nr_threads;
	uint32_t tids[THREAD_IDS];
	char threads[THREAD_NAMES][40];	/* "name-tid" of the first ones */
};

struct row_stacks {
	struct rstack *v;
	size_t nr, cap;
};

struct report {
	const struct locknames *ln;
	const struct emit_opts *eo;
	struct symbolizer *sym;
	char *text;
	struct locks_member *m;
	size_t nr_m;
	size_t *member_of_id;	/* [id]: index in m + 1, 0: none */
	uint64_t *heaviest;	/* [member]: weight of the stack that set its class and site */
	size_t *row_of_member;	/* [member]: display row + 1, 0: not shown */
	struct row_stacks *rs;	/* [display row]: waiters' stacks */
	struct row_stacks *hs;	/* [display row]: holders' stacks, weighted by the waits they ended */
	struct locks_holders lh;	/* futex rows: waits ended per waker, wakers' sampled stacks */
	size_t max_id;
	int err;
};

static struct locks_member *member_of(struct report *r, uint32_t id)
{
	return id <= r->max_id && r->member_of_id[id] ? &r->m[r->member_of_id[id] - 1] : NULL;
}

/* Class and site of each futex lock: those of its heaviest stack. */
static int learn(const struct stack_entry *e, void *arg)
{
	struct report *r = arg;
	struct locks_member *m;
	const char *frames[MAX_FRAMES];
	size_t n, i;
	int site;

	if (e->key.kind != SAMPLE_LOCK || !(m = member_of(r, e->key.aux)) || !m->tgid)
		return 0;
	i = m - r->m;
	if (e->weight <= r->heaviest[i])
		return 0;
	if (emit_stack_text(e, r->sym, r->eo, r->text, STACK_TEXT))
		return 0;
	n = lockwait_split(r->text, frames, MAX_FRAMES);
	m->cls = lockwait_classify(frames, n, &site);
	snprintf(m->site, sizeof(m->site), "%s", site < 0 ? "" : frames[site]);
	r->heaviest[i] = e->weight;
	return 0;
}

static void add_thread(struct rstack *s, uint32_t tid, const char *comm)
{
	for (size_t i = 0; i < s->nr_threads && i < THREAD_IDS; i++)
		if (s->tids[i] == tid)
			return;
	if (s->nr_threads < THREAD_NAMES && !tid)
		snprintf(s->threads[s->nr_threads], sizeof(s->threads[0]), "unknown");
	else if (s->nr_threads < THREAD_NAMES)
		snprintf(s->threads[s->nr_threads], sizeof(s->threads[0]), "%.16s-%u", comm, tid);
	if (s->nr_threads < THREAD_IDS)
		s->tids[s->nr_threads] = tid;
	s->nr_threads++;
}

/* A stack @text of thread @tid into @rs, merged with an identical text. */
static int rs_add(struct report *r, struct row_stacks *rs, const char *text, uint64_t weight,
		  uint64_t count, uint32_t tid, const char *comm)
{
	struct rstack *s = NULL;

	for (size_t i = 0; i < rs->nr && !s; i++)
		if (!strcmp(rs->v[i].text, text))
			s = &rs->v[i];
	if (!s) {
		if (rs->nr == rs->cap) {
			size_t cap = rs->cap ? rs->cap * 2 : 8;
			struct rstack *v = realloc(rs->v, cap * sizeof(*v));

			if (!v)
				return r->err = -ENOMEM;
			rs->v = v;
			rs->cap = cap;
		}
		s = &rs->v[rs->nr];
		memset(s, 0, sizeof(*s));
		s->text = strdup(text);
		if (!s->text)
			return r->err = -ENOMEM;
		rs->nr++;
	}
	s->weight += weight;
	s->count += count;
	add_thread(s, tid, comm);
	return 0;
}

/* The shown futex lock of the same process and address as holder @li, or NULL. */
static const struct locks_member *holder_member(const struct report *r,
					       const struct lock_ident *li)
{
	const struct lock_ident *mi;

	for (size_t i = 0; i < r->nr_m; i++) {
		if (r->m[i].tgid != li->tgid || r->m[i].addr != li->addr || !r->row_of_member[i])
			continue;
		/* a kernel lock's owner record names the wait's type too (rwsem:R or :W) */
		mi = locknames__get(r->ln, r->m[i].id);
		if ((li->type & HC_LOCK_KERNEL) && (!mi || mi->type != (li->type & ~HC_LOCK_HOLDER)))
			continue;
		return &r->m[i];
	}
	return NULL;
}

/* Text of @e without its "[lock ...]" frame: the row names the lock. */
static int entry_text(struct report *r, const struct stack_entry *e)
{
	char *tail;

	if (emit_stack_text(e, r->sym, r->eo, r->text, STACK_TEXT))
		return -1;
	tail = strrchr(r->text, ';');
	if (tail && !strncmp(tail, ";[lock ", 7))
		*tail = '\0';
	return 0;
}

/* The weight of every stack in @rs, shown or not. */
static uint64_t rs_total(const struct row_stacks *rs)
{
	uint64_t t = 0;

	for (size_t i = 0; i < rs->nr; i++)
		t += rs->v[i].weight;
	return t;
}

/* Every stack of a shown lock into its row's lists, identical texts merged. */
static int collect(const struct stack_entry *e, void *arg)
{
	struct report *r = arg;
	const struct lock_ident *li;
	const struct locks_member *m;
	size_t row;

	if (e->key.kind != SAMPLE_LOCK)
		return 0;
	li = locknames__get(r->ln, e->key.aux);
	if (lock_ident_is_holder(li)) {
		m = holder_member(r, li);
		if (!m || entry_text(r, e))
			return 0;
		row = r->row_of_member[m - r->m] - 1;
		/* a kernel lock's owner record carries the wait it ended */
		if (li->type & HC_LOCK_KERNEL)
			return rs_add(r, &r->hs[row], e->key.pid ? r->text : "(no owner recorded)",
				      e->weight, e->count, e->key.pid, e->key.comm);
		return r->err = locks_holders_stack(&r->lh, row, e->key.pid, e->key.comm, r->text,
						    e->weight);
	}
	if (!(m = member_of(r, e->key.aux)))
		return 0;
	row = r->row_of_member[m - r->m];
	if (!row || entry_text(r, e))
		return 0;
	if (m->tgid && (r->err = locks_holders_ended(&r->lh, row - 1,
						     e->key.aux2 & EMIT_AUX2_WAKER_MASK, e->weight,
						     e->count)))
		return r->err;
	return rs_add(r, &r->rs[row - 1], r->text, e->weight, e->count, e->key.pid, e->key.comm);
}

/* A futex holder's share of the waits it ended into its row's holders. */
static int holder_share(size_t row, uint32_t tid, const char *comm, const char *text,
			uint64_t ns, uint64_t waits, void *arg)
{
	struct report *r = arg;

	if (!text)
		text = tid ? "(no stack sampled)" : "(no wake seen: timed out, interrupted, or "
						    "woken before the wait was seen)";
	return rs_add(r, &r->hs[row], text, ns, waits, tid, *comm ? comm : "thread");
}

static int cmp_rstack(const void *a, const void *b)
{
	const struct rstack *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	return strcmp(x->text, y->text);
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

/* The row's name: its site (site rows) or its lock's label. */
static void row_label(const struct report *r, const struct locks_disp *d,
		      const struct locknames *ln, char *buf, size_t len)
{
	const struct locks_member *m = &r->m[d->first];
	const struct lock_ident *li = locknames__get(ln, m->id);

	if (d->by_site && d->nr_procs > 1)
		snprintf(buf, len, "site:%s (%zu futexes, %zu processes)", m->site, d->nr,
			 d->nr_procs);
	else if (d->by_site)
		snprintf(buf, len, "site:%s (%zu futexes)", m->site, d->nr);
	else
		snprintf(buf, len, "%s", li ? li->label : "?");
}

static void write_row_text(FILE *out, const struct report *r, const struct locks_disp *d,
			   const struct locknames *ln)
{
	const struct locks_member *m = &r->m[d->first];
	const struct lock_ident *li = locknames__get(ln, m->id);
	char label[LOCKS_SITE_LEN + 64];

	row_label(r, d, ln, label, sizeof(label));
	fprintf(out, "%11.3f %9llu %10.1f %10.1f  %-11s %-9s %7u  %-16s %s\n", d->total_ns / 1e6,
		(unsigned long long)d->count, d->count ? d->total_ns / 1e3 / d->count : 0.0,
		d->max_ns / 1e3, li ? lock_type_name(li->type) : "?", lockwait_class_name(m->cls),
		m->tgid, m->tgid ? m->comm : "[kernel]", label);
}

static void write_members_json(FILE *out, const struct report *r, const struct locks_disp *d,
			       const struct locknames *ln)
{
	fputs(", \"locks\": [", out);
	for (size_t k = 0; k < d->nr; k++) {
		const struct locks_member *m = &r->m[d->first + k];
		const struct lock_ident *li = locknames__get(ln, m->id);

		fprintf(out, "%s{\"pid\": %u, \"lock\": ", k ? ", " : "", m->tgid);
		json_str(out, li ? li->label : "?");
		fprintf(out, ", \"named\": %s, \"address\": \"0x%llx\", \"waits\": %llu, "
			     "\"total_ns\": %llu, \"max_ns\": %llu}",
			li && li->named ? "true" : "false", (unsigned long long)(li ? li->addr : 0),
			(unsigned long long)m->count, (unsigned long long)m->total_ns,
			(unsigned long long)m->max_ns);
	}
	fputc(']', out);
}

static void write_row_json(FILE *out, const struct report *r, const struct locks_disp *d,
			   const struct locknames *ln, bool first)
{
	const struct locks_member *m = &r->m[d->first];
	const struct lock_ident *li = locknames__get(ln, m->id);
	char label[LOCKS_SITE_LEN + 64];

	row_label(r, d, ln, label, sizeof(label));
	fprintf(out, "%s\n  {\"row\": \"%s\", \"name\": ", first ? "" : ",",
		d->by_site ? "site" : "lock");
	json_str(out, label);
	fputs(", \"site\": ", out);
	json_str(out, m->site);
	fprintf(out, ", \"class\": \"%s\", \"contention\": %s, \"lock\": ",
		lockwait_class_name(m->cls), lockwait_is_contention(m->cls) ? "true" : "false");
	json_str(out, li ? li->label : "?");
	fprintf(out, ", \"named\": %s, \"type\": \"%s\", \"address\": \"0x%llx\", \"pid\": %u, "
		     "\"comm\": ",
		li && li->named ? "true" : "false", li ? lock_type_name(li->type) : "?",
		(unsigned long long)(li ? li->addr : 0), m->tgid);
	json_str(out, m->tgid ? m->comm : "[kernel]");
	fprintf(out, ", \"processes\": %zu, \"waits\": %llu, \"total_ns\": %llu, \"max_ns\": %llu",
		d->nr_procs, (unsigned long long)d->count, (unsigned long long)d->total_ns,
		(unsigned long long)d->max_ns);
	write_members_json(out, r, d, ln);
	fputs(", \"stacks\": [", out);
}

static void write_stack(FILE *out, const struct rstack *s, bool json, bool first, bool holder)
{
	if (!json) {
		fprintf(out, "%s%*.3f ms  x%llu  [", holder ? "       held by: " : "",
			holder ? 8 : 24, s->weight / 1e6, (unsigned long long)s->count);
		for (size_t i = 0; i < s->nr_threads && i < THREAD_NAMES; i++)
			fprintf(out, "%s%s", i ? " " : "", s->threads[i]);
		if (s->nr_threads > THREAD_NAMES)
			fprintf(out, " +%zu", s->nr_threads - THREAD_NAMES);
		fprintf(out, "]  %s\n", s->text);
		return;
	}
	fprintf(out, "%s{\"wait_ns\": %llu, \"waits\": %llu", first ? "" : ", ",
		(unsigned long long)s->weight, (unsigned long long)s->count);
	fprintf(out, ", \"threads\": %zu, \"thread_names\": [", s->nr_threads);
	for (size_t i = 0; i < s->nr_threads && i < THREAD_NAMES; i++) {
		if (i)
			fputs(", ", out);
		json_str(out, s->threads[i]);
	}
	fputs("], \"stack\": ", out);
	json_str(out, s->text);
	fputc('}', out);
}

/* Members from the BPF rows: kernel locks are their own class, futexes learn theirs. */
static int report_init(struct report *r, const struct lock_row *rows, size_t nr,
		       const struct locknames *ln)
{
	r->m = calloc(nr ? nr : 1, sizeof(*r->m));
	r->heaviest = calloc(nr ? nr : 1, sizeof(*r->heaviest));
	r->row_of_member = calloc(nr ? nr : 1, sizeof(*r->row_of_member));
	r->rs = calloc(nr ? nr : 1, sizeof(*r->rs));
	r->hs = calloc(nr ? nr : 1, sizeof(*r->hs));
	r->text = malloc(STACK_TEXT);
	for (size_t i = 0; i < nr; i++)
		if (rows[i].id > r->max_id)
			r->max_id = rows[i].id;
	r->member_of_id = calloc(r->max_id + 1, sizeof(*r->member_of_id));
	if (!r->m || !r->heaviest || !r->row_of_member || !r->rs || !r->hs || !r->text || !r->member_of_id)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++) {
		const struct lock_ident *li = locknames__get(ln, rows[i].id);
		struct locks_member *m = &r->m[r->nr_m];

		if (!rows[i].id)
			continue;
		m->id = rows[i].id;
		m->tgid = li ? li->tgid : 0;
		m->addr = li ? li->addr : 0;
		m->count = rows[i].count;
		m->total_ns = rows[i].total_ns;
		m->max_ns = rows[i].max_ns;
		m->cls = m->tgid ? LW_FUTEX : LW_KERNEL;
		memcpy(m->comm, rows[i].comm, sizeof(m->comm));
		r->member_of_id[m->id] = ++r->nr_m;
	}
	return 0;
}

static void rs_free(struct row_stacks *rs, size_t nr_rows)
{
	for (size_t i = 0; rs && i < nr_rows; i++) {
		for (size_t k = 0; k < rs[i].nr; k++)
			free(rs[i].v[k].text);
		free(rs[i].v);
	}
	free(rs);
}

static void report_free(struct report *r, size_t nr_rows)
{
	rs_free(r->rs, nr_rows);
	rs_free(r->hs, nr_rows);
	free(r->m);
	free(r->heaviest);
	free(r->row_of_member);
	free(r->member_of_id);
	free(r->text);
	locks_holders_release(&r->lh);
}

static void write_table(FILE *out, struct report *r, const struct locks_disp *d, size_t n,
			const struct locknames *ln, bool json)
{
	if (json)
		fputc('[', out);
	else
		fprintf(out, "%11s %9s %10s %10s  %-11s %-9s %7s  %-16s %s\n", "total(ms)", "waits",
			"avg(us)", "max(us)", "type", "class", "pid", "comm", "lock");
	for (size_t i = 0; i < n; i++) {
		struct row_stacks *rs = &r->rs[i];
		uint64_t tot_w;

		if (json)
			write_row_json(out, r, &d[i], ln, i == 0);
		else
			write_row_text(out, r, &d[i], ln);
		qsort(rs->v, rs->nr, sizeof(*rs->v), cmp_rstack);
		for (size_t k = 0; k < rs->nr && k < TOP_STACKS; k++)
			write_stack(out, &rs->v[k], json, k == 0, false);
		tot_w = rs_total(rs);
		rs = &r->hs[i];
		if (json)
			fputs("], \"holders\": [", out);
		qsort(rs->v, rs->nr, sizeof(*rs->v), cmp_rstack);
		for (size_t k = 0; k < rs->nr && k < TOP_STACKS; k++)
			write_stack(out, &rs->v[k], json, k == 0, true);
		/*
		 * the lists show the top TOP_STACKS only: their sums, with the
		 * rest, so the two sides can be held against each other
		 */
		if (json)
			fprintf(out, "], \"stacks_wait_ns\": %llu, \"holders_wait_ns\": %llu}",
				(unsigned long long)tot_w, (unsigned long long)rs_total(rs));
	}
	if (json)
		fputs("\n]\n", out);
	else if (!n)
		fprintf(out, "no contended lock waits recorded\n");
}

/*
 * Members with their class and site, grouped into *d (allocated, rows in
 * *nd). The caller frees r and *d even on error. 0 or -errno.
 */
static int report_group(struct report *r, const struct lock_row *rows, size_t nr,
			const struct stack_agg *agg, bool by_site, bool all_waits,
			unsigned int sort_key, struct locks_disp **d, size_t *nd)
{
	int err = report_init(r, rows, nr, r->ln);

	*nd = 0;
	if (!err)
		err = stack_agg__for_each(agg, learn, r);
	if (!err && !(*d = calloc(r->nr_m ? r->nr_m : 1, sizeof(**d))))
		err = -ENOMEM;
	if (!err)
		*nd = locks_group(r->m, r->nr_m, by_site, all_waits, sort_key, *d);
	return err;
}

int locks_report_write(FILE *out, struct lock_row *rows, size_t nr, const struct locknames *ln,
		       const struct stack_agg *agg, struct symbolizer *sym,
		       const struct emit_opts *eo, const struct record_opts *o)
{
	struct report r = { .ln = ln, .eo = eo, .sym = sym };
	struct locks_disp *d = NULL;
	size_t nd;
	int err;

	err = report_group(&r, rows, nr, agg, !o->locks_by_lock, o->locks_all_waits,
			   o->locks_sort, &d, &nd);
	if (!err) {
		if (nd > o->locks_top)
			nd = o->locks_top;
		/* locks_group sorted the members: index them again */
		for (size_t i = 0; i < r.nr_m; i++)
			r.member_of_id[r.m[i].id] = i + 1;
		for (size_t i = 0; i < nd; i++)
			for (size_t k = 0; k < d[i].nr; k++)
				r.row_of_member[d[i].first + k] = i + 1;
		err = stack_agg__for_each(agg, collect, &r);
		if (!err)
			err = r.err;
		if (!err)
			err = locks_holders_weigh(&r.lh, holder_share, &r);
	}
	if (!err) {
		write_table(out, &r, d, nd, ln, o->json);
		err = ferror(out) ? -EIO : 0;
	}
	report_free(&r, r.nr_m);
	free(d);
	return err;
}

int locks_relabel_sites(const struct lock_row *rows, size_t nr, struct locknames *ln,
			const struct stack_agg *agg, struct symbolizer *sym,
			const struct emit_opts *eo)
{
	struct report r = { .ln = ln, .eo = eo, .sym = sym };
	char label[LOCKS_SITE_LEN + 8];
	struct locks_disp *d = NULL;
	size_t nd;
	int err;

	err = report_group(&r, rows, nr, agg, true, true, 0, &d, &nd);
	for (size_t i = 0; !err && i < nd; i++) {
		if (!d[i].by_site)
			continue;
		snprintf(label, sizeof(label), "site:%s", r.m[d[i].first].site);
		for (size_t k = 0; !err && k < d[i].nr; k++)
			err = locknames__relabel(ln, r.m[d[i].first + k].id, label);
	}
	report_free(&r, r.nr_m);
	free(d);
	return err;
}
