/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Target rules: processes selected by cgroup (v2) and/or by name instead of
 * by pid. The BPF side (bpf/proc.bpf.c) applies them at exec and follows new
 * processes of a match; target_rules_scan() finds the processes that match
 * when recording starts.
 */
#ifndef HC_COLLECT_TARGET_RULES_H
#define HC_COLLECT_TARGET_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/types.h>

#include "abi/common.h"

struct target_rules {
	uint32_t nr_cgroups;
	uint64_t cgroup_id[HC_MAX_TARGET_RULES];	/* kernfs id = the directory's inode */
	uint32_t cgroup_level[HC_MAX_TARGET_RULES];	/* depth below the cgroup2 root */
	char cgroup_path[HC_MAX_TARGET_RULES][256];	/* resolved, for the scan */
	uint32_t nr_comms;
	char comm[HC_MAX_TARGET_RULES][HC_COMM_LEN];	/* NUL-padded */
	uint8_t comm_len[HC_MAX_TARGET_RULES];		/* bytes to compare; NUL included if exact */
};

static inline bool target_rules_any(const struct target_rules *r)
{
	return r->nr_cgroups || r->nr_comms;
}

/*
 * Add a cgroup v2 directory: absolute, or relative to the cgroup2 mount.
 * 0, -ENOENT (no such directory), -ENOTDIR (not a cgroup v2 directory),
 * -E2BIG (too many rules) or another -errno.
 */
int target_rules_add_cgroup(struct target_rules *r, const char *path);

/*
 * Add a process-name rule: NAME (exact; longer than the kernel's 15
 * characters it matches the truncated name) or PREFIX* . 0, -EINVAL (empty,
 * or a wildcard other than one trailing '*'), -E2BIG (too many rules).
 */
int target_rules_add_comm(struct target_rules *r, const char *pattern);

/* Does a process name (as in /proc/PID/comm, no newline) match the name rules? */
bool target_rules_comm_match(const struct target_rules *r, const char *comm);

/*
 * Call @add for each live process matching the rules: in a rule cgroup or
 * below (cgroup.procs) and, with name rules, matching one. Stops at the
 * first error @add returns. 0, or that error, or -errno of an unreadable
 * cgroup. Processes that vanish meanwhile are skipped.
 */
int target_rules_scan(const struct target_rules *r, int (*add)(uint32_t tgid, void *arg),
		      void *arg);

#endif /* HC_COLLECT_TARGET_RULES_H */
