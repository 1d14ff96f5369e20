// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * All run-queue waits, with or without a stack, from the sched collector's
 * histogram map. The agent keeps stacks only for waits >= min_runq; the rest
 * must still be counted. Found by name among this process's BPF map fds so
 * collect/sched.c (being reworked on another branch) is untouched; its
 * stats op is the natural home once that lands.
 */
#include "collect/runq_totals.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "abi/sched.h"

/* The fd of the map named @name, or -ENOENT. */
static int find_map(const char *name)
{
	struct bpf_map_info info;
	char link[300], target[64];
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");
	int fd = -ENOENT;
	__u32 len;
	ssize_t n;

	if (!d)
		return -errno;
	while (fd < 0 && (de = readdir(d))) {
		snprintf(link, sizeof(link), "/proc/self/fd/%s", de->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strcmp(target, "anon_inode:bpf-map"))
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(atoi(de->d_name), &info, &len) &&
		    !strcmp(info.name, name) && info.value_size == sizeof(struct hc_runq_hist))
			fd = atoi(de->d_name);
	}
	closedir(d);
	return fd;
}

int runq_totals_read(struct runq_totals *rt, uint64_t *waits, uint64_t *ns)
{
	struct hc_offcpu_thread key, next, *prev = NULL;
	struct hc_runq_hist h;

	if (!rt->looked_up) {
		rt->fd = find_map("runq_hist");
		rt->looked_up = true;
	}
	if (rt->fd < 0)
		return rt->fd;
	*waits = *ns = 0;
	while (!bpf_map_get_next_key(rt->fd, prev, &next)) {
		if (!bpf_map_lookup_elem(rt->fd, &next, &h)) {
			*waits += h.count;
			*ns += h.total_ns;
		}
		key = next;
		prev = &key;
	}
	return 0;
}
