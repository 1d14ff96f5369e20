/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Counter statistics across runs (`stat -r N`: mean, standard deviation,
 * min, max per counter) and the A/B comparison of two such sets (`stat
 * --compare A.json B.json`) in the seeds' reasoning order (SEEDS.md §2):
 * did cycles rise; if so, did IPC fall (which stall class grew) or did the
 * instruction count rise. Without cycles (no PMU) task-clock is the time
 * measure and only software events are compared. Pure: no I/O but FILE
 * writers and a reader of the JSON that the writers (and `stat --json`) emit.
 */
#ifndef HC_ANALYSIS_COUNTERS_STATS_H
#define HC_ANALYSIS_COUNTERS_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis/counters.h"

#define CSTATS_MAX_COUNTERS 32
/* Largest stat JSON file --compare reads: a bound on memory. */
#define CSTATS_MAX_JSON (1u << 20)

struct cstats_counter {
	char name[64];
	bool clock;		/* nanoseconds (shown as msec) */
	size_t n;		/* runs that measured it */
	double mean, m2;	/* Welford: m2 = sum of squared deviations */
	double min, max;
	double stddev;		/* sample (n - 1) standard deviation; 0 for n < 2 */
};

struct cstats {
	size_t runs;
	double seconds_sum;
	struct cstats_counter c[CSTATS_MAX_COUNTERS];
	size_t nr;
	char target[256];
};

/* Add one run's snapshot: counted rows only (unsupported ones never become 0). */
void cstats_add(struct cstats *s, const struct counters_snapshot *snap);
/* Stddevs from the sums; call once all runs are in. */
void cstats_finish(struct cstats *s);
const struct cstats_counter *cstats_find(const struct cstats *s, const char *name);

int cstats_write_text(FILE *out, const struct cstats *s);
/* {"runs":N,"target":..,"seconds":mean,"counters":[{"event","value"(mean),"stddev","min","max","runs"}]} */
int cstats_write_json(FILE *out, const struct cstats *s);

/*
 * Read what cstats_write_json() or `stat --json` (one snapshot: a run of 1)
 * wrote. Rows with a null value are skipped. 0, or -EBADMSG (no counters).
 */
int cstats_parse_json(const char *text, struct cstats *s);

/* One counter of a comparison. */
struct cstats_delta {
	const char *name;
	bool clock;		/* a, b, noise in ns; shown as msec */
	double a, b;		/* means */
	double pct;		/* (b - a) / a × 100; 0 when a is 0 */
	double noise;		/* sqrt(sdA² + sdB²): the spread of the difference */
	bool significant;	/* |b - a| > 2 × noise (and nonzero); always, with no spread */
	bool spread_known;	/* both sides had >= 2 runs */
};

struct cstats_cmp {
	struct cstats_delta d[CSTATS_MAX_COUNTERS];
	size_t nr;
	char verdict[1024];	/* the reasoning, one step per line */
};

/* Compare @a (before) and @b (after) over the counters both measured. */
void cstats_compare(const struct cstats *a, const struct cstats *b, const struct counters_model *m,
		    struct cstats_cmp *out);
int cstats_write_compare(FILE *out, const struct cstats_cmp *c, const char *name_a,
			 const char *name_b);
/*
 * The same for scripts: {"a", "b", "counters": [{"event", "unit" ("ns" for
 * clocks, else ""), "a", "b" (means), "delta_pct", "noise" (null: a side ran
 * once), "significant"}], "verdict": [the reasoning's lines]}. 0 or -EIO.
 */
int cstats_write_compare_json(FILE *out, const struct cstats_cmp *c, const char *name_a,
			      const char *name_b);

#endif /* HC_ANALYSIS_COUNTERS_STATS_H */
