/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* One recording run: targets, collectors, the drain loop, and the written profile. */
#ifndef HC_RECORD_SESSION_H
#define HC_RECORD_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "collect/opts.h"

/*
 * Record as @o says and write the profile. Returns 0 or -errno. With a
 * command, *cmd_status gets its shell-style exit status (else -1).
 * -ESRCH: a -p/-t target does not exist; -EINVAL: bad input; others: runtime.
 */
int session_run(const struct record_opts *o, int *cmd_status);

/*
 * The same run in steps, for the continuous agent: open and start, drain in
 * intervals, write and reset the aggregation per interval, stop, close.
 */
struct session;

/*
 * Open, load and attach everything; describe the run on stderr. 0 or -errno.
 * With @o->output NULL no output file is created: write with session__write().
 */
int session__open(struct session **out, const struct record_opts *o);
/*
 * Drain events until monotonic @until_ns (CLOCK_MONOTONIC ns; 0: no limit of
 * its own), -d, a signal, or the targets' exit. *done: the run is over.
 */
int session__poll(struct session *s, uint64_t until_ns, bool *done);
/*
 * Before a write: one budgeted read of the ring (what is left goes to the
 * next interval), a budgeted replay of held records, in-kernel aggregates.
 */
int session__flush(struct session *s);
/*
 * The longest single step of the loop (wall ns) since the last call, and
 * what it was doing ("replaying held records", ...; NULL if none); resets.
 */
void session__take_slowest(struct session *s, const char **what, uint64_t *ns,
			   uint64_t *cpu_ns);	/* and this thread's CPU time in it */

/*
 * An interval ends (the agent) at @at_ns (CLOCK_MONOTONIC, when the loop saw
 * its timer): have the collectors emit what is still going (blocks) up to
 * then, into the ring; call before session__flush().
 */
void session__cut(struct session *s, uint64_t at_ns);
/* Write the current aggregation to @f. 0 or -errno. */
int session__write(struct session *s, FILE *f, enum out_format fmt);
/*
 * With counters on (o->counters): every process's counters since the last
 * call (or the start) as one JSON object to @f. 0, -ENOENT without the
 * counters collector, or -errno.
 */
int session__write_counters(struct session *s, FILE *f);
/*
 * With run-queue collection: add the run-queue time that carries no stack
 * (wakeup waits, preemptions below min_runq) since the last call as one
 * stackless entry, rooted "[no stack]", so the interval holds every wait.
 * Call after session__flush(). 0 or -errno.
 */
int session__fold_unstacked_runq(struct session *s);
/* Start a new interval: empty the aggregation (its memory is kept). */
void session__reset(struct session *s);
/* Loss counters (all with @final, else the non-zero ones) and the loader's cost. */
void session__report(struct session *s, bool final);
/* Detach the collectors and consume what they left. 0 or -errno. */
int session__stop(struct session *s);
/* What the current interval holds (since open or the last reset). */
struct session_counts {
	uint64_t samples;			/* on-CPU */
	uint64_t off_ns, off_blocks;		/* off-CPU blocks with stacks */
	uint64_t short_ns, short_blocks;	/* off-CPU blocks below min_block_ns */
	uint64_t runq_ns, runq_waits;
	uint64_t cpuwait_ns;			/* off-CPU blocks' CPU wait after their wakeup */
	uint64_t lock_ns, lock_waits;
	uint64_t stacks;			/* distinct stacks aggregated */
	uint64_t stacks_dropped;		/* refused: max_stacks reached */
	uint64_t procs_late;			/* cumulative: gone before their maps were read */
	uint64_t held_dropped;			/* cumulative: their records not held (limit) */
};
void session__counts(const struct session *s, struct session_counts *c);

/* Visit every collector and proc-tracker counter (cumulative; @loss: a drop counter). */
typedef void (*session_stat_fn)(const char *group, const char *name, uint64_t value, bool loss,
				void *arg);
void session__stats(struct session *s, session_stat_fn fn, void *arg);

struct profile;
/*
 * Name the current aggregation into @p (created by the caller): every kind in
 * its own unit (on-CPU samples with the period set, nanoseconds otherwise).
 * 0 or -errno.
 */
int session__profile(struct session *s, struct profile *p);
/*
 * The interval's profile for the agent, as session__profile() names it.
 * With o->name_ahead (and no --label) most stacks were named during the
 * interval, turn by turn; here only the weight they gained since, and the
 * new stacks for up to @budget_ns (0: no limit); what is left keeps its
 * weight under "[not named in time]" and is counted (session__stats).
 * *@out is the caller's (profile__free). Call session__reset() after it.
 * 0 or -errno.
 */
int session__take_profile(struct session *s, uint64_t budget_ns, struct profile **out);
/* The session's symbolizer (for the agent's per-interval trim); owned by @s. */
struct symbolizer *session__symbolizer(struct session *s);

/* SIGINT/SIGTERM received. */
bool session__stopping(void);
/* When the first SIGINT/SIGTERM came (CLOCK_MONOTONIC ns), or 0. */
uint64_t session__signal_ns(void);
/* Reap a command (its status in *cmd_status when not NULL) and free everything. */
void session__close(struct session *s, int *cmd_status);

#endif /* HC_RECORD_SESSION_H */
