/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * record -b in user space: a sample's branch stack into the site table with
 * both ends normalized by the symbolizer (while the process lives), and at
 * the end every site's ends named. Below the session: unit-tested with a
 * real symbolizer on the test's own code.
 */
#ifndef HC_RECORD_BRANCH_NAMES_H
#define HC_RECORD_BRANCH_NAMES_H

#include "collect/branches.h"
#include "stack/branch_sites.h"
#include "sym/symbolizer.h"

/*
 * Count @b into @t, each branch and target normalized to (object, file
 * offset) in process b->tgid as of b->time_ns (the instruction addresses
 * themselves: no ip - 1). 0, or -ENOMEM (the table's).
 */
int branch_names_add(struct symbolizer *sym, struct branch_table *t,
		     const struct branch_sample *b);

/* Name every site end of @t: object path, function and offset, innermost source line. */
void branch_names_resolve(struct symbolizer *sym, struct branch_table *t);

#endif /* HC_RECORD_BRANCH_NAMES_H */
