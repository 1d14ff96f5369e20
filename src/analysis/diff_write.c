// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* diff writers: FlameGraph differential folded lines and the self-delta table. */
#include "analysis/diff.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct diff_line {
	char *text;
	uint64_t a, b;
};

static int line_cmp(const void *pa, const void *pb)
{
	const struct diff_line *x = pa, *y = pb;

	if (x->b != y->b)
		return x->b > y->b ? -1 : 1;
	if (x->a != y->a)
		return x->a > y->a ? -1 : 1;
	return strcmp(x->text, y->text);
}

/* countA * totalB / totalA without overflow, truncated like difffolded.pl's int() */
static uint64_t scale(uint64_t a, uint64_t total_a, uint64_t total_b)
{
	if (!total_a || total_a == total_b)
		return a;
	return (uint64_t)((unsigned __int128)a * total_b / total_a);
}

/* Newlines would split a line: a frame name from elsewhere may hold one. */
static void sanitize(char *s)
{
	for (; *s; s++) {
		if (*s == '\n' || *s == '\r')
			*s = ' ';
	}
}

static int fill_lines(const struct diff *d, struct diff_line *v)
{
	const struct diff_stack *s;
	size_t i, cap;

	for (i = 0; i < diff__nr_stacks(d); i++) {
		s = diff__stack(d, i);
		cap = 0;
		if (profile_stack_text(diff__profile(d), profile__stack(diff__profile(d), i),
				       &v[i].text, &cap))
			return -ENOMEM;
		sanitize(v[i].text);
		v[i].a = s->a_weight;
		v[i].b = s->b_weight;
	}
	return 0;
}

int diff__write_folded(const struct diff *d, FILE *out, bool normalize)
{
	size_t n = diff__nr_stacks(d), i;
	struct diff_line *v = calloc(n ? n : 1, sizeof(*v));
	int err = v ? fill_lines(d, v) : -ENOMEM;

	if (!err) {
		qsort(v, n, sizeof(*v), line_cmp);
		for (i = 0; i < n; i++) {
			uint64_t a = normalize ? scale(v[i].a, diff__total_a(d), diff__total_b(d))
					       : v[i].a;

			fprintf(out, "%s %" PRIu64 " %" PRIu64 "\n", v[i].text, a, v[i].b);
		}
		if (fflush(out) == EOF || ferror(out))
			err = -EIO;
	}
	for (i = 0; v && i < n; i++)
		free(v[i].text);
	free(v);
	return err;
}

static double share(uint64_t part, uint64_t total)
{
	return total ? (double)part * 100.0 / (double)total : 0.0;
}

static int digits(uint64_t v)
{
	int n = 1;

	while (v >= 10)
		v /= 10, n++;
	return n;
}

int diff__write_text(const struct diff *d, FILE *out, size_t top_n, const char *name_a,
		     const char *name_b)
{
	uint64_t ta = diff__total_a(d), tb = diff__total_b(d);
	const char *unit = profile_kind_unit(diff__kind(d));
	int w = digits(ta > tb ? ta : tb);
	const struct profile_frame *f;
	struct diff_frame *v;
	size_t nr, i, n;

	if (diff__frames(d, &v, &nr))
		return -ENOMEM;
	w = w < 6 ? 6 : w;
	n = top_n && top_n < nr ? top_n : nr;
	fprintf(out, "A: %s, %" PRIu64 " %s\nB: %s, %" PRIu64 " %s\n"
		     "shares are of each profile's own total; delta = B%% - A%% "
		     "(percentage points)\n\ntop %zu self-time changes (of %zu frames)\n",
		name_a, ta, unit, name_b, tb, unit, n, nr);
	fprintf(out, "%10s  %7s  %7s  %*s  %*s  %s\n", "delta", "A self%", "B self%", w, "A self",
		w, "B self", "frame");
	for (i = 0; i < n; i++) {
		f = profile__frame(diff__profile(d), v[i].frame);
		fprintf(out, "%+8.2fpp  %6.2f%%  %6.2f%%  %*" PRIu64 "  %*" PRIu64 "  %s%s\n",
			v[i].delta_pp, share(v[i].a_self, ta), share(v[i].b_self, tb), w,
			v[i].a_self, w, v[i].b_self, f->name, profile_frame_suffix(f->flags));
	}
	free(v);
	return ferror(out) ? -EIO : 0;
}
