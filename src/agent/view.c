// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Reading windows of the history back into profiles, and the index page. */
#include "agent/view.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool in_window(const struct store_interval *iv, const struct view_window *w)
{
	int64_t end = iv->end_ms ? iv->end_ms : iv->start_ms;

	if (w->stamp)
		return !strcmp(iv->stamp, w->stamp);
	if (w->from)
		return strcmp(iv->stamp, w->from) >= 0 && strcmp(iv->stamp, w->to) <= 0;
	return end > w->from_ms && iv->start_ms < w->to_ms;
}

/* One folded file of the window, copied out of the store under the lock. */
struct view_file {
	char name[sizeof(((struct store_file *)0)->name)];
	enum profile_kind kind;
	size_t interval;	/* ordinal in the window, newest 0 */
};

/* The window's files of format @fmt, newest interval first. *@out malloc'd; count or -errno. */
static ssize_t list_files(const struct store *st, int kind, const struct view_window *w,
			  enum store_format fmt, struct view_file **out, size_t *nr_iv)
{
	struct view_file *v = NULL, *nv;
	size_t nr = 0, cap = 0;
	enum profile_kind k;

	*nr_iv = 0;
	for (size_t i = store__nr(st); i-- > 0;) {
		const struct store_interval *iv = store__get(st, i);

		if (!in_window(iv, w))
			continue;
		for (size_t j = 0; j < iv->nr_files; j++) {
			if (iv->files[j].format != fmt ||
			    profile_kind_parse(iv->files[j].kind, &k) ||
			    (kind >= 0 && (int)k != kind))
				continue;
			if (nr == cap) {
				cap = cap ? cap * 2 : 64;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
			}
			snprintf(v[nr].name, sizeof(v[nr].name), "%s", iv->files[j].name);
			v[nr].kind = k;
			v[nr++].interval = *nr_iv;
		}
		(*nr_iv)++;
	}
	*out = v;
	return nr;
}

/* One stored file's text @buf into @p: folded, or a pprof filtered by @thread. */
static int add_file(struct profile *p, char *buf, size_t len, enum profile_kind kind,
		    const regex_t *thread, uint64_t *unnamed)
{
	struct folded_read_stats rs;
	FILE *f;
	int err;

	if (thread)
		return view_add_pprof(p, buf, len, kind, thread, unnamed);
	f = fmemopen(buf, len ? len : 1, "r");
	if (!f)
		return -ENOMEM;
	err = profile__read_folded(p, f, kind, &rs);
	fclose(f);
	return err;
}

int view_load(const struct store *st, pthread_mutex_t *mu, int kind, const struct view_window *w,
	      const regex_t *thread, struct profile *p, struct view_stats *vs)
{
	struct view_file *v = NULL;
	ssize_t nr;
	size_t len;
	char *buf;
	int err = 0;

	memset(vs, 0, sizeof(*vs));
	pthread_mutex_lock(mu);
	nr = list_files(st, kind, w, thread ? STORE_PPROF : STORE_FOLDED, &v, &vs->intervals);
	pthread_mutex_unlock(mu);
	if (nr < 0)
		return nr;
	for (ssize_t i = 0; i < nr && !err; i++) {
		if (vs->bytes >= VIEW_MAX_BYTES) {
			/* the older intervals are left out, and the view says so */
			vs->read = v[i].interval;
			vs->truncated = true;
			break;
		}
		pthread_mutex_lock(mu);
		err = store__read(st, v[i].name, true, &buf, &len);
		pthread_mutex_unlock(mu);
		if (err == -ENOENT) {
			err = 0;	/* deleted by retention meanwhile */
			continue;
		}
		if (err)
			break;
		vs->bytes += len;
		err = add_file(p, buf, len, v[i].kind, thread, &vs->unnamed);
		free(buf);
	}
	free(v);
	if (!vs->truncated)
		vs->read = vs->intervals;
	return err ? err : (int)vs->read;
}

int view_index(const struct store *st, FILE *out)
{
	view_page_head(out);
	fprintf(out, "<h2>Intervals</h2>\n<table id=\"intervals\"><tr><th>start (UTC)</th>"
		     "<th>seconds</th><th>profiles</th></tr>\n");
	for (size_t i = store__nr(st); i-- > 0;) {
		const struct store_interval *iv = store__get(st, i);

		fprintf(out, "<tr class=\"interval\"><td>%s%s</td><td>%.1f</td><td>", iv->stamp,
			iv->partial ? " (partial)" : "",
			iv->end_ms ? (iv->end_ms - iv->start_ms) / 1000.0 : 0.0);
		for (size_t j = 0; j < iv->nr_files; j++) {
			if (iv->files[j].format == STORE_PPROF)
				fprintf(out, "<a href=\"/pprof?t=%s&amp;kind=%s\">%s.pb.gz</a> ",
					iv->stamp, iv->files[j].kind, iv->files[j].kind);
			else if (iv->files[j].format == STORE_JSON)
				fprintf(out, "<a href=\"/counters?t=%s\">counters.json</a> ",
					iv->stamp);
			else
				fprintf(out, "<a class=\"flame\" href=\"/flame/%s/%s.svg\">"
					"%s flame graph</a> ", iv->stamp, iv->files[j].kind,
					iv->files[j].kind);
		}
		fprintf(out, "</td></tr>\n");
	}
	fprintf(out, "</table>\n");
	view_page_tail(out);
	return ferror(out) ? -EIO : 0;
}
