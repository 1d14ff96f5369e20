/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Pushing the history to a Grafana Pyroscope compatible back end (its HTTP
 * ingest API: POST /ingest?name=APP{labels}&from=&until=&format=pprof, the
 * pprof as the multipart part "profile"; Grafana Alloy's
 * pyroscope.receive_http accepts the same).
 *
 * The history on disk is the spool: the pusher keeps the list of intervals
 * not yet acknowledged, oldest first, and reads their pprof files from the
 * store's directory when it sends them. "push.cursor" in that directory holds
 * the start (Unix ms) of the last interval acknowledged, rewritten atomically
 * after each, so a restart resumes after it. One thread does the network:
 * the agent's loop only appends to the list (pusher__notify). 5xx, 429 and
 * connection errors are retried with exponential backoff (push_backoff_ms),
 * the oldest interval first; other answers (4xx) drop that file, logged once
 * per status; a file deleted by retention before it was sent is counted as
 * lost.
 */
#ifndef HC_AGENT_PUSH_H
#define HC_AGENT_PUSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/config.h"
#include "agent/store.h"

#define PUSH_CURSOR "push.cursor"

/* Why a request failed; the first ones are retried. */
enum push_cause {
	PUSH_CONNECT = 0,	/* refused, unreachable, name not resolved */
	PUSH_TIMEOUT,
	PUSH_TLS,
	PUSH_NETWORK,		/* other transport errors (reset, ...) */
	PUSH_HTTP_5XX,		/* and 429 */
	PUSH_HTTP_4XX,		/* dropped: the back end refuses this profile */
	PUSH_HTTP_OTHER,	/* 1xx, 3xx: dropped */
	PUSH_CAUSE_NR,
};

const char *push_cause_name(enum push_cause c);
bool push_cause_retried(enum push_cause c);

struct push_stats {
	uint64_t sent;			/* requests acknowledged (2xx) */
	uint64_t sent_bytes;		/* profile bytes in them */
	uint64_t failed[PUSH_CAUSE_NR];	/* requests, by cause */
	uint64_t dropped;		/* profiles given up (4xx, other) */
	uint64_t lost_retention;	/* profiles deleted by retention before sent */
	uint64_t lost_unreadable;	/* profiles that could not be read (not ours, EIO) */
	uint64_t backlog;		/* intervals not yet acknowledged */
	double backlog_age_s;		/* now - start of the oldest of them; 0: none */
	int64_t cursor_ms;		/* start of the last interval acknowledged; 0: none */
};

/* One series: what goes into the query of one request. */
struct push_series {
	const char *service;	/* service_name */
	const char *kind;	/* "oncpu", "offcpu", "runq", "lock" */
	const char *host;
	const char *version;
	int64_t from_s, until_s;
	uint64_t rate_hz;	/* sampleRate; 0: not sent */
};

/* pure (push_util.c) */

/*
 * A label value as Pyroscope's name parser accepts it: characters other than
 * [A-Za-z0-9_.:/-] become '_', empty becomes "unknown". Truncated to @len-1.
 */
void push_label_value(const char *in, char *out, size_t len);
/*
 * "BASE/ingest?name=...&from=...&until=...&format=pprof&spyName=hotcold[&sampleRate=N]"
 * with the name "SERVICE.KIND{service_name=..,hostname=..,hotcold_version=..,kind=..}"
 * percent-encoded. A trailing '/' of @base is not doubled. The length, or
 * -ENAMETOOLONG when @len is too small.
 */
int push_url(char *buf, size_t len, const char *base, const struct push_series *s);
/* Delay before retry @attempt (1, 2, ...): 500 ms doubling, at most 30 s. */
uint64_t push_backoff_ms(unsigned attempt);
/* push.cursor's text: "<start ms>\n", nothing else. 0 or -EINVAL. */
int push_cursor_parse(const char *text, size_t len, int64_t *start_ms);
/* The text for @start_ms into @buf; its length. */
int push_cursor_format(int64_t start_ms, char *buf, size_t len);

/* service names and splitting a pprof by service (push_split.c, pure) */

#define PUSH_MAX_RULES 16
#define PUSH_MAX_GROUPS 256	/* services per profile; the rest go to "other" */

struct push_rules {
	struct {
		char comm[64];		/* a process name, or a prefix ending in '*' */
		char service[64];
	} rule[PUSH_MAX_RULES];
	size_t nr;
};

struct push_sample {
	size_t off, len;	/* a Sample message inside the pprof */
};

struct push_group {
	char service[64];	/* as a label value (push_label_value) */
	struct push_sample *samples;
	size_t nr, cap;
};

struct pb_buf;

/* @pattern (NAME, or PREFIX*) matches @comm? */
bool push_rule_match(const char *pattern, const char *comm);
/*
 * The service of a process named @comm (NULL: unknown): the first rule that
 * matches, else @fallback when set, else @comm itself ("unknown" if empty).
 */
const char *push_service_of(const struct push_rules *r, const char *comm, const char *fallback);
/* "COMM=SERVICE, PREFIX*=SERVICE, ..." -> @r. 0, or -EINVAL/-E2BIG with @err. */
int push_rules_parse(const char *text, struct push_rules *r, char *err, size_t errlen);
/*
 * Group the samples of the (uncompressed) pprof @pb by service, sorted by
 * name: the order is the same at every retry. Free with push_groups_free().
 * 0 or -errno (-EINVAL: not a protobuf).
 */
int push_groups(const void *pb, size_t len, const struct push_rules *r, const char *fallback,
		struct push_group **out, size_t *nr);
void push_groups_free(struct push_group *g, size_t nr);
/* The pprof of one group: every field of @pb but the samples, then the group's. */
int push_group_encode(const void *pb, size_t len, const struct push_group *grp,
		      struct pb_buf *out);

/* the pusher (push.c) */

struct pusher;

/*
 * Read the cursor, queue the stored intervals after it, start the thread.
 * @c->push is the back end's base URL. 0 or -errno (bad token file, ...).
 */
int pusher__start(struct pusher **out, const struct agent_config *c, struct store *st);
/* Queue @iv (just written). Never blocks on the network. */
void pusher__notify(struct pusher *p, const struct store_interval *iv);
/*
 * Send what is queued for at most @c->push_flush_ns more (no retries then),
 * stop the thread and free. NULL is a no-op.
 */
void pusher__stop(struct pusher *p);
void pusher__stats(struct pusher *p, struct push_stats *out);

#endif /* HC_AGENT_PUSH_H */
