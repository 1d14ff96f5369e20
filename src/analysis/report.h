/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `hotcold report`: the numbers a person reads first — top frames by self and
 * by inclusive weight, the hottest frame, per-process (root frame) totals —
 * plus the two judgements of SEEDS.md §3: the stop rule ("profile is flat")
 * and the contaminated-profile warning (idle-looking frames dominate).
 */
#ifndef HC_ANALYSIS_REPORT_H
#define HC_ANALYSIS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/profile.h"

#define REPORT_FLAT_PCT		10.0	/* stop rule: no frame at or above this self share */
#define REPORT_IDLE_PCT		20.0	/* contaminated: idle-looking frames above this share */

struct report_opts {
	enum profile_kind kind;	/* which weights to report */
	size_t top_n;		/* rows per table; 0 = all */
	const char *source;	/* input name shown in the header, may be NULL */
	/* input statistics shown in the header; NULL when not read from folded text */
	const struct folded_read_stats *input;
	uint64_t unfiltered_total;	/* total before --grep/--exclude; 0 = not filtered */
};

struct report_proc {
	uint32_t frame;		/* the root frame */
	uint64_t weight;
};

/* One idle-looking frame and the self weight of the stacks it made idle. */
struct report_idle {
	uint32_t frame;
	uint64_t weight;
};

struct report {
	const struct profile *p;	/* borrowed: must outlive the report */
	struct report_opts o;
	uint64_t total;
	struct frame_total *by_self;	/* every frame: self desc, name asc */
	struct frame_total *by_incl;	/* every frame: inclusive desc, name asc */
	size_t nr_frames;
	struct report_proc *procs;	/* weight desc, name asc */
	size_t nr_procs;
	bool has_hottest;
	double hottest_pct;		/* by_self[0] is the hottest */
	bool flat;			/* has_hottest and hottest_pct < REPORT_FLAT_PCT */
	uint64_t idle_weight;		/* stacks ending in idle-looking frames (on-CPU only) */
	struct report_idle *idle;	/* weight desc, name asc */
	size_t nr_idle;
	bool contaminated;		/* idle_weight above REPORT_IDLE_PCT of total */
};

/* Compute everything for @p. *out is malloc'd; 0 or -errno. */
int report__new(const struct profile *p, const struct report_opts *o, struct report **out);
void report__free(struct report *r);	/* NULL is a no-op */

/*
 * Is @name (without suffix) an idle-looking frame: a thread waiting rather
 * than working (sched_yield, futex waits, epoll_wait, poll, select,
 * nanosleep, pthread_cond_wait, the kernel idle loop, ...)?
 */
bool report_is_idle_frame(const char *name);

/*
 * An --exclude expression (POSIX ERE) matching the report's idle frames,
 * malloc'd; NULL if there are none or on ENOMEM.
 */
char *report__idle_exclude(const struct report *r);

/* Aligned tables for people. 0 or -EIO. */
int report__write_text(const struct report *r, FILE *out);

/* One JSON object for scripts (layout documented in docs/reading-profiles.md). 0 or -EIO. */
int report__write_json(const struct report *r, FILE *out);

#endif /* HC_ANALYSIS_REPORT_H */
