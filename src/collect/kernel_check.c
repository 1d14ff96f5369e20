// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The minimum kernel, probed feature by feature (kernel_check.h). */
#include "collect/kernel_check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <linux/bpf.h>

/*
 * What every collector's core loads with, and since when; the optional
 * parts (task work, lock tracepoints, iterators) are probed by their
 * collectors, which go on without them (collect/parts.h).
 */
static bool have_btf(void)
{
	return access("/sys/kernel/btf/vmlinux", R_OK) == 0;
}

static bool have_ringbuf(void)
{
	return libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) == 1;
}

static bool have_task_storage(void)
{
	return libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) == 1;
}

static bool have_bpf_loop(void)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_loop, NULL) == 1;
}

int kernel_check(char *msg, size_t len)
{
	static const struct {
		const char *name, *what;
		bool (*have)(void);
	} needs[] = {
		{ "btf", "BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF)", have_btf },
		{ "ringbuf", "the BPF ring buffer (5.8)", have_ringbuf },
		{ "task_storage", "BPF task storage (5.11)", have_task_storage },
		{ "bpf_loop", "bpf_loop (5.17)", have_bpf_loop },
	};
	/* HOTCOLD_TEST_KERNEL_LACKS=NAME: the tests' kernel below the minimum */
	const char *lacks = getenv("HOTCOLD_TEST_KERNEL_LACKS");
	struct utsname u;
	size_t off;
	bool any = false;

	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	off = (size_t)snprintf(msg, len, "hotcold: this kernel (%s) lacks ", u.release);
	for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++) {
		if ((!lacks || strcmp(lacks, needs[i].name)) && needs[i].have())
			continue;
		if (off < len)
			off += (size_t)snprintf(msg + off, len - off, "%s%s", any ? ", " : "",
						needs[i].what);
		any = true;
	}
	if (!any) {
		if (len)
			msg[0] = 0;
		return 0;
	}
	if (off < len)
		snprintf(msg + off, len - off, "; hotcold needs Linux >= 5.17 with BTF "
			 "(README, Kernels)");
	return -ENOTSUP;
}
