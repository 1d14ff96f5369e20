/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One Java frame of a HotSpot JVM (abi/hotspot.h) for the CFI walker, which
 * includes this after uw_window(): the code cache holds no unwind table, so
 * the frame is stepped through as the VM itself does (frame_x86.cpp):
 *
 *   the interpreter: %rbp is its frame pointer: [fp] the caller's %rbp,
 *     [fp + 8] the return address, [fp - 8] the caller's sp (before the
 *     callee's locals extended the caller's frame, which a compiled
 *     caller's frame size counts from);
 *   a blob with a frame size (compiled methods, native wrappers, runtime
 *     stubs): the caller's sp is sp + frame size words, the return address
 *     just below it and the caller's %rbp below that (the prologue saved
 *     it; compiled code may use %rbp for anything after);
 *   a blob without one (StubRoutines' call stub, called from
 *     JavaCalls::call_helper; a leaf in StubRoutines): an %rbp frame.
 *
 * The blob holding a pc is found as the VM finds it: the code heap's
 * segment map leads back to its block's start, the blob follows the
 * block's header. A leaf pc in a compiled method's prologue (the frame not
 * set up yet) or in its epilogue (taken down already) is stepped by the
 * code's own bytes (abi/hotspot.h hc_hs_prologue_at(), hc_hs_epilogue());
 * a prologue of a form not known, or a leaf in a stub without a
 * frame (its %rbp not just above sp), stops the walk, counted; so does a
 * frame whose pointers make no sense.
 */
#ifndef HC_BPF_LIB_UNWIND_HOTSPOT_BPF_H
#define HC_BPF_LIB_UNWIND_HOTSPOT_BPF_H

#define HS_SEG_READ_ERR	4
#define HS_SEG_UNREAD	(~0ull)	/* as the window's first: no segment lies in it */
/* sanity bounds: a frame of more words, or an %rbp further up the stack, is garbage */
#define HS_MAX_FRAME_WORDS	(1u << 16)
#define HS_MAX_FP_SPAN		(1ull << 20)
/* a leaf stub's own frame (saved registers, spills) is smaller than this */
#define HS_STUB_FRAME_MAX	4096

/* uw_state hs_c_have: what the frame at (hs_c_pc, hs_c_sp) has read */
#define HS_C_BLOCK	1	/* its block's address: hs_c_block */
#define HS_C_HEAD	2	/* and the block's head: hs_head */
#define HS_C_METHOD	4	/* an interpreter frame's Method*: hs_c_m */
#define HS_C_CM		8	/* and its ConstMethod*: hs_c_cm */

/*
 * bpf_loop() callback of the segment map walk; @ctx: the scratch slot. A
 * call either reads the window ending at the segment looked at or takes
 * one step in it, so the verifier walks few paths through it. The walk's
 * state is in the scratch (uw_state hs_*), not on the stack: the verifier
 * knows nothing of a map value's contents, so this body converges at once,
 * where values it tracked step by step did not (1M instructions).
 */
static long hs_seg_step(__u32 i, void *ctx)
{
	struct uw_scratch *s = bpf_map_lookup_elem(&unwind_scratch, ctx);
	struct uw_state *st;
	int r;

	if (!s)
		return 1;
	st = &s->st;
	r = hc_hs_segmap_step(s->hs_buf, st->hs_first, &st->hs_seg);
	/*
	 * another task's: one window (a block of up to 254 segments); its
	 * frame, redone after each read, would start the walk over and ask
	 * for the first window again
	 */
	if (r == HC_HS_SEG_OUT && st->remote && st->hs_first != HS_SEG_UNREAD)
		r = HS_SEG_READ_ERR;
	if (r == HC_HS_SEG_OUT) {
		st->hs_first = hc_hs_segmap_first(st->hs_seg);
		r = uw_read(s, s->hs_buf, HC_HS_SEG_WINDOW, st->hs_segmap + st->hs_first) ?
			    HS_SEG_READ_ERR : HC_HS_SEG_STEP;
	}
	st->hs_res = r;
	return r != HC_HS_SEG_STEP;
}

/* The u64 at @off of the block head in hs_head. */
static __always_inline __u64 hs_u64(struct uw_scratch *s, __u32 off)
{
	return *(__u64 *)(s->hs_head + (off & (HC_HS_HEAD_MAX - 1)));
}

/* The int at @off of the block head in hs_head. */
static __always_inline __s64 hs_s32(struct uw_scratch *s, __u32 off)
{
	return *(__s32 *)(s->hs_head + (off & (HC_HS_HEAD_MAX - 1)));
}

/*
 * The block (its header, then its CodeBlob's fields) holding @pc, its head
 * into hs_head: its address, or 0 with *@why set (no blob there, or
 * unreadable). Each of its two reads is kept for the frame (hs_c_have).
 */
static __always_inline __u64 hs_find_block(struct uw_scratch *s, const struct hc_hs_proc *hp,
					   __u64 pc, __u32 *why)
{
	struct uw_state *st = &s->st;
	const struct hc_hs_heap *h;
	__u32 len, shift = hp->seg_shift, slot = st->slot;
	__u64 block;

	*why = HC_STAT_UNWIND_JIT_NO_BLOB;
	if (st->hs_c_have & HS_C_HEAD)
		return st->hs_c_block;
	if (st->hs_c_have & HS_C_BLOCK) {
		block = st->hs_c_block;
		goto head;
	}
	/* the last heap starting at or below pc (branch-free: one path) */
	h = &hp->heaps[hc_cfi_keys_search(hp->heap_keys, HC_HS_MAX_HEAPS,
					  (__u32)(pc - hp->cc_lo)) & (HC_HS_MAX_HEAPS - 1)];
	if (pc < h->lo || pc >= h->hi || shift < 4 || shift > 16)
		return 0;	/* between the heaps (or a layout the loader never writes) */
	st->hs_segmap = h->segmap;
	st->hs_seg = (pc - h->lo) >> shift;
	st->hs_first = HS_SEG_UNREAD;
	st->hs_res = HC_HS_SEG_NONE;
	block = h->lo;
	bpf_loop(HC_HS_SEG_ITERS, hs_seg_step, &slot, 0);
	if (st->hs_res == HS_SEG_READ_ERR)
		*why = HC_STAT_UNWIND_JIT_READ_ERR;
	if (st->hs_res != HC_HS_SEG_START)
		return 0;
	block += st->hs_seg << shift;
	st->hs_c_block = block;
	st->hs_c_have |= HS_C_BLOCK;
head:
	/* a mask the verifier follows (a range check it lost in another register); <= 128 */
	len = hp->head_len & (HC_HS_SEG_WINDOW - 1);
	if (!len || uw_read(s, s->hs_head, len, block)) {
		*why = HC_STAT_UNWIND_JIT_READ_ERR;
		return 0;
	}
	st->hs_c_have |= HS_C_HEAD;
	/* a freed block's segments are marked free, but the map and the block may race */
	if (!s->hs_head[hp->used_off & (HC_HS_HEAD_MAX - 1)])
		return 0;
	return block;
}

/* The process's code cache bounds into st (hs_lo, hs_len; 0, 0 if it has none). */
static __always_inline void hs_check(struct uw_state *st)
{
	__u32 zero = 0, *n = bpf_map_lookup_elem(&hotspot_nprocs, &zero);
	struct hc_hs_proc *hp;

	st->hs_lo = 0;
	st->hs_len = 0;
	if (!n || !*n)
		return;
	hp = bpf_map_lookup_elem(&hotspot_procs, &st->tgid);
	if (hp && hp->cc_hi > hp->cc_lo) {
		st->hs_lo = hp->cc_lo;
		st->hs_len = hp->cc_hi - hp->cc_lo;
	}
}

/*
 * The interpreter frame at the walk's current frame (fp st->bp): its
 * Method* and a check of it in place of its pc (abi/hotspot.h
 * hc_hs_method_frame()). Left as the pc, which user space names
 * "[interpreter]" and counts, where a word cannot be read or is no
 * pointer a user space has: a leaf in the interpreter's method entry,
 * before the frame is set up, has its caller's fp.
 */
static __always_inline void hs_interp_method(struct uw_scratch *s, __u32 cm_off)
{
	struct uw_state *st = &s->st;
	__u64 m = 0, cm = 0, idx = st->base + st->n - 1;

	/* each read kept as it is made: another task's frame is redone after each */
	if (st->hs_c_have & HS_C_METHOD) {
		m = st->hs_c_m;
	} else {
		if (uw_read(s, &m, sizeof(m), st->bp + HC_HS_INTERP_METHOD_OFF))
			return;
		st->hs_c_m = m;
		st->hs_c_have |= HS_C_METHOD;
	}
	if (!m || m > HC_HS_METHOD_PTR_MASK || (m & 7))
		return;
	if (st->hs_c_have & HS_C_CM) {
		cm = st->hs_c_cm;
	} else {
		if (uw_read(s, &cm, sizeof(cm), m + cm_off))
			return;
		st->hs_c_cm = cm;
		st->hs_c_have |= HS_C_CM;
	}
	if (!cm)
		return;
	if (idx < 2 * HC_MAX_STACK_DEPTH)
		s->rec.ips[idx] = hc_hs_method_frame(m, cm);
}

/* bpf_loop() callback of hs_prologue(): one offset of the code a call; @ctx: the scratch slot */
static long hs_pro_step(__u32 i, void *ctx)
{
	struct uw_scratch *s = bpf_map_lookup_elem(&unwind_scratch, ctx);
	struct uw_state *st;
	int r;

	if (!s)
		return 1;
	st = &s->st;
	r = hc_hs_prologue_at(s->hs_buf, st->hs_pro_n, i, st->hs_pro_o, st->hs_pro_f);
	st->hs_res = r;
	return r != HC_HS_PRO_NONE;
}

/*
 * Where in its prologue is a leaf at offset @o of the code at @code, of a
 * frame of @f bytes whose prologue ends at offset @done (< 0: not known)?
 * An enum hc_hs_prologue: the code's first bytes up to @done (at most
 * HC_HS_PRO_BYTES) searched for the prologue's sub.
 */
static __always_inline int hs_prologue(struct uw_scratch *s, __u64 code, __u64 o, __u64 f,
				       __s64 done)
{
	struct uw_state *st = &s->st;
	__u32 slot = st->slot, n = HC_HS_PRO_BYTES;

	if (done > 0 && done < HC_HS_PRO_BYTES)
		n = done;
	/* 1..HC_HS_PRO_BYTES, as the verifier sees it too */
	n = ((n - 1) & (HC_HS_PRO_BYTES - 1)) + 1;
	if (o >= n || bpf_probe_read_user(s->hs_buf, n, (void *)code))
		return HC_HS_PRO_NONE;
	st->hs_pro_n = n;
	st->hs_pro_o = o;
	st->hs_pro_f = f;
	st->hs_res = HC_HS_PRO_NONE;
	bpf_loop(n, hs_pro_step, &slot, 0);
	return st->hs_res;
}

/* uw_hotspot_step(): @pc is no JVM's code, step it as native code */
#define UW_NOT_JAVA	((__u32)-3)
/*
 * Where the Java frame at st->pc (looked up at @pc) keeps its caller's
 * %rbp, the return address just above, into st->hs_base: 1 for the
 * interpreter's frame (its caller's sp is saved in it), 2 for a leaf in a
 * prologue that has not saved the caller's %rbp (it is still in the
 * register; the return address at hs_base + 8 all the same), 0 for others,
 * or minus the enum hc_stat reason the walk stops for. A global subprogram
 * of its own, so that its many paths end in one scalar: the caller is
 * verified along one path.
 */
__noinline __s64 hs_frame_base(struct uw_scratch *s, __u64 pc)
{
	const struct hc_hs_proc *hp;
	struct uw_state *st;
	__u64 block, blob, code, v;
	__s64 fsize, done;
	__u32 why, sh, off, tgid;
	int pro;

	if (!s)
		return -HC_STAT_UNWIND_JIT_NO_BLOB;
	st = &s->st;
	/*
	 * The key from the stack: in a global subprogram @s is plain memory to
	 * the verifier, which 6.1 does not take as a map key (6.12+ does)
	 */
	tgid = st->tgid;
	hp = bpf_map_lookup_elem(&hotspot_procs, &tgid);
	if (!hp)
		return -HC_STAT_UNWIND_JIT_NO_BLOB;	/* forgotten since the walk began */
	/* a frame not redone: nothing read for it yet */
	if (st->hs_c_pc != pc || st->hs_c_sp != st->sp) {
		st->hs_c_pc = pc;
		st->hs_c_sp = st->sp;
		st->hs_c_have = 0;
	}
	st->hs_base = st->bp;
	/* one compare: two would fork the paths below */
	if (pc - hp->interp_lo < hp->interp_hi - hp->interp_lo) {
		hs_interp_method(s, hp->method_cm_off);
		/* another task's: its Method* or ConstMethod* asked for (want_hi) */
		return st->want_hi ? -HC_STAT_UNWIND_JIT_READ_ERR : 1;
	}
	block = hs_find_block(s, hp, pc, &why);
	if (!block)
		return -(__s64)why;
	blob = block + hp->blob_off;
	if (pc >= blob + hs_s32(s, hp->size_off))
		return -HC_STAT_UNWIND_JIT_NO_BLOB;	/* the map changed under us */
	fsize = hs_s32(s, hp->frame_size_off);
	if (fsize <= 0) {
		/*
		 * No frame size: the call stub (a return address in it), or a leaf
		 * in StubRoutines, which mostly set up an %rbp frame (array copies,
		 * intrinsics: enter(), so %rbp may equal sp), as OpenTelemetry's
		 * unwinder takes them. A leaf whose %rbp does not point at or just
		 * above sp is in a stub that keeps no frame (vtable stubs) or
		 * before its frame is set up: not known.
		 */
		if (pc == st->pc && (st->bp < st->sp || st->bp - st->sp > HS_STUB_FRAME_MAX))
			return -HC_STAT_UNWIND_JIT_FRAMELESS;
		return 0;
	}
	/* the code's start: an address, or (code_is_offset: 1) an int offset from the blob */
	v = hs_u64(s, hp->code_off);
	off = hp->code_is_offset;
	code = v + off * (blob + (__s64)(__s32)v - v);
	/* an int16_t is an int's low half: shifted up and back, sign and all */
	sh = hp->frame_done_shift & 31;
	done = (__s32)((__u32)hs_s32(s, hp->frame_done_off) << sh) >> sh;
	/* the return address and the saved %rbp are inside the frame */
	if (fsize < 2 || fsize > HS_MAX_FRAME_WORDS)
		return -HC_STAT_UNWIND_JIT_BAD_FRAME;
	st->hs_base = st->sp + fsize * 8 - 16;
	/*
	 * a return address is always past the prologue; a leaf may not be
	 * (another task's leaf in Java code, a page fault's: its code not read)
	 */
	if (pc == st->pc && (done < 0 || pc < code + done)) {
		if (pc < code || st->remote)
			return -HC_STAT_UNWIND_JIT_PROLOGUE;
		pro = hs_prologue(s, code, pc - code, fsize * 8, done);
		if (pro == HC_HS_PRO_NONE)
			return -HC_STAT_UNWIND_JIT_PROLOGUE;
	} else if (pc == st->pc && !st->remote &&
		   !bpf_probe_read_user(s->hs_buf, HC_HS_EPI_BYTES, (void *)pc)) {
		/* a leaf past it may be in an epilogue that took the frame down */
		pro = hc_hs_epilogue(s->hs_buf);
		if (pro == HC_HS_PRO_NONE)
			return 0;
	} else {
		return 0;
	}
	st->hs_edge_walked = 1;
	if (pro == HC_HS_PRO_RA_AT_SP)
		st->hs_base = st->sp - 8;
	else if (pro == HC_HS_PRO_PUSHED)
		st->hs_base = st->sp;
	return pro == HC_HS_PRO_RA_AT_SP || pro == HC_HS_PRO_SUB_ONLY ? 2 : 0;
}

/*
 * Step from the frame at st->pc, looked up at @pc (st->pc itself for a
 * leaf, else the return address - 1), to its caller if it is a Java frame:
 * if @pc lies in the process's code cache (st->hs_lo, hs_len). A global
 * subprogram, verified once on its own: its cost adds to the walker's
 * instead of multiplying with its paths (abi/unwind.h). 0; UW_NOT_JAVA;
 * UNWIND_DONE; or the enum hc_stat reason the walk stops for.
 */
__noinline int uw_hotspot_step(struct uw_scratch *s, __u64 pc)
{
	struct uw_state *st;
	__u64 base, sp, interp, live, *w;
	__s64 b;

	if (!s)
		return UW_NOT_JAVA;
	st = &s->st;
	if (pc - st->hs_lo >= st->hs_len)
		return UW_NOT_JAVA;
	b = hs_frame_base(s, pc);
	if (b < 0)
		return (__u32)-b;
	interp = b & 1;
	live = b >> 1 & 1;
	base = st->hs_base;
	/* base: the caller's saved %rbp (unless live); the return address above it */
	if (base + 8 < st->sp || base + 8 - st->sp > HS_MAX_FP_SPAN)
		return HC_STAT_UNWIND_JIT_BAD_FRAME;
	/*
	 * [base - 8, base + 16) read here, not through the walker's window
	 * (one read a Java frame, and fewer paths for the verifier), except for
	 * another task's (uw_read())
	 */
	if (uw_read(s, s->hs_buf, 24, base - 8))
		return HC_STAT_UNWIND_READ_ERR;
	w = (__u64 *)s->hs_buf;
	/* the interpreter's caller's sp, one word below its fp, lies above the return address */
	sp = base + 16 + interp * (w[0] - base - 16);
	if (sp < base + 16)
		return HC_STAT_UNWIND_JIT_BAD_FRAME;
	/* a prologue that has not saved it: the caller's %rbp is the register's */
	st->bp = w[1] + live * (st->bp - w[1]);
	st->pc = w[2];
	st->sp = sp;
	st->bx = 0;	/* compiled and interpreted Java code uses %rbx as its own */
	st->jit_frames++;
	/* a zero return address ends the chain, as in the walker's native steps */
	return st->pc ? 0 : UNWIND_DONE;
}

#endif /* HC_BPF_LIB_UNWIND_HOTSPOT_BPF_H */
