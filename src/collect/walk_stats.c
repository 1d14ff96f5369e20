// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* User-stack walk counters by cause, shared by the collectors that walk (walk_stats.h). */
#include "collect/walk_stats.h"

#include "abi/common.h"

void walk_stats_add(struct collector_stats *st, const uint64_t *v)
{
	static const struct {
		const char *name;
		enum hc_stat idx;
		bool loss;
	} lines[] = {
		{ "user stacks by CFI", HC_STAT_UNWIND_CFI, false },
		{ "CFI frames", HC_STAT_UNWIND_FRAMES, false },
		{ "CFI frames searched in the table (not in the rule cache)",
		  HC_STAT_UNWIND_RULE_MISS, false },
		{ "stacks by FP (no table yet)", HC_STAT_UNWIND_NO_TABLE, true },
		{ "CFI stacks with FP frames (no CFI there)", HC_STAT_UNWIND_FP_FRAMES, true },
		{ "walks ended in unmapped code", HC_STAT_UNWIND_NO_MAPPING, true },
		{ "walks ended on an unsupported CFA rule", HC_STAT_UNWIND_UNSUP, true },
		{ "walks ended on unreadable stack", HC_STAT_UNWIND_READ_ERR, true },
		{ "walks ended on a corrupt frame", HC_STAT_UNWIND_BAD_SP, true },
		{ "walks ended early: CFI table not yet published", HC_STAT_UNWIND_PENDING, true },
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]) && st->nr < COLLECTOR_MAX_STATS; i++)
		st->s[st->nr++] = (struct collector_stat){ lines[i].name, v[lines[i].idx],
							   lines[i].loss };
}
