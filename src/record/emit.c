// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Turn aggregated stacks into folded lines: root frame, user frames, kernel frames _[k]. */
#include "record/emit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/collector.h"
#include "output/folded.h"
#include "record/reason.h"

#define EMIT_NAME_LEN 512
/* root + user frames + kernel frames, each at most HC_MAX_STACK_DEPTH (127) */
#define EMIT_MAX_FRAMES (2 + 2 * 128)	/* + a reason frame */

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

/* Folded counts are integers: samples, or microseconds (rounded) when time is involved. */
static uint64_t emit_weight(const struct emit_opts *o, const struct stack_entry *e)
{
	if (e->key.kind == SAMPLE_ONCPU)
		return o->mixed ? (e->weight * o->period_ns + 500) / 1000 : e->weight;
	return (e->weight + 500) / 1000;
}

static int emit_one(const struct stack_entry *e, void *arg)
{
	struct emit_ctx *x = arg;
	size_t nk = e->key.nr_kernel, nu = e->key.nr_user / EMIT_UFR_WORDS, n = 0;
	const uint64_t *uw = e->words + nk;
	unsigned int flags;
	struct sym_ufr f;
	uint64_t weight;
	char *buf;

	if (nk + nu + 2 > EMIT_MAX_FRAMES)
		return -E2BIG;
	name_root(x, e, x->names[n]);
	x->frames[n] = x->names[n];
	n++;
	/* root -> leaf: outermost user frame first, kernel leaf last */
	for (size_t i = nu; i-- > 0;) {
		buf = x->names[n];
		emit_ufr_unpack(uw + i * EMIT_UFR_WORDS, &f);
		flags = 0;
		symbolizer__user_name(x->sym, &f, buf, EMIT_NAME_LEN - 4, &flags);
		if (flags & SYM_F_JIT)
			strcat(buf, "_[j]");
		count_flags(x, flags);
		x->frames[n++] = buf;
	}
	for (size_t i = nk; i-- > 0;) {
		buf = x->names[n];
		flags = 0;
		/* as for user frames: above the leaf, name the call, not the return site */
		symbolizer__kernel_name(x->sym, i ? e->words[i] - 1 : e->words[i], buf,
					EMIT_NAME_LEN - 4, &flags);
		strcat(buf, "_[k]");
		count_flags(x, flags);
		x->frames[n++] = buf;
	}
	if (e->key.kind == SAMPLE_RUNQ) {
		x->frames[n++] = "[runq]";
	} else if (e->key.kind == SAMPLE_OFFCPU) {
		buf = x->names[n];
		snprintf(buf, EMIT_NAME_LEN, "[%s]",
			 e->key.aux2 ? "short blocks" : offcpu_reason_name(e->key.aux));
		x->frames[n++] = buf;
	}
	weight = emit_weight(x->o, e);
	if (!weight)
		return 0;	/* under a microsecond in total: nothing to draw */
	return folded_sink__add(x->sink, x->frames, n, weight);
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
