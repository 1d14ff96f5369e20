/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The agent's local web view (libmicrohttpd, off unless --http), served by
 * its own threads (one per connection, at most 64, 16 per client address,
 * closed after 10 s of silence) so that no request can delay collection:
 *   /                          the timeline page, then the intervals, newest first
 *   /timeline.json             per interval and kind the stored totals (timeline.h)
 *   /flame?kind=K&t=STAMP      flame graph of one interval (SVG)
 *   /flame?kind=K&minutes=N    the last N minutes merged (N <= 1440)
 *   /flame?kind=K&range=FROM..TO  the intervals from stamp FROM to TO merged
 *   /diff?kind=K&minutes=N     the N minutes before vs the last N minutes
 *   /diff?kind=K&a=RANGE&b=RANGE  two ranges (each STAMP or FROM..TO); 404
 *                              when a side has nothing of kind K
 *   (/flame and /diff: p=REGEX keeps the processes whose root frame matches)
 *   /pprof?t=STAMP&kind=K      the stored pprof file
 *   /metrics                   Prometheus text
 *   /debug/pprof/profile?seconds=N   pprof of the stored intervals that end
 *                              within the last N s (N <= 86400) plus the
 *                              interval in progress (answers at once; it
 *                              does not wait N seconds)
 * Merged views run one at a time (others wait up to 5 s, then 503) and read
 * at most VIEW_MAX_BYTES of history, newest first (X-Hotcold-Window says how
 * much). With a token file every request needs "Authorization: Bearer TOKEN"
 * or basic auth with TOKEN as the password (401 otherwise).
 */
#ifndef HC_AGENT_HTTP_H
#define HC_AGENT_HTTP_H

#include <pthread.h>
#include <stdint.h>

#include "agent/metrics.h"
#include "agent/store.h"
#include "analysis/profile.h"

struct http_source {
	struct store *st;
	/* held around every read of @st: the agent's writer thread changes it under it */
	pthread_mutex_t *store_mu;
	const struct metrics *m;
	/* name the interval in progress into @p; 0 or -errno */
	int (*live)(struct profile *p, void *arg);
	void *live_arg;
	uint64_t period_ns;	/* on-CPU sample period, for time units */
	const char *token_file;	/* NULL: no authentication (see http_auth.h) */
};

struct http;

/*
 * Listen on "ADDR:PORT" (IPv4 or [IPv6]), warning loudly if it is not
 * loopback, and serve from libmicrohttpd's threads. 0 or -errno (reported).
 */
int http__start(struct http **out, const char *addr_port, const struct http_source *src);
/*
 * From the collection thread, between ring polls: give a waiting request
 * the interval in progress (src->live). Never blocks for long. NULL: no-op.
 */
void http__poll(struct http *h);
/*
 * The collection thread holds this around every change of src->m (the
 * metrics), which request threads read under the same lock; the store has
 * its own (src->store_mu), so the loop never waits for a write. NULL: no-op.
 */
void http__lock(struct http *h);
void http__unlock(struct http *h);
/* Stop listening, end the connection threads. NULL is a no-op. */
void http__stop(struct http *h);

#endif /* HC_AGENT_HTTP_H */
