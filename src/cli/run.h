/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Running a parsed recording and turning its outcome into an exit status. */
#ifndef HC_CLI_RUN_H
#define HC_CLI_RUN_H

#include "record/opts.h"

/*
 * Before any BPF is loaded: 0 if this process may trace, else EXIT_RUNTIME
 * after one line saying what is needed (root, or CAP_BPF + CAP_PERFMON).
 */
int cli_need_bpf(void);

/*
 * Validate @o, check -o can be written, run the session, release @o's lists.
 * Returns the exit status as cli_exit_status() does.
 */
int cli_run_recording(struct record_opts *o, const char *who);

/*
 * The exit status of a recording that returned @err with the command's
 * status @cmd_status (-1: no command). Checks stdout for write errors first.
 * 127 when the command could not be executed; 2 for bad input (invalid
 * combination, missing target, -o naming a directory); 1 for any other
 * failure, including a profile that could not be written after the command
 * ran (its non-zero status is then only reported); else the command's
 * status, or 0.
 */
int cli_exit_status(int err, int cmd_status, const char *who);

/*
 * A recording command from start to end: @parse @argv into @o (already set to
 * the command's defaults; parse returns 0, an exit status, or < 0 after
 * --help), then cli_run_recording(). Returns the exit status.
 */
int cli_record_main(int argc, char **argv, struct record_opts *o,
		    int (*parse)(int argc, char **argv, struct record_opts *o), const char *who);

/* long-only option codes of the shared target options */
#define CLI_OPT_CGROUP	0x1000	/* --cgroup PATH */
#define CLI_OPT_COMM	0x1001	/* --comm NAME|PREFIX* */

/* cli_target_opt() results besides EXIT_USAGE */
#define CLI_OPT_OTHER	0	/* not one of the shared options */
#define CLI_OPT_DONE	1	/* handled */

/*
 * The options record, runqlat and locks share: -p, -t, -a, -d, -o, -v, -q,
 * --cgroup, --comm.
 * Returns CLI_OPT_DONE, CLI_OPT_OTHER, or EXIT_USAGE after a message.
 */
int cli_target_opt(int c, const char *arg, struct record_opts *o, const char *who);

#endif /* HC_CLI_RUN_H */
