/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Running a parsed recording and turning its outcome into an exit status. */
#ifndef HC_CLI_RUN_H
#define HC_CLI_RUN_H

#include "collect/opts.h"
#include "util/opt.h"

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

/* long-only option ids of the shared target options */
#define CLI_OPT_CGROUP	0x1000	/* --cgroup PATH */
#define CLI_OPT_COMM	0x1001	/* --comm NAME|PREFIX* */
#define CLI_OPT_UNWIND	0x1002	/* --unwind auto|fp|cfi */

/*
 * The option table entries record, runqlat and locks share (their help text
 * per command); cli_target_opt() handles them.
 */
#define CLI_OPT_PID(help)	{ .name = "pid", 'p', 'p', OPTV_STR, "PID[,PID...]", help }
#define CLI_OPT_TID(help)	{ .name = "tid", 't', 't', OPTV_STR, "TID[,TID...]", help }
#define CLI_OPT_CGROUP_SPEC(help) { .name = "cgroup", 0, CLI_OPT_CGROUP, OPTV_PATH, "PATH", help }
#define CLI_OPT_COMM_SPEC(help)	{ .name = "comm", 0, CLI_OPT_COMM, OPTV_STR, "NAME", help }
/* every command that takes user stacks walks them alike (record_opts.unwind) */
#define CLI_UNWIND_HELP "user stacks: auto (CFI tables where built, else frame pointers; frame " \
	"pointers where the kernel refuses the CFI walker), fp, cfi"
#define CLI_OPT_UNWIND_SPEC { .name = "unwind", 0, CLI_OPT_UNWIND, OPTV_CHOICE, "MODE", \
			      CLI_UNWIND_HELP, .choices = "auto|fp|cfi" }
#define CLI_OPT_ALL(help)	{ .name = "all-cpus", 'a', 'a', OPTV_FLAG, NULL, help }
/* 1 ms to a leap year: a shorter run holds no sample at 99 Hz, a longer one is a typo */
#define CLI_OPT_DURATION(help)	{ .name = "duration", 'd', 'd', OPTV_DUR, "DUR", help, \
				  .min = 1000000ull, .max = 366ull * 86400 * 1000000000ull, \
				  .unit = 1000000000ull }
#define CLI_OPT_OUTPUT(help)	{ .name = "output", 'o', 'o', OPTV_PATH, "FILE", help }

/* cli_target_opt() results besides EXIT_USAGE */
#define CLI_OPT_OTHER	(-2)	/* not one of the shared options */
#define CLI_OPT_DONE	0	/* handled */

/*
 * The options record, runqlat and locks share: -p, -t, -a, -d, -o, -v, -q,
 * --cgroup, --comm, --unwind, by their ids above.
 * Returns CLI_OPT_DONE, CLI_OPT_OTHER, or EXIT_USAGE after a message.
 */
int cli_target_opt(const struct opt_cmd *c, const struct opt_spec *s, const struct opt_val *v,
		   struct record_opts *o);

#endif /* HC_CLI_RUN_H */
