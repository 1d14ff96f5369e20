/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Subcommands: each takes argv after its name and returns a process exit status. */
#ifndef HC_CLI_CMD_H
#define HC_CLI_CMD_H

#include "util/opt.h"

/* Exit statuses (documented in the README and --help). */
#define EXIT_OK		0
#define EXIT_RUNTIME	1	/* recording or writing failed */
#define EXIT_USAGE	2	/* bad option, bad value, missing target */
/*
 * This kernel cannot run it: below the minimum (collect/kernel_check.h) or
 * a collector's core programs refused (collect/parts.h). Restarting will
 * not help: the agent's unit does not restart on it.
 */
#define EXIT_KERNEL	3

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_flamegraph(int argc, char **argv);
int cmd_runqlat(int argc, char **argv);
int cmd_locks(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_agent(int argc, char **argv);
int cmd_annotate(int argc, char **argv);

/*
 * Each command's option table (util/opt.h): `hotcold __options CMD --man` or
 * `--complete` prints them for the man pages and the bash completion.
 */
extern const struct opt_cmd record_cmd, report_cmd, diff_cmd, convert_cmd, flamegraph_cmd,
	runqlat_cmd, locks_cmd, stat_cmd, agent_cmd, annotate_cmd;

#endif /* HC_CLI_CMD_H */
