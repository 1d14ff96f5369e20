/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The user-stack walk counters every stack-taking collector reports, one
 * line per cause (a CFI walk that ended early names why), so a cut stack's
 * cause is never summed away.
 */
#ifndef HC_COLLECT_WALK_STATS_H
#define HC_COLLECT_WALK_STATS_H

#include <stdint.h>

#include "collect/collector.h"

/* Append the walk counters of @v (HC_STAT_NR per-CPU sums) to @st. */
void walk_stats_add(struct collector_stats *st, const uint64_t *v);

#endif /* HC_COLLECT_WALK_STATS_H */
