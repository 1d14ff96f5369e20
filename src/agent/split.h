/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* One interval's profile -> per-kind gzip'd pprof and folded blobs for the store. */
#ifndef HC_AGENT_SPLIT_H
#define HC_AGENT_SPLIT_H

#include <stddef.h>

#include "agent/store.h"
#include "analysis/profile.h"

struct split_out {
	struct store_blob blobs[2 * PROFILE_KIND_NR + 1];	/* + the agent's counters */
	size_t nr;
};

/*
 * For each kind @p holds: a pprof (gzip'd by the pprof writer) and folded
 * text gzip'd here. Blob data is malloc'd: release with split_release().
 * 0 or -errno.
 */
int split_encode(const struct profile *p, struct split_out *out);
void split_release(struct split_out *out);

/* Copy the stacks of @kind from @src into @dst (period kept). 0 or -errno. */
int profile_copy_kind(struct profile *dst, const struct profile *src, enum profile_kind kind);

/* gzip @len bytes of @data into a malloc'd *@out. 0 or -errno. */
int gzip_buffer(const void *data, size_t len, void **out, size_t *out_len);

#endif /* HC_AGENT_SPLIT_H */
