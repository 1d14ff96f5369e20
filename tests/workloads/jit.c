// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A toy JIT: copies a counting loop into anonymous executable memory,
 * publishes it in /tmp/perf-PID.map as "jit_hot_loop" and runs it for SECONDS.
 * Prints its pid on stdout. usage: jit SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* mov rcx, 50000000; 1: dec rcx; jnz 1b; ret  (x86-64) */
static const unsigned char code[] = {
	0x48, 0xc7, 0xc1, 0x80, 0xf0, 0xfa, 0x02,	/* mov $50000000, %rcx */
	0x48, 0xff, 0xc9,				/* dec %rcx */
	0x75, 0xfb,					/* jnz -5 */
	0xc3,						/* ret */
};

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 5;
	char path[64];
	struct timespec a, b;
	void (*fn)(void);
	void *mem;
	FILE *f;

#if !defined(__x86_64__)
	fprintf(stderr, "jit: x86-64 only\n");
	return 77;
#endif
	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem, code, sizeof(code));
	if (mprotect(mem, 4096, PROT_READ | PROT_EXEC))
		return 1;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %zx jit_hot_loop\n", (unsigned long)mem, sizeof(code));
	fclose(f);
	printf("%d\n", getpid());	/* so the caller can remove the map afterwards */
	fflush(stdout);
	fn = (void (*)(void))mem;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		fn();
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while (b.tv_sec - a.tv_sec + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	return 0;
}
