/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* One `hotcold stat` run: what cmd_stat.c parsed, and running it. */
#ifndef HC_CLI_STAT_RUN_H
#define HC_CLI_STAT_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/counters.h"
#include "analysis/counters_drill.h"
#include "analysis/counters_stats.h"
#include "pmu/events.h"

enum stat_format { FMT_TEXT = 0, FMT_JSON, FMT_CSV };

#define STAT_MAX_EXTRA 16	/* stat -e events */

struct stat_opts {
	uint32_t *pids;			/* -p; malloc'd */
	size_t nr_pids;
	char **cmd_argv;		/* `-- CMD ARGS...`, NULL if none */
	bool system_wide;		/* -a: the default without -p or a command */
	uint64_t duration_ns;		/* -d; 0: until Ctrl-C or the targets exit */
	uint64_t interval_ns;		/* -I; 0: one snapshot at the end */
	enum stat_format fmt;
	bool per_process;		/* a process table from BPF (always with -a) */
	uint64_t top;			/* rows of that table, 0 = all */
	struct counters_model model;	/* cost-model parameters */
	const char *output;		/* "-" is stdout */
	struct cstats *repeat;
	unsigned int runs;		/* -r N; 0: one run */
	bool compare;			/* --compare A B */
	bool drill;			/* --mode: the drill-down ratios after the counters */
	bool user_only;			/* unprivileged: exclude the kernel (perf_event_paranoid 2) */
	struct pmu_event_desc extra[STAT_MAX_EXTRA];	/* -e: counted after the generic ones */
	size_t nr_extra;
	enum drill_mode drill_mode;		/* stat -r: the run's total goes here, not out */
};

/*
 * Count as @o says and write the snapshots. 0 or -errno (-ESRCH: a -p
 * target does not exist). With a command, *cmd_status gets its shell-style
 * exit status (127: not executed), else -1.
 */
int stat_run(const struct stat_opts *o, int *cmd_status);

/* stat -r N: run the command o->runs times, then write the spread (stat_repeat.c). */
int stat_repeat(struct stat_opts *o, int *cmd_status);
/* stat --compare A B: an exit status (2: a file that is not stat JSON). */
int stat_compare(const struct stat_opts *o, const char *path_a, const char *path_b);

#endif /* HC_CLI_STAT_RUN_H */
