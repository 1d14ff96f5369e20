/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* `hotcold locks`: the most contended locks, their numbers and top waiting stacks. */
#ifndef HC_RECORD_LOCKS_REPORT_H
#define HC_RECORD_LOCKS_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "collect/locks.h"
#include "record/emit.h"
#include "collect/opts.h"

/*
 * Sort @rows by o->locks_sort (total, max, count), write the top o->locks_top
 * as an aligned table (or JSON with o->json), each with up to three of its
 * heaviest stacks from @agg. 0 or -errno (-EIO on a write error).
 */
int locks_report_write(FILE *out, struct lock_row *rows, size_t nr, const struct locknames *ln,
		       const struct stack_agg *agg, struct symbolizer *sym,
		       const struct emit_opts *eo, const struct record_opts *o);

/*
 * record --locks: give the futex locks that the table would show as one
 * site row the label "site:NAME", so their "[lock ...]" frames follow the
 * same grouping. 0 or -errno.
 */
int locks_relabel_sites(const struct lock_row *rows, size_t nr, struct locknames *ln,
			const struct stack_agg *agg, struct symbolizer *sym,
			const struct emit_opts *eo);

#endif /* HC_RECORD_LOCKS_REPORT_H */
