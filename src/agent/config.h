/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The agent's configuration: defaults, the config file, then command-line
 * flags on top. The file format (docs/agent.md):
 *
 *   # comment (whole line; also after a value: "interval = 60s  # one minute")
 *   key = value
 *
 * One key per line, each key at most once, unknown keys and bad values are
 * errors reported as "FILE:LINE: reason". Keys: dir, interval, frequency,
 * on_cpu, off_cpu, min_block, runq, min_runq, locks, counters, pids, cgroups, comms,
 * max_age, max_intervals, max_bytes, max_stacks, http, http_token_file, bpf_stats,
 * maps_at_exec, label.
 */
#ifndef HC_AGENT_CONFIG_H
#define HC_AGENT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "collect/opts.h"
#include "collect/target_rules.h"

struct retention {
	uint64_t max_age_ns;	/* 0: no age limit */
	uint64_t max_intervals;	/* 0: no count limit */
	uint64_t max_bytes;	/* 0: no byte budget (profiles + index.jsonl) */
};

struct agent_config {
	char *dir;		/* history directory (malloc'd) */
	uint64_t interval_ns;
	uint64_t freq_hz;
	bool oncpu, offcpu, runq, locks;
	bool counters;		/* per-process counters, <start>-counters.json per interval */
	uint64_t min_block_ns;
	uint64_t block_quantum_ns;
	uint64_t min_runq_ns;	/* run-queue waits shorter than this carry no stack */
	uint32_t *pids;		/* NULL: system-wide (malloc'd) */
	size_t nr_pids;
	struct target_rules rules;	/* cgroups, comms: targets by cgroup and name */
	uint64_t max_stacks;
	struct retention keep;
	char *http;		/* "ADDR:PORT" or NULL: no web view (malloc'd) */
	char *http_token_file;	/* the web view's token (http_auth.h) or NULL: none (malloc'd) */
	bool bpf_stats;		/* enable kernel.bpf_stats while running */
	bool maps_at_exec;	/* read every new image's maps at exec (short processes named) */
	enum unwind_mode unwind;	/* unwind = auto|fp|cfi (record --unwind) */
	bool label_cmdline;	/* label = cmdline: roots by command line (record/labels.h) */
	/* push.h: a Pyroscope-compatible back end; all malloc'd, NULL: unset */
	char *push;		/* base URL, e.g. http://pyroscope:4040; NULL: no push */
	char *push_service;	/* service_name of what no rule names; NULL: the process name */
	char *push_rules;	/* "COMM=SERVICE, PREFIX*=SERVICE, cmdline:RE=SERVICE" (push.h) */
	char *push_labels;	/* sample labels pushed, "comm,tid"; NULL: PUSH_LABELS_DEFAULT */
	char *push_token_file;	/* bearer token */
	char *push_basic_auth_file;	/* "user:password" */
	char *push_tenant;	/* X-Scope-OrgID */
	char *push_ca_file;	/* CA bundle for https */
	uint64_t push_timeout_ns;	/* connect and whole request */
	uint64_t push_flush_ns;	/* at exit: how long to keep sending */
};

/* Defaults: dir /var/lib/hotcold, 60 s, 19 Hz on-CPU only, 7 days, 1 GiB. */
void agent_config_init(struct agent_config *c);
void agent_config_release(struct agent_config *c);	/* frees members, not @c */

/*
 * Parse the text of @in (named @name in messages) over @c. On error, returns
 * -EINVAL (or -ENOMEM, -EIO) and @err holds "NAME:LINE: reason"; @c may hold
 * the keys before the bad line.
 */
int agent_config_parse(struct agent_config *c, FILE *in, const char *name, char *err,
		       size_t errlen);

/* Open @path and parse it; -errno from fopen is reported in @err too. */
int agent_config_load(struct agent_config *c, const char *path, char *err, size_t errlen);

/*
 * Set one key from a string (the file and the flags share this). 0, or
 * -EINVAL with the reason in @err ("unknown key", "invalid duration ...").
 */
int agent_config_set(struct agent_config *c, const char *key, const char *value, char *err,
		     size_t errlen);

/* A byte size: decimal with an optional K, M, G or T suffix (powers of 1024). */
int parse_size(const char *s, uint64_t *out);

#endif /* HC_AGENT_CONFIG_H */
