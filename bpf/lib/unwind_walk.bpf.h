/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The CFI walker; see lib/unwind.bpf.h for the maps the including object
 * must define before including this file.
 */
#ifndef HC_BPF_LIB_UNWIND_WALK_BPF_H
#define HC_BPF_LIB_UNWIND_WALK_BPF_H

#include "lib/refuse.bpf.h"

/*
 * The mapping search runs as bpf_loop() callbacks: the verifier checks a
 * callback body once, while a bounded loop with a branch per step is
 * explored path by path (seconds of load time, worse with a target filter).
 * The row search needs neither: its node searches have no branches.
 */
struct uw_search {
	void *base;		/* struct hc_unwind_proc * */
	__u64 key;		/* pc or vaddr searched for */
	__u32 lo, hi;
};

static long map_search_step(__u32 i, void *ctx)
{
	struct uw_search *q = ctx;
	struct hc_unwind_proc *p = q->base;
	__u32 mid;

	if (q->lo >= q->hi)
		return 1;
	mid = (q->lo + q->hi) / 2;
	if (mid >= HC_UNWIND_MAX_MAPS)
		return 1;
	if (p->maps[mid].start <= q->key)
		q->lo = mid + 1;
	else
		q->hi = mid;
	return 0;
}

static __always_inline struct hc_unwind_map *unwind_find_map(struct hc_unwind_proc *p, __u64 pc)
{
	struct uw_search q = { .base = p, .key = pc, .lo = 0, .hi = p->nr };
	__u32 idx;

	if (q.hi > HC_UNWIND_MAX_MAPS)
		q.hi = HC_UNWIND_MAX_MAPS;
	/* lo ends at the first mapping starting above pc */
	bpf_loop(HC_UNWIND_MAP_ITERS + 1, map_search_step, &q, 0);
	if (q.lo == 0)
		return NULL;
	idx = q.lo - 1;
	if (idx >= HC_UNWIND_MAX_MAPS || pc >= p->maps[idx].end)
		return NULL;
	return &p->maps[idx];
}

/*
 * One inner level of the descent: the child of @n that holds vaddr, and
 * the range of vaddrs [lo, hi) that leads to it narrowed by this node.
 */
struct uw_descent {
	__u32 idx;
	__u32 lo, hi;
	__u32 vaddr;
};

/*
 * The node searches are global subprograms (BPF-to-BPF calls the verifier
 * checks once, on their own, with their arguments as unknowns): the
 * verifier's cost of a search then adds to the walker's instead of
 * multiplying with the paths of the callback it sits in, whatever a kernel
 * release does with the search's arithmetic (abi/unwind.h). A call costs a
 * few ns where a frame costs tens. 0, or -1 for a node that cannot be.
 */
__noinline int uw_inner_step(const struct hc_cfi_node *n, struct uw_descent *d)
{
	__u32 c, next;

	if (!n || !d)
		return -1;
	c = hc_cfi_keys_search(n->inner.pc, HC_CFI_INNER_KEYS, d->vaddr);
	if (c >= HC_CFI_INNER_KEYS)
		return -1;	/* cannot happen: bounds for the verifier */
	/* child c gets [pc[c], pc[c + 1]); child 0 also what is below pc[0] */
	if (c && n->inner.pc[c] > d->lo)
		d->lo = n->inner.pc[c];
	/*
	 * Checked and used in one register: clang would otherwise check c and
	 * index with a copy of c + 1 made before, whose bound the verifier
	 * does not learn from the check.
	 */
	next = c + 1;
	asm volatile("" : "+r"(next));
	if (next < HC_CFI_INNER_KEYS && n->inner.pc[next] < d->hi)
		d->hi = n->inner.pc[next];
	d->idx = n->inner.first_child + c;
	return 0;
}

/* The leaf's row for @vaddr into @out: 0, or -1 if vaddr is below its first row. */
__noinline int uw_leaf_rule(const struct hc_cfi_node *n, __u32 vaddr, struct hc_cfi_rule *out)
{
	__u32 k;

	if (!n || !out)
		return -1;
	k = hc_cfi_keys_search(n->leaf.pc, HC_CFI_LEAF_ROWS, vaddr);
	if (k >= HC_CFI_LEAF_ROWS || n->leaf.pc[k] > vaddr)
		return -1;	/* below the object's first row */
	*out = n->leaf.rule[k];
	return 0;
}

/*
 * The rule covering vaddr in the current mapping's object's B+ tree
 * (abi/unwind.h) into @out: one lookup per level, each followed by a
 * branch-free search of the node with direct loads. A bounded loop over at
 * most HC_CFI_MAX_HEIGHT inner levels: each level either descends or
 * returns, so the verifier walks a handful of paths. The leaf reached is
 * remembered with the range of vaddrs that lead to it: the next frame in
 * that range goes straight to the leaf (one lookup instead of 1 + height).
 * 0, or -1: no row (a table replaced under us, or below its first row).
 */
static __always_inline int unwind_find_rule(struct uw_state *st, void *tree, __u32 vaddr,
					    struct hc_cfi_rule *out)
{
	struct uw_descent d = { .idx = 0, .lo = 0, .hi = 0xffffffff, .vaddr = vaddr };
	struct hc_cfi_node *n;
	__u32 l, idx;

	if (st->leaf_obj == st->m_obj && vaddr >= st->leaf_lo && vaddr < st->leaf_hi) {
		idx = st->leaf_idx;
	} else {
		for (l = 0; l < HC_CFI_MAX_HEIGHT; l++) {
			if (l >= st->m_height)
				break;
			n = bpf_map_lookup_elem(tree, &d.idx);
			if (!n || uw_inner_step(n, &d))
				return -1;	/* a table replaced under us: FP for this frame */
		}
		idx = d.idx;
		st->leaf_obj = st->m_obj;
		st->leaf_idx = idx;
		st->leaf_lo = d.lo;
		st->leaf_hi = d.hi;
	}
	n = bpf_map_lookup_elem(tree, &idx);
	if (!n)
		return -1;
	return uw_leaf_rule(n, vaddr, out);
}

/* The cache entry for @key (uw_rc_ent::key): a multiplicative hash, top bits. */
static __always_inline __u32 uw_rc_slot(__u64 key)
{
	__u32 h = ((__u32)key ^ (__u32)(key >> 32) * 0x85ebca6bu) * 0x9e3779b1u;

	return h >> (32 - UW_RC_BITS);
}

/*
 * The rule for @vaddr in the current mapping's object (NULL: no row covers
 * it): from the scratch's rule cache, else searched in the tree and cached.
 */
static __always_inline struct hc_cfi_rule *unwind_rule(struct uw_scratch *s, __u32 vaddr)
{
	struct uw_state *st = &s->st;
	__u64 key = (__u64)st->m_stamp << 32 | vaddr;
	struct uw_rc_ent *e = &s->rc[uw_rc_slot(key)];
	struct hc_cfi_rule row;
	void *rows;

	if (e->key == key)
		return &e->rule;
	st->rc_miss++;
	rows = bpf_map_lookup_elem(&unwind_objs, &st->m_obj);
	if (!rows || unwind_find_rule(st, rows, vaddr, &row))
		return NULL;
	e->key = key;
	e->rule = row;
	return &e->rule;
}

#define UW_PAGE_SIZE 4096

/*
 * Make the window hold user bytes [lo, hi) (hi - lo <= 136: a frame's saved %rbx, at
 * most 128 bytes below the CFA).
 * A refill reads from lo up to the end of lo's page, at most UW_WIN_BYTES:
 * the frames above lo are what the walk needs next, and the next page may
 * be unmapped (above the top of the stack) and fail the whole read. A
 * range crossing into the next page is read exactly. 0 or -1 (unreadable).
 */
static __always_inline int uw_window(struct uw_scratch *s, __u64 lo, __u64 hi)
{
	struct uw_state *st = &s->st;
	__u64 n;

	if (lo >= st->win_lo && hi <= st->win_lo + st->win_len)
		return 0;
	n = UW_PAGE_SIZE - (lo & (UW_PAGE_SIZE - 1));
	if (n > UW_WIN_BYTES)
		n = UW_WIN_BYTES;
	if (n < hi - lo)
		n = hi - lo;
	st->win_len = 0;
	if (n < 8 || n > UW_WIN_BYTES)
		return -1;	/* cannot happen: bounds for the verifier */
	if (st->remote) {
		/* not this task's memory: the caller reads it and resumes */
		st->want_lo = lo;
		st->want_hi = hi;
		return -1;
	}
	if (bpf_probe_read_user(s->win, n, (void *)lo))
		return -1;
	st->win_lo = lo;
	st->win_len = n;
	return 0;
}

/* The u64 at user address @addr, which uw_window() put in the window. */
static __always_inline __u64 uw_load(struct uw_scratch *s, __u64 addr)
{
	__u64 off = addr - s->st.win_lo;

	if (off > UW_WIN_BYTES - 8)
		return 0;	/* cannot happen: bounds for the verifier */
	return *(__u64 *)(s->win + off);
}

/*
 * @len bytes of the walked task's memory at @addr into @dst (of @len or
 * more), for the VM steps' reads outside the stack window's flow. This task's: read. Another's (st->remote, a sleepable iterator):
 * through the walker's window (uw_window()), which holds the range once
 * the walk has stopped for it (UW_NEED_READ, want_lo/want_hi set) and the
 * caller has read it with bpf_copy_from_user_task(). 0, or -1 (unreadable,
 * or asked for: want_hi says which).
 */
static __always_inline int uw_read(struct uw_scratch *s, void *dst, __u32 len, __u64 addr)
{
	__u64 off;

	if (!s->st.remote)
		return bpf_probe_read_user(dst, len, (void *)addr) ? -1 : 0;
	if (len > UW_WIN_BYTES || uw_window(s, addr, addr + len))
		return -1;
	off = addr - s->st.win_lo;
	if (off > UW_WIN_BYTES - len)
		return -1;	/* cannot happen: uw_window() put it there */
	/* masked too: 6.1's verifier takes no bound from the compare of two registers */
	return bpf_probe_read_kernel(dst, len, s->win + (off & (UW_WIN_BYTES - 1))) ? -1 : 0;
}

/* One frame by frame pointer: [bp] is the caller's bp, [bp+8] the return address. */
static __always_inline __u32 unwind_fp_step(struct uw_scratch *s)
{
	struct uw_state *st = &s->st;
	__u64 bp = st->bp;

	if (!bp || bp < st->sp)
		return HC_STAT_UNWIND_BAD_SP;
	if (uw_window(s, bp, bp + 16))
		return HC_STAT_UNWIND_READ_ERR;
	st->sp = bp + 16;
	st->bp = uw_load(s, bp);
	st->pc = uw_load(s, bp + 8);
	st->bx = 0;	/* the frame may have saved and reused %rbx: nothing says where */
	st->fp_frames++;
	return 0;
}

/* a saved %rbp at most this far below the CFA comes in the same window as the return address */
#define UW_SPAN_BYTES 64

static __always_inline __u32 unwind_cfi_step(struct uw_scratch *s, struct hc_cfi_rule *row)
{
	struct uw_state *st = &s->st;
	__u64 cfa, lo, bp_addr, bx_addr;

	switch (HC_CFI_CFA(row)) {
	case HC_CFA_RSP:
		cfa = st->sp + row->cfa_off;
		break;
	case HC_CFA_RBP:
		cfa = st->bp + row->cfa_off;
		break;
	case HC_CFA_RBX:
		/* glibc's _dl_runtime_resolve: %rbx holds the stack pointer it realigned */
		if (!st->bx)
			return HC_STAT_UNWIND_UNSUP;
		cfa = st->bx + row->cfa_off;
		break;
	case HC_CFA_PLT:
		/* glibc/binutils PLT: after the pushq in the stub, CFA is 8 further */
		cfa = st->sp + row->cfa_off + ((st->pc & 15) >= (__u64)row->rbp_off ? 8 : 0);
		break;
	case HC_CFA_END:
		return UNWIND_DONE;
	default:
		return HC_STAT_UNWIND_UNSUP;
	}
	/* a caller's frame lies above its callee's: anything else is corruption */
	if (cfa <= st->sp)
		return HC_STAT_UNWIND_BAD_SP;
	lo = cfa - 8;
	/* the saved %rbp just below the return address (CFA-16 after push %rbp): one window */
	if (HC_CFI_RBP(row) == HC_RBP_AT_CFA && row->rbp_off < 0 && row->rbp_off >= -UW_SPAN_BYTES)
		lo = cfa + row->rbp_off;
	/*
	 * and a saved %rbx (at most 128 bytes down): nearly every function
	 * without frame pointers pushes it, so a read of its own would cost a
	 * frame a second one, and a walk of another task (st->remote), whose
	 * bytes the caller reads before the frame is redone, would redo it
	 * with the pc already stepped
	 */
	if (HC_CFI_RBX(row) == HC_RBP_AT_CFA && HC_CFI_RBX_OFF(row) < 0 &&
	    cfa + HC_CFI_RBX_OFF(row) < lo)
		lo = cfa + HC_CFI_RBX_OFF(row);
	if (uw_window(s, lo, cfa))
		return HC_STAT_UNWIND_READ_ERR;
	st->pc = uw_load(s, cfa - 8);
	if (HC_CFI_RBP(row) == HC_RBP_AT_CFA) {
		bp_addr = cfa + row->rbp_off;
		if (uw_window(s, bp_addr, bp_addr + 8))	/* already there but for odd offsets */
			return HC_STAT_UNWIND_READ_ERR;
		st->bp = uw_load(s, bp_addr);
	} else if (HC_CFI_RBP(row) == HC_RBP_UNSUP) {
		st->bp = 0;	/* unknown from here: a later FP step will stop cleanly */
	}
	/* the caller's %rbx, kept only for a CFA defined by it further out (in the window) */
	if (HC_CFI_RBX(row) == HC_RBP_AT_CFA) {
		bx_addr = cfa + HC_CFI_RBX_OFF(row);
		if (uw_window(s, bx_addr, bx_addr + 8))
			return HC_STAT_UNWIND_READ_ERR;
		st->bx = uw_load(s, bx_addr);
	} else if (HC_CFI_RBX(row) == HC_RBP_UNSUP) {
		st->bx = 0;
	}
	st->sp = cfa;
	return 0;
}

/*
 * x86-64 rt_sigreturn trampoline (glibc's and musl's __restore_rt, the
 * kernel's vDSO has none on x86-64): mov $15,%rax; syscall. A signal
 * handler returns into it; the frame it sits in is the kernel's
 * struct rt_sigframe, its pretcode already popped: the ucontext at sp.
 */
#define UW_SIGRETURN_LO 0x0000000fc0c748ull	/* 48 c7 c0 0f 00 00 00, little endian */
#define UW_SIGRETURN_HI 0x050f			/* 0f 05 */
/* struct ucontext: uc_flags, uc_link, uc_stack (24 bytes), then uc_mcontext (struct sigcontext) */
#define UW_UC_MCONTEXT 40
#define UW_SC_RBP (UW_UC_MCONTEXT + 10 * 8)	/* sigcontext: r8..r15, rdi, rsi, rbp, */
#define UW_SC_RBX (UW_UC_MCONTEXT + 11 * 8)
#define UW_SC_RSP (UW_UC_MCONTEXT + 15 * 8)	/* rbx, rdx, rax, rcx, rsp, rip */
#define UW_SC_RIP (UW_UC_MCONTEXT + 16 * 8)

static __always_inline bool unwind_at_sigreturn(__u64 pc)
{
	__u64 code[2] = {};

	/* 9 code bytes (its CFI is DWARF expressions, which the tables cannot hold) */
	if (bpf_probe_read_user(code, 9, (void *)pc))
		return false;
	return (code[0] & 0xffffffffffffffull) == UW_SIGRETURN_LO &&
	       ((code[0] >> 56) | (code[1] & 0xff) << 8) == UW_SIGRETURN_HI;
}

/*
 * Through a signal frame, as perf and libunwind do: the interrupted code's
 * registers come from the sigcontext the kernel saved on the stack. Its pc
 * is where it was interrupted, not a return address (exact_pc).
 */
static __always_inline __u32 unwind_sig_step(struct uw_scratch *s)
{
	struct uw_state *st = &s->st;
	__u64 uc = st->sp, sp;

	if (uw_window(s, uc + UW_SC_RBP, uc + UW_SC_RIP + 8))
		return HC_STAT_UNWIND_READ_ERR;
	sp = uw_load(s, uc + UW_SC_RSP);
	/* the interrupted code's stack is below the handler's only on a sigaltstack */
	if (!sp)
		return HC_STAT_UNWIND_BAD_SP;
	st->bp = uw_load(s, uc + UW_SC_RBP);
	st->bx = uw_load(s, uc + UW_SC_RBX);
	st->pc = uw_load(s, uc + UW_SC_RIP);
	st->sp = sp;
	st->exact_pc = 1;
	st->win_len = 0;	/* a sigaltstack may lie anywhere: read afresh */
	return 0;
}

#include "lib/unwind_hotspot.bpf.h"
#include "lib/unwind_v8.bpf.h"

/* bpf_loop callback: record st->pc, then step to the caller. Returns 1 to stop. */
static long unwind_step(__u32 i, void *ctx)
{
	struct hc_unwind_proc *proc;
	struct hc_unwind_map *m;
	struct uw_scratch *s;
	struct hc_cfi_rule *row;
	struct uw_state *st;
	__u32 slot = *(__u32 *)ctx, idx, reason;
	__u64 lookup_pc;

	/* the caller's scratch (a map value pointer cannot travel through bpf_loop) */
	s = bpf_map_lookup_elem(&unwind_scratch, &slot);
	if (!s)
		return 1;
	st = &s->st;
	idx = st->base + st->n;
	if (st->n >= HC_MAX_STACK_DEPTH || idx >= 2 * HC_MAX_STACK_DEPTH) {
		st->stop = HC_STAT_USTACK_TRUNC;
		return 1;
	}
	s->rec.ips[idx] = st->pc;
	st->n++;
	/* above the leaf, pc is a return address: look up the call instruction */
	lookup_pc = st->n > 1 && !st->exact_pc ? st->pc - 1 : st->pc;
	st->exact_pc = 0;

	/* a JVM's code cache first: its mappings (if any are published) have no table */
	if (lookup_pc - st->hs_lo < st->hs_len) {
		reason = uw_hotspot_step(s, lookup_pc);
		/* its own short tail: the one below is the native steps' (retries, pending tables) */
		if (reason != UW_NOT_JAVA) {
			/* another task's: redo this frame once the caller has read what it asked */
			if (reason && reason != UNWIND_DONE && st->want_hi) {
				st->n--;
				reason = UW_NEED_READ;
			}
			st->stop = reason;
			return reason != 0;
		}
	}
	if (!st->have_map || lookup_pc < st->m_start || lookup_pc >= st->m_end) {
		proc = bpf_map_lookup_elem(&unwind_procs, &st->tgid);
		m = proc ? unwind_find_map(proc, lookup_pc) : NULL;
		if (!m) {
			/* after FP steps through code without its table: a made-up pc */
			st->stop = st->via_building ? HC_STAT_UNWIND_PENDING :
						      HC_STAT_UNWIND_NO_MAPPING;
			return 1;
		}
		st->m_start = m->start;
		st->m_end = m->end;
		st->m_bias = m->bias;
		st->m_obj = m->obj;
		st->m_height = m->height;
		st->m_stamp = m->stamp;
		st->have_map = 1;
	}
	row = st->m_obj ? unwind_rule(s, (__u32)(lookup_pc - st->m_bias)) : NULL;
	/* a handler's return address into the sigreturn trampoline (not the leaf: a syscall) */
	if (st->n > 1 && !st->remote &&
	    (!row || HC_CFI_CFA(row) == HC_CFA_NONE || HC_CFI_CFA(row) == HC_CFA_UNSUP) &&
	    unwind_at_sigreturn(st->pc))
		reason = unwind_sig_step(s);
	else if (!row || HC_CFI_CFA(row) == HC_CFA_NONE) {
		/* V8's code: a JavaScript frame's function in place of its pc */
		if (st->v8)
			uw_v8_frame(s, lookup_pc,
				    !st->m_obj && st->m_height != HC_UNWIND_HEIGHT_BUILDING);
		/* another task's: a word it asked for (want_hi), read before the step */
		reason = st->want_hi ? HC_STAT_UNWIND_READ_ERR : unwind_fp_step(s);
		/* no frame pointers in that code? its CFI is on the way: say so, not "corrupt" */
		if (!st->m_obj && st->m_height == HC_UNWIND_HEIGHT_BUILDING)
			st->via_building = 1;
	} else
		reason = unwind_cfi_step(s, row);
	if (!reason && !st->pc)
		reason = UNWIND_DONE;	/* a zero return address ends the chain */
	if (reason == HC_STAT_UNWIND_READ_ERR && st->want_hi) {
		/* redo this frame once the caller has read the bytes */
		st->n--;
		reason = UW_NEED_READ;
	}
	/*
	 * FP steps through code whose table was being built read words of a
	 * frame without frame pointers: whatever stops the walk after them (a
	 * frame down the stack, an unreadable or unsupported one) comes of that.
	 */
	if (st->via_building && (reason == HC_STAT_UNWIND_BAD_SP || reason == HC_STAT_UNWIND_UNSUP ||
				 reason == HC_STAT_UNWIND_READ_ERR))
		reason = HC_STAT_UNWIND_PENDING;
	if (reason) {
		st->stop = reason;
		return 1;
	}
	return 0;
}

/*
 * Go on with a walk (from its first frame, or one that stopped for
 * UW_NEED_READ, its window now filled). Returns the frames so far.
 */
static __always_inline __u32 unwind_user_resume(struct uw_scratch *s)
{
	struct uw_state *st = &s->st;
	__u32 slot = st->slot;

	hc_refuse_if(HC_PART_CFI);
	st->stop = 0;
	st->want_hi = 0;
	bpf_loop(HC_MAX_STACK_DEPTH, unwind_step, &slot, 0);
	/* every iteration recorded a frame and none found the end: the stack is deeper */
	if (!st->stop)
		st->stop = HC_STAT_USTACK_TRUNC;
	return st->n;
}

/* A walk from @regs set up, not stepped yet: unwind_user_resume() steps it. */
static __always_inline void unwind_user_init(struct uw_scratch *s, struct pt_regs *regs,
					     __u32 tgid, __u32 base)
{
	struct uw_state *st = &s->st;

	/* direct loads: @regs is bpf_task_pt_regs()'s BTF pointer (a probe read each cost ~40 ns) */
	st->pc = regs->ip;
	st->sp = regs->sp;
	st->bp = regs->bp;
	st->bx = regs->bx;
	st->tgid = tgid;
	st->base = base;
	st->n = 0;
	st->fp_frames = 0;
	st->have_map = 0;
	st->leaf_obj = 0;
	st->rc_miss = 0;
	st->win_len = 0;
	st->exact_pc = 0;
	st->via_building = 0;
	st->jit_frames = 0;
	st->hs_edge_walked = 0;
	st->hs_c_pc = 0;
	st->hs_c_have = 0;
	st->v8_c_pc = 0;
	st->v8_c_have = 0;
	st->v8_frames = 0;
	hs_check(st);
	v8_check(st);
}

/*
 * Walk a user stack from @regs (its user-mode registers) into
 * rec.ips[base..], reading it as the current task's unless st->remote.
 * Returns the number of frames; st->stop says why it ended (UNWIND_DONE:
 * reached the outermost frame; UW_NEED_READ: see struct uw_state).
 */
static __always_inline __u32 unwind_user_from(struct uw_scratch *s, struct pt_regs *regs,
					      __u32 tgid, __u32 base)
{
	unwind_user_init(s, regs, tgid, base);
	return unwind_user_resume(s);
}

/* The current task's user stack from @regs; see unwind_user_from(). */
static __always_inline __u32 unwind_user(struct uw_scratch *s, struct pt_regs *regs,
					 __u32 tgid, __u32 base)
{
	s->st.remote = 0;
	return unwind_user_from(s, regs, tgid, base);
}

#endif /* HC_BPF_LIB_UNWIND_WALK_BPF_H */
