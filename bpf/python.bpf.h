/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * CPython 3.11/3.12 frames of the current thread, appended to a record's
 * user frames (abi/python.h). The loader (src/collect/python.c) puts a
 * process in python_procs once it found its interpreter (_PyRuntime) and
 * knows its version's layout; the walk here is generic over the offsets:
 *
 *   _PyRuntime.interpreters.head -> threads.head -> .next ... (the thread
 *   whose native_thread_id is this task's tid in its pid namespace)
 *   -> cframe -> current_frame -> previous ... (each frame's f_code)
 *
 * No restart and no flag in the target: everything is read from its
 * memory with bpf_probe_read_user. Defines two maps, shared by every
 * object that walks user stacks (their fds come from src/collect/python.c,
 * like shared_maps.bpf.h's): include from shared_maps.bpf.h only.
 */
#ifndef HC_BPF_PYTHON_BPF_H
#define HC_BPF_PYTHON_BPF_H

#include "abi/python.h"

/* tgid -> its interpreter (src/collect/python.c owns it) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct hc_py_proc);
} python_procs SEC(".maps");

/*
 * How many processes python_procs holds (src/collect/python.c keeps it): most
 * samples are of no Python process, and this inlined array lookup spares
 * them the hash lookup (~80 ns a sample).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} python_nprocs SEC(".maps");

struct hc_py_stat_val {
	__u64 v[HC_PY_STAT_NR];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hc_py_stat_val);
} python_stats SEC(".maps");

/* where a thread's PyThreadState was found: one read checks it is still its */
struct py_task {
	__u64 tstate;
	__u64 runtime;		/* of the interpreter it was found in (an exec changes it) */
};

/* each object its own: a miss costs one list walk */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct py_task);
} python_task SEC(".maps");

/* _PyInterpreterFrame is 80 bytes in 3.11 and 3.12: its header is read at once */
#define PY_FRAME_BYTES 80

/* offsets are masked to 0..127 (what the verifier can follow): room for a u64 at 127 */
#define PY_OFF_MASK 127

struct py_frame_buf {
	__u8 b[PY_OFF_MASK + 8 + 1];
};

/* one per scratch slot (shared_maps.bpf.h): a nested program has its own */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UW_SCRATCH_SLOTS);
	__type(key, __u32);
	__type(value, struct py_frame_buf);
} python_scratch SEC(".maps");

static __always_inline void py_stat(enum hc_py_stat idx, __u64 n)
{
	__u32 zero = 0;
	struct hc_py_stat_val *v = bpf_map_lookup_elem(&python_stats, &zero);

	if (v && idx < HC_PY_STAT_NR)
		v->v[idx] += n;
}

/* bpf_loop state: offsets copied here (a map value pointer cannot go through bpf_loop) */
struct py_walk {
	__u64 addr;		/* thread state, then frame being read */
	__u32 tid;		/* thread searched, in the process's pid namespace */
	__u32 slot;		/* scratch slot */
	__u32 idx;		/* next ips index */
	__u32 end;		/* first index not to write */
	__u32 n;		/* frames written */
	__u32 stop;		/* 0 walking, else HC_PY_STAT_* or PY_DONE */
	__u16 ts_next, ts_tid, fr_code, fr_prev, fr_owner, fr_is_entry, cstack;
	__u16 fr_instr, co_code;
};

#define PY_DONE ((__u32)-1)

static __always_inline __u64 py_u64(struct py_frame_buf *f, __u32 off)
{
	return *(__u64 *)&f->b[off & PY_OFF_MASK];
}

static __always_inline __u8 py_u8(struct py_frame_buf *f, __u32 off)
{
	return f->b[off & PY_OFF_MASK];
}

/* bpf_loop callback: is thread state w->addr ours? else on to the next. */
static long py_thread_step(__u32 i, void *ctx)
{
	struct py_walk *w = ctx;
	__u64 tid = 0;

	if (!w->addr)
		return 1;
	if (bpf_probe_read_user(&tid, sizeof(tid), (void *)(w->addr + w->ts_tid))) {
		w->stop = HC_PY_STAT_READ_ERR;
		return 1;
	}
	if ((__u32)tid == w->tid) {
		w->stop = PY_DONE;
		return 1;
	}
	if (bpf_probe_read_user(&w->addr, sizeof(w->addr), (void *)(w->addr + w->ts_next)))
		w->addr = 0;
	return 0;
}

/* bpf_loop callback: emit frame w->addr's code object, go to the previous frame. */
static long py_frame_step(__u32 i, void *ctx)
{
	struct py_walk *w = ctx;
	struct py_frame_buf *f;
	struct uw_scratch *s;
	__u64 code, word, instr;
	__u32 idx = w->idx;

	if (!w->addr) {
		w->stop = PY_DONE;
		return 1;
	}
	f = bpf_map_lookup_elem(&python_scratch, &w->slot);
	s = bpf_map_lookup_elem(&unwind_scratch, &w->slot);
	if (!f || !s)
		return 1;
	if (bpf_probe_read_user(f->b, PY_FRAME_BYTES, (void *)w->addr)) {
		w->stop = HC_PY_STAT_READ_ERR;
		return 1;
	}
	w->addr = py_u64(f, w->fr_prev);
	/*
	 * 3.12: _PyEval_EvalFrameDefault pushes a shim frame owned by the C
	 * stack below its first real one: the frame emitted just before it
	 * entered that activation.
	 */
	if (w->cstack && py_u8(f, w->fr_owner) == w->cstack) {
		if (w->n && idx > 0 && idx <= 2 * HC_MAX_STACK_DEPTH)
			s->rec.ips[idx - 1] |= HC_PY_ENTRY;
		return 0;
	}
	if (idx >= w->end || idx >= 2 * HC_MAX_STACK_DEPTH) {
		w->stop = HC_PY_STAT_NO_ROOM;
		return 1;
	}
	code = py_u64(f, w->fr_code);
	word = HC_PY_TAG | (code & HC_PY_ADDR_MASK);
	/* where in the code: the line, found by the loader from the code's location table */
	instr = (py_u64(f, w->fr_instr) - (code + w->co_code)) / 2;
	if (instr < HC_PY_INSTR_MAX)
		word |= (instr + 1) << HC_PY_INSTR_SHIFT;
	/* 3.11: the first frame of an activation says so itself */
	if (w->fr_is_entry && py_u8(f, w->fr_is_entry))
		word |= HC_PY_ENTRY;
	/*
	 * idx was spilled and filled since its check above; 6.1's verifier
	 * does not carry a filled register's bound back to its stack slot
	 * ("R7 max value is outside of the allowed memory range"): checked
	 * again, in the register the store uses.
	 */
	asm volatile("" : "+r"(idx));
	if (idx >= 2 * HC_MAX_STACK_DEPTH)
		return 1;
	s->rec.ips[idx] = word;
	w->idx = idx + 1;
	w->n++;
	return 0;
}

/*
 * The thread state remembered for @task, if it still is @task's (its
 * native_thread_id read again): into w->addr. A thread state freed and
 * reused by another thread holds that thread's id and fails the check.
 */
static __always_inline bool py_cached_tstate(struct task_struct *task, struct hc_py_proc *p,
					     struct py_walk *w)
{
	struct py_task *t = bpf_task_storage_get(&python_task, task, NULL, 0);
	__u64 tid = 0;

	if (!t || !t->tstate || t->runtime != p->runtime)
		return false;
	if (bpf_probe_read_user(&tid, sizeof(tid), (void *)(t->tstate + p->ts_native_tid)) ||
	    (__u32)tid != w->tid)
		return false;
	w->addr = t->tstate;
	py_stat(HC_PY_STAT_TS_CACHED, 1);
	return true;
}

static __always_inline void py_remember_tstate(struct task_struct *task, struct hc_py_proc *p,
					       __u64 tstate)
{
	struct py_task *t = bpf_task_storage_get(&python_task, task, NULL,
						 BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (t) {
		t->tstate = tstate;
		t->runtime = p->runtime;
	}
}

/* This task's id in its own pid namespace: what CPython's native_thread_id holds. */
static __always_inline __u32 py_ns_tid(struct task_struct *task)
{
	struct pid *p = BPF_CORE_READ(task, thread_pid);
	unsigned int level = BPF_CORE_READ(p, level);
	struct upid up = {};

	/* pid namespaces nest at most 32 deep (MAX_PID_NS_LEVEL) */
	bpf_core_read(&up, sizeof(up), &p->numbers[level & 31]);
	return up.nr;
}

/*
 * Append the current thread's Python frames (leaf first) to s->rec's user
 * frames, for interpreter @p. The native walk is done: the frames go
 * right after it, within HC_MAX_STACK_DEPTH.
 */
static __always_inline void python_walk(struct uw_scratch *s, struct task_struct *task,
					struct hc_py_proc *p)
{
	struct hc_stack_rec *r = &s->rec;
	struct py_walk w = {};
	__u64 interp = 0, cframe = 0;

	if (bpf_probe_read_user(&interp, sizeof(interp), (void *)(p->runtime + p->rt_interp_head)) ||
	    !interp ||
	    bpf_probe_read_user(&w.addr, sizeof(w.addr), (void *)(interp + p->is_threads_head))) {
		py_stat(HC_PY_STAT_READ_ERR, 1);
		return;
	}
	w.tid = py_ns_tid(task);
	w.ts_next = p->ts_next;
	w.ts_tid = p->ts_native_tid;
	if (!py_cached_tstate(task, p, &w)) {
		bpf_loop(HC_PY_MAX_THREADS, py_thread_step, &w, 0);
		if (w.stop != PY_DONE) {
			/* the list went on: a thread beyond the bound, else no Python thread */
			py_stat(w.stop == HC_PY_STAT_READ_ERR ? HC_PY_STAT_READ_ERR :
				w.addr ? HC_PY_STAT_THREADS_CUT : HC_PY_STAT_NO_THREAD, 1);
			return;
		}
		py_remember_tstate(task, p, w.addr);
	}
	if (bpf_probe_read_user(&cframe, sizeof(cframe), (void *)(w.addr + p->ts_cframe)) ||
	    !cframe ||
	    bpf_probe_read_user(&w.addr, sizeof(w.addr), (void *)(cframe + p->cf_current))) {
		py_stat(HC_PY_STAT_READ_ERR, 1);
		return;
	}
	w.stop = 0;
	w.slot = s->st.slot;
	w.idx = (__u32)r->nr_kstack + r->nr_ustack;
	w.end = (__u32)r->nr_kstack + HC_MAX_STACK_DEPTH;
	w.fr_code = p->fr_code;
	w.fr_prev = p->fr_previous;
	w.fr_owner = p->fr_owner;
	w.fr_is_entry = p->fr_is_entry;
	w.cstack = p->cstack_owner;
	w.fr_instr = p->fr_prev_instr;
	w.co_code = p->co_code;
	bpf_loop(HC_PY_MAX_FRAMES, py_frame_step, &w, 0);
	if (!w.stop)
		w.stop = HC_PY_STAT_TRUNC;
	if (w.stop != PY_DONE)
		py_stat(w.stop, 1);
	if (w.n) {
		r->nr_ustack += w.n;
		py_stat(HC_PY_STAT_STACKS, 1);
		py_stat(HC_PY_STAT_FRAMES, w.n);
	}
}

static __always_inline void python_capture(struct uw_scratch *s, struct task_struct *task,
					   __u32 tgid)
{
	__u32 zero = 0, *nprocs = bpf_map_lookup_elem(&python_nprocs, &zero);
	struct hc_py_proc *p;
	__u64 t0;

	if (!nprocs || !*nprocs)
		return;
	p = bpf_map_lookup_elem(&python_procs, &tgid);
	if (!p)
		return;
	/* timed (two clock reads, ~50 ns): the cost is shown with -v and in bench/python.sh */
	t0 = bpf_ktime_get_ns();
	python_walk(s, task, p);
	py_stat(HC_PY_STAT_WALK_NS, bpf_ktime_get_ns() - t0);
	py_stat(HC_PY_STAT_WALKS, 1);
}

#endif /* HC_BPF_PYTHON_BPF_H */
