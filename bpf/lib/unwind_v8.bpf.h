/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * V8's JavaScript frames for the CFI walker (abi/v8.h), which includes
 * this: V8's generated code (Ignition's handlers and the other builtins
 * embedded in the binary, Sparkplug, Maglev and TurboFan code in anonymous
 * memory) has no unwind table but keeps %rbp frames on x86-64, so the
 * walker already steps through it by frame pointer. What it adds is which
 * function a frame runs: a standard frame (frame-constants.h) keeps its
 * context at fp - 8 and its JSFunction at fp - 16, where a typed frame
 * (entry, exit, stub, internal, ...) keeps a Smi marker in the context
 * slot. For a JavaScript frame the JSFunction's SharedFunctionInfo is put
 * in the frame's place, tagged; user space checks and names it.
 */
#ifndef HC_BPF_LIB_UNWIND_V8_BPF_H
#define HC_BPF_LIB_UNWIND_V8_BPF_H

#include "abi/v8.h"

/* Is the process a V8 the loader read (v8_procs)? Into st->v8, at the walk's first step. */
static __always_inline void v8_check(struct uw_state *st)
{
	__u32 zero = 0, *n = bpf_map_lookup_elem(&v8_nprocs, &zero);

	st->v8 = 0;
	/* most walks are of no V8: the inlined array lookup spares them the hash lookup */
	if (n && *n && bpf_map_lookup_elem(&v8_procs, &st->tgid))
		st->v8 = 1;
}

/*
 * The word @i of the frame's (the context slot, the function slot, the
 * function's SharedFunctionInfo, its name_or_scope_info) at user address
 * @addr into *@v: 0, or -1 (unreadable; for another task, asked for:
 * want_hi). Another task's are read through the walker's window
 * (lib/unwind_walk.bpf.h uw_read()), and kept for the frame's redo
 * after each read (v8_c_*), as a Java frame's are.
 */
static __always_inline int v8_word(struct uw_scratch *s, __u32 i, __u64 addr, __u64 *v)
{
	struct uw_state *st = &s->st;

	if (st->v8_c_have >> (i & 3) & 1) {
		*v = st->v8_c_w[i & 3];
		return 0;
	}
	if (uw_read(s, v, sizeof(*v), addr))
		return -1;
	st->v8_c_w[i & 3] = *v;
	st->v8_c_have |= 1u << (i & 3);
	return 0;
}

/* The tagged heap pointer word @i at user address @addr, or 0 (unreadable, a Smi, no user address). */
static __always_inline __u64 v8_read_heap_ptr(struct uw_scratch *s, __u32 i, __u64 addr)
{
	__u64 v;

	if (v8_word(s, i, addr, &v))
		return 0;
	if ((v & HC_V8_HEAP_TAG_MASK) != HC_V8_HEAP_TAG || v > HC_V8_SFI_PTR_MASK)
		return 0;
	return v;
}

/*
 * The frame the walk just recorded (pc st->pc, looked up at @pc; fp
 * st->bp), about to be stepped by frame pointer: if it is V8's code (@anon:
 * in anonymous executable memory; else in the embedded builtins) and a
 * JavaScript function's frame, its SharedFunctionInfo in the frame's
 * place. 1 if replaced, else 0 (the pc stays: a native or typed frame, or
 * a word that cannot be read). A global subprogram, verified once on its
 * own: its cost adds to the walker's instead of multiplying with its paths.
 *
 * A leaf sampled before its frame is set up (in a prologue) has its
 * caller's fp: it is named as its caller, whose own frame the step by
 * frame pointer skips anyway.
 */
__noinline int uw_v8_frame(struct uw_scratch *s, __u64 pc, __u32 anon)
{
	const struct hc_v8_proc *vp;
	struct uw_state *st;
	__u64 ctx, fn, sfi, name, idx;
	__u32 tgid;

	if (!s)
		return 0;
	st = &s->st;
	/* the key from the stack: in a global subprogram @s is plain memory (see hs_frame_base) */
	tgid = st->tgid;
	vp = bpf_map_lookup_elem(&v8_procs, &tgid);
	if (!vp)
		return 0;
	if (!anon && pc - vp->blob_lo >= vp->blob_hi - vp->blob_lo)
		return 0;
	/* a frame not redone: nothing read for it yet */
	if (st->v8_c_pc != pc || st->v8_c_sp != st->sp) {
		st->v8_c_pc = pc;
		st->v8_c_sp = st->sp;
		st->v8_c_have = 0;
	}
	/* a Smi here is a typed frame's marker: no function in it */
	if (v8_word(s, 0, st->bp + vp->fp_context, &ctx) ||
	    (ctx & HC_V8_HEAP_TAG_MASK) != HC_V8_HEAP_TAG)
		return 0;
	fn = v8_read_heap_ptr(s, 1, st->bp + vp->fp_function);
	if (!fn)
		return 0;
	sfi = v8_read_heap_ptr(s, 2, fn - HC_V8_HEAP_TAG + vp->fn_shared);
	if (!sfi)
		return 0;
	if (v8_word(s, 3, sfi - HC_V8_HEAP_TAG + vp->sfi_name, &name))
		return 0;
	idx = st->base + st->n - 1;
	if (idx >= 2 * HC_MAX_STACK_DEPTH)
		return 0;	/* cannot happen: bounds for the verifier */
	s->rec.ips[idx] = hc_v8_sfi_frame(sfi, name);
	st->v8_frames++;
	return 1;
}

#endif /* HC_BPF_LIB_UNWIND_V8_BPF_H */
