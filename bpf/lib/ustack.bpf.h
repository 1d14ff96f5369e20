/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * User-stack capture for the current task into a record, by CFI where the
 * loader published tables for the process, else by frame pointers. Include
 * after lib/unwind_walk.bpf.h; the object defines cfg_unwind.
 */
#ifndef HC_BPF_LIB_USTACK_BPF_H
#define HC_BPF_LIB_USTACK_BPF_H

/* timing builds of oncpu.bpf.c mark the steps of a capture */
#ifndef USTACK_MARK
#define USTACK_MARK(i)
#endif

/* Common record header fields but the names, sampled at @now (bpf_ktime_get_ns()). */
static __always_inline void rec_fill_fixed(struct hc_stack_rec *r, __u32 tgid, __u32 pid,
					   __u16 kind, __u64 now)
{
	r->hdr.type = HC_REC_STACK;
	r->tgid = tgid;
	r->pid = pid;
	r->cpu = bpf_get_smp_processor_id();
	r->kind = kind;
	r->flags = 0;
	r->nr_kstack = 0;
	r->nr_ustack = 0;
	r->state = 0;
	r->syscall = -1;
	r->count = 1;
	r->addr = 0;
	r->weight = 1;
	r->time_ns = now;
}

/* Common record header fields for the current task. */
static __always_inline void rec_fill_header(struct hc_stack_rec *r, struct task_struct *task,
					    __u32 tgid, __u32 pid, __u16 kind)
{
	struct task_struct *leader = BPF_CORE_READ(task, group_leader);

	rec_fill_fixed(r, tgid, pid, kind, bpf_ktime_get_ns());
	BPF_CORE_READ_STR_INTO(&r->comm, task, comm);
	BPF_CORE_READ_STR_INTO(&r->pcomm, leader, comm);
}

/* By CFI; false if the process has no tables yet (the caller uses FP). */
static __always_inline bool ustack_cfi(struct uw_scratch *s, struct task_struct *task, __u32 tgid,
				       __u32 nk, void *stats)
{
	struct hc_stack_rec *r = &s->rec;
	struct hc_stat_val *sv;
	__u32 zero = 0;

	if (!bpf_map_lookup_elem(&unwind_procs, &tgid)) {
		stat_inc(stats, HC_STAT_UNWIND_NO_TABLE);
		return false;
	}
	/* the user-mode registers saved at kernel entry, whatever mode we are in */
	unwind_user_init(s, (struct pt_regs *)bpf_task_pt_regs(task), tgid, nk);
	s->st.remote = 0;
	USTACK_MARK(TM_US_PRE);
	r->nr_ustack = unwind_user_resume(s);
	USTACK_MARK(TM_US_WALK);
	r->flags |= HC_SF_UNWIND_CFI;
	if (s->st.fp_frames)
		r->flags |= HC_SF_UNWIND_FP;
	if (s->st.stop == HC_STAT_USTACK_TRUNC)
		r->flags |= HC_SF_USTACK_TRUNC;
	if (s->st.stop == HC_STAT_UNWIND_NO_MAPPING)
		r->flags |= HC_SF_UNWIND_UNMAPPED;
	if (s->st.stop == HC_STAT_UNWIND_PENDING)
		r->flags |= HC_SF_UNWIND_PENDING;
	if (s->st.stop != UNWIND_DONE)
		r->flags |= HC_SF_UNWIND_PARTIAL;
	/* one lookup for all of a walk's counters */
	sv = bpf_map_lookup_elem(stats, &zero);
	if (sv) {
		sv->v[HC_STAT_UNWIND_CFI]++;
		sv->v[HC_STAT_UNWIND_FRAMES] += r->nr_ustack;
		sv->v[HC_STAT_UNWIND_RULE_MISS] += s->st.rc_miss;
		sv->v[HC_STAT_UNWIND_JIT_FRAMES] += s->st.jit_frames;
		sv->v[HC_STAT_UNWIND_JIT_EDGE_WALKED] += s->st.hs_edge_walked;
		sv->v[HC_STAT_UNWIND_V8_FRAMES] += s->st.v8_frames;
		if (s->st.fp_frames)
			sv->v[HC_STAT_UNWIND_FP_FRAMES]++;
		if (s->st.stop != UNWIND_DONE && s->st.stop < HC_STAT_NR)
			sv->v[s->st.stop]++;
	}
	USTACK_MARK(TM_US_POST);
	return true;
}

static __always_inline void ustack_fp(void *ctx, struct hc_stack_rec *r, __u32 nk, void *stats)
{
	long n;

	if (nk > HC_MAX_STACK_DEPTH)
		return;
	/* no ctx in a task-work callback: the current task's saved user registers */
	if (ctx)
		n = bpf_get_stack(ctx, &r->ips[nk], HC_MAX_STACK_DEPTH * sizeof(__u64),
				  BPF_F_USER_STACK);
	else
		n = bpf_get_task_stack(bpf_get_current_task_btf(), &r->ips[nk],
				       HC_MAX_STACK_DEPTH * sizeof(__u64), BPF_F_USER_STACK);
	if (n < 0) {
		r->flags |= HC_SF_USTACK_ERR;
		stat_inc(stats, HC_STAT_USTACK_ERR);
		return;
	}
	r->nr_ustack = n / sizeof(__u64);
	if (r->nr_ustack == HC_MAX_STACK_DEPTH) {
		r->flags |= HC_SF_USTACK_TRUNC;
		stat_inc(stats, HC_STAT_USTACK_TRUNC);
	}
}

/* The current task's user stack after @nk kernel ips in s->rec. */
static __always_inline void ustack_capture(void *ctx, struct uw_scratch *s,
					   struct task_struct *task, __u32 tgid, __u32 nk,
					   void *stats)
{
	if (cfg_unwind != HC_UNWIND_CFI || !ustack_cfi(s, task, tgid, nk, stats))
		ustack_fp(ctx, &s->rec, nk, stats);
	/* the interpreter's frames after the native ones (bpf/python.bpf.h) */
	python_capture(s, task, tgid);
	USTACK_MARK(TM_US_PY);
}

/* Used bytes of a record, bounded for the verifier. */
static __always_inline __u32 rec_size(struct hc_stack_rec *r)
{
	__u32 n = r->nr_kstack + r->nr_ustack;

	if (n > 2 * HC_MAX_STACK_DEPTH)
		n = 2 * HC_MAX_STACK_DEPTH;
	return sizeof(*r) - sizeof(r->ips) + n * sizeof(__u64);
}

#endif /* HC_BPF_LIB_USTACK_BPF_H */
