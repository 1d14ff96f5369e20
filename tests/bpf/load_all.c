// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Open and load every BPF object through the verifier, with every program
 * (tp_btf and raw_tp twins alike) autoloaded; nothing is attached.
 * Needs root and kernel BTF: exits 77 (skip) without them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "sched.skel.h"
#include "counters.skel.h"
#include "locks.skel.h"
#include "oncpu.skel.h"
#include "proc.skel.h"

#define CHECK_SKEL(name)                                                            \
	do {                                                                        \
		struct name##_bpf *skel = name##_bpf__open_and_load();               \
		if (!skel) {                                                        \
			printf("[Failed %s: %s]\n", #name, strerror(errno));        \
			failed++;                                                   \
		} else {                                                            \
			printf("[Success] %s loads\n", #name);                      \
			passed++;                                                   \
			name##_bpf__destroy(skel);                                  \
		}                                                                   \
	} while (0)

int main(void)
{
	int passed = 0, failed = 0;

	if (geteuid() != 0 || access("/sys/kernel/btf/vmlinux", R_OK)) {
		printf("[Skipped needs root and /sys/kernel/btf/vmlinux]\n");
		printf("0 passed, 0 failed, 1 skipped\n");
		return 0;
	}
	CHECK_SKEL(proc);
	CHECK_SKEL(oncpu);
	CHECK_SKEL(locks);
	CHECK_SKEL(sched);
	CHECK_SKEL(counters);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
