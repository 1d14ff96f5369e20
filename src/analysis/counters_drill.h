/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * stat drill-down modes (`stat --mode cache|branches`): after the class is
 * known, the ratios that say where in the memory hierarchy or the branch
 * unit it goes, each with the healthy and investigate bands of SEEDS.md §2:
 *
 *   ratio                   Arm Neoverse                          x86 (perf's generic names)
 *   L1d miss rate           l1d_cache_refill / l1d_cache          L1-dcache-load-misses / L1-dcache-loads
 *   L1d->L2 miss            l1d_cache_lmiss_rd / l1d_cache_refill -
 *   L2 miss rate            l2d_cache_refill / l2d_cache          -
 *   L2->LLC/DRAM            l2d_cache_lmiss_rd / l2d_cache_refill -
 *   dTLB miss               dtlb_walk / mem_access                dTLB-load-misses / dTLB-loads
 *   iTLB miss               itlb_walk / l1i_cache                 iTLB-load-misses / iTLB-loads
 *   speculative mispredict  br_mis_pred / br_pred                 -
 *   retired mispredict      br_mis_pred_retired / br_retired      branch-misses / branches
 *   branch density          br_retired / inst_retired             branches / instructions
 *
 * x86 uses the kernel's generic events, which Intel and AMD both map to their
 * own; the ratios with no generic equivalent are "not available", never 0.
 * Pure: values come through a lookup callback (unit-tested from recorded counts).
 */
#ifndef HC_ANALYSIS_COUNTERS_DRILL_H
#define HC_ANALYSIS_COUNTERS_DRILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum drill_mode { DRILL_CACHE = 0, DRILL_BRANCHES, DRILL_NR };
enum drill_isa { DRILL_ARM = 0, DRILL_X86, DRILL_ISA_NR };
enum drill_verdict { DRILL_NA = 0, DRILL_HEALTHY, DRILL_WATCH, DRILL_INVESTIGATE };

struct drill_metric {
	const char *name;		/* "L1d miss rate" */
	enum drill_mode mode;
	const char *num[DRILL_ISA_NR], *den[DRILL_ISA_NR];	/* NULL: no such event */
	double healthy, investigate;	/* fractions: < healthy, > investigate */
	const char *points_at;		/* what a high value points at */
};

#define DRILL_MAX_METRICS 9
#define DRILL_MAX_EVENTS 16

struct drill_row {
	const struct drill_metric *m;
	enum drill_verdict verdict;	/* NA: an event missing (why says which) */
	double value;			/* fraction */
	double running;			/* least running fraction of its two events (multiplexing) */
	const char *why;		/* NA: "no x86 event", "not counted: l2d_cache" */
};

/* "cache" (also "tlb", "memory") or "branches" ("branch"). 0 or -EINVAL. */
int drill_mode_parse(const char *s, enum drill_mode *out);
const char *drill_mode_name(enum drill_mode m);
const char *drill_verdict_name(enum drill_verdict v);

/* The distinct event names @m needs on @isa into @names (at most DRILL_MAX_EVENTS). */
size_t drill_events(enum drill_mode m, enum drill_isa isa, const char **names);

/*
 * Each ratio of @m on @isa as indices into @names[0..nr) (drill_events()'s
 * list): @num[i] / @den[i], at most DRILL_MAX_METRICS; returns how many.
 * To put each ratio's two events in one counter group (pmu/groups.h).
 */
size_t drill_pairs(enum drill_mode m, enum drill_isa isa, const char *const *names, size_t nr,
		   size_t *num, size_t *den);

/*
 * Counted (scaled) value of @name and its running fraction; false when it was
 * not counted (unsupported, never ran).
 */
typedef bool (*drill_lookup)(void *ctx, const char *name, double *value, double *running);

/* The rows of @m on @isa; returns how many (<= DRILL_MAX_METRICS). */
size_t drill_compute(enum drill_mode m, enum drill_isa isa, drill_lookup look, void *ctx,
		     struct drill_row *rows);

/* "  L1d miss rate   3.20%   healthy < 5%, investigate > 10%   healthy" lines. 0 or -EIO. */
int drill_write_text(FILE *out, enum drill_mode m, const struct drill_row *rows, size_t nr);
/*
 * The same as one JSON object: {"mode" ("cache", "branches"), "available", ["why",] "metrics": [{"name",
 * "value" (a fraction, null when not available), "running", "healthy_below",
 * "investigate_above", "verdict", ["why",] "points_at"}]}. @status: NULL, or why
 * no row could be computed ("no hardware PMU"). 0 or -EIO.
 */
int drill_write_json(FILE *out, enum drill_mode m, const struct drill_row *rows, size_t nr,
		     const char *status);

#endif /* HC_ANALYSIS_COUNTERS_DRILL_H */
