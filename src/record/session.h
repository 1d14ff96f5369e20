/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* One recording run: targets, collectors, the drain loop, and the written profile. */
#ifndef HC_RECORD_SESSION_H
#define HC_RECORD_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "record/opts.h"

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

/* Open, load and attach everything; describe the run on stderr. 0 or -errno. */
int session__open(struct session **out, const struct record_opts *o);
/*
 * Drain events until monotonic @until_ns (CLOCK_MONOTONIC ns; 0: no limit of
 * its own), -d, a signal, or the targets' exit. *done: the run is over.
 */
int session__poll(struct session *s, uint64_t until_ns, bool *done);
/* Consume what is in the ring and in-kernel aggregates now (before a write). */
int session__flush(struct session *s);
/* Write the current aggregation to @f. 0 or -errno. */
int session__write(struct session *s, FILE *f, enum out_format fmt);
/* Start a new interval: empty the aggregation (its memory is kept). */
void session__reset(struct session *s);
/* Loss counters (all with @final, else the non-zero ones) and the loader's cost. */
void session__report(struct session *s, bool final);
/* Detach the collectors and consume what they left. 0 or -errno. */
int session__stop(struct session *s);
/* SIGINT/SIGTERM received. */
bool session__stopping(void);
/* Reap a command (its status in *cmd_status when not NULL) and free everything. */
void session__close(struct session *s, int *cmd_status);

#endif /* HC_RECORD_SESSION_H */
