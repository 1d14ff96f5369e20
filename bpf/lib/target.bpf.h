/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Target filtering shared by collectors. The caller's object defines the
 * proc_targets map (reused from proc.bpf.c's by fd) and the cfg_ knobs below.
 */
#ifndef HC_BPF_LIB_TARGET_BPF_H
#define HC_BPF_LIB_TARGET_BPF_H

/*
 * cfg_filter: 0 = every task; otherwise only tasks whose tgid has
 * HC_TARGET_TGID or whose tid has HC_TARGET_TID in proc_targets.
 * A value bit per key, because a tid key must not match the whole process
 * whose leader has that id (-t 100 is thread 100 only, -p 100 all of them).
 */
static __always_inline bool target_match(void *targets, __u32 tgid, __u32 pid)
{
	__u32 *v;

	v = bpf_map_lookup_elem(targets, &tgid);
	if (v && (*v & HC_TARGET_TGID))
		return !(*v & HC_TARGET_EXEC);	/* the -- CMD child before its exec */
	v = bpf_map_lookup_elem(targets, &pid);
	return v && (*v & HC_TARGET_TID);
}

#endif /* HC_BPF_LIB_TARGET_BPF_H */
