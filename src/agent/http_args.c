// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The web view's request arguments (see http_args.h). */
#include "agent/http_args.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "agent/mhd_dl.h"
#include "agent/timeline.h"
#include "analysis/profile.h"
#include "util/clock.h"
#include "util/parse.h"

const char *http_arg(struct MHD_Connection *c, const char *key)
{
	return mhd.lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, key);
}

/* kind=K (default oncpu); -1 on a bad name. */
int http_arg_kind(struct MHD_Connection *c)
{
	const char *k = http_arg(c, "kind");
	enum profile_kind kind = PROFILE_KIND_ONCPU;

	if (k && profile_kind_parse(k, &kind))
		return -1;
	return kind;
}

/*
 * t=STAMP, @range_key=FROM..TO (or one stamp), or minutes=N (ending now,
 * shifted back @back windows). false: bad arguments.
 */
bool http_arg_window(struct MHD_Connection *c, const char *range_key, int back,
		     struct range_buf *rb, struct view_window *w)
{
	const char *t = http_arg(c, "t"), *m = http_arg(c, "minutes"), *rg = http_arg(c, range_key);
	uint64_t min;

	memset(w, 0, sizeof(*w));
	if (t) {
		w->stamp = t;
		return true;
	}
	if (rg) {
		w->from = rb->from;
		w->to = rb->to;
		return !timeline_range_parse(rg, rb->from, rb->to);
	}
	if (parse_u64(m ? m : "10", 1, HTTP_MAX_MINUTES, &min))
		return false;
	w->to_ms = clock_unix_ms() - back * (int64_t)min * 60000;
	w->from_ms = w->to_ms - (int64_t)min * 60000;
	return true;
}

/* @key=REGEX into *@re (NULL for none); false if too long. */
bool http_arg_regex(struct MHD_Connection *c, const char *key, const char **re)
{
	*re = http_arg(c, key);
	if (*re && !**re)
		*re = NULL;
	return !*re || strlen(*re) <= HTTP_MAX_FILTER;
}

/* p=REGEX: only the processes (root frames) matching it; th=REGEX: only those threads. */
bool http_arg_filter(struct MHD_Connection *c, struct filters *fl)
{
	return http_arg_regex(c, "p", &fl->re) && http_arg_regex(c, "th", &fl->th);
}

/* "/flame/STAMP/KIND.svg": the same as ?t=STAMP&kind=KIND, leaving the query to ?s= */
bool http_path_args(const char *url, char *stamp, size_t len, int *kind)
{
	char k[16];
	enum profile_kind pk;

	if (sscanf(url, "/flame/%23[0-9TZ.]/%15[a-z].svg", stamp, k) != 2 ||
	    profile_kind_parse(k, &pk))
		return false;
	*kind = pk;
	(void)len;
	return true;
}

