/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Two profiles side by side: every stack of either, with its weight in A
 * (before) and in B (after), frames in one id space. Comparisons use shares
 * of each profile's total (normalised), so a longer recording is not "worse".
 *
 * For a differential flame graph renderer:
 *   - widths: B's weights (as FlameGraph's difffolded.pl + flamegraph.pl), or
 *     A's for the "what will change" view;
 *   - colour of a node (a frame reached by one root-first path): sum
 *     a_weight and b_weight over the stacks that start with that path, then
 *     diff_share_delta(a_sum, b_sum, diff__total_a(), diff__total_b()):
 *     > 0 grew (red), < 0 shrank (blue), its size the intensity (percentage
 *     points of the whole profile).
 */
#ifndef HC_ANALYSIS_DIFF_H
#define HC_ANALYSIS_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/profile.h"

struct diff;

struct diff_stack {
	const uint32_t *frames;	/* ids for diff__frame(), root first */
	size_t nr_frames;
	uint64_t a_weight;	/* raw weight in A (0: only in B) */
	uint64_t b_weight;	/* raw weight in B (0: only in A) */
};

/* One frame (by name and flags) in both profiles; recursion counted once per stack. */
struct diff_frame {
	uint32_t frame;
	uint64_t a_self, b_self;
	uint64_t a_incl, b_incl;
	double delta_pp;	/* self share in B minus self share in A, percentage points */
};

/*
 * Stacks of @kind from @a and @b, matched by frame text (name + flags;
 * module, build-id and labels are ignored). The profiles may be freed after.
 * 0 or -errno.
 */
int diff__new(const struct profile *a, const struct profile *b, enum profile_kind kind,
	      struct diff **out);

/*
 * Read two folded files (on-CPU samples; "-" is stdin for one of them) and
 * diff them. 0 or -errno: -ENOENT etc. from opening, -EIO, -ENOMEM, and
 * -ENODATA when a file has no valid folded line. Malformed lines are skipped
 * as by profile__read_folded().
 */
int diff__load(const char *a, const char *b, struct diff **out);

void diff__free(struct diff *d);	/* NULL is a no-op */

uint64_t diff__total_a(const struct diff *d);
uint64_t diff__total_b(const struct diff *d);
enum profile_kind diff__kind(const struct diff *d);	/* what the weights measure */

/* Stacks in no particular order; valid as long as @d. */
size_t diff__nr_stacks(const struct diff *d);
const struct diff_stack *diff__stack(const struct diff *d, size_t i);	/* NULL past the end */

/* The frame space: ids 0 .. diff__nr_frames() - 1 (module and build_id are NULL). */
size_t diff__nr_frames(const struct diff *d);
const struct profile_frame *diff__frame(const struct diff *d, uint32_t id);

/* The same frames as a profile (for profile_frame_cmp() and friends); owned by @d. */
const struct profile *diff__profile(const struct diff *d);

/* b / total_b - a / total_a, in percentage points; a zero total counts as share 0. */
double diff_share_delta(uint64_t a, uint64_t b, uint64_t total_a, uint64_t total_b);

/*
 * Per-frame self and inclusive weights in A and B, for frames that are a
 * leaf in either, ordered by |delta_pp| desc, then name asc. *out malloc'd.
 * 0 or -ENOMEM.
 */
int diff__frames(const struct diff *d, struct diff_frame **out, size_t *nr);

/*
 * The differential folded format of FlameGraph's difffolded.pl:
 * "frames countA countB" per stack. @normalize: countA scaled to B's total as
 * difffolded.pl -n does (truncated: countA * totalB / totalA), so
 * flamegraph.pl colours by real change. Lines ordered by countB desc, countA
 * desc, text asc. 0, -EIO or -ENOMEM.
 */
int diff__write_folded(const struct diff *d, FILE *out, bool normalize);

/* The biggest self-time changes as an aligned table; @top_n 0 = all. 0, -EIO, -ENOMEM. */
int diff__write_text(const struct diff *d, FILE *out, size_t top_n, const char *name_a,
		     const char *name_b);

#endif /* HC_ANALYSIS_DIFF_H */
