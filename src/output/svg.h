/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Interactive SVG flame graphs of a profile: frame width = inclusive weight,
 * siblings in alphabetical order, click to zoom, search with the matched
 * share, tooltips. One self-contained file (CSS and script embedded).
 */
#ifndef HC_OUTPUT_SVG_H
#define HC_OUTPUT_SVG_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/profile.h"

#define SVG_KIND(k)	(1u << (k))	/* for svg_opts.kinds */

enum svg_palette {
	SVG_PALETTE_AUTO = 0,	/* on-CPU warm, off-CPU/run-queue/lock cool; kernel, JIT,
				 * waker and unnamed frames their own hues */
	SVG_PALETTE_HOT,	/* every frame warm (kernel/JIT/waker hues kept) */
	SVG_PALETTE_COLD,	/* every frame cool (kernel/JIT/waker hues kept) */
};

struct svg_opts {
	const char *title;	/* NULL: named after what is drawn ("Off-CPU Flame Graph") */
	const char *subtitle;	/* NULL: the totals drawn per kind; "": none */
	unsigned int width;	/* image width in px, 200..100000 */
	double min_width_px;	/* frames narrower are not drawn (nor their children); their
				 * weight stays in the parent's width. 0 draws every frame */
	bool inverted;		/* icicle: root at the top, stacks grow down */
	bool reverse;		/* merge stacks from the leaf: leaves at the root */
	unsigned int kinds;	/* SVG_KIND() mask of kinds to draw; 0: all in the profile */
	enum svg_palette palette;
	const char *unit;	/* count unit shown in tooltips ("samples", "bytes"); NULL:
				 * "samples" for on-CPU, a duration for nanosecond kinds */
};

/* Defaults: width 1200, min_width_px 0.1, everything else zero/NULL. */
void svg_opts_init(struct svg_opts *o);

/*
 * Write @p as a flame graph to @out. When more than one kind is drawn
 * (a hot/cold graph) the root gets one child per kind, on-CPU weights are
 * converted to nanoseconds with profile__period_ns() (-EINVAL if it is 0)
 * and every width is time. Deterministic: the same profile and options give
 * the same bytes. A profile with nothing to draw gives a valid SVG saying so.
 * 0 or -errno: -EINVAL (options), -ENOMEM, -EOVERFLOW (total weight passes
 * UINT64_MAX), -EIO (write error on @out).
 */
int svg_write(const struct profile *p, const struct svg_opts *o, FILE *out);

/*
 * Differential flame graph, @before -> @after: frames sized by @after, filled
 * red where the frame's self share of the total grew and blue where it shrank
 * (share = self / total of its profile, so profiles of different lengths
 * compare), more saturated the larger the change. Frames only in @before are
 * not drawn (they have no width). Tooltips give both values and the deltas.
 * Same options, units and errors as svg_write(); palette is ignored.
 */
int svg_write_diff(const struct profile *before, const struct profile *after,
		   const struct svg_opts *o, FILE *out);

struct diff;

/*
 * svg_write_diff() of the two sides of @d (analysis/diff.h; A = before,
 * B = after), whose weights are @kind. In svg_diff.c: link analysis/diff.c.
 */
int svg_write_diff_of(const struct diff *d, enum profile_kind kind, const struct svg_opts *o,
		      FILE *out);

#endif /* HC_OUTPUT_SVG_H */
