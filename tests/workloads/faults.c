// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Page faults and context switches at known sites, for `record -e
 * page-faults` / `-e context-switches` and `stat --compare`:
 *   fault_pages(): PAGES first touches of fresh anonymous pages (one minor
 *     fault each; huge pages refused so a fault is one 4 KiB page);
 *   switch_often(): SLEEPS sleeps of 200 us (one voluntary switch each).
 * usage: faults PAGES SLEEPS
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) void fault_pages(long pages)
{
	long psz = sysconf(_SC_PAGESIZE);
	volatile char *p;

	if (pages <= 0)
		return;
	p = mmap(NULL, (size_t)(pages * psz), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(1);
	madvise((void *)p, (size_t)(pages * psz), MADV_NOHUGEPAGE);
	for (long i = 0; i < pages; i++)
		p[i * psz] = 1;
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
	fault_pages(argc > 1 ? atol(argv[1]) : 10000);
	switch_often(argc > 2 ? atol(argv[2]) : 100);
	return 0;
}
