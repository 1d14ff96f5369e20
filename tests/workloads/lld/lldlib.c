// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The shared library of tests/integration/t_lld.sh, linked by LLD: its own
 * hot loop (lib_inner) and a call back into the executable (lib_call), so
 * stacks cross the library in both directions.
 */
volatile unsigned long lld_sink;

__attribute__((noinline)) void lib_inner(long iters)
{
	unsigned long x = lld_sink;

	for (long i = 0; i < iters; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	lld_sink = x;
}

__attribute__((noinline)) void lib_outer(long iters)
{
	lib_inner(iters);
	lld_sink++;	/* not a tail call */
}

__attribute__((noinline)) void lib_call(void (*cb)(long), long iters)
{
	cb(iters);
	lld_sink++;
}
