// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Python frames in place of the interpreter's eval frames (see python_stack.h). */
#include "collect/python_stack.h"

#include <linux/types.h>

#include "abi/python.h"

size_t python_native_count(const uint64_t *uips, size_t n)
{
	size_t i = 0;

	while (i < n && !(uips[i] & HC_PY_TAG))
		i++;
	return i;
}

size_t python_merge(const uint64_t *nat, size_t nn, const uint64_t *py, size_t np,
		    uint64_t eval_lo, uint64_t eval_hi, bool partial, uint32_t *out,
		    struct python_merge_stats *st)
{
	size_t n = 0, j = 0;

	for (size_t i = 0; i < nn; i++) {
		/* above the leaf a return address: the call lies before it */
		uint64_t pc = i ? nat[i] - 1 : nat[i];

		if (pc < eval_lo || pc >= eval_hi || j >= np) {
			out[n++] = (uint32_t)i;
			continue;
		}
		/* this activation's frames: up to and including its entry frame */
		do
			out[n++] = PY_SLOT_PY | (uint32_t)j;
		while (!(py[j++] & HC_PY_ENTRY) && j < np);
		st->replaced++;
	}
	if (partial && j < np) {
		st->above_partial += np - j;
		out[n++] = PY_SLOT_GAP;
		while (j < np)
			out[n++] = PY_SLOT_PY | (uint32_t)j++;
	}
	st->unplaced += np - j;
	return n;
}
