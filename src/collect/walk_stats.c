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

	/* JVMs' Java frames (bpf/lib/unwind_hotspot.bpf.h): shown only where a JVM was walked */
	static const struct {
		const char *name;
		enum hc_stat idx;
		bool loss;
	} jit[] = {
		{ "Java frames walked", HC_STAT_UNWIND_JIT_FRAMES, false },
		{ "walks ended in a JVM's code cache: no code blob at the pc",
		  HC_STAT_UNWIND_JIT_NO_BLOB, true },
		{ "Java leaves in a prologue or epilogue, stepped by its code",
		  HC_STAT_UNWIND_JIT_EDGE_WALKED, false },
		{ "walks ended in a Java method's prologue (a form not known)",
		  HC_STAT_UNWIND_JIT_PROLOGUE, true },
		{ "walks ended in a JVM stub without a frame", HC_STAT_UNWIND_JIT_FRAMELESS, true },
		{ "walks ended on a corrupt Java frame", HC_STAT_UNWIND_JIT_BAD_FRAME, true },
		{ "walks ended on unreadable JVM code cache", HC_STAT_UNWIND_JIT_READ_ERR, true },
	};
	bool any = false;

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]) && st->nr < COLLECTOR_MAX_STATS; i++)
		st->s[st->nr++] = (struct collector_stat){ lines[i].name, v[lines[i].idx],
							   lines[i].loss };
	for (size_t i = 0; i < sizeof(jit) / sizeof(jit[0]); i++)
		any |= v[jit[i].idx] != 0;
	for (size_t i = 0; any && i < sizeof(jit) / sizeof(jit[0]) && st->nr < COLLECTOR_MAX_STATS; i++)
		st->s[st->nr++] = (struct collector_stat){ jit[i].name, v[jit[i].idx], jit[i].loss };
	/* V8's JavaScript frames (bpf/lib/unwind_v8.bpf.h): shown where there were some */
	if (v[HC_STAT_UNWIND_V8_FRAMES] && st->nr < COLLECTOR_MAX_STATS)
		st->s[st->nr++] = (struct collector_stat){ "JavaScript frames found by the walk",
							   v[HC_STAT_UNWIND_V8_FRAMES], false };
}
