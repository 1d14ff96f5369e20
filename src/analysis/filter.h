/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --grep / --exclude: keep or drop whole stacks by a POSIX extended regular
 * expression matched against the stack's folded text ("app;main;f_[k]").
 */
#ifndef HC_ANALYSIS_FILTER_H
#define HC_ANALYSIS_FILTER_H

#include <regex.h>
#include <stdbool.h>

#include "analysis/profile.h"

struct stack_filter {
	regex_t grep, exclude;
	bool has_grep, has_exclude;
};

/*
 * Compile the expressions (either may be NULL: no such filter). On a bad
 * expression: pr_warn with regerror()'s reason, -EINVAL, nothing to free.
 */
int stack_filter__init(struct stack_filter *f, const char *grep, const char *exclude);
void stack_filter__release(struct stack_filter *f);	/* safe on a zeroed struct */

static inline bool stack_filter__active(const struct stack_filter *f)
{
	return f->has_grep || f->has_exclude;
}

/*
 * A new profile with the stacks of @in that match grep and do not match
 * exclude (labels, kinds and the period kept). 0 or -errno.
 */
int stack_filter__apply(const struct stack_filter *f, const struct profile *in,
			struct profile **out);

#endif /* HC_ANALYSIS_FILTER_H */
