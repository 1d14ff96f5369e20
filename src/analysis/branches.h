/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * OUTPUT.branches, the branch sites of a `record -b` (stack/branch_sites.h):
 * written by the recorder, read and reported by `report --branches`,
 * marked by `annotate`.
 */
#ifndef HC_ANALYSIS_BRANCHES_H
#define HC_ANALYSIS_BRANCHES_H

#include <stdio.h>

#include "stack/branch_sites.h"

/*
 * The file next to a profile: "# hotcold branches v1 ..." then one site
 * per line, tab-separated (branches_io.c; docs/output-formats.md).
 */
int branches_write(FILE *out, const struct branch_table *t);
/*
 * Read @in into @t (initialized, empty). -EINVAL on any malformed or
 * truncated line, with @err (optional, @errlen) saying which and why.
 */
int branches_read(FILE *in, struct branch_table *t, char *err, size_t errlen);

/*
 * "func+0x1c (file.c:42)" (the source file's name, not its path),
 * "module+0x1234" without a function: @buf always NUL-terminated.
 */
void branch_end_name(const struct branch_end *e, char *buf, size_t len);

/*
 * report --branches: totals, then the @top sites (0: all) with the most
 * mispredicts, with source and target. Sites never mispredicted are left
 * out when the PMU flags mispredicts at all. 0 or -EIO.
 */
int branches_write_report(FILE *out, const struct branch_table *t, size_t top);
int branches_write_json(FILE *out, const struct branch_table *t, size_t top);

#endif /* HC_ANALYSIS_BRANCHES_H */
