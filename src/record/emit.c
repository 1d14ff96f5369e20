// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Turn aggregated stacks into folded lines: root frame, user frames, kernel frames _[k]. */
#include "record/emit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/collector.h"
#include "collect/locknames.h"
#include "analysis/profile.h"
#include "output/folded.h"
#include "record/reason.h"

#define EMIT_NAME_LEN 512
/* root + user frames + kernel frames, each at most HC_MAX_STACK_DEPTH (127) */
/* root, user, kernel, reason, "--", waker kernel and user frames */
#define EMIT_MAX_FRAMES (4 + 4 * 128)

struct emit_ctx {
	struct symbolizer *sym;
	struct folded_sink *sink;
	const struct emit_opts *o;
	struct emit_stats *st;
	char (*names)[EMIT_NAME_LEN];
	const char *frames[EMIT_MAX_FRAMES];
};

static void name_root(struct emit_ctx *x, const struct stack_entry *e, char *buf)
{
	char comm[STACK_AGG_COMM_LEN + 1], pcomm[STACK_AGG_COMM_LEN + 1];

	memcpy(comm, e->key.comm, STACK_AGG_COMM_LEN);
	comm[STACK_AGG_COMM_LEN] = '\0';
	memcpy(pcomm, e->key.pcomm, STACK_AGG_COMM_LEN);
	pcomm[STACK_AGG_COMM_LEN] = '\0';
	/* the idle task and kernel threads may have no group-leader name */
	if (!pcomm[0])
		strcpy(pcomm, comm);
	switch (x->o->root) {
	case ROOT_PID:
		snprintf(buf, EMIT_NAME_LEN, "%s-%u", pcomm, e->key.tgid);
		break;
	case ROOT_THREAD:
		snprintf(buf, EMIT_NAME_LEN, "%s-%u", comm, e->key.pid);
		break;
	default:
		snprintf(buf, EMIT_NAME_LEN, "%s", pcomm);
		break;
	}
}

static void count_flags(struct emit_ctx *x, unsigned int flags)
{
	x->st->frames++;
	if (flags & SYM_F_UNKNOWN)
		x->st->frames_unknown++;
}


/* User frames [@w, @w + nu frames) named into x->names from slot @n, root first. */
static size_t name_user(struct emit_ctx *x, const uint64_t *w, size_t nu, size_t n,
			const char *suffix)
{
	unsigned int flags;
	struct sym_ufr f;
	char *buf;

	for (size_t i = nu; i-- > 0;) {
		buf = x->names[n];
		emit_ufr_unpack(w + i * EMIT_UFR_WORDS, &f);
		flags = 0;
		symbolizer__user_name(x->sym, &f, buf, EMIT_NAME_LEN - 8, &flags);
		if (flags & SYM_F_JIT)
			strcat(buf, "_[j]");
		strcat(buf, suffix);
		count_flags(x, flags);
		x->frames[n++] = buf;
	}
	return n;
}

/* Kernel ips [@w, @w + nk) from slot @n, root first; above the leaf, name the call site. */
static size_t name_kernel(struct emit_ctx *x, const uint64_t *w, size_t nk, size_t n,
			  const char *suffix)
{
	unsigned int flags;
	char *buf;

	for (size_t i = nk; i-- > 0;) {
		buf = x->names[n];
		flags = 0;
		symbolizer__kernel_name(x->sym, i ? w[i] - 1 : w[i], buf, EMIT_NAME_LEN - 8, &flags);
		strcat(buf, "_[k]");
		strcat(buf, suffix);
		count_flags(x, flags);
		x->frames[n++] = buf;
	}
	return n;
}

static bool bpf_frame(const char *name)
{
	return !strncmp(name, "bpf_prog_", 9) || !strncmp(name, "bpf_trace_run", 13) ||
	       !strncmp(name, "__bpf_trace_", 12) || !strncmp(name, "__traceiter_", 12);
}

/* The outermost frame of an interrupt or softirq entry on a waker's kernel stack. */
static bool interrupt_frame(const char *name)
{
	return strstr(name, "asm_sysvec_") || strstr(name, "asm_common_interrupt") ||
	       strstr(name, "do_softirq") || strstr(name, "handle_softirqs");
}

/*
 * Waker frames after "--", FlameGraph's wakeup convention: leaf first, so
 * the waker's outermost frame tops the flame. Woken from an interrupt, the
 * interrupted task's user stack is unrelated and left out.
 */
static size_t name_waker(struct emit_ctx *x, const uint64_t *w, size_t wk, size_t wu_frames,
			 size_t n)
{
	size_t k;

	x->frames[n++] = "--";
	k = name_kernel(x, w, wk, n, "_[w]");
	/* name_kernel wrote root first; the waker part reads leaf first */
	for (size_t a = n, b = k; a + 1 < b; a++, b--) {
		const char *t = x->frames[a];

		x->frames[a] = x->frames[b - 1];
		x->frames[b - 1] = t;
	}
	/* the program's own frames (bpf_prog_*, bpf_trace_run*) are not the waker's */
	while (n < k && bpf_frame(x->frames[n]))
		memmove(&x->frames[n], &x->frames[n + 1], (--k - n) * sizeof(x->frames[0]));
	/* from an interrupt: stop at its entry, the rest belongs to the interrupted task */
	for (size_t i = n; i < k; i++)
		if (interrupt_frame(x->frames[i]))
			return i + 1;
	n = k;
	for (size_t i = 0; i < wu_frames; i++) {
		unsigned int flags = 0;
		struct sym_ufr f;
		char *buf = x->names[n];

		emit_ufr_unpack(w + wk + i * EMIT_UFR_WORDS, &f);
		symbolizer__user_name(x->sym, &f, buf, EMIT_NAME_LEN - 8, &flags);
		strcat(buf, "_[w]");
		count_flags(x, flags);
		x->frames[n++] = buf;
	}
	return n;
}

/* Folded counts are integers: samples, or microseconds (rounded) when time is involved. */
static uint64_t emit_weight(const struct emit_opts *o, const struct stack_entry *e)
{
	if (e->key.kind == SAMPLE_ONCPU)
		return o->mixed ? (e->weight * o->period_ns + 500) / 1000 : e->weight;
	return (e->weight + 500) / 1000;
}

/* Frames of @e into x->frames, root first; returns how many or -errno. */
static int build_frames(struct emit_ctx *x, const struct stack_entry *e)
{
	bool offcpu = e->key.kind == SAMPLE_OFFCPU, shortb = offcpu && e->key.aux2 == EMIT_AUX2_SHORT;
	uint32_t waker = e->key.aux2 & EMIT_AUX2_WAKER_MASK;
	size_t wk = offcpu && !shortb ? waker >> 16 : 0;
	size_t wu = offcpu && !shortb ? waker & 0xffff : 0;
	size_t nk = e->key.nr_kernel, n = 0, nu;
	char *buf;

	if (wk + wu > e->key.nr_user)
		return -EINVAL;
	nu = (e->key.nr_user - wk - wu) / EMIT_UFR_WORDS;
	if (nk + nu + wk + wu / EMIT_UFR_WORDS + 4 > EMIT_MAX_FRAMES)
		return -E2BIG;
	name_root(x, e, x->names[n]);
	x->frames[n] = x->names[n];
	n++;
	/* the walk stopped at the depth limit: the outermost frames are missing */
	if (!shortb && (e->key.aux2 & EMIT_AUX2_TRUNC))
		x->frames[n++] = "[truncated]";
	/* root -> leaf: outermost user frame first, kernel leaf last */
	n = name_user(x, e->words + nk, nu, n, "");
	n = name_kernel(x, e->words, nk, n, "");
	/* stacks taken in a tracepoint start in the program itself: not the task's frames */
	while (n > 1 && bpf_frame(x->frames[n - 1]))
		n--;
	if (e->key.kind == SAMPLE_RUNQ) {
		x->frames[n++] = "[runq]";
	} else if (e->key.kind == SAMPLE_LOCK) {
		const struct lock_ident *li = x->o->locknames ?
			locknames__get(x->o->locknames, e->key.aux) : NULL;

		buf = x->names[n];
		snprintf(buf, EMIT_NAME_LEN, "[lock %s]", li ? li->label : "?");
		x->frames[n++] = buf;
	} else if (offcpu) {
		buf = x->names[n];
		snprintf(buf, EMIT_NAME_LEN, "[%s]",
			 shortb ? "short blocks" : offcpu_reason_name(e->key.aux));
		x->frames[n++] = buf;
		if (wk || wu)
			n = name_waker(x, e->words + nk + nu * EMIT_UFR_WORDS, wk,
				       wu / EMIT_UFR_WORDS, n);
	}
	return n;
}

static int emit_one(const struct stack_entry *e, void *arg)
{
	struct emit_ctx *x = arg;
	uint64_t weight = emit_weight(x->o, e);
	int n;

	if (!weight)
		return 0;	/* under a microsecond in total: nothing to draw */
	n = build_frames(x, e);
	if (n < 0)
		return n;
	return folded_sink__add(x->sink, x->frames, n, weight);
}

int emit_stack_text(const struct stack_entry *e, struct symbolizer *sym,
		    const struct emit_opts *o, char *buf, size_t len)
{
	struct emit_stats st;
	struct emit_ctx x = { .sym = sym, .o = o, .st = &st };
	size_t off = 0;
	int n;

	x.names = malloc(sizeof(*x.names) * EMIT_MAX_FRAMES);
	if (!x.names)
		return -ENOMEM;
	n = build_frames(&x, e);
	buf[0] = '\0';
	for (int i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? ";" : "", x.frames[i]);
	free(x.names);
	return n < 0 ? n : 0;
}

int emit_folded(const struct stack_agg *agg, struct symbolizer *sym, const struct emit_opts *o,
		FILE *out, struct emit_stats *st)
{
	struct emit_ctx x = { .sym = sym, .o = o, .st = st };
	int err;

	memset(st, 0, sizeof(*st));
	x.names = malloc(sizeof(*x.names) * EMIT_MAX_FRAMES);
	x.sink = folded_sink__new();
	if (!x.names || !x.sink) {
		err = -ENOMEM;
		goto out;
	}
	err = stack_agg__for_each(agg, emit_one, &x);
	if (err)
		goto out;
	err = folded_sink__write(x.sink, out);
	st->lines = folded_sink__nr_lines(x.sink);
	st->total = folded_sink__total(x.sink);
out:
	folded_sink__free(x.sink);
	free(x.names);
	return err;
}

struct profile_ctx {
	struct emit_ctx x;
	struct profile *p;
	struct profile_frame_in *fin;
};

/* "name_[k]_[w]" -> name + FRAME_F_* flags (suffixes as folded writes them). */
static void frame_in(const char *text, char *name, size_t len, struct profile_frame_in *f)
{
	static const struct {
		const char *sfx;
		unsigned int flag;
	} sfx[] = { { "_[w]", FRAME_F_WAKER }, { "_[k]", FRAME_F_KERNEL }, { "_[j]", FRAME_F_JIT } };
	size_t n = strlen(text);
	bool again = true;

	snprintf(name, len, "%s", text);
	n = strlen(name);
	f->flags = 0;
	while (again) {
		again = false;
		for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
			size_t k = strlen(sfx[i].sfx);

			if (n > k && !strcmp(name + n - k, sfx[i].sfx)) {
				name[n -= k] = '\0';
				f->flags |= sfx[i].flag;
				again = true;
			}
		}
	}
	if (!strcmp(name, "[unknown]") || strstr(name, "+0x"))
		f->flags |= FRAME_F_UNKNOWN;
	f->name = name;
	f->module = NULL;
	f->build_id = NULL;
}

static enum profile_kind profile_kind_of(unsigned int kind)
{
	switch (kind) {
	case SAMPLE_OFFCPU:
		return PROFILE_KIND_OFFCPU;
	case SAMPLE_RUNQ:
		return PROFILE_KIND_RUNQ;
	case SAMPLE_LOCK:
		return PROFILE_KIND_LOCK;
	default:
		return PROFILE_KIND_ONCPU;
	}
}

static int profile_one(const struct stack_entry *e, void *arg)
{
	struct profile_ctx *pc = arg;
	struct profile_stack_in in = { 0 };
	char comm[STACK_AGG_COMM_LEN + 1];
	char (*names)[EMIT_NAME_LEN] = pc->x.names + EMIT_MAX_FRAMES;
	int n = build_frames(&pc->x, e);

	if (n < 0)
		return n;
	if (!e->weight)
		return 0;
	for (int i = 0; i < n; i++)
		frame_in(pc->x.frames[i], names[i], EMIT_NAME_LEN, &pc->fin[i]);
	memcpy(comm, e->key.pcomm[0] ? e->key.pcomm : e->key.comm, STACK_AGG_COMM_LEN);
	comm[STACK_AGG_COMM_LEN] = '\0';
	in.frames = pc->fin;
	in.nr_frames = n;
	in.weight = e->weight;
	in.kind = profile_kind_of(e->key.kind);
	in.pid = e->key.tgid;
	in.tid = e->key.pid;
	in.comm = comm;
	if (e->key.kind == SAMPLE_OFFCPU)
		in.reason = e->key.aux2 == EMIT_AUX2_SHORT ? "short blocks" :
			    offcpu_reason_name(e->key.aux);
	return profile__add(pc->p, &in);
}

int emit_profile(const struct stack_agg *agg, struct symbolizer *sym, const struct emit_opts *o,
		 struct profile *p)
{
	struct emit_stats st;
	struct profile_ctx pc = { .x = { .sym = sym, .o = o, .st = &st }, .p = p };
	int err;

	/* names for build_frames, then as many for the suffix-stripped copies */
	pc.x.names = malloc(sizeof(*pc.x.names) * EMIT_MAX_FRAMES * 2);
	pc.fin = calloc(EMIT_MAX_FRAMES, sizeof(*pc.fin));
	if (!pc.x.names || !pc.fin) {
		err = -ENOMEM;
		goto out;
	}
	profile__set_period_ns(p, o->period_ns);
	err = stack_agg__for_each(agg, profile_one, &pc);
out:
	free(pc.x.names);
	free(pc.fin);
	return err;
}
