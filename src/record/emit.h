/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Aggregated stacks -> named frames -> output. Stacks in stack_agg hold kernel
 * ips (one word each) then normalized user frames (two words each, see
 * emit_ufr_pack()), both leaf first.
 */
#ifndef HC_RECORD_EMIT_H
#define HC_RECORD_EMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "collect/opts.h"
#include "stack/stack_agg.h"
#include "sym/symbolizer.h"

#define EMIT_UFR_WORDS 2

static inline void emit_ufr_pack(const struct sym_ufr *f, uint64_t *w)
{
	w[0] = (uint64_t)f->tgid << 32 | f->obj;
	w[1] = f->addr;
}

static inline void emit_ufr_unpack(const uint64_t *w, struct sym_ufr *f)
{
	f->tgid = w[0] >> 32;
	f->obj = (uint32_t)w[0];
	f->addr = w[1];
}

/*
 * stack_key.aux2 of off-CPU stacks: EMIT_AUX2_SHORT for the per-thread sum of
 * short blocks; else (waker kernel words << 16 | waker user words), the
 * waker's stack stored after the blocked stack's words (and counted in
 * nr_user).
 */
#define EMIT_AUX2_SHORT 0x80000000u
/* any kind: the user stack hit the depth limit; "[truncated]" follows the root frame */
#define EMIT_AUX2_TRUNC 0x40000000u
/*
 * any kind: the user stack is cut where the unwinder was not ready for the
 * code (its CFI table not built or published yet: "[walk cut: no CFI table
 * yet]"), or at code mapped since its tables ("[walk cut: code mapped
 * since]"); the frame follows the root, where the missing callers would be
 */
#define EMIT_AUX2_CUT_TABLE 0x20000000u
#define EMIT_AUX2_CUT_UNMAPPED 0x10000000u
/*
 * any kind, with CFI on: the process had no tables yet, so its stack was
 * walked by frame pointer, which stops early in code built without them
 * (glibc): "[frame-pointer walk: no CFI table yet]" follows the root
 */
#define EMIT_AUX2_FP_WALK 0x08000000u
#define EMIT_AUX2_WAKER_MASK 0x07ffffffu	/* waker kernel words (< 2048) << 16 | user words */

struct emit_stats {
	uint64_t lines;		/* stacks added to the profile */
	uint64_t total;		/* sum of their weights (each in its kind's unit) */
	uint64_t frames_unknown;/* frames that had no symbol */
	uint64_t frames;	/* frames named */
};

struct locknames;
struct labels;

struct emit_opts {
	enum frame_root root;
	const struct labels *labels;	/* per tgid: command line, cgroup; NULL: none */
	bool root_label;	/* --label cmdline: the root is named by @labels' command line */
	const struct locknames *locknames;	/* names "[lock X]" frames; may be NULL */
	uint64_t period_ns;	/* on-CPU sample period */
	const char *event;	/* sampling event when not a clock (-e page-faults), or NULL */
	uint64_t event_period;	/* one sample = this many events */
	bool mixed;		/* on- and off-CPU together (the folded writer sees it itself) */
	unsigned int kinds;	/* profile kinds recorded (1u << kind), declared on the
				 * profile so an empty one says what it is; 0: by its stacks */
	uint64_t start_ns;	/* the recording's start, ns since the epoch; 0 unknown */
	uint64_t duration_ns;	/* and its length; 0 unknown */
	bool srclines;		/* user frames get their source lines and inline chain
				 * (DWARF; for pprof): costs a lookup per new address */
};

/*
 * emit_profile() then profile__write_folded(): a header per kind, on-CPU in
 * samples (nanoseconds of CPU in a hot/cold file), every time in
 * nanoseconds; off-CPU stacks end in a "[reason]" frame, short blocks are
 * "root;[short blocks]". 0 or -errno.
 */
int emit_folded(const struct stack_agg *agg, struct symbolizer *sym, const struct emit_opts *o,
		FILE *out, struct emit_stats *st);

struct profile;

/*
 * Name every stack in @agg into @p (created by the caller): frames with
 * flags (kernel, JIT, waker, unknown), objects (path, build ID) and
 * addresses (file offset of a user frame, kernel address; the call site
 * for every frame but the leaf), kinds in their own units (on-CPU samples,
 * nanoseconds otherwise), labels pid/tid/comm/reason; the period and times
 * from @o. 0 or -errno.
 */
int emit_profile(const struct stack_agg *agg, struct symbolizer *sym, const struct emit_opts *o,
		 struct profile *p);

/* The same, counting stacks and frames named into @st. */
int emit_profile_stats(const struct stack_agg *agg, struct symbolizer *sym,
		       const struct emit_opts *o, struct profile *p, struct emit_stats *st);

/*
 * One stack at a time into a profile, for naming while an interval runs
 * (session_name.c). @o is copied; @sym is used until emit_namer__free().
 */
struct emit_namer;
int emit_namer__new(struct emit_namer **out, struct symbolizer *sym, const struct emit_opts *o);
void emit_namer__free(struct emit_namer *n);	/* NULL is a no-op */
/* Name @e into @p with @weight (not e->weight); *@index gets the profile stack. 0 or -errno. */
int emit_namer__add(struct emit_namer *n, const struct stack_entry *e, uint64_t weight,
		    struct profile *p, size_t *index);

/*
 * One stack as folded text (frames joined by ';', no count) into @buf,
 * truncated at @len. 0 or -errno.
 */
int emit_stack_text(const struct stack_entry *e, struct symbolizer *sym,
		    const struct emit_opts *o, char *buf, size_t len);

#endif /* HC_RECORD_EMIT_H */
