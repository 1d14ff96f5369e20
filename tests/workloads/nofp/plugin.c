// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Loaded with dlopen() by glibc_calls' stage_dlopen (GLIBC_CALLS_PLUGIN), long
 * after the process's first sample: its code is mapped after the unwinder
 * read the process's mappings. Built without frame pointers
 * (gcc -O2 -fomit-frame-pointer -shared -fPIC) by the test.
 * Expected stacks: ... main -> stage_dlopen -> plugin_entry -> plugin_burn.
 */
#define NOINLINE __attribute__((noinline))
#define KEEP_FRAME() asm volatile("" ::: "memory")

static volatile unsigned long sink;

NOINLINE void plugin_burn(volatile unsigned long *ticks, unsigned long end)
{
	while (*ticks < end)
		for (int i = 0; i < 1000; i++)
			sink = sink * 37 + i;
	KEEP_FRAME();
}

NOINLINE void plugin_entry(volatile unsigned long *ticks, unsigned long end)
{
	plugin_burn(ticks, end);
	KEEP_FRAME();
}
