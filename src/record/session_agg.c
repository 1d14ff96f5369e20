// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A recording's samples into the aggregation: each record's kernel ips and
 * normalized user frames (Python's merged in) become a stack key and its
 * words; off-CPU blocks get their reason, their CPU wait and the waker's
 * stack that ended them; locks their lock's name. Split from session.c:
 * what a sample becomes, apart from how the run is set up and driven.
 */
#include "record/session_int.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "abi/locks.h"
#include "collect/locknames.h"
#include "collect/python.h"
#include "collect/python_stack.h"
#include "record/labels.h"
#include "record/reason.h"
#include "record/wakers.h"

/*
 * When the user stack of @v was on the CPU, at the latest: a block's stack
 * is read as it ends. UINT64_MAX when unknown (the waker's, a record
 * without time).
 */
static uint64_t stack_time(const struct sample_view *v)
{
	if (!v->time_ns || v->kind == SAMPLE_WAKER)
		return UINT64_MAX;
	if (v->kind == SAMPLE_OFFCPU || v->kind == SAMPLE_LOCK)
		return v->time_ns + v->weight;
	return v->time_ns;
}

/*
 * Kernel ips then normalized user frames (of @tgid) into @w; returns the word
 * count. *@cut: EMIT_AUX2_CUT_* if the user stack is known to be cut short.
 */
static size_t stack_words(struct session *s, uint32_t tgid, const struct sample_view *v,
			  uint64_t *w, uint16_t *nr_kernel, uint32_t *cut)
{
	struct sym_ufr f[SESSION_MAX_UFRAMES], merged[SESSION_MAX_UFRAMES], *uf = f;
	size_t n = 0, nu = v->nr_uips < SESSION_MAX_UFRAMES ? v->nr_uips : SESSION_MAX_UFRAMES, keep;
	size_t nn, np;

	for (size_t i = 0; i < v->nr_kips; i++)
		w[n++] = v->kips[i];
	*nr_kernel = n;
	/* Python frames (tagged) follow the native ones: merged in below */
	np = nu - (nn = python_native_count(v->uips, nu));
	nu = nn;
	/*
	 * Frames above the leaf are return addresses, normalized as ip - 1: that
	 * lies in the call instruction, so a call to a noreturn function at the
	 * very end of a function is not named after the next function.
	 */
	keep = symbolizer__normalize_stack(s->sym, tgid, v->uips, nu, stack_time(v), f);
	/*
	 * A frame-pointer walk through code built without them (ld.so, glibc)
	 * goes on from a garbage %rbp: its first return address in no mapping
	 * and all after it are noise, not frames to show as [unknown]; so is a
	 * leaf sampled inside execve (the replaced image's ip). CFI walks stop
	 * at such a pc themselves (and ask for a refresh).
	 */
	*cut = 0;
	if (keep < nu && !v->unwind_cfi) {
		s->fp_cut++;
		nu = keep;
	}
	/*
	 * With CFI on, a process walked by FP had no tables yet: through code
	 * without frame pointers that walk stops early, and nothing in the
	 * stack says where, so every such stack says how it was walked
	 */
	if (s->ut && !np && nu && !v->unwind_cfi)
		*cut = EMIT_AUX2_FP_WALK;
	/* Python frames above a cut mark it themselves ("[native frames not walked]") */
	if (!np && v->unwind_cfi && v->unwind_pending)
		*cut = EMIT_AUX2_CUT_TABLE;
	else if (!np && v->unwind_cfi && v->unwind_unmapped)
		*cut = EMIT_AUX2_CUT_UNMAPPED;
	/*
	 * Any other CFI walk that stopped short of the outermost frame (a rule
	 * it cannot evaluate, a frame below its callee's, unreadable stack, JIT
	 * code it cannot walk): its outermost frame is no root, and without a
	 * mark the flame graph shows it as one. "[walk cut]" above it; the
	 * cause is counted in the summary. (The depth limit has "[truncated]".)
	 */
	else if (!np && nu && nu < SESSION_MAX_UFRAMES && v->unwind_cfi && v->unwind_partial &&
		 !v->ustack_truncated)
		f[nu++] = (struct sym_ufr){ .obj = SYM_OBJ_MARK, .addr = SYM_MARK_WALK_CUT };
	if (np && s->py) {
		/* a frame-pointer walk cut above (nu < nn) is partial too */
		nu = python__user_frames(s->py, tgid, v->uips, nu, v->uips + nn, np,
					 nu == nn && v->unwind_cfi && !v->unwind_partial, f,
					 merged);
		uf = merged;
	}
	for (size_t i = 0; i < nu; i++) {
		emit_ufr_pack(&uf[i], &w[n]);
		n += EMIT_UFR_WORDS;
	}
	return n;
}

/*
 * The CPU wait after an off-CPU block's wakeup (v->addr): the block's stack
 * (@key, words in s->words) as a run-queue stack, "[cpu wait]" at its leaf.
 */
static int session_cpu_wait(struct session *s, const struct stack_key *key,
			    const struct sample_view *v)
{
	struct stack_key k = *key;
	int err;

	if (!v->addr)
		return 0;
	k.kind = SAMPLE_RUNQ;
	k.aux = RUNQ_AUX_CPU_WAIT;
	k.aux2 = key->aux2 & (EMIT_AUX2_CUT_TABLE | EMIT_AUX2_CUT_UNMAPPED | EMIT_AUX2_FP_WALK);
	s->cpuwait_ns += v->addr;
	/* histogrammed too (runq): not to be folded again as a stackless wait */
	s->rq_stacked_ns += v->addr;
	s->rq_stacked_waits += v->count;
	err = stack_agg__add(s->agg, &k, s->words, v->addr);
	return err == -ENOSPC ? 0 : err;
}

int session_aggregate(const struct sample_view *v, void *arg)
{
	struct session *s = arg;
	struct waker_stack wk;
	struct stack_key key;
	uint32_t cut;
	uint16_t nk;
	size_t n;

	if (v->kind == SAMPLE_WAKER) {
		/* the waker's stack waits for the record of the block it ended */
		if (s->wakers) {
			n = stack_words(s, v->state, v, s->words, &nk, &cut);
			wakers__put(s->wakers, v->pid, v->time_ns, s->words, nk, n - nk, v->state,
				    (uint32_t)v->syscall, v->comm);
		}
		return 0;
	}
	memset(&key, 0, sizeof(key));
	key.kind = v->kind;
	if (v->kind == SAMPLE_RUNQ) {
		s->runq_ns += v->weight;
		s->runq_waits++;
		s->rq_stacked_ns += v->weight;
		s->rq_stacked_waits++;
	}
	if (v->kind == SAMPLE_LOCK) {
		key.aux = s->locknames ? locknames__id(s->locknames, v->state & HC_LOCK_KERNEL ? 0 : v->tgid,
						       v->state, v->addr) : 0;
		/* a holder's record weighs the wait it ended, not one more wait */
		if (!(v->state & HC_LOCK_HOLDER)) {
			s->lock_ns += v->weight;
			s->lock_waits++;
		}
		/* a futex wait: the thread whose wake ended it (abi/locks.h), for the holders */
		if ((v->state & HC_LOCK_FUTEX) && !(v->state & HC_LOCK_HOLDER) && v->syscall > 0)
			key.aux2 = (uint32_t)v->syscall & EMIT_AUX2_WAKER_MASK;
	}
	if (v->kind == SAMPLE_OFFCPU) {
		key.aux = v->short_blocks ? REASON_NONE : offcpu_reason(v->syscall, v->state);
		key.aux2 = v->short_blocks ? EMIT_AUX2_SHORT : 0;
		if (v->short_blocks) {
			s->short_ns += v->weight;
			s->short_blocks += v->count;
		} else {
			s->off_ns += v->weight;
			s->off_blocks += v->count;
		}
	}
	key.tgid = v->tgid;
	key.pid = v->pid;
	/* the first read, if no path of the lifecycle read it (kernel-only stacks, replays) */
	if (s->labels && !v->kthread && v->tgid)
		labels__ensure(s->labels, v->tgid);
	memcpy(key.comm, v->comm, sizeof(key.comm));
	memcpy(key.pcomm, v->pcomm, sizeof(key.pcomm));
	n = stack_words(s, v->tgid, v, s->words, &nk, &cut);
	key.nr_kernel = nk;
	key.nr_user = n - nk;
	key.aux2 |= cut;
	if (v->kind == SAMPLE_OFFCPU) {
		int err = session_cpu_wait(s, &key, v);

		if (err || !v->weight)
			return err;	/* only CPU wait in this sample of short blocks */
	}
	if (v->kind == SAMPLE_OFFCPU && !v->short_blocks && s->wakers &&
	    wakers__take(s->wakers, v->pid, v->time_ns, &wk)) {
		/* the waker's id and words follow; nr_user covers them, aux2 says how many */
		memcpy(&s->words[n], wk.id, sizeof(wk.id));
		n += WAKER_ID_WORDS;
		memcpy(&s->words[n], wk.words, ((size_t)wk.nr_kernel + wk.nr_user) * sizeof(uint64_t));
		n += wk.nr_kernel + wk.nr_user;
		key.aux2 = (uint32_t)(wk.nr_kernel + WAKER_ID_WORDS) << 16 | wk.nr_user;
	} else if (v->kind == SAMPLE_OFFCPU && !v->short_blocks && s->wakers) {
		wakers__missed(s->wakers, v->state);
	}
	key.nr_user = n - key.nr_kernel;
	if (v->ustack_truncated)
		key.aux2 |= EMIT_AUX2_TRUNC;
	key.aux2 |= cut;
	if (v->kind == SAMPLE_ONCPU)
		s->samples += v->weight;	/* a dithered sample may stand for several intervals */
	int err = stack_agg__add(s->agg, &key, s->words, v->weight);
	/* -ENOSPC is counted by the aggregator and reported at the end */
	return err == -ENOSPC ? 0 : err;
}
