// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The privilege check. Without it an unprivileged run's first lines are
 * libbpf's, about RLIMIT_MEMLOCK and CONFIG_BPF_SYSCALL, and never say what
 * is actually needed.
 */
#include "util/caps.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define BIT(n) (1ull << (n))

bool caps__mask_can_trace(uint64_t capeff)
{
	if (capeff & BIT(CAPS_SYS_ADMIN))
		return true;
	return (capeff & BIT(CAPS_BPF)) && (capeff & BIT(CAPS_PERFMON));
}

int caps__effective(uint64_t *capeff)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %" SCNx64, capeff) == 1) {
			err = 0;
			break;
		}
	fclose(f);
	return err;
}

bool caps__mask_can_count_kernel(uint64_t capeff, int paranoid)
{
	return paranoid <= 1 || (capeff & (BIT(CAPS_SYS_ADMIN) | BIT(CAPS_PERFMON)));
}

int caps__perf_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

const char *caps__missing_message(void)
{
	uint64_t eff;

	if (caps__effective(&eff) || caps__mask_can_trace(eff))
		return NULL;
	return "hotcold: needs root, or CAP_BPF + CAP_PERFMON (+ CAP_SYS_ADMIN to read other "
	       "processes' map_files); try: sudo hotcold ...";
}
