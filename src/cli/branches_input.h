/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The branch sites of a `record -b` profile, for report --branches and annotate. */
#ifndef HC_CLI_BRANCHES_INPUT_H
#define HC_CLI_BRANCHES_INPUT_H

#include <stdbool.h>

#include "analysis/branches.h"

/*
 * Read the branch sites of profile @path into @t (initialized here): the
 * file PROFILE.branches that `record -b -o PROFILE` wrote, or @path itself
 * when it is one (it ends in ".branches"). Returns an exit status:
 * EXIT_OK; EXIT_USAGE for stdin, a profile without branch records (no such
 * file: when @quiet, silently) or a malformed or truncated file; EXIT_RUNTIME
 * when it exists but cannot be read. Messages are prefixed "@cmd: ".
 */
int cli_load_branches(const char *cmd, const char *path, bool quiet, struct branch_table *t);

#endif /* HC_CLI_BRANCHES_INPUT_H */
