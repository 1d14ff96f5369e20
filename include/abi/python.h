/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * CPython frames walked in BPF (bpf/python.bpf.h) for processes the loader
 * recognised (src/collect/python.c): per process the interpreter's runtime
 * address and its version's structure offsets; per sample the code object
 * of each Python frame, tagged, after the native user frames.
 */
#ifndef HC_ABI_PYTHON_H
#define HC_ABI_PYTHON_H

/* Python frames walked per sample at most; a deeper stack is cut and counted */
#define HC_PY_MAX_FRAMES	64
/*
 * threads of the main interpreter searched for the sampled one (newest
 * first); a thread's state, once found, is remembered in its task storage
 */
#define HC_PY_MAX_THREADS	256

/*
 * A Python frame in the user part of hc_stack_rec::ips, after the native
 * frames (counted in nr_ustack): bit 63 set (no user address has it), bit
 * 62 set when the frame is the first its _PyEval_EvalFrameDefault
 * activation ran (the entry frame: the activation's frames end there),
 * bits 48-61 the index + 1 of its last instruction in code units (0:
 * unknown or past 16382), the code object's address in the low 48 bits.
 */
#define HC_PY_TAG		(1ull << 63)
#define HC_PY_ENTRY		(1ull << 62)
#define HC_PY_INSTR_SHIFT	48
#define HC_PY_INSTR_MAX		0x3fffull
#define HC_PY_ADDR_MASK		((1ull << 48) - 1)

/* python_procs value: tgid -> where its interpreter is and how it is laid out */
struct hc_py_proc {
	__u64 runtime;		/* address of _PyRuntime in the process */
	__u32 version;		/* PY_VERSION_HEX, for the loader's own reading */
	__u16 rt_interp_head;	/* _PyRuntimeState.interpreters.head */
	__u16 is_threads_head;	/* PyInterpreterState.threads.head */
	__u16 ts_next;		/* PyThreadState.next */
	__u16 ts_native_tid;	/* PyThreadState.native_thread_id */
	__u16 ts_cframe;	/* PyThreadState.cframe */
	__u16 cf_current;	/* _PyCFrame.current_frame */
	__u16 fr_code;		/* _PyInterpreterFrame.f_code */
	__u16 fr_previous;	/* _PyInterpreterFrame.previous */
	__u16 fr_owner;		/* _PyInterpreterFrame.owner (char) */
	__u16 fr_is_entry;	/* 3.11: _PyInterpreterFrame.is_entry (bool); 0: none */
	__u16 cstack_owner;	/* 3.12: owner value of the C-stack shim frame; 0: none */
	__u16 fr_prev_instr;	/* _PyInterpreterFrame.prev_instr */
	__u16 co_code;		/* PyCodeObject.co_code_adaptive: the first instruction */
	__u16 pad;
};

/* python_stats: PERCPU_ARRAY, one slot of __u64[HC_PY_STAT_NR] */
enum hc_py_stat {
	HC_PY_STAT_STACKS = 0,	/* samples of a recognised process with Python frames */
	HC_PY_STAT_FRAMES,	/* Python frames emitted */
	HC_PY_STAT_NO_THREAD,	/* the sampled thread has no thread state (not a Python thread) */
	HC_PY_STAT_READ_ERR,	/* a read of interpreter memory failed: frames cut there */
	HC_PY_STAT_TRUNC,	/* stack deeper than HC_PY_MAX_FRAMES: cut */
	HC_PY_STAT_NO_ROOM,	/* no room left in the record after the native frames: cut */
	HC_PY_STAT_THREADS_CUT,	/* thread not among the first HC_PY_MAX_THREADS: no Python frames */
	HC_PY_STAT_WALK_NS,	/* nanoseconds in the walk (thread lookup + frames), recognised processes */
	HC_PY_STAT_WALKS,	/* walks timed in HC_PY_STAT_WALK_NS */
	HC_PY_STAT_TS_CACHED,	/* thread states found in the task's storage (no list walk) */
	HC_PY_STAT_NR,
};

#endif /* HC_ABI_PYTHON_H */
