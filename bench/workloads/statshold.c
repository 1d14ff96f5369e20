// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * statshold: keep BPF run-time statistics (run_time_ns, run_cnt) on for as
 * long as this process lives, through a BPF_ENABLE_STATS file descriptor.
 *
 * Unlike writing the kernel.bpf_stats_enabled sysctl, the fd is reference
 * counted by the kernel: several measurements on one machine can hold one
 * each without switching each other's statistics off, and nothing is left
 * switched on when the holder dies. Prints "ok" on stdout once enabled, then
 * sleeps until killed.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.enable_stats.type = BPF_STATS_RUN_TIME;
	fd = syscall(__NR_bpf, BPF_ENABLE_STATS, &attr, sizeof(attr));
	if (fd < 0) {
		fprintf(stderr, "statshold: BPF_ENABLE_STATS: %s\n", strerror(errno));
		return 1;
	}
	printf("ok\n");
	fflush(stdout);
	for (;;)
		pause();
}
