/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the profile-reading subcommands (report, diff, convert, flamegraph)
 * share: an option table that also generates --help, and loading a folded
 * file with the same messages and exit statuses everywhere.
 */
#ifndef HC_CLI_INPUT_H
#define HC_CLI_INPUT_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis/profile.h"

struct cli_opt {
	struct option opt;
	int short_name;		/* 0: long only */
	const char *arg;	/* value name in --help, NULL for a flag */
	const char *help;
};

/* "  -n, --top N        help" lines for @nr options. */
void cli_print_options(FILE *f, const struct cli_opt *opts, size_t nr);

/* getopt_long's table: @out must hold @nr + 1 entries (the last is zeroed). */
void cli_longopts(const struct cli_opt *opts, size_t nr, struct option *out);

/*
 * Read the folded file @path ("-": stdin) as weights of @kind into a new
 * profile. Diagnostics are prefixed "@cmd: ". Returns an exit status:
 * EXIT_OK (*out set; malformed lines were warned about, each listed at -v),
 * EXIT_RUNTIME (cannot open or read, out of memory), EXIT_USAGE (no valid
 * line: empty, binary, gzip'd or otherwise not folded text). @st is optional.
 */
int cli_load_folded(const char *cmd, const char *path, enum profile_kind kind,
		    struct profile **out, struct folded_read_stats *st);

/* --kind VALUE: 0 or -EINVAL (message printed). */
int cli_parse_kind(const char *cmd, const char *s, enum profile_kind *kind);

#endif /* HC_CLI_INPUT_H */
