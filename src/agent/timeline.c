// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The timeline's totals per interval and kind, read once and remembered (see timeline.h). */
#include "agent/timeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void timeline_memo_release(struct timeline_memo *m)
{
	free(m->e);
	m->e = NULL;
	m->nr = 0;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct timeline_memo_entry *)a)->name,
		      ((const struct timeline_memo_entry *)b)->name);
}

/* The folded file names of the rows: [row][kind], "" where none. */
typedef char row_names[PROFILE_KIND_NR][STORE_NAME_LEN];

/* The intervals' metadata and folded file names, copied under @mu. */
static int list_rows(const struct store *st, pthread_mutex_t *mu, struct timeline_row **rows,
		     row_names **names, size_t *nr)
{
	enum profile_kind k;
	int err = 0;

	pthread_mutex_lock(mu);
	*nr = store__nr(st);
	*rows = calloc(*nr ? *nr : 1, sizeof(**rows));
	*names = calloc(*nr ? *nr : 1, sizeof(**names));
	if (!*rows || !*names)
		err = -ENOMEM;
	for (size_t i = 0; !err && i < *nr; i++) {
		const struct store_interval *iv = store__get(st, i);
		struct timeline_row *r = &(*rows)[i];

		memcpy(r->stamp, iv->stamp, sizeof(r->stamp));
		r->start_ms = iv->start_ms;
		r->end_ms = iv->end_ms;
		r->partial = iv->partial;
		for (size_t j = 0; j < iv->nr_files; j++) {
			if (iv->files[j].format != STORE_FOLDED ||
			    profile_kind_parse(iv->files[j].kind, &k))
				continue;
			r->has |= 1u << k;
			memcpy((*names)[i][k], iv->files[j].name, STORE_NAME_LEN);
		}
	}
	pthread_mutex_unlock(mu);
	return err;
}

/* The total of one stored folded file, read as view_load() reads it. 0 or -errno. */
static int read_total(const struct store *st, pthread_mutex_t *mu, const char *name,
		      enum profile_kind kind, uint64_t *total, uint64_t *bytes)
{
	struct folded_read_stats rs;
	struct profile *p;
	size_t len;
	char *buf;
	FILE *f;
	int err;

	pthread_mutex_lock(mu);
	err = store__read(st, name, true, &buf, &len);
	pthread_mutex_unlock(mu);
	if (err)
		return err;
	*bytes += len;
	p = profile__new();
	f = p ? fmemopen(buf, len ? len : 1, "r") : NULL;
	err = f ? profile__read_folded(p, f, kind, &rs) : -ENOMEM;
	if (f)
		fclose(f);
	if (!err)
		*total = profile__total(p, kind);
	profile__free(p);
	free(buf);
	return err;
}

/* A total from @m, or from the file while @budget lasts; true if known. */
static bool total_of(const struct store *st, pthread_mutex_t *mu, const struct timeline_memo *m,
		     const char *name, enum profile_kind kind, uint64_t budget,
		     uint64_t *bytes, uint64_t *total)
{
	struct timeline_memo_entry key, *e = NULL;

	snprintf(key.name, sizeof(key.name), "%s", name);
	if (m->nr)
		e = bsearch(&key, m->e, m->nr, sizeof(*m->e), cmp_entry);
	if (e) {
		*total = e->total;
		return true;
	}
	/* a file deleted by retention meanwhile, or unreadable, stays unknown */
	return *bytes < budget && !read_total(st, mu, name, kind, total, bytes);
}

int timeline_rows(const struct store *st, pthread_mutex_t *mu, struct timeline_memo *m,
		  uint64_t budget, struct timeline_row **rows, size_t *nr, bool *complete)
{
	struct timeline_memo next = { 0 };
	row_names *names = NULL;
	uint64_t bytes = 0;
	int err = list_rows(st, mu, rows, &names, nr);

	*complete = true;
	if (!err) {
		next.e = calloc(*nr * PROFILE_KIND_NR + 1, sizeof(*next.e));
		err = next.e ? 0 : -ENOMEM;
	}
	for (size_t i = *nr; !err && i-- > 0;) {	/* newest first */
		struct timeline_row *r = &(*rows)[i];

		for (int k = 0; k < PROFILE_KIND_NR; k++) {
			if (!(r->has & (1u << k)))
				continue;
			if (!total_of(st, mu, m, names[i][k], k, budget, &bytes, &r->total[k])) {
				*complete = false;
				continue;
			}
			r->known |= 1u << k;
			memcpy(next.e[next.nr].name, names[i][k], STORE_NAME_LEN);
			next.e[next.nr++].total = r->total[k];
		}
	}
	free(names);
	if (err) {
		free(*rows);
		*rows = NULL;
		free(next.e);
		return err;
	}
	qsort(next.e, next.nr, sizeof(*next.e), cmp_entry);
	timeline_memo_release(m);
	*m = next;	/* only the files still stored: the memo never outgrows the history */
	return 0;
}
