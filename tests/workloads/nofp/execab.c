// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Two non-PIE images of this one file that exec each other: A (default)
 * and B (-DIMAGE_B). Each spins MS ms in its first function, then execs the
 * other with ROUNDS - 1. Both put that function first in .text, after the
 * same crt code, so B's spin loop sits at addresses that A's table has rows
 * for, of a function with an 8 KiB frame: a walk of B by A's CFI mappings
 * (the old image's, not yet replaced after the exec) takes its return
 * address from 8 KiB up the stack. Built without frame pointers (the test
 * compiles it: gcc -O1 -fomit-frame-pointer -no-pie), so only CFI reaches
 * main.
 *
 * usage: execab ROUNDS MS PATH_A PATH_B
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

#ifndef IMAGE_B
/* A: a frame of 8 KiB; its rows say the CFA is ~8 KiB above %rsp */
__attribute__((noinline)) void a_frame(double until)
{
	volatile char buf[8192];

	while (now() < until)
		for (int i = 0; i < 100000; i++)
			buf[i & 8191] = (char)i;
}
#define SPIN a_frame
#define NEXT 4
#else
/* B: a frame of 24 bytes; in its loop the CFA is %rsp + 32 */
__attribute__((noinline)) void b_spin(double until)
{
	volatile unsigned long n = 0;

	while (now() < until)
		for (int i = 0; i < 100000; i++)
			n += i;
}
#define SPIN b_spin
#define NEXT 3
#endif

int main(int argc, char **argv)
{
	char rounds[16];
	int left;

	if (argc != 5)
		return 2;
	left = atoi(argv[1]);
	SPIN(now() + atoi(argv[2]) / 1e3);
	if (left <= 1)
		return 0;
	snprintf(rounds, sizeof(rounds), "%d", left - 1);
	execl(argv[NEXT], argv[NEXT], rounds, argv[2], argv[3], argv[4], (char *)NULL);
	return 1;
}
