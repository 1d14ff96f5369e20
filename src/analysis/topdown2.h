/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Top-down level 2: each level-1 category (counters.h, struct topdown) split
 * in two, as fractions of all slots, where the CPU counts what splits it:
 *
 *   retiring     light operations   | heavy operations (microcode, > 1 uop)
 *   bad spec.    branch mispredicts | machine clears / pipeline restarts
 *   frontend     fetch latency      | fetch bandwidth
 *   backend      memory bound       | core bound
 *
 * Methods and the counts each takes in @v, in this order:
 *  INTEL_METRICS  topdown-retiring, -bad-spec, -fe-bound, -be-bound,
 *                 -heavy-ops, -br-mispredict, -fetch-lat, -mem-bound
 *                 (Sapphire Rapids and later: each over the sum of the first
 *                 four, as perf's TMA metrics; the second half of each pair
 *                 is the level-1 value minus the first)
 *  AMD_ZEN        ex_ret_ops, ex_ret_ucode_ops, ex_ret_brn_misp,
 *                 resyncs_or_nc_redirects, cycles with no op from the
 *                 frontend at all (de_no_dispatch_per_slot.no_ops_from_frontend,
 *                 cmask = width), ls_not_halted_cyc, ex_no_retire.not_complete,
 *                 ex_no_retire.load_not_complete (perf amdzen4/5
 *                 pipeline.json: latency = those cycles over all cycles,
 *                 the mispredict share of bad speculation by count, the
 *                 memory share of backend by incomplete loads at retire)
 *  ARM            stall_frontend, stall_frontend_mem, stall_backend,
 *                 stall_backend_mem (Armv8.4 STALL_*_MEM, Neoverse V1/N2/V2:
 *                 the memory share of each stall, in cycles, splits the
 *                 level-1 category: frontend latency = its memory part,
 *                 Arm's "frontend_mem_bound"; backend memory bound = Arm's
 *                 "backend_mem_bound"); no split of retiring or bad
 *                 speculation (not measured: NaN)
 * A split not measured is NaN, never 0. Pure (unit-tested from recorded
 * counts); this machine has no PMU.
 */
#ifndef HC_ANALYSIS_TOPDOWN2_H
#define HC_ANALYSIS_TOPDOWN2_H

#include <stddef.h>
#include <stdio.h>

struct topdown;	/* level 1: analysis/counters.h */

enum topdown2_method {
	TOPDOWN2_INTEL_METRICS = 1,
	TOPDOWN2_AMD_ZEN,
	TOPDOWN2_ARM,
};

struct topdown2 {
	double light_ops, heavy_ops;		/* of retiring */
	double br_mispredict, machine_clears;	/* of bad speculation */
	double fetch_latency, fetch_bandwidth;	/* of frontend */
	double memory_bound, core_bound;	/* of backend */
};

/* Inputs @m takes in @v. */
size_t topdown2_nr_inputs(enum topdown2_method m);
/*
 * Level 2 of @l1 from @v[0..nr). @param: AMD dispatch width (the cmask of
 * the latency count); unused elsewhere. 0, or -EINVAL (too few counts,
 * nothing counted).
 */
int topdown2_compute(enum topdown2_method m, const struct topdown *l1, const double *v,
		     size_t nr, double param, struct topdown2 *out);
/*
 * The level-2 category with the largest share of its level-1 parent's
 * focus (topdown_focus()): "memory bound" for a backend-bound run, ... or
 * NULL (no focus, or that split was not measured).
 */
const char *topdown2_focus(const struct topdown *l1, const struct topdown2 *l2);
/* "    level 2: ..." text lines and the JSON object {"light_ops": ..., ...} (NaN: null). */
int topdown2_write_text(FILE *out, const struct topdown2 *l2, const char *pfx);
int topdown2_write_json(FILE *out, const struct topdown2 *l2);

#endif /* HC_ANALYSIS_TOPDOWN2_H */
