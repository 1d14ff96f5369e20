// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Differential flame graph from an analysis/diff: its per-stack before/after
 * weights are split back into two profiles for svg_write_diff(). Kept apart
 * from svg.c so that only users of this entry point link analysis/diff.
 */
#include "output/svg.h"

#include <errno.h>
#include <stdlib.h>

#include "analysis/diff.h"

/* Add the stacks of @d with their before (@after false) or after weights to @p. */
static int add_side(const struct diff *d, enum profile_kind kind, bool after, struct profile *p)
{
	struct profile_frame_in *in = NULL;
	size_t cap = 0;
	int err = 0;

	for (size_t i = 0; i < diff__nr_stacks(d) && !err; i++) {
		const struct diff_stack *s = diff__stack(d, i);
		struct profile_stack_in st = { .nr_frames = s->nr_frames, .kind = kind };

		st.weight = after ? s->b_weight : s->a_weight;
		if (!st.weight)
			continue;
		if (s->nr_frames > cap) {
			void *n = realloc(in, s->nr_frames * sizeof(*in));

			if (!n) {
				err = -ENOMEM;
				break;
			}
			in = n;
			cap = s->nr_frames;
		}
		for (size_t j = 0; j < s->nr_frames; j++) {
			const struct profile_frame *f = diff__frame(d, s->frames[j]);

			in[j] = (struct profile_frame_in){ .name = f->name, .flags = f->flags };
		}
		st.frames = in;
		err = profile__add(p, &st);
	}
	free(in);
	return err;
}

int svg_write_diff_of(const struct diff *d, enum profile_kind kind, const struct svg_opts *o,
		      FILE *out)
{
	struct profile *before = profile__new(), *after = profile__new();
	int err = -ENOMEM;

	if (before && after) {
		err = add_side(d, kind, false, before);
		if (!err)
			err = add_side(d, kind, true, after);
		if (!err)
			err = svg_write_diff(before, after, o, out);
	}
	profile__free(before);
	profile__free(after);
	return err;
}
