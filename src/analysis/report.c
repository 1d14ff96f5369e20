// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Report numbers: per-frame totals in two orders, per-process totals, the
 * hottest frame and the stop rule, and idle-frame (contamination) detection.
 * The text and JSON writers are in report_write.c.
 */
#include "analysis/report.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* the frame record --wakers puts between a blocked stack and its waker's (emit.c) */

/*
 * Frames where a thread waits instead of working: user-space wrappers, their
 * kernel entry points and the kernel idle loop. fnmatch(3) patterns; the
 * leading '*' forms catch __x64_sys_*, glibc's __GI_* aliases and namespaced
 * names (std::sys::unix::futex::futex_wait). lock waits (__lll_lock_wait) are
 * deliberately absent: contention is a finding, not noise.
 */
static const char *const idle_patterns[] = {
	/* yielding */
	"sched_yield", "__sched_yield", "*sys_sched_yield", "do_sched_yield",
	"runtime.osyield", "std::thread::yield_now",
	/* futex waits (thread pools parked on a condition) */
	"*futex_wait*", "*futex_abstimed_wait*", "*sys_futex", "do_futex", "runtime.futex",
	"runtime.notesleep", "Unsafe_Park",
	"*pthread_cond_wait*", "*pthread_cond_timedwait*", "*pthread_cond_clockwait*",
	/* event loops */
	"*epoll_wait", "*epoll_pwait*", "ep_poll", "runtime.netpoll", "runtime.epollwait",
	"poll", "__poll", "*___poll", "ppoll", "__ppoll*", "*sys_poll", "*sys_ppoll",
	"do_sys_poll", "do_poll", "do_poll.*",
	"select", "__select", "*___select", "pselect*", "__pselect*", "*sys_select",
	"*sys_pselect6", "do_select", "core_sys_select",
	/* sleeping */
	"nanosleep", "__nanosleep", "*___nanosleep", "clock_nanosleep*", "__clock_nanosleep*",
	"*sys_nanosleep", "*sys_clock_nanosleep", "hrtimer_nanosleep", "do_nanosleep",
	"usleep", "sleep", "runtime.usleep",
	/* the kernel idle loop (swapper), recorded with --idle */
	"default_idle*", "native_safe_halt", "safe_halt", "arch_cpu_idle*", "cpuidle_enter*",
	"intel_idle*", "acpi_idle*", "mwait_idle*", "poll_idle", "cpu_idle*", "do_idle",
};

bool report_is_idle_frame(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(idle_patterns) / sizeof(idle_patterns[0]); i++) {
		if (!fnmatch(idle_patterns[i], name, 0))
			return true;
	}
	return false;
}

/*
 * The idle-looking frame of @s, or -1: the leaf, or when the leaf is in the
 * kernel, the kernel frames below it down to the first user frame (a futex
 * wait ends in __x64_sys_futex_[k] above futex_wait). The root (the process
 * name) is never considered.
 */
static int64_t idle_frame(const struct profile *p, const struct profile_stack *s)
{
	const struct profile_frame *f;
	size_t j = s->nr_frames;

	while (j-- > (s->nr_frames > 1 ? 1u : 0u)) {
		f = profile__frame(p, s->frames[j]);
		if (report_is_idle_frame(f->name))
			return s->frames[j];
		if (!(f->flags & FRAME_F_KERNEL))
			break;
	}
	return -1;
}

static int incl_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct frame_total *a = pa, *b = pb;

	if (a->inclusive != b->inclusive)
		return a->inclusive > b->inclusive ? -1 : 1;
	return profile_frame_cmp(ctx, a->frame, b->frame);
}

/* report_proc and report_idle share a layout: sort either by weight desc, name asc */
static int weight_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct report_proc *a = pa, *b = pb;

	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	return profile_frame_cmp(ctx, a->frame, b->frame);
}

_Static_assert(sizeof(struct report_proc) == sizeof(struct report_idle),
	       "weight_cmp sorts both");

/* Collect the non-zero entries of @acc (indexed by frame id) into a sorted array. */
static int collect(const struct profile *p, const uint64_t *acc, struct report_proc **out,
		   size_t *nr)
{
	size_t n = profile__nr_frames(p), i, k = 0;
	struct report_proc *v = calloc(n ? n : 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (acc[i])
			v[k++] = (struct report_proc){ (uint32_t)i, acc[i] };
	}
	qsort_r(v, k, sizeof(*v), weight_cmp, (void *)p);
	*out = v;
	*nr = k;
	return 0;
}

/* Per-process totals (root frame) and, for on-CPU weights, idle-frame weights. */
static int stack_sums(struct report *r)
{
	size_t n = profile__nr_frames(r->p), i;
	uint64_t *roots = calloc(n ? n : 1, sizeof(*roots));
	uint64_t *idle = calloc(n ? n : 1, sizeof(*idle));
	const struct profile_stack *s;
	int64_t f;
	int err = -ENOMEM;

	if (!roots || !idle)
		goto out;
	for (i = 0; i < profile__nr_stacks(r->p); i++) {
		s = profile__stack(r->p, i);
		if (s->kind != r->o.kind)
			continue;
		roots[s->frames[0]] += s->weight;
		/* off-CPU and wait kinds are all waiting by definition: no contamination */
		f = r->o.kind == PROFILE_KIND_ONCPU ? idle_frame(r->p, s) : -1;
		if (f >= 0) {
			idle[f] += s->weight;
			r->idle_weight += s->weight;
		}
	}
	err = collect(r->p, roots, (struct report_proc **)&r->procs, &r->nr_procs);
	if (!err)
		err = collect(r->p, idle, (struct report_proc **)&r->idle, &r->nr_idle);
out:
	free(roots);
	free(idle);
	return err;
}

static int id_cmp(const void *a, const void *b, void *p)
{
	return profile_frame_cmp(p, *(const uint32_t *)a, *(const uint32_t *)b);
}

static int self_cmp(const void *pa, const void *pb, void *p)
{
	const struct frame_total *a = pa, *b = pb;

	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	return profile_frame_cmp(p, a->frame, b->frame);
}

/*
 * pos[frame id]: the row of r->by_self holding it (frames of equal name and
 * flags share a row), SIZE_MAX for none. malloc'd; NULL on ENOMEM.
 */
static size_t *self_rows(const struct report *r)
{
	size_t n = profile__nr_frames(r->p), i, j, k, row;
	size_t *pos = malloc((n ? n : 1) * sizeof(*pos));
	uint32_t *ids = malloc((n ? n : 1) * sizeof(*ids));

	if (!pos || !ids) {
		free(pos);
		free(ids);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		pos[i] = SIZE_MAX;
		ids[i] = (uint32_t)i;
	}
	for (i = 0; i < r->nr_frames; i++)
		pos[r->by_self[i].frame] = i;
	qsort_r(ids, n, sizeof(*ids), id_cmp, (void *)r->p);
	for (i = 0; i < n; i = j) {
		row = SIZE_MAX;
		for (j = i; j < n && !profile_frame_cmp(r->p, ids[i], ids[j]); j++)
			if (pos[ids[j]] != SIZE_MAX)
				row = pos[ids[j]];
		for (k = i; k < j; k++)
			pos[ids[k]] = row;
	}
	free(ids);
	return pos;
}

/* Move the self weight of stacks that end in waker frames to profile__self_frame(). */
static int wakers_self_to_blocked(struct report *r)
{
	const struct profile_stack *s;
	size_t i, j, *pos = NULL, from, to;

	for (i = 0; i < profile__nr_stacks(r->p); i++) {
		s = profile__stack(r->p, i);
		if (s->kind != r->o.kind || !s->nr_frames)
			continue;
		j = profile__self_frame(r->p, s->frames, s->nr_frames);
		if (j == s->nr_frames - 1)
			continue;
		if (!pos && !(pos = self_rows(r)))
			return -ENOMEM;
		from = pos[s->frames[s->nr_frames - 1]];
		to = pos[s->frames[j]];
		if (from == SIZE_MAX || to == SIZE_MAX)
			continue;	/* cannot be: both are on a stack of this kind */
		r->by_self[from].self -= s->weight;
		r->by_self[to].self += s->weight;
	}
	if (pos)
		qsort_r(r->by_self, r->nr_frames, sizeof(*r->by_self), self_cmp, (void *)r->p);
	free(pos);
	return 0;
}

int report__new(const struct profile *p, const struct report_opts *o, struct report **out)
{
	struct report *r = calloc(1, sizeof(*r));
	size_t sz;
	int err;

	if (!r)
		return -ENOMEM;
	r->p = p;
	r->o = *o;
	r->total = profile__total(p, o->kind);
	err = profile__frame_totals(p, o->kind, &r->by_self, &r->nr_frames);
	if (!err)
		err = wakers_self_to_blocked(r);
	if (err)
		goto err;
	sz = (r->nr_frames ? r->nr_frames : 1) * sizeof(*r->by_incl);
	r->by_incl = malloc(sz);
	if (!r->by_incl) {
		err = -ENOMEM;
		goto err;
	}
	memcpy(r->by_incl, r->by_self, r->nr_frames * sizeof(*r->by_incl));
	qsort_r(r->by_incl, r->nr_frames, sizeof(*r->by_incl), incl_cmp, (void *)p);
	err = stack_sums(r);
	if (err)
		goto err;
	/* by self desc, name asc: the first is the hottest (never a waker frame) */
	r->has_hottest = r->total && r->nr_frames;
	if (r->has_hottest) {
		r->hottest_pct = (double)r->by_self[0].self * 100.0 / (double)r->total;
		r->flat = r->hottest_pct < REPORT_FLAT_PCT;
	}
	r->contaminated = r->total && (double)r->idle_weight * 100.0 / (double)r->total >
						   REPORT_IDLE_PCT;
	*out = r;
	return 0;
err:
	report__free(r);
	return err;
}

void report__free(struct report *r)
{
	if (!r)
		return;
	free(r->by_self);
	free(r->by_incl);
	free(r->procs);
	free(r->idle);
	free(r);
}

/* ERE metacharacters, escaped in frame names put into a suggested expression */
#define ERE_SPECIAL "\\^$.|?*+()[]{}"

char *report__idle_exclude(const struct report *r)
{
	/* whole frames only: a bare "poll" must not also drop napi_poll stacks */
	static const char head[] = "(^|;)(", tail[] = ")(_\\[[kjiw]\\])*(;|$)";
	size_t len = sizeof(head) + sizeof(tail), i;
	const char *name;
	char *buf, *b;

	if (!r->nr_idle)
		return NULL;
	for (i = 0; i < r->nr_idle; i++)
		len += 2 * strlen(profile__frame(r->p, r->idle[i].frame)->name) + 1;
	buf = malloc(len);
	if (!buf)
		return NULL;
	b = stpcpy(buf, head);
	for (i = 0; i < r->nr_idle; i++) {
		if (i)
			*b++ = '|';
		for (name = profile__frame(r->p, r->idle[i].frame)->name; *name; name++) {
			if (strchr(ERE_SPECIAL, *name))
				*b++ = '\\';
			*b++ = *name;
		}
	}
	strcpy(b, tail);
	return buf;
}
