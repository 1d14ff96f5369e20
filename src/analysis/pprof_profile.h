/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A pprof hotcold wrote (output/pprof.h), decoded (pprof_read.h), back into
 * a profile, each frame named as the folded file of the same profile names
 * it: the last Line's function (the frame's own), "_[k]" again for the
 * kernel's mapping. One difference: a frame without a symbol has no Line, so
 * it is named "object+0xOFFSET" by its sampled address, where the folded
 * file has the start of its function (from the unwind tables) when known.
 * Labels are not kept: stacks with the same frames merge.
 */
#ifndef HC_ANALYSIS_PPROF_PROFILE_H
#define HC_ANALYSIS_PPROF_PROFILE_H

#include <stdbool.h>

#include "analysis/pprof_read.h"
#include "analysis/profile.h"

/* Which samples to add; @arg as given to pprof_add_samples(). */
typedef bool (*pprof_keep_fn)(const struct pprof_sample *s, void *arg);

struct pprof_add_stats {
	uint64_t samples;	/* in the pprof, with a value of @kind */
	uint64_t kept;		/* of which @keep took */
};

/*
 * Add the samples of @d with a non-zero @kind value that @keep takes (NULL:
 * all) to @p as @kind stacks. 0, -EBADMSG (no value of @kind's sample type,
 * a location id not in @d, a sample without locations), -errno.
 */
int pprof_add_samples(const struct pprof_data *d, enum profile_kind kind, pprof_keep_fn keep,
		      void *arg, struct profile *p, struct pprof_add_stats *st);

#endif /* HC_ANALYSIS_PPROF_PROFILE_H */
