// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: the web view's request arguments (agent/http_args.c):
 * the /flame/STAMP/KIND.svg path, kind=, t=, a range (FROM..TO), minutes=,
 * p= and th=. The input's first line is the URL path, each further line a
 * "key=value" argument as libmicrohttpd hands them over (decoded); the
 * connection's argument lookup is this file's, put in agent/mhd_dl.h's table
 * (libmicrohttpd is not loaded), so no server runs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/http_args.h"
#include "agent/mhd_dl.h"

#define MAX_ARGS 16

static struct {
	const char *key[MAX_ARGS], *val[MAX_ARGS];
	size_t nr;
} args;

/* libmicrohttpd's lookup, over the arguments of the current input */
static const char *args_lookup(struct MHD_Connection *connection, enum MHD_ValueKind kind,
			       const char *key)
{
	(void)connection;
	if (kind != MHD_GET_ARGUMENT_KIND)
		return NULL;
	for (size_t i = 0; i < args.nr; i++)
		if (!strcmp(args.key[i], key))
			return args.val[i];
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct MHD_Connection *c = (struct MHD_Connection *)&args;	/* never dereferenced */
	char *text, *line, *save = NULL, *stamp;
	struct view_window w;
	struct range_buf rb;
	struct filters fl;
	const char *re;
	int kind;

	mhd.lookup_connection_value = args_lookup;
	text = strndup((const char *)data, size);
	if (!text)
		abort();
	args.nr = 0;
	line = strtok_r(text, "\n", &save);
	/* exactly the stamp buffer http.c passes: ASan sees one byte past it */
	stamp = malloc(STORE_STAMP_LEN);
	if (!stamp)
		abort();
	if (line && http_path_args(line, stamp, STORE_STAMP_LEN, &kind) &&
	    (kind < 0 || strlen(stamp) >= STORE_STAMP_LEN))
		abort();
	free(stamp);
	while (args.nr < MAX_ARGS && (line = strtok_r(NULL, "\n", &save))) {
		char *eq = strchr(line, '=');

		if (!eq)
			continue;
		*eq = '\0';
		args.key[args.nr] = line;
		args.val[args.nr++] = eq + 1;
	}
	http_arg_kind(c);
	for (int back = 0; back < 2; back++) {
		if (http_arg_window(c, back ? "a" : "range", back, &rb, &w) && w.from &&
		    (strnlen(rb.from, STORE_STAMP_LEN) == STORE_STAMP_LEN ||
		     strnlen(rb.to, STORE_STAMP_LEN) == STORE_STAMP_LEN))
			abort();	/* a range's stamps are terminated */
	}
	if (http_arg_filter(c, &fl) && ((fl.re && strlen(fl.re) > HTTP_MAX_FILTER) ||
					(fl.th && strlen(fl.th) > HTTP_MAX_FILTER)))
		abort();
	http_arg_regex(c, "s", &re);
	free(text);
	return 0;
}
