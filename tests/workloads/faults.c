// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Page faults and context switches at known sites, for `record -e
 * page-faults` / `-e context-switches` and `stat --compare`:
 *   fault_pages(): PAGES first touches of fresh anonymous pages (one minor
 *     fault each; huge pages refused so a fault is one 4 KiB page);
 *   switch_often(): SLEEPS sleeps of 200 us (one voluntary switch each).
 * usage: faults PAGES SLEEPS [TRUTH]
 * TRUTH gets the minor faults fault_pages()'s loop really took (getrusage),
 * the test's ground truth instead of PAGES: a page faulted twice would be
 * two true samples. (CI, session 11: 2002 samples at -c 10 once, while
 * helpers loaded the machine; not reproduced, compaction during 15 runs
 * left every count at PAGES. With the truth, that run would say whether
 * the kernel or hotcold counted 20 more.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static long touch_faults;	/* the minor faults of the touching loop alone */

__attribute__((noinline)) void fault_pages(long pages)
{
	long psz = sysconf(_SC_PAGESIZE);
	struct rusage r0, r1;
	volatile char *p;

	if (pages <= 0)
		return;
	p = mmap(NULL, (size_t)(pages * psz), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(1);
	madvise((void *)p, (size_t)(pages * psz), MADV_NOHUGEPAGE);
	getrusage(RUSAGE_SELF, &r0);
	getrusage(RUSAGE_SELF, &r0);	/* the first call's own page faults before r0 */
	for (long i = 0; i < pages; i++)
		p[i * psz] = 1;
	getrusage(RUSAGE_SELF, &r1);
	touch_faults = r1.ru_minflt - r0.ru_minflt;
	munmap((void *)p, (size_t)(pages * psz));
}

__attribute__((noinline)) void switch_often(long n)
{
	struct timespec ts = { 0, 200000 };

	for (long i = 0; i < n; i++)
		nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	FILE *f;

	fault_pages(argc > 1 ? atol(argv[1]) : 10000);
	if (argc > 3) {
		f = fopen(argv[3], "w");
		if (!f)
			return 1;
		fprintf(f, "%ld\n", touch_faults);
		fclose(f);
	}
	switch_often(argc > 2 ? atol(argv[2]) : 100);
	return 0;
}
