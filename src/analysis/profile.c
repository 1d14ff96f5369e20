// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The in-memory profile: interned strings, deduplicated frames, merged
 * stacks (three open-addressing tables of ids), and per-frame totals.
 * The folded reader and writer are in profile_folded.c.
 */
#include "analysis/profile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

#include "abi/common.h"

#define HTAB_MIN_SLOTS	64
#define PROFILE_UNKNOWN	"[unknown]"

/* A slot holds id + 1 (0 = empty) and the key's hash, so growing never rehashes keys. */
struct hslot {
	uint32_t id1;
	uint32_t hash;
};

struct htab {
	struct hslot *slots;
	size_t mask;
	size_t nr;
};

/* Does element @id of the table's owner equal @key? */
typedef bool (*htab_eq_fn)(const struct profile *p, uint32_t id, const void *key);

struct stack_key {
	const uint32_t *frames;
	size_t nr_frames;
	enum profile_kind kind;
	uint32_t pid, tid;
	const char *comm, *reason, *thread;
	const char *cmdline, *cgroup;
};

struct profile {
	char **strs;			/* interned strings, by id */
	size_t nr_strs, cap_strs;
	struct htab str_tab;
	struct profile_frame *frames;
	size_t nr_frames, cap_frames;
	struct htab frame_tab;
	struct profile_stack *stacks;
	size_t nr_stacks, cap_stacks;
	struct htab stack_tab;
	uint64_t totals[PROFILE_KIND_NR];
	uint64_t period_ns;
	char event[64];			/* on-CPU sampling event when not a clock; "" */
	uint64_t event_period;
	uint64_t start_ns, duration_ns;
	unsigned int declared;		/* profile__declare_kinds() */
	uint32_t *ids;			/* scratch: frame ids of the stack being added */
	size_t cap_ids;
};

/* Indexed by FRAME_F_KERNEL|JIT|INLINE|WAKER; the reader strips them in reverse. */
static const char *const suffixes[16] = {
	"",		"_[k]",		"_[j]",		"_[k]_[j]",
	"_[i]",		"_[k]_[i]",	"_[j]_[i]",	"_[k]_[j]_[i]",
	"_[w]",		"_[k]_[w]",	"_[j]_[w]",	"_[k]_[j]_[w]",
	"_[i]_[w]",	"_[k]_[i]_[w]",	"_[j]_[i]_[w]",	"_[k]_[j]_[i]_[w]",
};

static const char *const kind_names[PROFILE_KIND_NR] = {
	[PROFILE_KIND_ONCPU] = "oncpu",
	[PROFILE_KIND_OFFCPU] = "offcpu",
	[PROFILE_KIND_RUNQ] = "runq",
	[PROFILE_KIND_LOCK] = "lock",
};

const char *profile_kind_name(enum profile_kind kind)
{
	return (unsigned int)kind < PROFILE_KIND_NR ? kind_names[kind] : NULL;
}

const char *profile_kind_unit(enum profile_kind kind)
{
	return kind == PROFILE_KIND_ONCPU ? "samples" : "nanoseconds";
}

static const char *const pprof_types[PROFILE_KIND_NR] = {
	[PROFILE_KIND_ONCPU] = "samples",
	[PROFILE_KIND_OFFCPU] = "off_cpu",
	[PROFILE_KIND_RUNQ] = "runq_wait",
	[PROFILE_KIND_LOCK] = "lock_wait",
};

const char *profile_kind_pprof_type(enum profile_kind kind)
{
	return (unsigned int)kind < PROFILE_KIND_NR ? pprof_types[kind] : NULL;
}

int profile_kind_parse(const char *s, enum profile_kind *kind)
{
	unsigned int k;

	for (k = 0; k < PROFILE_KIND_NR; k++) {
		if (!strcmp(s, kind_names[k])) {
			*kind = (enum profile_kind)k;
			return 0;
		}
	}
	return -EINVAL;
}

int profile_kind_from_abi(unsigned int abi_kind, enum profile_kind *kind)
{
	switch (abi_kind) {
	case HC_KIND_ONCPU:
		*kind = PROFILE_KIND_ONCPU;
		return 0;
	case HC_KIND_OFFCPU:
		*kind = PROFILE_KIND_OFFCPU;
		return 0;
	case HC_KIND_RUNQ:
		*kind = PROFILE_KIND_RUNQ;
		return 0;
	case HC_KIND_LOCK:
		*kind = PROFILE_KIND_LOCK;
		return 0;
	default:
		return -EINVAL;
	}
}

const char *profile_frame_suffix(unsigned int flags)
{
	return suffixes[flags & 0xf];
}

/* 64-bit multiply-xorshift mixing; the table keeps the low 32 bits */
static uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 0x243f6a8885a308d3ULL ^ n, v;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&v, s, 8);
		h = mix(h, v);
	}
	v = 0;
	memcpy(&v, s, n);
	return mix(mix(h, v), n);
}

static uint64_t hash_ptr(uint64_t h, const void *ptr)
{
	return mix(h, (uint64_t)(uintptr_t)ptr);
}

static int grow_array(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 16;
	void *a;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	a = reallocarray(*arr, n, elem);
	if (!a)
		return -ENOMEM;
	*arr = a;
	*cap = n;
	return 0;
}

/* Position of @key's slot, or of the empty slot where it would go. */
static size_t htab_find(const struct profile *p, const struct htab *t, uint32_t h,
			htab_eq_fn eq, const void *key)
{
	size_t pos = h & t->mask;

	for (; t->slots[pos].id1; pos = (pos + 1) & t->mask) {
		if (t->slots[pos].hash == h && eq(p, t->slots[pos].id1 - 1, key))
			break;
	}
	return pos;
}

/* Make room for one more entry (load <= 3/4); positions found before are stale. */
static int htab_reserve(struct htab *t)
{
	size_t nr, i, pos;
	struct hslot *slots;

	if (t->slots && t->nr + 1 <= (t->mask + 1) / 4 * 3)
		return 0;
	nr = t->slots ? (t->mask + 1) * 2 : HTAB_MIN_SLOTS;
	slots = calloc(nr, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (i = 0; t->slots && i <= t->mask; i++) {
		if (!t->slots[i].id1)
			continue;
		for (pos = t->slots[i].hash & (nr - 1); slots[pos].id1; pos = (pos + 1) & (nr - 1))
			;
		slots[pos] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->mask = nr - 1;
	return 0;
}

static void htab_set(struct htab *t, size_t pos, uint32_t h, size_t id)
{
	t->slots[pos].id1 = (uint32_t)id + 1;
	t->slots[pos].hash = h;
	t->nr++;
}

struct str_key {
	const char *s;
	size_t n;
};

static bool str_eq(const struct profile *p, uint32_t id, const void *key)
{
	const struct str_key *k = key;

	return !strncmp(p->strs[id], k->s, k->n) && p->strs[id][k->n] == '\0';
}

/* Interned copy of @s[0..n) (no NUL inside); stable until profile__free(). */
static const char *intern(struct profile *p, const char *s, size_t n)
{
	struct str_key k = { s, n };
	uint32_t h = (uint32_t)hash_bytes(s, n);
	size_t pos;
	char *c;

	pos = htab_find(p, &p->str_tab, h, str_eq, &k);
	if (p->str_tab.slots[pos].id1)
		return p->strs[p->str_tab.slots[pos].id1 - 1];
	if (p->nr_strs >= UINT32_MAX - 1 || htab_reserve(&p->str_tab) ||
	    grow_array((void **)&p->strs, &p->cap_strs, p->nr_strs + 1, sizeof(*p->strs)))
		return NULL;
	c = strndup(s, n);
	if (!c)
		return NULL;
	pos = htab_find(p, &p->str_tab, h, str_eq, &k);
	htab_set(&p->str_tab, pos, h, p->nr_strs);
	p->strs[p->nr_strs++] = c;
	return c;
}

/* NULL stays NULL (an absent label or module) */
static int intern_opt(struct profile *p, const char *s, const char **out)
{
	*out = NULL;
	if (!s)
		return 0;
	*out = intern(p, s, strlen(s));
	return *out ? 0 : -ENOMEM;
}

struct profile *profile__new(void)
{
	struct profile *p = calloc(1, sizeof(*p));

	/* tables always have slots, so lookups need no NULL check */
	if (!p || htab_reserve(&p->str_tab) || htab_reserve(&p->frame_tab) ||
	    htab_reserve(&p->stack_tab)) {
		profile__free(p);
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

void profile__free(struct profile *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nr_strs; i++)
		free(p->strs[i]);
	for (i = 0; i < p->nr_stacks; i++)
		free((void *)p->stacks[i].frames);
	for (i = 0; i < p->nr_frames; i++)
		free((void *)p->frames[i].lines);
	free(p->strs);
	free(p->str_tab.slots);
	free(p->frames);
	free(p->frame_tab.slots);
	free(p->stacks);
	free(p->stack_tab.slots);
	free(p->ids);
	free(p);
}

static bool frame_eq(const struct profile *p, uint32_t id, const void *key)
{
	const struct profile_frame *a = &p->frames[id], *b = key;

	return a->name == b->name && a->module == b->module && a->build_id == b->build_id &&
	       a->flags == b->flags && a->addr == b->addr && a->line == b->line &&
	       a->map_off == b->map_off && a->map_limit == b->map_limit;
}

/* @in's lines, interned, onto frame @f unless it has some already. 0 or -ENOMEM. */
static int frame_lines(struct profile *p, struct profile_frame *f,
		       const struct profile_frame_in *in)
{
	uint32_t n = in->nr_lines < PROFILE_MAX_LINES ? in->nr_lines : PROFILE_MAX_LINES;
	struct profile_line *l;

	if (f->nr_lines || !n || !in->lines)
		return 0;
	l = calloc(n, sizeof(*l));
	if (!l)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const char *func = in->lines[i].func;

		if (!func || !*func)
			func = PROFILE_UNKNOWN;
		l[i].line = in->lines[i].line;
		l[i].func = intern(p, func, strlen(func));
		if (!l[i].func || intern_opt(p, in->lines[i].file, &l[i].file)) {
			free(l);
			return -ENOMEM;
		}
	}
	f->lines = l;
	f->nr_lines = n;
	return 0;
}

/* Id of the frame @in, created if new. An empty or NULL name is "[unknown]". */
static int frame_id(struct profile *p, const struct profile_frame_in *in, uint32_t *id)
{
	struct profile_frame f = { .flags = in->flags, .addr = in->addr, .line = in->line,
				   .map_off = in->map_off, .map_limit = in->map_limit };
	bool unnamed = !in->name || !*in->name;
	const char *name = unnamed ? PROFILE_UNKNOWN : in->name;
	size_t pos;
	uint32_t h;

	if (unnamed)
		f.flags |= FRAME_F_UNKNOWN;
	f.name = intern(p, name, strlen(name));
	if (!f.name || intern_opt(p, in->module, &f.module) ||
	    intern_opt(p, in->build_id, &f.build_id))
		return -ENOMEM;
	h = (uint32_t)mix(hash_ptr(hash_ptr(hash_ptr(0, f.name), f.module), f.build_id), f.flags);
	h = (uint32_t)mix(mix(h, f.addr), f.line);
	pos = htab_find(p, &p->frame_tab, h, frame_eq, &f);
	if (!p->frame_tab.slots[pos].id1) {
		if (p->nr_frames >= UINT32_MAX - 1)
			return -E2BIG;
		if (htab_reserve(&p->frame_tab) ||
		    grow_array((void **)&p->frames, &p->cap_frames, p->nr_frames + 1,
			       sizeof(*p->frames)))
			return -ENOMEM;
		pos = htab_find(p, &p->frame_tab, h, frame_eq, &f);
		htab_set(&p->frame_tab, pos, h, p->nr_frames);
		p->frames[p->nr_frames++] = f;
	}
	*id = p->frame_tab.slots[pos].id1 - 1;
	return frame_lines(p, &p->frames[*id], in);
}

static bool stack_eq(const struct profile *p, uint32_t id, const void *key)
{
	const struct profile_stack *s = &p->stacks[id];
	const struct stack_key *k = key;

	return s->nr_frames == k->nr_frames && s->kind == k->kind && s->pid == k->pid &&
	       s->tid == k->tid && s->comm == k->comm && s->reason == k->reason &&
	       s->thread == k->thread && s->cmdline == k->cmdline && s->cgroup == k->cgroup &&
	       !memcmp(s->frames, k->frames, k->nr_frames * sizeof(*k->frames));
}

static uint32_t stack_hash(const struct stack_key *k)
{
	uint64_t h = mix(k->kind, ((uint64_t)k->pid << 32) | k->tid);
	size_t i;

	h = hash_ptr(hash_ptr(hash_ptr(h, k->comm), k->reason), k->thread);
	h = hash_ptr(hash_ptr(h, k->cmdline), k->cgroup);
	for (i = 0; i < k->nr_frames; i++)
		h = mix(h, k->frames[i]);
	return (uint32_t)mix(h, k->nr_frames);
}

static int stack_insert(struct profile *p, const struct stack_key *k, uint32_t h,
			uint64_t weight)
{
	struct profile_stack *s;
	uint32_t *frames;
	size_t pos;

	if (p->nr_stacks >= UINT32_MAX - 1)
		return -E2BIG;
	if (htab_reserve(&p->stack_tab) ||
	    grow_array((void **)&p->stacks, &p->cap_stacks, p->nr_stacks + 1, sizeof(*p->stacks)))
		return -ENOMEM;
	frames = malloc(k->nr_frames * sizeof(*frames));
	if (!frames)
		return -ENOMEM;
	memcpy(frames, k->frames, k->nr_frames * sizeof(*frames));
	pos = htab_find(p, &p->stack_tab, h, stack_eq, k);
	htab_set(&p->stack_tab, pos, h, p->nr_stacks);
	s = &p->stacks[p->nr_stacks++];
	*s = (struct profile_stack){ .frames = frames, .nr_frames = k->nr_frames, .weight = weight,
				     .kind = k->kind, .pid = k->pid, .tid = k->tid,
				     .comm = k->comm, .reason = k->reason, .thread = k->thread,
				     .cmdline = k->cmdline, .cgroup = k->cgroup };
	return 0;
}

int profile__add(struct profile *p, const struct profile_stack_in *s)
{
	return profile__add_at(p, s, NULL);
}

int profile__add_at(struct profile *p, const struct profile_stack_in *s, size_t *index)
{
	struct stack_key k = { .nr_frames = s->nr_frames, .kind = s->kind,
			       .pid = s->pid, .tid = s->tid };
	uint64_t total;
	size_t i, pos;
	uint32_t h;
	int err;

	if (!s->nr_frames || (unsigned int)s->kind >= PROFILE_KIND_NR)
		return -EINVAL;
	/* the kind's total bounds every per-frame sum, so none of them can overflow */
	if (__builtin_add_overflow(p->totals[s->kind], s->weight, &total))
		return -EOVERFLOW;
	if (s->nr_frames > SIZE_MAX / sizeof(*p->ids))
		return -E2BIG;
	if (grow_array((void **)&p->ids, &p->cap_ids, s->nr_frames, sizeof(*p->ids)))
		return -ENOMEM;
	for (i = 0; i < s->nr_frames; i++) {
		err = frame_id(p, &s->frames[i], &p->ids[i]);
		if (err)
			return err;
	}
	if (intern_opt(p, s->comm, &k.comm) || intern_opt(p, s->reason, &k.reason) ||
	    intern_opt(p, s->thread, &k.thread) || intern_opt(p, s->cmdline, &k.cmdline) ||
	    intern_opt(p, s->cgroup, &k.cgroup))
		return -ENOMEM;
	k.frames = p->ids;
	h = stack_hash(&k);
	pos = htab_find(p, &p->stack_tab, h, stack_eq, &k);
	if (p->stack_tab.slots[pos].id1) {
		/* a stack's weight is at most its kind's total: no overflow here */
		p->stacks[p->stack_tab.slots[pos].id1 - 1].weight += s->weight;
		if (index)
			*index = p->stack_tab.slots[pos].id1 - 1;
	} else {
		err = stack_insert(p, &k, h, s->weight);
		if (err)
			return err;
		if (index)
			*index = p->nr_stacks - 1;
	}
	p->totals[s->kind] = total;
	return 0;
}

int profile__add_weight(struct profile *p, size_t index, uint64_t weight)
{
	struct profile_stack *st;
	uint64_t total;

	if (index >= p->nr_stacks)
		return -ENOENT;
	st = &p->stacks[index];
	if (__builtin_add_overflow(p->totals[st->kind], weight, &total))
		return -EOVERFLOW;
	st->weight += weight;	/* at most the kind's total */
	p->totals[st->kind] = total;
	return 0;
}

int profile__copy_stack(struct profile *dst, const struct profile *src,
			const struct profile_stack *s)
{
	struct profile_stack_in si = { .nr_frames = s->nr_frames, .weight = s->weight,
				       .kind = s->kind, .pid = s->pid, .tid = s->tid,
				       .comm = s->comm, .reason = s->reason,
				       .thread = s->thread, .cmdline = s->cmdline,
				       .cgroup = s->cgroup };
	struct profile_frame_in *fr = calloc(s->nr_frames ? s->nr_frames : 1, sizeof(*fr));
	int err;

	if (!fr)
		return -ENOMEM;
	for (size_t i = 0; i < s->nr_frames; i++) {
		const struct profile_frame *f = &src->frames[s->frames[i]];

		fr[i] = (struct profile_frame_in){ .name = f->name, .module = f->module,
						   .build_id = f->build_id, .flags = f->flags,
						   .addr = f->addr, .line = f->line,
						   .map_off = f->map_off, .map_limit = f->map_limit,
						   .lines = f->lines, .nr_lines = f->nr_lines };
	}
	si.frames = fr;
	err = profile__add(dst, &si);
	free(fr);
	return err;
}

void profile__copy_meta(struct profile *dst, const struct profile *src)
{
	dst->period_ns = src->period_ns;
	memcpy(dst->event, src->event, sizeof(dst->event));
	dst->event_period = src->event_period;
	dst->start_ns = src->start_ns;
	dst->duration_ns = src->duration_ns;
}

size_t profile__nr_stacks(const struct profile *p)
{
	return p->nr_stacks;
}

const struct profile_stack *profile__stack(const struct profile *p, size_t i)
{
	return i < p->nr_stacks ? &p->stacks[i] : NULL;
}

size_t profile__nr_frames(const struct profile *p)
{
	return p->nr_frames;
}

const struct profile_frame *profile__frame(const struct profile *p, uint32_t id)
{
	return id < p->nr_frames ? &p->frames[id] : NULL;
}

/* the separator emit.c puts between a block's stack and its waker's */
#define PROFILE_WAKER_SEP "--"

size_t profile__self_frame(const struct profile *p, const uint32_t *frames, size_t nr)
{
	size_t j = nr - 1;

	if (!(profile__frame(p, frames[j])->flags & FRAME_F_WAKER))
		return j;
	while (j > 0 && (profile__frame(p, frames[j])->flags & FRAME_F_WAKER))
		j--;
	if (j > 0 && !profile__frame(p, frames[j])->flags &&
	    !strcmp(profile__frame(p, frames[j])->name, PROFILE_WAKER_SEP))
		j--;
	return j;
}

uint64_t profile__total(const struct profile *p, enum profile_kind kind)
{
	return (unsigned int)kind < PROFILE_KIND_NR ? p->totals[kind] : 0;
}

bool profile__has_kind(const struct profile *p, enum profile_kind kind)
{
	size_t i;

	for (i = 0; i < p->nr_stacks; i++) {
		if (p->stacks[i].kind == kind)
			return true;
	}
	return false;
}

void profile__set_period_ns(struct profile *p, uint64_t ns)
{
	p->period_ns = ns;
}

uint64_t profile__period_ns(const struct profile *p)
{
	return p->period_ns;
}

void profile__set_event(struct profile *p, const char *name, uint64_t period)
{
	snprintf(p->event, sizeof(p->event), "%s", name ? name : "");
	p->event_period = name && *name ? period : 0;
}

const char *profile__event(const struct profile *p)
{
	return p->event[0] ? p->event : NULL;
}

uint64_t profile__event_period(const struct profile *p)
{
	return p->event_period;
}

void profile__set_time(struct profile *p, uint64_t start_ns, uint64_t duration_ns)
{
	p->start_ns = start_ns;
	p->duration_ns = duration_ns;
}

uint64_t profile__start_ns(const struct profile *p)
{
	return p->start_ns;
}

uint64_t profile__duration_ns(const struct profile *p)
{
	return p->duration_ns;
}

void profile__declare_kinds(struct profile *p, unsigned int kinds)
{
	p->declared |= kinds & ((1u << PROFILE_KIND_NR) - 1);
}

unsigned int profile__kinds(const struct profile *p)
{
	unsigned int m = p->declared;

	for (size_t i = 0; i < p->nr_stacks; i++)
		m |= 1u << p->stacks[i].kind;
	return m;
}

/* ---- per-frame totals ----------------------------------------------------------- */

/* Bytewise order of name + suffix, without building the strings. */
static int text_cmp(const struct profile_frame *a, const struct profile_frame *b)
{
	const char *as = profile_frame_suffix(a->flags), *bs = profile_frame_suffix(b->flags);
	const char *x = a->name, *y = b->name;
	unsigned char cx, cy;

	for (;;) {
		if (!*x && as)
			x = as, as = NULL;
		if (!*y && bs)
			y = bs, bs = NULL;
		cx = (unsigned char)*x;
		cy = (unsigned char)*y;
		if (cx != cy || !cx)
			return (cx > cy) - (cx < cy);
		x++, y++;
	}
}

int profile_frame_cmp(const struct profile *p, uint32_t a, uint32_t b)
{
	int c = text_cmp(&p->frames[a], &p->frames[b]);

	/* same text (e.g. "[unknown]" with and without the flag): flags decide */
	if (!c && p->frames[a].flags != p->frames[b].flags)
		c = p->frames[a].flags < p->frames[b].flags ? -1 : 1;
	return c;
}

static int total_cmp(const struct frame_total *a, const struct frame_total *b,
		     const struct profile *p)
{
	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	return profile_frame_cmp(p, a->frame, b->frame);
}

static int total_cmp_r(const void *a, const void *b, void *p)
{
	return total_cmp(a, b, p);
}

static bool canon_eq(const struct profile *p, uint32_t id, const void *key)
{
	const struct profile_frame *f = key;

	return p->frames[id].name == f->name && p->frames[id].flags == f->flags;
}

/* canon[id]: the first frame id with the same name and flags */
static int canon_ids(const struct profile *p, uint32_t *canon)
{
	struct htab t = { 0 };
	size_t i, pos;
	uint32_t h;

	if (htab_reserve(&t))
		return -ENOMEM;
	for (i = 0; i < p->nr_frames; i++) {
		h = (uint32_t)mix(hash_ptr(0, p->frames[i].name), p->frames[i].flags);
		pos = htab_find(p, &t, h, canon_eq, &p->frames[i]);
		if (t.slots[pos].id1) {
			canon[i] = t.slots[pos].id1 - 1;
			continue;
		}
		if (htab_reserve(&t)) {
			free(t.slots);
			return -ENOMEM;
		}
		pos = htab_find(p, &t, h, canon_eq, &p->frames[i]);
		htab_set(&t, pos, h, i);
		canon[i] = i;
	}
	free(t.slots);
	return 0;
}

/* Accumulate into acc[canon id]; seen[] stamps count a recursive frame once per stack. */
static void accumulate(const struct profile *p, enum profile_kind kind, const uint32_t *canon,
		       struct frame_total *acc, size_t *seen)
{
	size_t i, j;

	for (i = 0; i < p->nr_stacks; i++) {
		const struct profile_stack *s = &p->stacks[i];

		if (s->kind != kind)
			continue;
		for (j = 0; j < s->nr_frames; j++) {
			uint32_t c = canon[s->frames[j]];

			if (seen[c] == i + 1)
				continue;
			seen[c] = i + 1;
			acc[c].frame = c;
			acc[c].inclusive += s->weight;
		}
		acc[canon[s->frames[s->nr_frames - 1]]].self += s->weight;
	}
}

int profile__frame_totals(const struct profile *p, enum profile_kind kind,
			  struct frame_total **out, size_t *nr)
{
	size_t n = p->nr_frames ? p->nr_frames : 1, i, k = 0;
	struct frame_total *acc = calloc(n, sizeof(*acc));
	uint32_t *canon = calloc(n, sizeof(*canon));
	size_t *seen = calloc(n, sizeof(*seen));
	int err = -ENOMEM;

	if (!acc || !canon || !seen)
		goto out;
	err = canon_ids(p, canon);
	if (err)
		goto out;
	accumulate(p, kind, canon, acc, seen);
	/* keep frames that occur in a stack of @kind (even with zero weight) */
	for (i = 0; i < p->nr_frames; i++) {
		if (seen[i])
			acc[k++] = acc[i];
	}
	qsort_r(acc, k, sizeof(*acc), total_cmp_r, (void *)p);
	*out = acc;
	*nr = k;
	acc = NULL;
out:
	free(acc);
	free(canon);
	free(seen);
	return err;
}

bool profile__hottest(const struct profile *p, enum profile_kind kind, uint32_t *frame,
		      double *pct)
{
	uint64_t total = profile__total(p, kind);
	struct frame_total *t;
	size_t nr;

	if (!total || profile__frame_totals(p, kind, &t, &nr) || !nr)
		return false;
	/* sorted by self desc, then name asc: the first is the hottest */
	if (frame)
		*frame = t[0].frame;
	if (pct)
		*pct = (double)t[0].self * 100.0 / (double)total;
	free(t);
	return true;
}
