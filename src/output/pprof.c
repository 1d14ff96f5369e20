// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * profile -> profile.proto (field numbers of google/pprof proto/profile.proto)
 * -> gzip. The whole message is built in memory: the string table must hold
 * every string the other fields refer to.
 */
#include "output/pprof.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "output/pprof_proto.h"
#include "output/protobuf.h"
#include "util/hash.h"


/*
 * One Mapping. User objects get a synthetic, non-overlapping address range
 * each (1 TiB apart): a location's address is base + its file offset, and
 * the range's file_offset is its start's, so address - memory_start +
 * file_offset is the file offset, as pprof and symbolizers compute it.
 */
struct pmap {
	uint64_t lo, hi;	/* lowest and highest frame address (offset) seen */
	uint64_t seg_lo, seg_hi;/* the object's mapped segments' file offsets, when known */
	uint64_t uses;		/* frames on stacks in it: picks the main binary */
	uint64_t base;		/* address of file offset 0 */
	uint64_t id;		/* 1-based, in output order */
	bool seen;		/* lo/hi valid */
	bool all_named;		/* every frame in it has a symbol: has_functions */
};

#define PPROF_MAP_SPACING	(1ull << 40)
#define PPROF_PAGE		4096ull

/* The string table: content -> index, open addressing over index + 1. */
struct strings {
	char **v;
	size_t nr, cap;
	uint32_t *slots;
	size_t mask;
};

struct enc {
	const struct profile *p;
	struct strings st;
	size_t slot[PROFILE_KIND_NR];	/* first value index of each kind present */
	bool present[PROFILE_KIND_NR];
	size_t nr_values;
	uint64_t period;		/* 0: no cpu nanoseconds value */
	uint64_t *map_keys;		/* sorted unique (filename << 32 | build_id) */
	struct pmap *maps;		/* by the index of their key in map_keys */
	size_t nr_maps;
	uint64_t *fn_keys;		/* open addressing: (name << 32 | file) string indexes */
	uint32_t *fn_ids;		/* ... -> function id; 0: empty slot */
	size_t fn_mask;
	uint64_t *fn_of_id;		/* function id - 1 -> its key */
	size_t nr_fn, cap_fn;
	struct pb_buf out, msg, sub;
	int err;
};

static int strings_grow(struct strings *st)
{
	size_t n = st->slots ? (st->mask + 1) * 2 : 256, i, pos;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < st->nr; i++) {
		for (pos = hash_str(st->v[i]) & (n - 1); slots[pos]; pos = (pos + 1) & (n - 1))
			;
		slots[pos] = (uint32_t)i + 1;
	}
	free(st->slots);
	st->slots = slots;
	st->mask = n - 1;
	return 0;
}

/* Index of @s in the table, added (copied) if new; sets e->err and returns 0 on failure. */
static int64_t str_idx(struct enc *e, const char *s)
{
	struct strings *st = &e->st;
	size_t pos;
	char **v;

	if (e->err)
		return 0;
	if ((!st->slots || st->nr + 1 > (st->mask + 1) / 2) && strings_grow(st))
		goto nomem;
	for (pos = hash_str(s) & st->mask; st->slots[pos]; pos = (pos + 1) & st->mask) {
		if (!strcmp(st->v[st->slots[pos] - 1], s))
			return st->slots[pos] - 1;
	}
	if (st->nr == st->cap) {
		v = reallocarray(st->v, st->cap ? st->cap * 2 : 256, sizeof(*v));
		if (!v)
			goto nomem;
		st->v = v;
		st->cap = st->cap ? st->cap * 2 : 256;
	}
	st->v[st->nr] = strdup(s);
	if (!st->v[st->nr])
		goto nomem;
	st->slots[pos] = (uint32_t)++st->nr;
	return (int64_t)st->nr - 1;
nomem:
	e->err = -ENOMEM;
	return 0;
}

static void strings_release(struct strings *st)
{
	size_t i;

	for (i = 0; i < st->nr; i++)
		free(st->v[i]);
	free(st->v);
	free(st->slots);
}

/* Decide the value layout; -EOVERFLOW if a total cannot be an int64. */
static int layout(struct enc *e)
{
	uint64_t ns;
	int k;

	/* the kinds held, and those the recording declared (an empty lock profile is one) */
	for (k = 0; k < PROFILE_KIND_NR; k++)
		e->present[k] = profile__has_kind(e->p, k) || (profile__kinds(e->p) & (1u << k));
	if (!profile__kinds(e->p))
		e->present[PROFILE_KIND_ONCPU] = true;	/* an empty CPU profile */
	e->period = e->present[PROFILE_KIND_ONCPU] ? profile__period_ns(e->p) : 0;
	for (k = 0; k < PROFILE_KIND_NR; k++) {
		if (!e->present[k])
			continue;
		if (profile__total(e->p, k) > INT64_MAX)
			return -EOVERFLOW;
		e->slot[k] = e->nr_values;
		e->nr_values += k == PROFILE_KIND_ONCPU && e->period ? 2 : 1;
	}
	/* sums of count x period fit when the total's product does */
	if (e->period && (__builtin_mul_overflow(profile__total(e->p, PROFILE_KIND_ONCPU),
						 e->period, &ns) || ns > INT64_MAX))
		return -EOVERFLOW;
	return 0;
}

static void put_value_type(struct enc *e, uint32_t field, const char *type, const char *unit)
{
	pb_buf__reset(&e->msg);
	pb_put_int64(&e->msg, VT_TYPE, str_idx(e, type));
	pb_put_int64(&e->msg, VT_UNIT, str_idx(e, unit));
	pb_put_message(&e->out, field, &e->msg);
}

static void put_sample_types(struct enc *e)
{
	int k;

	for (k = 0; k < PROFILE_KIND_NR; k++) {
		if (!e->present[k])
			continue;
		put_value_type(e, PF_SAMPLE_TYPE, profile_kind_pprof_type(k),
			       k == PROFILE_KIND_ONCPU ? "count" : "nanoseconds");
		if (k == PROFILE_KIND_ONCPU && e->period)
			put_value_type(e, PF_SAMPLE_TYPE, "cpu", "nanoseconds");
	}
}

static void put_label(struct enc *e, const char *key, const char *str, uint64_t num)
{
	pb_buf__reset(&e->sub);
	pb_put_int64(&e->sub, LA_KEY, str_idx(e, key));
	if (str)
		pb_put_int64(&e->sub, LA_STR, str_idx(e, str));
	else
		pb_put_int64(&e->sub, LA_NUM, (int64_t)num);
	pb_put_message(&e->msg, SA_LABEL, &e->sub);
}

static void put_sample(struct enc *e, const struct profile_stack *s, uint64_t *locs,
		       int64_t *values)
{
	size_t i, n = s->nr_frames;

	/* pprof wants the leaf first; our stacks are root first */
	for (i = 0; i < n; i++)
		locs[i] = (uint64_t)s->frames[n - 1 - i] + 1;
	memset(values, 0, e->nr_values * sizeof(*values));
	values[e->slot[s->kind]] = (int64_t)s->weight;
	if (s->kind == PROFILE_KIND_ONCPU && e->period)
		values[e->slot[s->kind] + 1] = (int64_t)(s->weight * e->period);
	pb_buf__reset(&e->msg);
	pb_put_packed_uint64(&e->msg, SA_LOCATION_ID, locs, n);
	pb_put_packed_int64(&e->msg, SA_VALUE, values, e->nr_values);
	if (s->pid)
		put_label(e, "pid", NULL, s->pid);
	if (s->tid)
		put_label(e, "tid", NULL, s->tid);
	if (s->comm)
		put_label(e, "comm", s->comm, 0);
	if (s->thread)
		put_label(e, "thread_name", s->thread, 0);
	if (s->reason)
		put_label(e, "reason", s->reason, 0);
	if (s->cmdline)
		put_label(e, "cmdline", s->cmdline, 0);
	if (s->cgroup)
		put_label(e, "cgroup", s->cgroup, 0);
	pb_put_message(&e->out, PF_SAMPLE, &e->msg);
}

static int put_samples(struct enc *e)
{
	size_t i, max = 1;
	uint64_t *locs;
	int64_t values[PROFILE_KIND_NR + 1];

	for (i = 0; i < profile__nr_stacks(e->p); i++) {
		if (profile__stack(e->p, i)->nr_frames > max)
			max = profile__stack(e->p, i)->nr_frames;
	}
	locs = calloc(max, sizeof(*locs));
	if (!locs)
		return -ENOMEM;
	for (i = 0; i < profile__nr_stacks(e->p); i++)
		put_sample(e, profile__stack(e->p, i), locs, values);
	free(locs);
	return 0;
}

/* The kernel's mapping: never the profiled program, so never first. */
#define MAP_KEY_KERNEL UINT64_MAX

/* The mapping key of a frame: (filename index << 32 | build-id index), 0 for none. */
static uint64_t map_key(struct enc *e, const struct profile_frame *f)
{
	uint64_t file, bid;

	if (f->flags & FRAME_F_KERNEL)
		return MAP_KEY_KERNEL;
	if (!f->module)
		return 0;
	file = (uint64_t)str_idx(e, f->module);
	bid = f->build_id ? (uint64_t)str_idx(e, f->build_id) : 0;
	return file << 32 | (bid & 0xffffffff);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The mapping of @key, NULL for none. */
static struct pmap *map_of(const struct enc *e, uint64_t key)
{
	const uint64_t *hit;

	if (!key)
		return NULL;
	hit = bsearch(&key, e->map_keys, e->nr_maps, sizeof(key), u64_cmp);
	return hit ? &e->maps[hit - e->map_keys] : NULL;
}

/* A shared library or a pseudo object ("[vdso]"): not the program itself. */
static bool library_like(const struct enc *e, uint64_t key)
{
	const char *file = e->st.v[key >> 32], *base = strrchr(file, '/');

	base = base ? base + 1 : file;
	return file[0] == '[' || strstr(base, ".so") || !strncmp(base, "ld-", 3);
}

/* Address ranges, naming and use of every mapping, from the frames and stacks. */
static void map_scan(struct enc *e, const uint64_t *keys)
{
	size_t n = profile__nr_frames(e->p);

	for (size_t i = 0; i < e->nr_maps; i++)
		e->maps[i].all_named = true;
	for (size_t i = 0; i < n; i++) {
		const struct profile_frame *f = profile__frame(e->p, (uint32_t)i);
		struct pmap *m = map_of(e, keys[i]);

		if (!m)
			continue;
		if (!m->seen || f->addr < m->lo)
			m->lo = f->addr;
		if (!m->seen || f->addr > m->hi)
			m->hi = f->addr;
		if (f->map_limit > f->map_off) {
			if (!m->seg_hi || f->map_off < m->seg_lo)
				m->seg_lo = f->map_off;
			if (f->map_limit > m->seg_hi)
				m->seg_hi = f->map_limit;
		}
		m->seen = true;
		if (f->flags & FRAME_F_UNKNOWN)
			m->all_named = false;
	}
	for (size_t i = 0; i < profile__nr_stacks(e->p); i++) {
		const struct profile_stack *s = profile__stack(e->p, i);
		struct pmap *m;

		for (size_t j = 0; j < s->nr_frames; j++)
			if ((m = map_of(e, keys[s->frames[j]])))
				m->uses++;
	}
}

/*
 * Output order: the main binary first (pprof reads mapping[0] as the
 * profiled program, "File:": the most used object that is neither a
 * library, nor a pseudo object, nor the kernel), then the others by key,
 * the kernel last. Without such an object (folded text has no objects; a
 * profile of libraries and the kernel alone) mapping 1 is a placeholder
 * without a file, so pprof names no program rather than the kernel or a
 * library. Sets each mapping's id and base; true when the placeholder is
 * wanted.
 */
static bool map_order(struct enc *e)
{
	size_t main = SIZE_MAX, id = 2;

	for (size_t i = 0; i < e->nr_maps; i++) {
		uint64_t k = e->map_keys[i];

		if (k == MAP_KEY_KERNEL || library_like(e, k))
			continue;
		if (main == SIZE_MAX || e->maps[i].uses > e->maps[main].uses)
			main = i;
	}
	if (main != SIZE_MAX)
		e->maps[main].id = 1;
	for (size_t i = 0; i < e->nr_maps; i++)
		if (i != main && e->map_keys[i] != MAP_KEY_KERNEL)
			e->maps[i].id = id++;
	for (size_t i = 0; i < e->nr_maps; i++) {
		if (e->map_keys[i] == MAP_KEY_KERNEL)
			e->maps[i].id = id++;
		else
			e->maps[i].base = e->maps[i].id * PPROF_MAP_SPACING;
	}
	return main == SIZE_MAX && e->nr_maps;
}

/* Mapping 1 when no object is the program: an id, no file, no addresses. */
static void put_no_main(struct enc *e)
{
	pb_buf__reset(&e->msg);
	pb_put_uint64(&e->msg, MA_ID, 1);
	pb_put_message(&e->out, PF_MAPPING, &e->msg);
}

static void put_mapping(struct enc *e, uint64_t key, const struct pmap *m)
{
	bool kernel = key == MAP_KEY_KERNEL;
	uint64_t lo = m->lo & ~(PPROF_PAGE - 1), hi = (m->hi | (PPROF_PAGE - 1)) + 1;

	/*
	 * The segment as the loader maps it, where known: symbolizers that
	 * compute the load bias from the executable segment's start (Go's
	 * pprof) need the range to start there, not at the first hot page.
	 */
	if (!kernel && m->seg_hi > m->seg_lo && m->seg_lo <= m->lo && m->seg_hi > m->hi) {
		lo = m->seg_lo;
		hi = m->seg_hi;
	}

	pb_buf__reset(&e->msg);
	pb_put_uint64(&e->msg, MA_ID, m->id);
	/* the kernel's addresses are its own; a user object's are base + file offset */
	pb_put_uint64(&e->msg, MA_MEMORY_START, kernel ? lo : m->base + lo);
	pb_put_uint64(&e->msg, MA_MEMORY_LIMIT, kernel ? hi : m->base + hi);
	if (!kernel)
		pb_put_uint64(&e->msg, MA_FILE_OFFSET, lo);
	pb_put_int64(&e->msg, MA_FILENAME,
		     kernel ? str_idx(e, PPROF_KERNEL_MAPPING) : (int64_t)(key >> 32));
	if (!kernel && (key & 0xffffffff))
		pb_put_int64(&e->msg, MA_BUILD_ID, (int64_t)(key & 0xffffffff));
	pb_put_bool(&e->msg, MA_HAS_FUNCTIONS, kernel || m->all_named);
	pb_put_message(&e->out, PF_MAPPING, &e->msg);
}

/* Collect the distinct mappings and write them, in map_order(). */
static int put_mappings(struct enc *e, uint64_t *keys)
{
	size_t n = profile__nr_frames(e->p), i, k = 0;

	for (i = 0; i < n; i++)
		keys[i] = map_key(e, profile__frame(e->p, (uint32_t)i));
	e->map_keys = malloc((n ? n : 1) * sizeof(*e->map_keys));
	e->maps = calloc(n ? n : 1, sizeof(*e->maps));
	if (!e->map_keys || !e->maps)
		return -ENOMEM;
	memcpy(e->map_keys, keys, n * sizeof(*keys));
	qsort(e->map_keys, n, sizeof(*keys), u64_cmp);
	for (i = 0; i < n; i++) {
		if (e->map_keys[i] && (!k || e->map_keys[k - 1] != e->map_keys[i]))
			e->map_keys[k++] = e->map_keys[i];
	}
	e->nr_maps = k;
	map_scan(e, keys);
	if (map_order(e))
		put_no_main(e);
	for (uint64_t id = 1; id <= k + 1; id++)
		for (i = 0; i < k; i++)
			if (e->maps[i].id == id)
				put_mapping(e, e->map_keys[i], &e->maps[i]);
	return 0;
}

/*
 * The function name: the folded text, but a kernel frame says so by its
 * mapping and drops "_[k]", unless another suffix follows it: a kernel
 * waker frame keeps "_[k]_[w]", as in the folded text, report and flame
 * graph, so it reads the same everywhere and is never taken for a user one.
 */
static int64_t func_name(struct enc *e, const struct profile_frame *f)
{
	unsigned int flags = f->flags & (FRAME_F_KERNEL | FRAME_F_JIT | FRAME_F_INLINE |
					 FRAME_F_WAKER);
	char *s;
	int64_t idx;

	if (flags == FRAME_F_KERNEL)
		flags = 0;
	if (!*profile_frame_suffix(flags))
		return str_idx(e, f->name);
	if (asprintf(&s, "%s%s", f->name, profile_frame_suffix(flags)) < 0) {
		e->err = -ENOMEM;
		return 0;
	}
	idx = str_idx(e, s);
	free(s);
	return idx;
}

static int fn_grow(struct enc *e)
{
	size_t n = e->fn_ids ? (e->fn_mask + 1) * 2 : 256, pos;
	uint64_t *keys = calloc(n, sizeof(*keys));
	uint32_t *ids = calloc(n, sizeof(*ids));

	if (!keys || !ids) {
		free(keys);
		free(ids);
		return -ENOMEM;
	}
	for (size_t i = 0; i < e->nr_fn; i++) {
		for (pos = hash_u64(e->fn_of_id[i]) & (n - 1); ids[pos]; pos = (pos + 1) & (n - 1))
			;
		keys[pos] = e->fn_of_id[i];
		ids[pos] = (uint32_t)i + 1;
	}
	free(e->fn_keys);
	free(e->fn_ids);
	e->fn_keys = keys;
	e->fn_ids = ids;
	e->fn_mask = n - 1;
	return 0;
}

/*
 * One Function per distinct (name, source file) string indexes (a function
 * at several addresses is one; file 0 is "", unknown). 0 on error.
 */
static uint64_t fn_id(struct enc *e, int64_t name, int64_t file)
{
	uint64_t key = (uint64_t)name << 32 | (uint64_t)(file & 0xffffffff), *v;
	size_t pos;

	if (e->err)
		return 0;
	if ((!e->fn_ids || e->nr_fn + 1 > (e->fn_mask + 1) / 2) && fn_grow(e))
		goto nomem;
	for (pos = hash_u64(key) & e->fn_mask; e->fn_ids[pos]; pos = (pos + 1) & e->fn_mask)
		if (e->fn_keys[pos] == key)
			return e->fn_ids[pos];
	if (e->nr_fn == e->cap_fn) {
		v = reallocarray(e->fn_of_id, e->cap_fn ? e->cap_fn * 2 : 256, sizeof(*v));
		if (!v)
			goto nomem;
		e->fn_of_id = v;
		e->cap_fn = e->cap_fn ? e->cap_fn * 2 : 256;
	}
	e->fn_of_id[e->nr_fn] = key;
	e->fn_keys[pos] = key;
	e->fn_ids[pos] = (uint32_t)++e->nr_fn;
	return e->nr_fn;
nomem:
	e->err = -ENOMEM;
	return 0;
}

static void put_line(struct enc *e, uint64_t fid, uint32_t line)
{
	pb_buf__reset(&e->sub);
	pb_put_uint64(&e->sub, LI_FUNCTION_ID, fid);
	if (line)
		pb_put_int64(&e->sub, LI_LINE, line);
	pb_put_message(&e->msg, LO_LINE, &e->sub);
}

/*
 * A frame's Lines, innermost first: the functions DWARF says are inlined at
 * its address with their lines, then the frame itself (its own name, so
 * pprof groups it with the folded and text views) at its line. Without
 * lines, one Line naming the frame.
 */
static void put_lines(struct enc *e, const struct profile_frame *f)
{
	const struct profile_line *l = f->lines;
	uint32_t n = f->nr_lines;

	for (uint32_t i = 0; i + 1 < n; i++)
		put_line(e, fn_id(e, str_idx(e, l[i].func), l[i].file ? str_idx(e, l[i].file) : 0),
			 l[i].line);
	put_line(e, fn_id(e, func_name(e, f), n && l[n - 1].file ? str_idx(e, l[n - 1].file) : 0),
		 n ? l[n - 1].line : f->line);	/* Python frames: their line, no DWARF */
}

/*
 * One Location per frame (id = frame id + 1), with its address when it
 * has an object; then the Functions. A frame without a symbol at a known
 * address gets no Line, so `pprof -symbolize` can name it from the binary.
 */
static void put_locations(struct enc *e, const uint64_t *keys)
{
	size_t n = profile__nr_frames(e->p), i;

	for (i = 0; i < n; i++) {
		const struct profile_frame *f = profile__frame(e->p, (uint32_t)i);
		const struct pmap *m = map_of(e, keys[i]);

		pb_buf__reset(&e->msg);
		pb_put_uint64(&e->msg, LO_ID, i + 1);
		if (m) {
			pb_put_uint64(&e->msg, LO_MAPPING_ID, m->id);
			pb_put_uint64(&e->msg, LO_ADDRESS, m->base + f->addr);
		}
		if (!m || !(f->flags & FRAME_F_UNKNOWN) || keys[i] == MAP_KEY_KERNEL)
			put_lines(e, f);
		pb_put_message(&e->out, PF_LOCATION, &e->msg);
	}
	for (i = 0; i < e->nr_fn; i++) {
		int64_t name = (int64_t)(e->fn_of_id[i] >> 32), file = e->fn_of_id[i] & 0xffffffff;

		pb_buf__reset(&e->msg);
		pb_put_uint64(&e->msg, FU_ID, i + 1);
		pb_put_int64(&e->msg, FU_NAME, name);
		pb_put_int64(&e->msg, FU_SYSTEM_NAME, name);
		if (file)
			pb_put_int64(&e->msg, FU_FILENAME, file);
		pb_put_message(&e->out, PF_FUNCTION, &e->msg);
	}
}

static void put_tail(struct enc *e)
{
	const char *def = e->period ? "cpu" : NULL;
	size_t i;
	int k;

	for (k = 0; !def && k < PROFILE_KIND_NR; k++)
		def = e->present[k] ? profile_kind_pprof_type(k) : NULL;
	if (e->period) {
		put_value_type(e, PF_PERIOD_TYPE, "cpu", "nanoseconds");
		pb_put_int64(&e->out, PF_PERIOD, (int64_t)e->period);
	} else if (e->present[PROFILE_KIND_ONCPU] && profile__event(e->p) &&
		   profile__event_period(e->p) <= INT64_MAX) {
		/* record -e page-faults: one sample is this many of that event */
		put_value_type(e, PF_PERIOD_TYPE, profile__event(e->p), "count");
		pb_put_int64(&e->out, PF_PERIOD, (int64_t)profile__event_period(e->p));
	}
	if (profile__start_ns(e->p) && profile__start_ns(e->p) <= INT64_MAX)
		pb_put_int64(&e->out, PF_TIME_NANOS, (int64_t)profile__start_ns(e->p));
	if (profile__duration_ns(e->p) && profile__duration_ns(e->p) <= INT64_MAX)
		pb_put_int64(&e->out, PF_DURATION_NANOS, (int64_t)profile__duration_ns(e->p));
	pb_put_int64(&e->out, PF_DEFAULT_SAMPLE_TYPE, str_idx(e, def));
	/* last: every index above must already be in the table */
	for (i = 0; i < e->st.nr; i++)
		pb_put_string(&e->out, PF_STRING_TABLE, e->st.v[i]);
}

int pprof_encode(const struct profile *p, unsigned char **data, size_t *len)
{
	struct enc e = { .p = p };
	uint64_t *keys = calloc(profile__nr_frames(p) + 1, sizeof(*keys));
	int err = keys ? layout(&e) : -ENOMEM;

	pb_buf__init(&e.out);
	pb_buf__init(&e.msg);
	pb_buf__init(&e.sub);
	str_idx(&e, "");	/* string_table[0] must be "" */
	if (!err) {
		put_sample_types(&e);
		err = put_samples(&e);
	}
	if (!err)
		err = put_mappings(&e, keys);
	if (!err) {
		put_locations(&e, keys);
		put_tail(&e);
		err = e.err ? e.err : e.out.err;
	}
	if (!err) {
		*data = e.out.data;
		*len = e.out.len;
		e.out.data = NULL;
	}
	pb_buf__release(&e.out);
	pb_buf__release(&e.msg);
	pb_buf__release(&e.sub);
	strings_release(&e.st);
	free(e.map_keys);
	free(e.maps);
	free(e.fn_keys);
	free(e.fn_ids);
	free(e.fn_of_id);
	free(keys);
	return err;
}

/* gzip (deflate with a gzip header: windowBits 15 + 16) @data to @out. */
static int gzip_write(const unsigned char *data, size_t len, FILE *out)
{
	unsigned char buf[16384];
	z_stream zs = { 0 };
	int rc, err = 0;
	size_t n;

	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	zs.next_in = (unsigned char *)data;
	do {
		/* avail_in is 32-bit: feed a message past 4 GiB in slices */
		if (!zs.avail_in && len) {
			zs.avail_in = len > (1u << 30) ? 1u << 30 : (unsigned int)len;
			len -= zs.avail_in;
		}
		zs.next_out = buf;
		zs.avail_out = sizeof(buf);
		rc = deflate(&zs, len || zs.avail_in ? Z_NO_FLUSH : Z_FINISH);
		n = sizeof(buf) - zs.avail_out;
		if (rc == Z_STREAM_ERROR) {
			err = -EINVAL;
			break;
		}
		if (n && fwrite(buf, 1, n, out) != n) {
			err = -EIO;
			break;
		}
	} while (rc != Z_STREAM_END);
	deflateEnd(&zs);
	return err;
}

int pprof_write(const struct profile *p, FILE *out)
{
	unsigned char *data;
	size_t len;
	int err;

	err = pprof_encode(p, &data, &len);
	if (err)
		return err;
	err = gzip_write(data, len, out);
	free(data);
	if (!err && ferror(out))
		err = -EIO;
	return err;
}
