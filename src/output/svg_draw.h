/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Internal to output/svg*.c: the frames laid out by svg.c (who merges what)
 * and the writer in svg_draw.c (how it looks: XML, colours, tooltips, script).
 */
#ifndef HC_OUTPUT_SVG_DRAW_H
#define HC_OUTPUT_SVG_DRAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/profile.h"
#include "output/svg.h"

#define SVG_XPAD	10	/* px left and right of the frames */

enum svg_node_type {
	SVG_NODE_ROOT,		/* "all" */
	SVG_NODE_KIND,		/* synthetic first level of a hot/cold graph */
	SVG_NODE_FRAME,
};

/* One drawn frame. Weights are in drawn units (nanoseconds in hot/cold graphs). */
struct svg_node {
	const char *name;	/* owned by the profile, or a static label */
	uint64_t x;		/* offset from the left edge of the root */
	uint64_t w;		/* inclusive weight = width */
	uint64_t self;
	uint64_t base_w;	/* differential: inclusive and self weight in "before" */
	uint64_t base_self;
	unsigned int flags;	/* FRAME_F_* */
	unsigned int depth;	/* root = 0 */
	enum profile_kind kind;
	enum svg_node_type type;
};

struct svg_layout {
	const struct svg_opts *o;
	struct svg_node *nodes;	/* sorted by depth, then x */
	size_t nr;
	unsigned int max_depth;
	unsigned int kinds;	/* SVG_KIND() mask of kinds with weight */
	bool split;		/* more than one kind: weights are nanoseconds */
	bool diff;
	uint64_t total;		/* weight of the root ("after" in a differential graph) */
	uint64_t base_total;	/* differential: weight of "before" */
	uint64_t kind_total[PROFILE_KIND_NR];
	uint64_t period_ns;	/* on-CPU sample period of the drawn profile, 0 unknown */
	uint64_t base_period_ns;
	double max_delta;	/* differential: largest |self share change| drawn */
};

/* "on-CPU", "off-CPU", "run queue", "lock wait": labels of the kind level. */
const char *svg_kind_name(enum profile_kind k);

/* Change of @n's self share of the total, before -> after (a fraction, + = grew). */
double svg_self_delta(const struct svg_layout *l, const struct svg_node *n);

/* The embedded stylesheet and script (svg_script.c); the script expects a global C. */
extern const char svg_style[];
extern const char svg_script[];

/* Write the whole document. 0 or -EIO. */
int svg_draw(const struct svg_layout *l, FILE *out);

#endif /* HC_OUTPUT_SVG_DRAW_H */
