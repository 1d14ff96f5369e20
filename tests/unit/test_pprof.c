// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* output/pprof.c: the encoded profile.proto decoded again by a small reader here. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "analysis/profile.h"
#include "output/pprof.h"

#define MAXN 64

/* The parts of a decoded Profile the tests look at; ids index the arrays directly. */
struct dec {
	const char *str[MAXN];
	size_t nr_str;
	int64_t type[MAXN][2];		/* sample_type: type, unit */
	size_t nr_types;
	struct {
		uint64_t loc[MAXN];
		size_t nr_loc;
		int64_t val[MAXN];
		size_t nr_val;
		int64_t label[MAXN][3];	/* key, str, num */
		size_t nr_label;
	} sample[MAXN];
	size_t nr_samples;
	uint64_t loc_func[MAXN], loc_map[MAXN];	/* by location id */
	uint64_t loc_lines[MAXN][8][2];		/* by location id: each Line's function, line */
	size_t loc_nr_lines[MAXN];
	int64_t func_name[MAXN], func_file[MAXN];	/* by function id */
	int64_t map_file[MAXN], map_bid[MAXN];	/* by mapping id */
	uint64_t map_start[MAXN], map_limit[MAXN], map_off[MAXN], map_fn[MAXN];
	uint64_t loc_addr[MAXN];		/* by location id */
	uint64_t map_order[MAXN];		/* mapping ids as written */
	size_t nr_maps, nr_funcs;
	int64_t time_nanos, duration_nanos;
	int64_t period, default_type, period_type[2];
	char *strbuf[MAXN];
};

struct field {
	uint32_t num;
	int wire;
	uint64_t v;
	const uint8_t *p;
	size_t len;
};

static uint64_t varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	int shift = 0;

	for (;;) {
		assert_true(*p < end && shift < 64);
		v |= (uint64_t)(**p & 0x7f) << shift;
		shift += 7;
		if (!(*(*p)++ & 0x80))
			return v;
	}
}

static bool next(const uint8_t **p, const uint8_t *end, struct field *f)
{
	uint64_t key;

	if (*p >= end)
		return false;
	key = varint(p, end);
	f->num = (uint32_t)(key >> 3);
	f->wire = (int)(key & 7);
	if (f->wire == 0) {
		f->v = varint(p, end);
		return true;
	}
	assert_int_equal(f->wire, 2);
	f->len = varint(p, end);
	assert_true(f->len <= (size_t)(end - *p));
	f->p = *p;
	*p += f->len;
	return true;
}

/* Fields 1..7 of a small message: varints by value, others as their data pointer. */
static void sub_varints(const struct field *m, uint64_t v[8])
{
	const uint8_t *p = m->p, *end = m->p + m->len;
	struct field f;

	memset(v, 0, 8 * sizeof(*v));
	while (next(&p, end, &f)) {
		assert_true(f.num < 8);
		v[f.num] = f.wire == 0 ? f.v : (uint64_t)(uintptr_t)f.p;
	}
}

static void dec_sample(struct dec *d, const struct field *m)
{
	const uint8_t *p = m->p, *end = m->p + m->len, *q;
	struct field f;
	uint64_t l[8];
	size_t s = d->nr_samples++;

	while (next(&p, end, &f)) {
		q = f.p;
		if (f.num == 1)
			while (q < f.p + f.len)
				d->sample[s].loc[d->sample[s].nr_loc++] = varint(&q, f.p + f.len);
		if (f.num == 2)
			while (q < f.p + f.len)
				d->sample[s].val[d->sample[s].nr_val++] =
					(int64_t)varint(&q, f.p + f.len);
		if (f.num == 3) {
			sub_varints(&f, l);
			d->sample[s].label[d->sample[s].nr_label][0] = (int64_t)l[1];
			d->sample[s].label[d->sample[s].nr_label][1] = (int64_t)l[2];
			d->sample[s].label[d->sample[s].nr_label++][2] = (int64_t)l[3];
		}
	}
}

static void dec_location(struct dec *d, const struct field *m)
{
	const uint8_t *p = m->p, *end = m->p + m->len;
	uint64_t id = 0, map = 0, func = 0, addr = 0, l[8], lines[8][2];
	size_t nl = 0;
	struct field f;

	while (next(&p, end, &f)) {
		if (f.num == 1)
			id = f.v;
		if (f.num == 2)
			map = f.v;
		if (f.num == 3)
			addr = f.v;
		if (f.num == 4) {
			sub_varints(&f, l);
			if (!nl)
				func = l[1];
			assert_true(nl < 8);
			lines[nl][0] = l[1];
			lines[nl++][1] = l[2];
		}
	}
	assert_true(id > 0 && id < MAXN);
	memcpy(d->loc_lines[id], lines, nl * sizeof(lines[0]));
	d->loc_nr_lines[id] = nl;
	d->loc_func[id] = func;
	d->loc_map[id] = map;
	d->loc_addr[id] = addr;
}

static void dec_top(struct dec *d, const struct field *f)
{
	uint64_t v[8];

	switch (f->num) {
	case 1:
		sub_varints(f, v);
		d->type[d->nr_types][0] = (int64_t)v[1];
		d->type[d->nr_types++][1] = (int64_t)v[2];
		break;
	case 2:
		dec_sample(d, f);
		break;
	case 3:
		sub_varints(f, v);
		d->map_file[v[1]] = (int64_t)v[5];
		d->map_bid[v[1]] = (int64_t)v[6];
		d->map_start[v[1]] = v[2];
		d->map_limit[v[1]] = v[3];
		d->map_off[v[1]] = v[4];
		d->map_fn[v[1]] = v[7];
		d->map_order[d->nr_maps++] = v[1];
		break;
	case 4:
		dec_location(d, f);
		break;
	case 5:
		sub_varints(f, v);
		d->func_name[v[1]] = (int64_t)v[2];
		d->func_file[v[1]] = (int64_t)v[4];
		d->nr_funcs++;
		break;
	case 9:
		d->time_nanos = (int64_t)f->v;
		break;
	case 10:
		d->duration_nanos = (int64_t)f->v;
		break;
	case 6:
		d->strbuf[d->nr_str] = strndup((const char *)f->p, f->len);
		d->str[d->nr_str] = d->strbuf[d->nr_str];
		d->nr_str++;
		break;
	case 11:
		sub_varints(f, v);
		d->period_type[0] = (int64_t)v[1];
		d->period_type[1] = (int64_t)v[2];
		break;
	case 12:
		d->period = (int64_t)f->v;
		break;
	case 14:
		d->default_type = (int64_t)f->v;
		break;
	}
}

static struct dec *decode(const struct profile *p)
{
	struct dec *d = calloc(1, sizeof(*d));
	const uint8_t *q, *end;
	unsigned char *data;
	struct field f;
	size_t len;

	assert_int_equal(pprof_encode(p, &data, &len), 0);
	for (q = data, end = data + len; next(&q, end, &f);)
		dec_top(d, &f);
	free(data);
	return d;
}

static void dec_free(struct dec *d)
{
	for (size_t i = 0; i < d->nr_str; i++)
		free(d->strbuf[i]);
	free(d);
}

static const char *S(const struct dec *d, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < d->nr_str);
	return d->str[i];
}

/* Name of the function at location @loc. */
static const char *loc_name(const struct dec *d, uint64_t loc)
{
	return S(d, d->func_name[d->loc_func[loc]]);
}

static struct profile *folded(const char *text, uint64_t period)
{
	struct profile *p = profile__new();
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_int_equal(profile__read_folded(p, f, PROFILE_KIND_ONCPU, NULL), 0);
	fclose(f);
	profile__set_period_ns(p, period);
	return p;
}

static void oncpu_samples_carry_count_and_cpu_nanoseconds(void **state)
{
	struct profile *p = folded("app;main;work 3\n", 10);
	struct dec *d = decode(p);

	(void)state;
	assert_string_equal(S(d, 0), "");
	assert_int_equal(d->nr_types, 2);
	assert_string_equal(S(d, d->type[0][0]), "samples");
	assert_string_equal(S(d, d->type[0][1]), "count");
	assert_string_equal(S(d, d->type[1][0]), "cpu");
	assert_string_equal(S(d, d->type[1][1]), "nanoseconds");
	assert_int_equal(d->nr_samples, 1);
	assert_int_equal(d->sample[0].nr_val, 2);
	assert_int_equal(d->sample[0].val[0], 3);
	assert_int_equal(d->sample[0].val[1], 30);
	assert_string_equal(S(d, d->default_type), "cpu");
	assert_string_equal(S(d, d->period_type[0]), "cpu");
	assert_int_equal(d->period, 10);
	dec_free(d);
	profile__free(p);
}

static void locations_are_leaf_first(void **state)
{
	struct profile *p = folded("app;main;work 3\n", 10);
	struct dec *d = decode(p);

	(void)state;
	assert_int_equal(d->sample[0].nr_loc, 3);
	assert_string_equal(loc_name(d, d->sample[0].loc[0]), "work");
	assert_string_equal(loc_name(d, d->sample[0].loc[1]), "main");
	assert_string_equal(loc_name(d, d->sample[0].loc[2]), "app");
	dec_free(d);
	profile__free(p);
}

static void kernel_frames_sit_in_the_kernel_mapping_without_suffix(void **state)
{
	struct profile *p = folded("app;read;vfs_read_[k] 2\napp;jit_[j] 1\n", 10);
	struct dec *d = decode(p);
	uint64_t leaf = d->sample[0].loc[0];

	(void)state;
	assert_string_equal(loc_name(d, leaf), "vfs_read");
	assert_true(d->loc_map[leaf] > 0);
	assert_string_equal(S(d, d->map_file[d->loc_map[leaf]]), PPROF_KERNEL_MAPPING);
	assert_int_equal(d->loc_map[d->sample[0].loc[1]], 0);
	/* other suffixes stay in the name: pprof has no place for them */
	assert_string_equal(loc_name(d, d->sample[1].loc[0]), "jit_[j]");
	dec_free(d);
	profile__free(p);
}

/* a kernel waker frame keeps both suffixes, "_[k]_[w]", as the folded text writes it (#29) */
static void kernel_waker_frames_keep_k_and_w(void **state)
{
	struct profile *p = folded("app;main;futex_wait_[k];[futex];--;"
				   "try_to_wake_up_[k]_[w];wake_the_waiter_[w] 5\n", 10);
	struct dec *d = decode(p);

	(void)state;
	assert_int_equal(d->sample[0].nr_loc, 7);
	assert_string_equal(loc_name(d, d->sample[0].loc[0]), "wake_the_waiter_[w]");
	assert_string_equal(loc_name(d, d->sample[0].loc[1]), "try_to_wake_up_[k]_[w]");
	assert_string_equal(S(d, d->map_file[d->loc_map[d->sample[0].loc[1]]]),
			    PPROF_KERNEL_MAPPING);
	/* a blocked (non-waker) kernel frame still drops its lone "_[k]" */
	assert_string_equal(loc_name(d, d->sample[0].loc[4]), "futex_wait");
	dec_free(d);
	profile__free(p);
}

/*
 * pprof shows mapping 1 as "File:": the kernel or a library must never be
 * it. Folded text names no object, so mapping 1 is a placeholder without a
 * file (#29: a converted off-CPU profile said "File: [kernel.kallsyms]").
 */
static void the_kernel_or_a_library_is_never_the_main_mapping(void **state)
{
	struct profile *p = folded("app;main;read_[k] 2\n", 10);
	struct profile_frame_in f[] = {
		{ .name = "app" },
		{ .name = "__libc_start_main", .module = "/lib/libc.so.6", .addr = 0x27304,
		  .map_off = 0x26000, .map_limit = 0x17b0fc },
		{ .name = "vfs_read", .flags = FRAME_F_KERNEL, .addr = 0xffffffff81234567 },
	};
	struct profile_stack_in s = { .frames = f, .nr_frames = 3, .weight = 2 };
	struct dec *d = decode(p);

	(void)state;
	assert_int_equal(d->nr_maps, 2);
	assert_int_equal(d->map_order[0], 1);
	assert_string_equal(S(d, d->map_file[1]), "");
	assert_string_equal(S(d, d->map_file[d->map_order[1]]), PPROF_KERNEL_MAPPING);
	assert_int_equal(d->loc_map[d->sample[0].loc[0]], d->map_order[1]);
	dec_free(d);
	profile__free(p);

	/* a library and the kernel: still no program */
	p = profile__new();
	assert_int_equal(profile__add(p, &s), 0);
	d = decode(p);
	assert_int_equal(d->nr_maps, 3);
	assert_int_equal(d->map_order[0], 1);
	assert_string_equal(S(d, d->map_file[1]), "");
	assert_string_equal(S(d, d->map_file[d->map_order[1]]), "/lib/libc.so.6");
	assert_string_equal(S(d, d->map_file[d->map_order[2]]), PPROF_KERNEL_MAPPING);
	dec_free(d);
	profile__free(p);

	/* no object at all: no mapping */
	p = folded("app;main 1\n", 10);
	d = decode(p);
	assert_int_equal(d->nr_maps, 0);
	dec_free(d);
	profile__free(p);
}

static void mixed_kinds_give_every_sample_every_value(void **state)
{
	struct profile_frame_in f[] = { { .name = "app", .module = NULL, .build_id = NULL, .flags = 0 }, { .name = "wait", .module = NULL, .build_id = NULL, .flags = 0 } };
	struct profile_stack_in s = { .frames = f, .nr_frames = 2, .weight = 5 };
	struct profile *p = profile__new();
	struct dec *d;

	(void)state;
	profile__set_period_ns(p, 100);
	assert_int_equal(profile__add(p, &s), 0);
	s.kind = PROFILE_KIND_OFFCPU;
	s.weight = 7000;
	assert_int_equal(profile__add(p, &s), 0);
	d = decode(p);
	assert_int_equal(d->nr_types, 3);
	assert_string_equal(S(d, d->type[2][0]), "off_cpu");
	assert_string_equal(S(d, d->type[2][1]), "nanoseconds");
	assert_int_equal(d->sample[0].nr_val, 3);
	assert_int_equal(d->sample[0].val[1], 500);
	assert_int_equal(d->sample[0].val[2], 0);
	assert_int_equal(d->sample[1].val[0], 0);
	assert_int_equal(d->sample[1].val[1], 0);
	assert_int_equal(d->sample[1].val[2], 7000);
	dec_free(d);
	profile__free(p);
}

static void labels_carry_pid_tid_comm_and_reason(void **state)
{
	struct profile_frame_in f[] = { { .name = "app", .module = "/usr/bin/app", .build_id = "abcd", .flags = 0 } };
	struct profile_stack_in s = { .frames = f, .nr_frames = 1, .weight = 1, .pid = 42,
				      .tid = 43, .comm = "app", .reason = "io",
				      .kind = PROFILE_KIND_OFFCPU };
	struct profile *p = profile__new();
	struct dec *d;
	uint64_t loc;

	(void)state;
	assert_int_equal(profile__add(p, &s), 0);
	d = decode(p);
	assert_int_equal(d->nr_types, 1);
	assert_string_equal(S(d, d->default_type), "off_cpu");
	assert_int_equal(d->sample[0].nr_label, 4);
	assert_string_equal(S(d, d->sample[0].label[0][0]), "pid");
	assert_int_equal(d->sample[0].label[0][2], 42);
	assert_string_equal(S(d, d->sample[0].label[1][0]), "tid");
	assert_int_equal(d->sample[0].label[1][2], 43);
	assert_string_equal(S(d, d->sample[0].label[2][0]), "comm");
	assert_string_equal(S(d, d->sample[0].label[2][1]), "app");
	assert_string_equal(S(d, d->sample[0].label[3][1]), "io");
	loc = d->sample[0].loc[0];
	assert_string_equal(S(d, d->map_file[d->loc_map[loc]]), "/usr/bin/app");
	assert_string_equal(S(d, d->map_bid[d->loc_map[loc]]), "abcd");
	dec_free(d);
	profile__free(p);
}

/*
 * What a fleet back end needs to symbolize: a mapping per object with its
 * build ID and segment, the main binary first (not the most used library),
 * the kernel last, and addresses that map back to the file offsets.
 */
static void mappings_and_addresses_let_a_symbolizer_work(void **state)
{
	struct profile_frame_in libc = { .name = "__libc_start_main", .module = "/lib/libc.so.6",
					 .build_id = "aaaa", .addr = 0x27304,
					 .map_off = 0x26000, .map_limit = 0x17b0fc };
	struct profile_frame_in f[] = {
		{ .name = "app" }, libc, libc, libc,
		{ .name = "spin", .module = "/usr/bin/app", .build_id = "bbbb", .addr = 0x11e4,
		  .map_off = 0x1000, .map_limit = 0x1785 },
		{ .name = "app+0x1300", .module = "/usr/bin/app", .build_id = "bbbb",
		  .addr = 0x1300, .flags = FRAME_F_UNKNOWN, .map_off = 0x1000, .map_limit = 0x1785 },
		{ .name = "spin", .module = "/usr/bin/app", .build_id = "bbbb", .addr = 0x11f0,
		  .map_off = 0x1000, .map_limit = 0x1785 },
		{ .name = "vfs_read", .flags = FRAME_F_KERNEL, .addr = 0xffffffff81234567 },
	};
	struct profile_stack_in s = { .frames = f, .nr_frames = 8, .weight = 2, .pid = 9,
				      .tid = 10, .comm = "app", .thread = "worker" };
	struct profile *p = profile__new();
	struct dec *d;
	uint64_t app, lib, kern;

	(void)state;
	libc.addr = 0x27249;
	f[2] = libc;
	assert_int_equal(profile__add(p, &s), 0);
	profile__set_time(p, 1700000000000000000ull, 3000000000ull);
	d = decode(p);
	assert_int_equal(d->nr_maps, 3);
	app = d->map_order[0], lib = d->map_order[1], kern = d->map_order[2];
	assert_string_equal(S(d, d->map_file[app]), "/usr/bin/app");
	assert_string_equal(S(d, d->map_bid[app]), "bbbb");
	assert_string_equal(S(d, d->map_file[lib]), "/lib/libc.so.6");
	assert_string_equal(S(d, d->map_file[kern]), PPROF_KERNEL_MAPPING);
	/* the segment as mapped: file offset 0x1000 .. 0x1785 */
	assert_int_equal(d->map_off[app], 0x1000);
	assert_int_equal(d->map_limit[app] - d->map_start[app], 0x785);
	assert_int_equal(d->map_off[lib], 0x26000);
	/* an unnamed frame: no Line, and its mapping is not "has functions" */
	assert_int_equal(d->map_fn[app], 0);
	assert_int_equal(d->map_fn[lib], 1);
	for (uint64_t loc = 1; loc <= 8; loc++) {
		uint64_t m = d->loc_map[loc];

		if (!m || m == kern)
			continue;
		/* address - start + offset is the frame's file offset */
		assert_true(d->loc_addr[loc] >= d->map_start[m] && d->loc_addr[loc] < d->map_limit[m]);
	}
	/* leaf first: the kernel frame, then spin at 0x11f0 */
	assert_int_equal(d->loc_addr[d->sample[0].loc[0]], 0xffffffff81234567);
	assert_int_equal(d->loc_addr[d->sample[0].loc[1]] - d->map_start[app] + d->map_off[app],
			 0x11f0);
	assert_int_equal(d->loc_func[d->sample[0].loc[2]], 0);
	/* spin at two addresses: two locations, one function */
	assert_int_equal(d->loc_func[d->sample[0].loc[1]], d->loc_func[d->sample[0].loc[3]]);
	/* app, __libc_start_main (two addresses), spin, vfs_read: no function for app+0x1300 */
	assert_int_equal(d->nr_funcs, 4);
	assert_int_equal(d->time_nanos, 1700000000000000000ll);
	assert_int_equal(d->duration_nanos, 3000000000ll);
	assert_string_equal(S(d, d->sample[0].label[3][0]), "thread_name");
	assert_string_equal(S(d, d->sample[0].label[3][1]), "worker");
	dec_free(d);
	profile__free(p);
}

/* Line @k of location @loc: its function's name and file ("" unknown) and its line. */
static void assert_line(const struct dec *d, uint64_t loc, size_t k, const char *func,
			const char *file, uint64_t line)
{
	uint64_t fn = d->loc_lines[loc][k][0];

	assert_true(k < d->loc_nr_lines[loc]);
	assert_string_equal(S(d, d->func_name[fn]), func);
	assert_string_equal(S(d, d->func_file[fn]), file);
	assert_int_equal(d->loc_lines[loc][k][1], line);
}

/*
 * Source lines (DWARF, for go tool pprof -lines/-list): a frame's inline
 * chain is its Location's Lines, innermost first, the frame's own function
 * last under the frame's name (not DWARF's: one function in every view);
 * one Function per (name, file); a frame without lines keeps one Line with
 * no number; the lines survive a copy into another profile.
 */
static void source_lines_are_lines_innermost_first(void **state)
{
	const struct profile_line hot_l[] = {
		{ .func = "leaf_inl", .file = "b.h", .line = 3 },
		{ .func = "mid_inl", .file = "a.c", .line = 20 },
		{ .func = "hot.dwarf", .file = "a.c", .line = 30 },
	};
	const struct profile_line main_l[] = { { .func = "main", .file = "a.c", .line = 10 } };
	const struct profile_line other_l[] = {
		{ .func = "mid_inl", .file = "c.c", .line = 7 },
		{ .func = "hot", .file = "a.c", .line = 31 },
	};
	struct profile_frame_in f[] = {
		{ .name = "app" },
		{ .name = "main", .module = "/bin/app", .addr = 0x100, .lines = main_l, .nr_lines = 1 },
		{ .name = "hot", .module = "/bin/app", .addr = 0x200, .lines = hot_l, .nr_lines = 3 },
		{ .name = "hot", .module = "/bin/app", .addr = 0x210, .lines = other_l,
		  .nr_lines = 2 },
		{ .name = "nolines", .module = "/bin/app", .addr = 0x300 },
	};
	struct profile_stack_in a = { .frames = f, .nr_frames = 3, .weight = 2 };
	struct profile_stack_in b = { .frames = f, .nr_frames = 2, .weight = 1 };
	struct profile_stack_in c = { .frames = (struct profile_frame_in[]){ f[0], f[1], f[3], f[4] },
				      .nr_frames = 4, .weight = 1 };
	struct profile *src = profile__new(), *p = profile__new();
	struct dec *d;
	uint64_t main_loc, hot_loc, other_loc, nol_loc;

	(void)state;
	assert_int_equal(profile__add(src, &a), 0);
	assert_int_equal(profile__add(src, &b), 0);
	assert_int_equal(profile__add(src, &c), 0);
	for (size_t i = 0; i < profile__nr_stacks(src); i++)
		assert_int_equal(profile__copy_stack(p, src, profile__stack(src, i)), 0);
	d = decode(p);
	/* stack a, leaf first: hot, main, app */
	hot_loc = d->sample[0].loc[0], main_loc = d->sample[0].loc[1];
	/* stack c, leaf first: nolines, hot at 0x210 */
	nol_loc = d->sample[2].loc[0], other_loc = d->sample[2].loc[1];
	assert_int_equal(d->loc_nr_lines[hot_loc], 3);
	assert_line(d, hot_loc, 0, "leaf_inl", "b.h", 3);
	assert_line(d, hot_loc, 1, "mid_inl", "a.c", 20);
	assert_line(d, hot_loc, 2, "hot", "a.c", 30);
	assert_int_equal(d->loc_nr_lines[main_loc], 1);
	assert_line(d, main_loc, 0, "main", "a.c", 10);
	/* mid_inl of another file is another function; hot in a.c is the same one */
	assert_line(d, other_loc, 0, "mid_inl", "c.c", 7);
	assert_int_not_equal(d->loc_lines[other_loc][0][0], d->loc_lines[hot_loc][1][0]);
	assert_int_equal(d->loc_lines[other_loc][1][0], d->loc_lines[hot_loc][2][0]);
	assert_int_equal(d->loc_nr_lines[nol_loc], 1);
	assert_line(d, nol_loc, 0, "nolines", "", 0);
	/* app (no file), main, hot, leaf_inl, mid_inl x2, nolines */
	assert_int_equal(d->nr_funcs, 7);
	dec_free(d);
	profile__free(src);
	profile__free(p);
}

static void without_a_period_only_sample_counts_are_written(void **state)
{
	struct profile *p = folded("app 3\n", 0);
	struct dec *d = decode(p);

	(void)state;
	assert_int_equal(d->nr_types, 1);
	assert_string_equal(S(d, d->default_type), "samples");
	assert_int_equal(d->period, 0);
	dec_free(d);
	profile__free(p);
}

static void values_beyond_int64_are_refused(void **state)
{
	struct profile *p = folded("app 9223372036854775807\n", 2);
	unsigned char *data;
	size_t len;

	(void)state;
	assert_int_equal(pprof_encode(p, &data, &len), -EOVERFLOW);
	profile__set_period_ns(p, 1);
	assert_int_equal(pprof_encode(p, &data, &len), 0);
	free(data);
	profile__free(p);
}

static void the_file_is_gzip_of_the_encoded_message(void **state)
{
	struct profile *p = folded("app;main;work 3\napp;main 1\n", 10);
	unsigned char *raw, out[4096];
	char *buf = NULL;
	size_t len, n = 0;
	z_stream zs = { 0 };
	FILE *f = open_memstream(&buf, &n);

	(void)state;
	assert_int_equal(pprof_write(p, f), 0);
	fclose(f);
	assert_true(n > 18);
	assert_int_equal((unsigned char)buf[0], 0x1f);
	assert_int_equal((unsigned char)buf[1], 0x8b);
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (unsigned char *)buf;
	zs.avail_in = (unsigned int)n;
	zs.next_out = out;
	zs.avail_out = sizeof(out);
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	inflateEnd(&zs);
	assert_int_equal(pprof_encode(p, &raw, &len), 0);
	assert_int_equal(zs.total_out, len);
	assert_memory_equal(out, raw, len);
	free(raw);
	free(buf);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(oncpu_samples_carry_count_and_cpu_nanoseconds),
		cmocka_unit_test(locations_are_leaf_first),
		cmocka_unit_test(kernel_frames_sit_in_the_kernel_mapping_without_suffix),
		cmocka_unit_test(kernel_waker_frames_keep_k_and_w),
		cmocka_unit_test(the_kernel_or_a_library_is_never_the_main_mapping),
		cmocka_unit_test(mixed_kinds_give_every_sample_every_value),
		cmocka_unit_test(labels_carry_pid_tid_comm_and_reason),
		cmocka_unit_test(mappings_and_addresses_let_a_symbolizer_work),
		cmocka_unit_test(source_lines_are_lines_innermost_first),
		cmocka_unit_test(without_a_period_only_sample_counts_are_written),
		cmocka_unit_test(values_beyond_int64_are_refused),
		cmocka_unit_test(the_file_is_gzip_of_the_encoded_message),
	};

	return cmocka_run_group_tests_name("pprof", tests, NULL, NULL);
}
