/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The web view's request arguments (http.c): kind=, a window (t=, a range,
 * minutes=), the p= and th= filters and the /flame/STAMP/KIND.svg path.
 */
#ifndef HC_AGENT_HTTP_ARGS_H
#define HC_AGENT_HTTP_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include <microhttpd.h>

#include "agent/store.h"
#include "agent/view.h"

#define HTTP_MAX_MINUTES	1440	/* /flame, /diff windows */
#define HTTP_MAX_FILTER		256	/* bytes of a p= or th= expression */

/* The stamps of a range argument ("FROM..TO" or "STAMP"), owned by the request. */
struct range_buf {
	char from[STORE_STAMP_LEN], to[STORE_STAMP_LEN];
};

/* The filters of a merged view: p= (processes), th= (threads); NULL: none. */
struct filters {
	const char *re, *th;
};

/* The query argument @key, or NULL. */
const char *http_arg(struct MHD_Connection *c, const char *key);
/* kind=K (default oncpu); -1 on a bad name. */
int http_arg_kind(struct MHD_Connection *c);
/*
 * t=STAMP, @range_key=FROM..TO (or one stamp), or minutes=N (ending now,
 * shifted back @back windows) into *@w (its stamps in *@rb). false: bad arguments.
 */
bool http_arg_window(struct MHD_Connection *c, const char *range_key, int back,
		     struct range_buf *rb, struct view_window *w);
/* @key=REGEX into *@re (NULL for none); false if too long. */
bool http_arg_regex(struct MHD_Connection *c, const char *key, const char **re);
/* p=REGEX: only the processes (root frames) matching it; th=REGEX: only those threads. */
bool http_arg_filter(struct MHD_Connection *c, struct filters *fl);
/* "/flame/STAMP/KIND.svg": the same as ?t=STAMP&kind=KIND. false: not such a path. */
bool http_path_args(const char *url, char *stamp, size_t len, int *kind);

#endif /* HC_AGENT_HTTP_ARGS_H */
