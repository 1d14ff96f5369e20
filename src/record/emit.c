// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Aggregated stacks -> the profile model: root frame, user frames (object,
 * offset, build ID), kernel frames (address), wait frames, waker frames,
 * with their flags as data. Folded text is written from the model.
 */
#include "record/emit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "abi/common.h"

#include "collect/collector.h"
#include "collect/locknames.h"
#include "analysis/profile.h"
#include "output/folded.h"
#include "record/labels.h"
#include "record/reason.h"
#include "record/wakers.h"
#include "sym/objtab.h"
#include "sym/srcline.h"

/* stack keys carry the collectors' kinds, which are the BPF wire kinds: one mapping to the model */
_Static_assert((int)SAMPLE_ONCPU == (int)HC_KIND_ONCPU && (int)SAMPLE_OFFCPU == (int)HC_KIND_OFFCPU &&
	       (int)SAMPLE_RUNQ == (int)HC_KIND_RUNQ && (int)SAMPLE_LOCK == (int)HC_KIND_LOCK,
	       "profile_kind_from_abi() maps stack_key.kind");

#define EMIT_NAME_LEN 512
#define EMIT_BID_LEN 41		/* a SHA-1 GNU build ID in hex, NUL */
/* root, user, kernel, reason, "--", waker kernel and user frames, each at most 128 */
#define EMIT_MAX_FRAMES (4 + 4 * 128)

/* Frames are built as data (name, object, address, flags): no text round trip. */
struct emit_ctx {
	struct symbolizer *sym;
	const struct emit_opts *o;
	struct emit_stats *st;
	char (*names)[EMIT_NAME_LEN];
	char (*bids)[EMIT_BID_LEN];
	struct profile_line (*lines)[PROFILE_MAX_LINES];	/* o->srclines only */
	struct profile_frame_in fin[EMIT_MAX_FRAMES];
};

static void name_root(struct emit_ctx *x, const struct stack_entry *e, char *buf)
{
	char comm[STACK_AGG_COMM_LEN + 1], pcomm[STACK_AGG_COMM_LEN + 1];

	memcpy(comm, e->key.comm, STACK_AGG_COMM_LEN);
	comm[STACK_AGG_COMM_LEN] = '\0';
	memcpy(pcomm, e->key.pcomm, STACK_AGG_COMM_LEN);
	pcomm[STACK_AGG_COMM_LEN] = '\0';
	const char *label = x->o->root_label ? labels__get(x->o->labels, e->key.tgid) : NULL;

	/* the idle task and kernel threads may have no group-leader name */
	if (!pcomm[0])
		strcpy(pcomm, comm);
	switch (x->o->root) {
	case ROOT_PID:
		snprintf(buf, EMIT_NAME_LEN, "%s-%u", label ? label : pcomm, e->key.tgid);
		break;
	case ROOT_THREAD:
		/* the command line names the process, the TID the thread */
		snprintf(buf, EMIT_NAME_LEN, "%s-%u", label ? label : comm, e->key.pid);
		break;
	default:
		snprintf(buf, EMIT_NAME_LEN, "%s", label ? label : pcomm);
		break;
	}
}

/* A frame that is only a label ("[runq]", "--"): no object, no address. */
static size_t label(struct emit_ctx *x, size_t n, const char *name)
{
	x->fin[n] = (struct profile_frame_in){ .name = name };
	return n + 1;
}

static void count_flags(struct emit_ctx *x, unsigned int sym_flags)
{
	x->st->frames++;
	if (sym_flags & SYM_F_UNKNOWN)
		x->st->frames_unknown++;
}

/* Source lines of named user frame @f (DWARF, where its object has some) into @fi. */
static void user_lines(struct emit_ctx *x, const struct sym_ufr *f, struct profile_frame_in *fi,
		       struct profile_line *lines)
{
	struct srcline_frame sf[PROFILE_MAX_LINES];
	int n = symbolizer__srcline(x->sym, f, sf, PROFILE_MAX_LINES);

	for (int i = 0; i < n; i++)
		lines[i] = (struct profile_line){ .func = sf[i].func, .file = sf[i].file,
						  .line = sf[i].line > 0 ? (uint32_t)sf[i].line : 0 };
	fi->lines = lines;
	fi->nr_lines = n > 0 ? (uint32_t)n : 0;
}

/* User frame @w into slot @n: name, and for a file object its path, build ID and offset. */
static void user_frame(struct emit_ctx *x, const uint64_t *w, size_t n, unsigned int flags)
{
	struct profile_frame_in *fi = &x->fin[n];
	struct objtab_info oi;
	unsigned int sf = 0;
	struct sym_ufr f;

	emit_ufr_unpack(w, &f);
	symbolizer__user_name(x->sym, &f, x->names[n], EMIT_NAME_LEN, &sf);
	count_flags(x, sf);
	*fi = (struct profile_frame_in){ .name = x->names[n], .flags = flags };
	if (sf & SYM_F_UNKNOWN)
		fi->flags |= FRAME_F_UNKNOWN;
	if (sf & SYM_F_PYTHON) {
		/* a Python function: its name holds its file; no native object */
		fi->flags |= FRAME_F_PYTHON;
		fi->line = (uint32_t)symbolizer__python_line(x->sym, &f);
		return;
	}
	if (sf & SYM_F_JIT) {
		/* a perf-map address is the raw ip of one process: no object to map */
		fi->flags |= FRAME_F_JIT;
		return;
	}
	if (!symbolizer__object(x->sym, &f, &oi)) {
		memcpy(x->bids[n], oi.build_id, EMIT_BID_LEN);
		fi->module = oi.path;
		fi->build_id = x->bids[n][0] ? x->bids[n] : NULL;
		fi->addr = f.addr;
		fi->map_off = oi.seg_start;
		fi->map_limit = oi.seg_end;
	}
	if (x->lines && !(sf & SYM_F_UNKNOWN))
		user_lines(x, &f, fi, x->lines[n]);
}

/* User frames [@w, @w + nu frames) from slot @n, root first. */
static size_t name_user(struct emit_ctx *x, const uint64_t *w, size_t nu, size_t n,
			unsigned int flags)
{
	for (size_t i = nu; i-- > 0;)
		user_frame(x, w + i * EMIT_UFR_WORDS, n++, flags);
	return n;
}

/* Kernel ips [@w, @w + nk) from slot @n, root first; above the leaf, name the call site. */
static size_t name_kernel(struct emit_ctx *x, const uint64_t *w, size_t nk, size_t n,
			  unsigned int flags)
{
	unsigned int sf;

	for (size_t i = nk; i-- > 0;) {
		uint64_t ip = i ? w[i] - 1 : w[i];

		sf = 0;
		symbolizer__kernel_name(x->sym, ip, x->names[n], EMIT_NAME_LEN, &sf);
		count_flags(x, sf);
		x->fin[n] = (struct profile_frame_in){ .name = x->names[n], .addr = ip,
						       .flags = FRAME_F_KERNEL | flags };
		if (sf & SYM_F_UNKNOWN)
			x->fin[n].flags |= FRAME_F_UNKNOWN;
		n++;
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

	n = label(x, n, "--");
	/* wakers.h: the waker's id words, then its kernel ips */
	k = name_kernel(x, w + WAKER_ID_WORDS, wk - WAKER_ID_WORDS, n, FRAME_F_WAKER);
	/* name_kernel wrote root first; the waker part reads leaf first */
	for (size_t a = n, b = k; a + 1 < b; a++, b--) {
		struct profile_frame_in t = x->fin[a];

		x->fin[a] = x->fin[b - 1];
		x->fin[b - 1] = t;
	}
	/* the program's own frames (bpf_prog_*, bpf_trace_run*) are not the waker's */
	while (n < k && bpf_frame(x->fin[n].name))
		memmove(&x->fin[n], &x->fin[n + 1], (--k - n) * sizeof(x->fin[0]));
	/* from an interrupt: stop at its entry, the rest belongs to the interrupted task */
	for (size_t i = n; i < k; i++)
		if (interrupt_frame(x->fin[i].name))
			return i + 1;
	n = k;
	for (size_t i = 0; i < wu_frames; i++)
		user_frame(x, w + wk + i * EMIT_UFR_WORDS, n++, FRAME_F_WAKER);
	/* outermost: who woke it (a task, not an interrupt) */
	snprintf(x->names[n], EMIT_NAME_LEN, "[waker %.16s-%u pid %u]", (const char *)&w[1],
		 (uint32_t)w[0], (uint32_t)(w[0] >> 32));
	x->fin[n] = (struct profile_frame_in){ .name = x->names[n], .flags = FRAME_F_WAKER };
	return n + 1;
}

/* The last frame of a wait stack: why it waited. */
static size_t wait_frame(struct emit_ctx *x, const struct stack_entry *e, size_t n, bool shortb)
{
	char *buf = x->names[n];

	if (e->key.kind == SAMPLE_RUNQ)
		return label(x, n, e->key.aux == RUNQ_AUX_CPU_WAIT ? "[cpu wait]" : "[runq]");
	if (e->key.kind == SAMPLE_LOCK) {
		const struct lock_ident *li = x->o->locknames ?
			locknames__get(x->o->locknames, e->key.aux) : NULL;

		snprintf(buf, EMIT_NAME_LEN, "[lock %s]", li ? li->label : "?");
		return label(x, n, buf);
	}
	snprintf(buf, EMIT_NAME_LEN, "[%s]", shortb ? "short blocks" : offcpu_reason_name(e->key.aux));
	return label(x, n, buf);
}

/* Frames of @e into x->fin, root first; returns how many or -errno. */
static int build_frames(struct emit_ctx *x, const struct stack_entry *e)
{
	bool offcpu = e->key.kind == SAMPLE_OFFCPU, shortb = offcpu && e->key.aux2 == EMIT_AUX2_SHORT;
	uint32_t waker = e->key.aux2 & EMIT_AUX2_WAKER_MASK;
	size_t wk = offcpu && !shortb ? waker >> 16 : 0;
	size_t wu = offcpu && !shortb ? waker & 0xffff : 0;
	size_t nk = e->key.nr_kernel, n = 0, nu;

	if (wk + wu > e->key.nr_user)
		return -EINVAL;
	nu = (e->key.nr_user - wk - wu) / EMIT_UFR_WORDS;
	if (nk + nu + wk + wu / EMIT_UFR_WORDS + 4 > EMIT_MAX_FRAMES)
		return -E2BIG;
	name_root(x, e, x->names[n]);
	n = label(x, n, x->names[n]);
	/* the walk stopped at the depth limit: the outermost frames are missing */
	if (!shortb && (e->key.aux2 & EMIT_AUX2_TRUNC))
		n = label(x, n, "[truncated]");
	if (!shortb && (e->key.aux2 & EMIT_AUX2_CUT_TABLE))
		n = label(x, n, "[walk cut: no CFI table yet]");
	else if (!shortb && (e->key.aux2 & EMIT_AUX2_CUT_UNMAPPED))
		n = label(x, n, "[walk cut: code mapped since]");
	else if (!shortb && (e->key.aux2 & EMIT_AUX2_FP_WALK))
		n = label(x, n, "[frame-pointer walk: no CFI table yet]");
	/* root -> leaf: outermost user frame first, kernel leaf last */
	n = name_user(x, e->words + nk, nu, n, 0);
	n = name_kernel(x, e->words, nk, n, 0);
	/* stacks taken in a tracepoint start in the program itself: not the task's frames */
	while (n > 1 && bpf_frame(x->fin[n - 1].name))
		n--;
	if (e->key.kind != SAMPLE_ONCPU)
		n = wait_frame(x, e, n, shortb);
	if (offcpu && (wk || wu))
		n = name_waker(x, e->words + nk + nu * EMIT_UFR_WORDS, wk, wu / EMIT_UFR_WORDS, n);
	return n;
}

static void emit_ctx_free(struct emit_ctx *x)
{
	if (!x)
		return;
	free(x->names);
	free(x->bids);
	free(x->lines);
	free(x);
}

static int emit_ctx_init(struct emit_ctx **out, struct symbolizer *sym, const struct emit_opts *o,
			 struct emit_stats *st)
{
	struct emit_ctx *x = calloc(1, sizeof(*x));

	if (x) {
		x->names = malloc(sizeof(*x->names) * EMIT_MAX_FRAMES);
		x->bids = malloc(sizeof(*x->bids) * EMIT_MAX_FRAMES);
		if (o->srclines)
			x->lines = malloc(sizeof(*x->lines) * EMIT_MAX_FRAMES);
	}
	if (!x || !x->names || !x->bids || (o->srclines && !x->lines)) {
		emit_ctx_free(x);
		return -ENOMEM;
	}
	x->sym = sym;
	x->o = o;
	x->st = st;
	memset(st, 0, sizeof(*st));
	*out = x;
	return 0;
}

int emit_stack_text(const struct stack_entry *e, struct symbolizer *sym,
		    const struct emit_opts *o, char *buf, size_t len)
{
	struct emit_stats st;
	struct emit_ctx *x;
	size_t off = 0;
	int n, err = emit_ctx_init(&x, sym, o, &st);

	if (err)
		return err;
	n = build_frames(x, e);
	buf[0] = '\0';
	for (int i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s%s", i ? ";" : "", x->fin[i].name,
				profile_frame_suffix(x->fin[i].flags));
	emit_ctx_free(x);
	return n < 0 ? n : 0;
}

/* @e with @weight into @p; *@index: its stack. */
static int profile_add_entry(struct emit_ctx *x, struct profile *p, const struct stack_entry *e,
			     uint64_t weight, size_t *index)
{
	struct profile_stack_in in = { 0 };
	char comm[STACK_AGG_COMM_LEN + 1], thread[STACK_AGG_COMM_LEN + 1];
	int n, err;

	err = profile_kind_from_abi(e->key.kind, &in.kind);
	if (err)
		return err;
	n = build_frames(x, e);
	if (n < 0)
		return n;
	memcpy(comm, e->key.pcomm[0] ? e->key.pcomm : e->key.comm, STACK_AGG_COMM_LEN);
	comm[STACK_AGG_COMM_LEN] = '\0';
	memcpy(thread, e->key.comm, STACK_AGG_COMM_LEN);
	thread[STACK_AGG_COMM_LEN] = '\0';
	in.thread = thread;
	in.frames = x->fin;
	in.nr_frames = n;
	in.weight = weight;
	in.pid = e->key.tgid;
	in.tid = e->key.pid;
	in.comm = comm;
	in.cmdline = labels__get(x->o->labels, e->key.tgid);
	in.cgroup = labels__cgroup(x->o->labels, e->key.tgid);
	if (e->key.kind == SAMPLE_OFFCPU)
		in.reason = e->key.aux2 == EMIT_AUX2_SHORT ? "short blocks" :
			    offcpu_reason_name(e->key.aux);
	err = profile__add_at(p, &in, index);
	if (!err)
		x->st->lines++;
	if (!err && __builtin_add_overflow(x->st->total, weight, &x->st->total))
		x->st->total = UINT64_MAX;
	return err;
}

struct profile_ctx {
	struct emit_ctx *x;
	struct profile *p;
};

static int profile_one(const struct stack_entry *e, void *arg)
{
	struct profile_ctx *pc = arg;
	size_t index;

	if (!e->weight)
		return 0;
	return profile_add_entry(pc->x, pc->p, e, e->weight, &index);
}

struct emit_namer {
	struct emit_ctx *x;
	struct emit_opts o;
	struct emit_stats st;
};

int emit_namer__new(struct emit_namer **out, struct symbolizer *sym, const struct emit_opts *o)
{
	struct emit_namer *n = calloc(1, sizeof(*n));
	int err;

	if (!n)
		return -ENOMEM;
	n->o = *o;
	err = emit_ctx_init(&n->x, sym, &n->o, &n->st);
	if (err) {
		free(n);
		return err;
	}
	*out = n;
	return 0;
}

void emit_namer__free(struct emit_namer *n)
{
	if (!n)
		return;
	emit_ctx_free(n->x);
	free(n);
}

int emit_namer__add(struct emit_namer *n, const struct stack_entry *e, uint64_t weight,
		    struct profile *p, size_t *index)
{
	return profile_add_entry(n->x, p, e, weight, index);
}

int emit_profile_stats(const struct stack_agg *agg, struct symbolizer *sym,
			      const struct emit_opts *o, struct profile *p, struct emit_stats *st)
{
	struct profile_ctx pc = { .p = p };
	int err = emit_ctx_init(&pc.x, sym, o, st);

	if (err)
		return err;
	profile__set_period_ns(p, o->period_ns);
	profile__set_event(p, o->event, o->event_period);
	profile__declare_kinds(p, o->kinds);
	if (o->start_ns || o->duration_ns)
		profile__set_time(p, o->start_ns, o->duration_ns);
	err = stack_agg__for_each(agg, profile_one, &pc);
	emit_ctx_free(pc.x);
	return err;
}

int emit_profile(const struct stack_agg *agg, struct symbolizer *sym, const struct emit_opts *o,
		 struct profile *p)
{
	struct emit_stats st;

	return emit_profile_stats(agg, sym, o, p, &st);
}

int emit_folded(const struct stack_agg *agg, struct symbolizer *sym, const struct emit_opts *o,
		FILE *out, struct emit_stats *st)
{
	struct profile *p = profile__new();
	int err = p ? emit_profile_stats(agg, sym, o, p, st) : -ENOMEM;

	/* one writer for every folded file: the header says kind and unit */
	if (!err)
		err = profile__write_folded(p, out);
	profile__free(p);
	return err;
}
