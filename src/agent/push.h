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
#include <regex.h>
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
	uint64_t labels_capped;		/* sample labels dropped over PUSH_MAX_LABEL_VALUES */
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
	const char *container;	/* container_id; NULL or "": none */
	const char *unit;	/* systemd_unit; NULL or "": none */
};

/* pure (push_util.c) */

/*
 * A label value as Pyroscope's name parser accepts it: characters other than
 * [A-Za-z0-9_.:/-] become '_', empty becomes "unknown". Truncated to @len-1.
 */
void push_label_value(const char *in, char *out, size_t len);
/*
 * "BASE/ingest?name=...&from=...&until=...&format=pprof&spyName=hotcold[&sampleRate=N]"
 * with the name "SERVICE.KIND{service_name=..,hostname=..,hotcold_version=..,kind=..
 * [,container_id=..][,systemd_unit=..]}"
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

/* service rules, container labels (push_rules.c, pure) */

#define PUSH_MAX_RULES 16
#define PUSH_RULE_LEN 256	/* bytes of a rule's pattern */
#define PUSH_SVC_LEN 64

/* What a rule matches on. */
enum push_rule_by {
	PUSH_BY_COMM = 0,	/* NAME or PREFIX* */
	PUSH_BY_CMDLINE,	/* POSIX extended regex, anywhere in the command line */
	PUSH_BY_CGROUP,		/* fnmatch(3) glob on the cgroup v2 path ('*' crosses '/') */
};

struct push_rule {
	enum push_rule_by by;
	char pat[PUSH_RULE_LEN];
	char service[PUSH_SVC_LEN];
	bool has_re;
	regex_t re;		/* PUSH_BY_CMDLINE: compiled @pat */
};

struct push_rules {
	struct push_rule rule[PUSH_MAX_RULES];
	size_t nr;
};

/* What a sample says of its process (pprof labels; each may be NULL). */
struct push_proc {
	const char *comm, *cmdline, *cgroup;
};

/* @pattern (NAME, or PREFIX*) matches @comm? */
bool push_rule_match(const char *pattern, const char *comm);
/*
 * The service of process @pr: the first rule that matches (a rule on the
 * command line or the cgroup never matches a process whose one is unknown),
 * else @fallback when set, else its comm ("unknown" if none).
 */
const char *push_service_of(const struct push_rules *r, const struct push_proc *pr,
			    const char *fallback);
/*
 * "RULE=SERVICE, ..." -> @r, RULE one of NAME, PREFIX*, comm:NAME,
 * cmdline:REGEX, cgroup:GLOB; the service is after the last '=', "\,"
 * is a comma inside a rule. 0, or -EINVAL/-E2BIG with @err; free with
 * push_rules_free() (also after an error).
 */
int push_rules_parse(const char *text, struct push_rules *r, char *err, size_t errlen);
void push_rules_free(struct push_rules *r);
/*
 * From a cgroup v2 path: @id gets the container ID (64 hex digits: Docker,
 * containerd/CRI, CRI-O, Podman, from the innermost path component that
 * names one) and @unit the innermost systemd service ("nginx.service")
 * when there is no container; "" for none.
 */
void push_container_of(const char *cgroup, char *id, size_t idlen, char *unit, size_t unitlen);

/*
 * pprof sample labels pushed (Pyroscope makes each distinct set of sample
 * labels a series of its own: per-thread and per-process values multiply
 * the series). Bit (1u << PUSH_L_x) per label kept.
 */
enum push_label {
	PUSH_L_PID = 0, PUSH_L_TID, PUSH_L_COMM, PUSH_L_THREAD, PUSH_L_REASON, PUSH_L_CMDLINE,
	PUSH_L_CGROUP, PUSH_L_NR,
};
#define PUSH_LABELS_DEFAULT \
	((1u << PUSH_L_COMM) | (1u << PUSH_L_THREAD) | (1u << PUSH_L_REASON))
/* Distinct values of one label in one pushed profile, at most; more are dropped from their samples. */
#define PUSH_MAX_LABEL_VALUES 64

/* The pprof key: "pid", "tid", "comm", "thread_name", "reason", "cmdline", "cgroup". */
const char *push_label_name(enum push_label l);
/* "comm,tid" -> mask; "none" is 0. 0 or -EINVAL with @err. */
int push_labels_parse(const char *text, unsigned *mask, char *err, size_t errlen);

/* splitting a pprof by series (push_split.c, pure) */

#define PUSH_MAX_GROUPS 256	/* series per profile; the rest go to service "other" */

struct push_sample {
	size_t off, len;	/* a Sample message inside the pprof */
};

/* One series: a service, and the container or unit its processes run in. */
struct push_group {
	char service[PUSH_SVC_LEN];	/* as a label value (push_label_value) */
	char container[72];		/* container_id, "" for none */
	char unit[128];			/* systemd_unit, "" for none */
	struct push_sample *samples;
	size_t nr, cap;
};

struct push_index;

struct push_split {
	struct push_group *g;		/* sorted by service, container, unit */
	size_t nr;
	int64_t key[PUSH_L_NR];		/* each label key's string index; -1: absent */
	size_t nr_strs;
	struct push_index *ix;		/* the tables by id, for push_group_encode() */
};

/*
 * Index the (uncompressed) pprof @pb once for all its series (push_prune.c):
 * every top-level field but the samples, table entries by id. 0 or -errno
 * (-EINVAL: malformed, or ids past 2^24: not ours).
 */
int push_index_build(const void *pb, size_t len, struct push_index **out);
void push_index_free(struct push_index *ix);	/* NULL is a no-op */

struct pb_buf;

/*
 * Group the samples of the (uncompressed) pprof @pb by series, in an order
 * that is the same at every retry. Free with push_split_free(). 0 or -errno
 * (-EINVAL: not a protobuf).
 */
int push_groups(const void *pb, size_t len, const struct push_rules *r, const char *fallback,
		struct push_split *out);
void push_split_free(struct push_split *s);
/*
 * The pprof of group @i (push_prune.c): the group's samples, each with only
 * the labels in @keep (and at most PUSH_MAX_LABEL_VALUES values of each;
 * *@capped counts the labels dropped over it), and of the tables only what
 * they refer to: locations, functions, mappings; strings no kept entry
 * refers to are blanked (their indices stay), so a command line that is not
 * pushed is not sent either (it may hold secrets). Every other field as
 * in @pb. 0 or -errno (-EINVAL: malformed).
 */
int push_group_encode(const void *pb, size_t len, const struct push_split *s, size_t i,
		      unsigned keep, struct pb_buf *out, uint64_t *capped);

/*
 * The multipart part "sample_type_config" for a profile of @kind ("oncpu",
 * ...): JSON naming each sample type's units, aggregation and display name,
 * so that Pyroscope files off-CPU time under "block", lock waits under
 * "mutex" (not under process_cpu, as "off_cpu" alone would be). Its length,
 * or -ENAMETOOLONG.
 */
int push_sample_type_config(const char *kind, char *buf, size_t len);

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
