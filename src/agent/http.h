/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The agent's local web view (libmicrohttpd, off unless --http), served from
 * the agent's own thread between ring polls, so nothing is shared across
 * threads (the symbolizer is not thread-safe):
 *   /                          intervals, newest first, with links
 *   /flame?kind=K&t=STAMP      flame graph of one interval (SVG)
 *   /flame?kind=K&minutes=N    the last N minutes merged
 *   /diff?kind=K&minutes=N     the N minutes before vs the last N minutes
 *   /diff?kind=K&a=STAMP&b=STAMP
 *   /pprof?t=STAMP&kind=K      the stored pprof file
 *   /metrics                   Prometheus text
 *   /debug/pprof/profile?seconds=N   pprof of the stored intervals that end
 *                              within the last N s plus the interval in progress
 *                              (answers at once; it does not wait N seconds)
 */
#ifndef HC_AGENT_HTTP_H
#define HC_AGENT_HTTP_H

#include <stdint.h>

#include "agent/metrics.h"
#include "agent/store.h"
#include "analysis/profile.h"

struct http_source {
	struct store *st;
	const struct metrics *m;
	/* name the interval in progress into @p; 0 or -errno */
	int (*live)(struct profile *p, void *arg);
	void *live_arg;
	uint64_t period_ns;	/* on-CPU sample period, for time units */
};

struct http;

/* Listen on "ADDR:PORT" (IPv4 or [IPv6]). 0 or -errno (reported). */
int http__start(struct http **out, const char *addr_port, const struct http_source *src);
/* Accept and answer what is pending; never blocks. */
void http__poll(struct http *h);
void http__stop(struct http *h);	/* NULL is a no-op */

#endif /* HC_AGENT_HTTP_H */
