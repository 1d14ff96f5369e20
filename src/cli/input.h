/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the profile-reading subcommands (report, diff, convert, flamegraph)
 * share: their --kind and -v/-q options, and loading a folded file with the same messages and exit statuses everywhere.
 */
#ifndef HC_CLI_INPUT_H
#define HC_CLI_INPUT_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/profile.h"
#include "util/opt.h"

/* --kind KIND: the entry in an option table; cli_parse_kind() turns its value into a kind. */
#define CLI_OPT_KIND	0x1100
#define CLI_OPT_KIND_SPEC(help) { .name = "kind", 0, CLI_OPT_KIND, OPTV_CHOICE, "KIND", help, \
				  .choices = "oncpu|offcpu|runq|lock" }

/*
 * opt__parse() for the profile-reading commands: -1 to go on (*@first: the
 * first operand), else the exit status (EXIT_OK after --help).
 */
int cli_parse_opts(const struct opt_cmd *c, int argc, char **argv, opt_handler h, void *ctx,
		   int *first);

/* -v (debug) and -q (warnings only) of the profile-reading commands: 0, else -2 (another id). */
int cli_log_opt(int id);

/* --kind not given: the kind comes from the file's header (on-CPU samples without one). */
#define CLI_KIND_UNSET	(-1)

/*
 * Read the folded file @path ("-": stdin) into a new profile. *@kind is the
 * --kind given (a profile_kind) or CLI_KIND_UNSET; it becomes the kind to
 * show: for a file with hotcold headers the first kind it holds (a --kind
 * the file does not hold is refused), for another tool's file --kind or
 * on-CPU samples. Diagnostics are prefixed "@cmd: ". Returns an exit
 * status: EXIT_OK (*out set; malformed lines were warned about, each listed
 * at -v), EXIT_RUNTIME (cannot open or read, out of memory), EXIT_USAGE (a
 * directory, binary or compressed data, a header we cannot use, a --kind
 * that contradicts the header, or no valid line). @st is optional.
 */
int cli_load_folded(const char *cmd, const char *path, int *kind, struct profile **out,
		    struct folded_read_stats *st);

/* The kinds of a profile as "on-CPU samples and off-CPU nanoseconds", for notes. */
void cli_describe_kinds(const struct profile *p, char *buf, size_t len);

/* A note when @p holds kinds other than @shown (a hot/cold file): how to see them. */
void cli_note_other_kinds(const char *cmd, const struct profile *p, int shown);

/* --kind VALUE: 0 or -EINVAL (message printed). */
int cli_parse_kind(const char *cmd, const char *s, int *kind);

#endif /* HC_CLI_INPUT_H */
