/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Native and Python frames of one user stack merged into one: each native
 * frame in _PyEval_EvalFrameDefault is replaced by the Python frames its
 * activation was running (abi/python.h: the entry frame ends an
 * activation's frames). Pure: unit-tested.
 */
#ifndef HC_COLLECT_PYTHON_STACK_H
#define HC_COLLECT_PYTHON_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A merged frame: a native frame's index, or a Python frame's (PY_SLOT_PY set). */
#define PY_SLOT_PY 0x80000000u
/*
 * Where native frames are missing: between Python frames put above a
 * native walk that stopped early and that walk's last frame. Without it
 * the stack would read as if the Python function called the native leaf
 * directly (caller_z;libz+0x5d80 instead of caller_z;...;deflate;...).
 */
#define PY_SLOT_GAP (PY_SLOT_PY | 0x7fffffffu)

struct python_merge_stats {
	uint64_t replaced;	/* eval activations replaced by their Python frames */
	uint64_t unplaced;	/* Python frames left over: no eval frame for them (dropped) */
	uint64_t above_partial;	/* Python frames put above a native walk that stopped early */
};

/* The number of native frames at the start of @uips (Python frames are tagged, after them). */
size_t python_native_count(const uint64_t *uips, size_t n);

/*
 * Merge native frames @nat[0..@nn) (leaf first, raw ips: return addresses
 * above the leaf) with Python frames @py[0..@np) (leaf first, tagged
 * words) into @out (room for @nn + @np), leaf first. [@eval_lo, @eval_hi)
 * is _PyEval_EvalFrameDefault in the process. Python frames left over
 * when the native frames end are the callers of the outermost native
 * frame if the native walk stopped early (@partial: a frame-pointer walk
 * through code without them, a table not built yet): they go above it,
 * after a PY_SLOT_GAP (room for @nn + @np + 1 then); after a complete walk
 * they belong nowhere and are dropped, counted.
 * Returns the merged count.
 */
size_t python_merge(const uint64_t *nat, size_t nn, const uint64_t *py, size_t np,
		    uint64_t eval_lo, uint64_t eval_hi, bool partial, uint32_t *out,
		    struct python_merge_stats *st);

#endif /* HC_COLLECT_PYTHON_STACK_H */
