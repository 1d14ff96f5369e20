// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* output/svg.c: the drawn structure (frames, widths, order, merging), escaping, colours. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diff.h"
#include "analysis/profile.h"
#include "output/svg.h"

#define MAX_FRAMES 64
#define FULL_PX 1180.0	/* default width 1200 less 10 px each side */

/* Recursion (compute;compute), do_read in three subtrees, kernel frames. Total 1000. */
static const char known[] = "app;main;parse<std::vector<int>&>;lexer 150\n"
			    "app;main;parse<std::vector<int>&>;do_read;vfs_read_[k] 100\n"
			    "app;main;compute;do_read 75\n"
			    "app;main;compute;hash 300\n"
			    "app;main;compute;compute;hash 125\n"
			    "app;worker;do_read;vfs_read_[k] 50\n"
			    "app;worker;idle 200\n";

/* One drawn frame as read back from the SVG text. */
struct frame {
	char name[128];		/* first tooltip line, still XML-escaped */
	char label[128];	/* <text> content */
	char tip[512];		/* whole tooltip */
	uint64_t x, w;
	double px, py, pw;
	int r, g, b;
};

struct drawing {
	char *svg;
	size_t len;
	struct frame f[MAX_FRAMES];
	size_t nr;
};

static void copy_until(char *dst, size_t n, const char *src, const char *end)
{
	size_t len = (size_t)(strstr(src, end) - src);

	assert_true(len < n);
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static void parse_frames(struct drawing *d)
{
	const char *s = d->svg;

	while ((s = strstr(s, "<g data-x=\"")) != NULL) {
		struct frame *f = &d->f[d->nr++];

		assert_true(d->nr <= MAX_FRAMES);
		assert_int_equal(sscanf(s, "<g data-x=\"%" SCNu64 "\" data-w=\"%" SCNu64 "\">",
					&f->x, &f->w), 2);
		s = strstr(s, "<title>") + 7;
		copy_until(f->tip, sizeof(f->tip), s, "</title>");
		copy_until(f->name, sizeof(f->name), s, "\n");
		s = strstr(s, "<rect ");
		assert_int_equal(sscanf(s, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"15\" "
					   "fill=\"rgb(%d,%d,%d)\"/>",
					&f->px, &f->py, &f->pw, &f->r, &f->g, &f->b), 6);
		s = strstr(s, "<text ");
		s = strchr(s, '>') + 1;
		copy_until(f->label, sizeof(f->label), s, "</text>");
	}
}

static int render(const struct profile *before, const struct profile *p,
		  const struct svg_opts *o, struct drawing *d)
{
	FILE *f;
	int err;

	memset(d, 0, sizeof(*d));
	f = open_memstream(&d->svg, &d->len);
	assert_non_null(f);
	err = before ? svg_write_diff(before, p, o, f) : svg_write(p, o, f);
	assert_int_equal(fclose(f), 0);
	if (!err)
		parse_frames(d);
	return err;
}

static void draw(const struct profile *p, const struct svg_opts *o, struct drawing *d)
{
	struct svg_opts def;

	if (!o) {
		svg_opts_init(&def);
		o = &def;
	}
	assert_int_equal(render(NULL, p, o, d), 0);
}

static void add_folded(struct profile *p, const char *text, enum profile_kind kind)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(f);
	assert_int_equal(profile__read_folded(p, f, kind, NULL), 0);
	fclose(f);
}

static struct profile *folded(const char *text, enum profile_kind kind)
{
	struct profile *p = profile__new();

	assert_non_null(p);
	add_folded(p, text, kind);
	return p;
}

/* The @nth (0-based, document order: by depth, then x) frame named @name. */
static const struct frame *find(const struct drawing *d, const char *name, int nth)
{
	for (size_t i = 0; i < d->nr; i++)
		if (!strcmp(d->f[i].name, name) && nth-- == 0)
			return &d->f[i];
	fail_msg("no frame '%s'", name);
	return NULL;
}

static bool has_frame(const struct drawing *d, const char *name)
{
	for (size_t i = 0; i < d->nr; i++)
		if (!strcmp(d->f[i].name, name))
			return true;
	return false;
}

static void one_frame_is_drawn_per_distinct_stack_prefix_plus_the_root(void **state)
{
	struct profile *p = folded(known, PROFILE_KIND_ONCPU);
	struct drawing d;

	(void)state;
	draw(p, NULL, &d);
	assert_int_equal(d.nr, 16);
	assert_string_equal(d.f[0].name, "all");
	assert_int_equal(d.f[0].w, 1000);
	assert_non_null(strstr(d.svg, "<title>vfs_read\n(kernel)\n100 samples, 10.00%"));
	free(d.svg);
	profile__free(p);
}

static void widths_are_proportional_to_inclusive_weight(void **state)
{
	struct profile *p = folded(known, PROFILE_KIND_ONCPU);
	struct drawing d;

	(void)state;
	draw(p, NULL, &d);
	for (size_t i = 0; i < d.nr; i++)
		assert_float_equal(d.f[i].pw, FULL_PX * (double)d.f[i].w / 1000, 0.006);
	assert_int_equal(find(&d, "main", 0)->w, 750);
	assert_float_equal(find(&d, "main", 0)->pw, 885.0, 0.001);
	assert_int_equal(find(&d, "do_read", 0)->w, 50);	/* worker's, x = 750 */
	free(d.svg);
	profile__free(p);
}

static void a_recursive_frame_counts_once_per_stack(void **state)
{
	struct profile *p = folded(known, PROFILE_KIND_ONCPU);
	struct drawing d;

	(void)state;
	draw(p, NULL, &d);
	assert_int_equal(find(&d, "compute", 0)->w, 500);	/* not 625 */
	assert_int_equal(find(&d, "compute", 1)->w, 125);
	assert_non_null(strstr(find(&d, "hash", 1)->tip, "self: 125 samples, 12.50%"));
	free(d.svg);
	profile__free(p);
}

/* Every frame's children lie inside it, left to right in name order. */
static void siblings_are_ordered_alphabetically_from_the_left(void **state)
{
	struct profile *p = folded("r;zeta 1\nr;alpha 1\nr;Mid 1\nr;beta;y 1\nr;beta;b 1\n",
				   PROFILE_KIND_ONCPU);
	const char *want[] = { "Mid", "alpha", "beta", "zeta" };	/* bytewise */
	const uint64_t x[] = { 0, 1, 2, 4 };
	struct drawing d;

	(void)state;
	draw(p, NULL, &d);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(find(&d, want[i], 0)->x, x[i]);
	assert_true(find(&d, "b", 0)->x < find(&d, "y", 0)->x);
	for (size_t i = 1; i < d.nr; i++)
		if (d.f[i].py == d.f[i - 1].py)	/* same depth */
			assert_true(d.f[i - 1].px + d.f[i - 1].pw <= d.f[i].px + 0.001);
	free(d.svg);
	profile__free(p);
}

static void names_are_xml_escaped(void **state)
{
	struct profile *p = folded("a;std::map<K, V&>::operator\"\"_x'y' 5\n", PROFILE_KIND_ONCPU);
	struct drawing d;
	const char *esc = "std::map&lt;K, V&amp;&gt;::operator&quot;&quot;_x&apos;y&apos;";

	(void)state;
	draw(p, NULL, &d);
	assert_string_equal(d.f[2].name, esc);
	assert_string_equal(d.f[2].label, esc);
	assert_null(strstr(d.svg, "V&>"));
	free(d.svg);
	profile__free(p);
}

static void invalid_utf8_and_control_bytes_are_replaced(void **state)
{
	struct profile *p = profile__new();
	struct profile_frame_in fr[] = {
		{ .name = "ok\xc3\xa9" }, { .name = "bad\xff\xc0\xafz" }, { .name = "ctl\x01\x1b" },
	};
	struct profile_stack_in s = { .frames = fr, .nr_frames = 3, .weight = 7 };
	struct drawing d;

	(void)state;
	assert_non_null(p);
	assert_int_equal(profile__add(p, &s), 0);
	draw(p, NULL, &d);
	assert_string_equal(find(&d, "ok\xc3\xa9", 0)->label, "ok\xc3\xa9");
	assert_true(has_frame(&d, "bad\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz"));
	assert_true(has_frame(&d, "ctl??"));
	assert_null(memchr(d.svg, 0xff, d.len));
	assert_null(memchr(d.svg, 0x01, d.len));
	free(d.svg);
	profile__free(p);
}

static void frames_narrower_than_min_width_are_omitted_with_their_weight_kept(void **state)
{
	struct profile *p = folded("a;big 1000\na;tiny;deeper 1\n", PROFILE_KIND_ONCPU);
	struct svg_opts o;
	struct drawing d;

	(void)state;
	svg_opts_init(&o);
	o.min_width_px = 2;	/* tiny is 1180 / 1001 = 1.18 px */
	draw(p, &o, &d);
	assert_int_equal(d.nr, 3);
	assert_false(has_frame(&d, "tiny"));
	assert_false(has_frame(&d, "deeper"));
	assert_int_equal(find(&d, "a", 0)->w, 1001);
	assert_float_equal(find(&d, "a", 0)->pw, FULL_PX, 0.001);
	free(d.svg);
	o.min_width_px = 0;
	draw(p, &o, &d);
	assert_int_equal(d.nr, 5);
	free(d.svg);
	profile__free(p);
}

static void labels_are_cut_to_the_frame_width(void **state)
{
	struct profile *p = folded("r;a_very_long_function_name_indeed 1\nr;z 9\n",
				   PROFILE_KIND_ONCPU);
	const struct frame *f;
	struct drawing d;

	(void)state;
	draw(p, NULL, &d);
	f = find(&d, "a_very_long_function_name_indeed", 0);	/* 118 px: 16 characters */
	assert_string_equal(f->label, "a_very_long_fu..");
	free(d.svg);
	profile__free(p);
}

static void two_renders_are_byte_identical_whatever_the_insertion_order(void **state)
{
	struct profile *p = folded(known, PROFILE_KIND_ONCPU);
	struct profile *q = profile__new();
	struct drawing d1, d2;
	char *lines = strdup(known), *save = NULL, *l[8];
	size_t n = 0;

	(void)state;
	assert_non_null(q);
	for (char *t = strtok_r(lines, "\n", &save); t; t = strtok_r(NULL, "\n", &save))
		l[n++] = t;
	while (n--) {	/* reversed */
		char buf[128];

		snprintf(buf, sizeof(buf), "%s\n", l[n]);
		add_folded(q, buf, PROFILE_KIND_ONCPU);
	}
	draw(p, NULL, &d1);
	draw(q, NULL, &d2);
	assert_int_equal(d1.len, d2.len);
	assert_memory_equal(d1.svg, d2.svg, d1.len);
	free(d2.svg);
	draw(p, NULL, &d2);
	assert_memory_equal(d1.svg, d2.svg, d1.len);
	free(d1.svg);
	free(d2.svg);
	free(lines);
	profile__free(p);
	profile__free(q);
}

static void inverted_puts_the_root_at_the_top(void **state)
{
	struct profile *p = folded(known, PROFILE_KIND_ONCPU);
	struct svg_opts o;
	struct drawing d;

	(void)state;
	svg_opts_init(&o);
	draw(p, NULL, &d);
	assert_true(find(&d, "all", 0)->py > find(&d, "app", 0)->py);
	free(d.svg);
	o.inverted = true;
	draw(p, &o, &d);
	assert_true(find(&d, "all", 0)->py < find(&d, "app", 0)->py);
	assert_non_null(strstr(d.svg, ">Icicle Graph</text>"));
	free(d.svg);
	profile__free(p);
}

static void reverse_merges_stacks_from_the_leaf(void **state)
{
	struct profile *p = folded("a;b;c 1\nx;c 2\nx;d 4\n", PROFILE_KIND_ONCPU);
	struct svg_opts o;
	struct drawing d;

	(void)state;
	svg_opts_init(&o);
	o.reverse = true;
	draw(p, &o, &d);
	assert_int_equal(find(&d, "c", 0)->w, 3);	/* both stacks ending in c */
	assert_int_equal(find(&d, "d", 0)->x, 3);
	assert_int_equal(find(&d, "x", 0)->w, 2);	/* c's caller x */
	assert_int_equal(find(&d, "a", 0)->w, 1);	/* at depth 3 */
	free(d.svg);
	profile__free(p);
}

static void hot_cold_graph_splits_by_kind_and_draws_nanoseconds(void **state)
{
	struct profile *p = folded("app;run 10\n", PROFILE_KIND_ONCPU);
	const struct frame *on, *off;
	struct drawing d;

	(void)state;
	add_folded(p, "app;read;vfs_read_[k] 30000000\n", PROFILE_KIND_OFFCPU);
	profile__set_period_ns(p, 1000000);
	draw(p, NULL, &d);
	on = find(&d, "on-CPU", 0);
	off = find(&d, "off-CPU", 0);
	assert_int_equal(on->w, 10000000);
	assert_int_equal(off->w, 30000000);
	assert_true(on->x < off->x);
	assert_true(find(&d, "run", 0)->r > find(&d, "run", 0)->b);	/* warm */
	assert_true(find(&d, "read", 0)->b > find(&d, "read", 0)->r);	/* cool */
	assert_non_null(strstr(find(&d, "read", 0)->tip, "(off-CPU)\n30.00 ms, 75.00%"));
	assert_non_null(strstr(d.svg, ">Hot/Cold Flame Graph</text>"));
	free(d.svg);
	profile__free(p);
}

static void hot_cold_graph_needs_the_sample_period(void **state)
{
	struct profile *p = folded("app;run 10\n", PROFILE_KIND_ONCPU);
	struct svg_opts o;
	struct drawing d;

	(void)state;
	add_folded(p, "app;read 30\n", PROFILE_KIND_OFFCPU);
	svg_opts_init(&o);
	assert_int_equal(render(NULL, p, &o, &d), -EINVAL);
	free(d.svg);
	o.kinds = SVG_KIND(PROFILE_KIND_OFFCPU);	/* one kind: no conversion needed */
	draw(p, &o, &d);
	assert_false(has_frame(&d, "run"));
	assert_non_null(strstr(d.svg, ">Off-CPU Flame Graph</text>"));
	assert_non_null(strstr(find(&d, "read", 0)->tip, "\n30 ns, 100.00%"));
	free(d.svg);
	profile__free(p);
}

static void frame_kinds_get_their_own_hues(void **state)
{
	struct profile *p = folded("a;user 1\na;sys_[k] 1\na;jitted_[j] 1\na;wake_[w] 1\n"
				   "a;[unknown] 1\n", PROFILE_KIND_ONCPU);
	const struct frame *f;
	struct drawing d;

	(void)state;
	draw(p, NULL, &d);
	f = find(&d, "user", 0);
	assert_true(f->r >= 205 && f->b <= 55);		/* red-yellow */
	f = find(&d, "sys", 0);
	assert_true(f->b >= 100 && f->g >= 170);	/* khaki */
	f = find(&d, "jitted", 0);
	assert_true(f->g >= 200 && f->r <= 110 && f->r == f->b);
	f = find(&d, "wake", 0);
	assert_true(f->r == f->b && f->g < f->r);	/* purple */
	f = find(&d, "[unknown]", 0);
	assert_true(f->r == f->g && f->g == f->b);	/* grey */
	free(d.svg);
	profile__free(p);
}

/* a waker's kernel frame says both, kernel then waker, as "_[k]_[w]" does (#29) */
static void a_kernel_waker_frame_says_kernel_and_waker(void **state)
{
	struct profile *p = folded("a;wait_[k];[futex];--;try_to_wake_up_[k]_[w];main_[w] 5\n",
				   PROFILE_KIND_OFFCPU);
	const struct frame *f;
	struct drawing d;

	(void)state;
	draw(p, NULL, &d);
	assert_non_null(strstr(d.svg, "<title>try_to_wake_up\n(kernel, waker"));
	assert_non_null(strstr(d.svg, "<title>wait\n(kernel"));
	f = find(&d, "try_to_wake_up", 0);
	assert_true(f->r == f->b && f->g < f->r);	/* purple: a waker first */
	free(d.svg);
	profile__free(p);
}

static void differential_is_sized_by_after_and_coloured_by_self_share_change(void **state)
{
	struct profile *before = folded("a;x 50\na;y 50\na;gone 10\n", PROFILE_KIND_ONCPU);
	struct profile *after = folded("a;x 160\na;y 40\n", PROFILE_KIND_ONCPU);
	const struct frame *x, *y;
	struct drawing d;
	struct svg_opts o;

	(void)state;
	svg_opts_init(&o);
	assert_int_equal(render(before, after, &o, &d), 0);
	x = find(&d, "x", 0);
	y = find(&d, "y", 0);
	assert_int_equal(x->w, 160);
	assert_int_equal(y->w, 40);
	assert_false(has_frame(&d, "gone"));
	assert_true(x->r == 255 && x->g < 235 && x->g == x->b);	/* grew: 45.45% -> 80% */
	assert_true(y->b == 255 && y->r < 235 && y->r == y->g);	/* shrank: 45.45% -> 20% */
	assert_true(x->g < y->r);	/* the larger change is more saturated */
	assert_non_null(strstr(x->tip, "after: 160 samples, 80.00% (self 80.00%)"));
	assert_non_null(strstr(x->tip, "before: 50 samples, 45.45% (self 45.45%)"));
	assert_non_null(strstr(x->tip, "delta: self +34.55"));
	assert_non_null(strstr(d.svg, ">Differential Flame Graph</text>"));
	free(d.svg);
	profile__free(before);
	profile__free(after);
}

static void differential_from_an_analysis_diff_draws_the_same_bytes(void **state)
{
	struct profile *before = folded("a;x 50\na;y;z_[k] 50\na;gone 10\n", PROFILE_KIND_ONCPU);
	struct profile *after = folded("a;x 160\na;y;z_[k] 40\n", PROFILE_KIND_ONCPU);
	struct diff *df;
	struct drawing d1, d2;
	struct svg_opts o;
	FILE *f;

	(void)state;
	svg_opts_init(&o);
	assert_int_equal(render(before, after, &o, &d1), 0);
	assert_int_equal(diff__new(before, after, PROFILE_KIND_ONCPU, &df), 0);
	memset(&d2, 0, sizeof(d2));
	f = open_memstream(&d2.svg, &d2.len);
	assert_non_null(f);
	assert_int_equal(svg_write_diff_of(df, PROFILE_KIND_ONCPU, &o, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(d1.len, d2.len);
	assert_memory_equal(d1.svg, d2.svg, d1.len);
	free(d1.svg);
	free(d2.svg);
	diff__free(df);
	profile__free(before);
	profile__free(after);
}

static void an_empty_profile_gives_a_valid_document_saying_so(void **state)
{
	struct profile *p = profile__new();
	struct drawing d;

	(void)state;
	draw(p, NULL, &d);
	assert_int_equal(d.nr, 0);
	assert_non_null(strstr(d.svg, "no samples to draw"));
	assert_non_null(strstr(d.svg, "</svg>\n"));
	free(d.svg);
	profile__free(p);
}

static void bad_options_and_write_errors_are_reported(void **state)
{
	struct profile *p = folded(known, PROFILE_KIND_ONCPU);
	struct svg_opts o;
	struct drawing d;
	FILE *full;

	(void)state;
	svg_opts_init(&o);
	o.width = 10;
	assert_int_equal(render(NULL, p, &o, &d), -EINVAL);
	free(d.svg);
	svg_opts_init(&o);
	o.min_width_px = -1;
	assert_int_equal(render(NULL, p, &o, &d), -EINVAL);
	free(d.svg);
	svg_opts_init(&o);
	full = fopen("/dev/full", "w");
	if (full) {
		setvbuf(full, NULL, _IONBF, 0);
		assert_int_equal(svg_write(p, &o, full), -EIO);
		fclose(full);
	}
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_frame_is_drawn_per_distinct_stack_prefix_plus_the_root),
		cmocka_unit_test(widths_are_proportional_to_inclusive_weight),
		cmocka_unit_test(a_recursive_frame_counts_once_per_stack),
		cmocka_unit_test(siblings_are_ordered_alphabetically_from_the_left),
		cmocka_unit_test(names_are_xml_escaped),
		cmocka_unit_test(invalid_utf8_and_control_bytes_are_replaced),
		cmocka_unit_test(frames_narrower_than_min_width_are_omitted_with_their_weight_kept),
		cmocka_unit_test(labels_are_cut_to_the_frame_width),
		cmocka_unit_test(two_renders_are_byte_identical_whatever_the_insertion_order),
		cmocka_unit_test(inverted_puts_the_root_at_the_top),
		cmocka_unit_test(reverse_merges_stacks_from_the_leaf),
		cmocka_unit_test(hot_cold_graph_splits_by_kind_and_draws_nanoseconds),
		cmocka_unit_test(hot_cold_graph_needs_the_sample_period),
		cmocka_unit_test(frame_kinds_get_their_own_hues),
		cmocka_unit_test(a_kernel_waker_frame_says_kernel_and_waker),
		cmocka_unit_test(differential_is_sized_by_after_and_coloured_by_self_share_change),
		cmocka_unit_test(differential_from_an_analysis_diff_draws_the_same_bytes),
		cmocka_unit_test(an_empty_profile_gives_a_valid_document_saying_so),
		cmocka_unit_test(bad_options_and_write_errors_are_reported),
	};

	return cmocka_run_group_tests_name("svg", tests, NULL, NULL);
}
