// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Source of the fuzz_elf_syms seed objects, built at fuzz time (binaries are
 * never committed): global, static and weak functions, data, a build-id.
 */
int seed_data = 42;

__attribute__((noinline)) static int seed_static(int x)
{
	return x * 3 + seed_data;
}

__attribute__((noinline)) int seed_global(int x)
{
	return seed_static(x) ^ 0x55;
}

__attribute__((weak, noinline)) int seed_weak(int x)
{
	return seed_global(x) + 1;
}

int seed_entry(void)
{
	return seed_weak(7);
}
