// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Process lifecycle for every collector: owns the target filter (following
 * children of `-- CMD`), the shared event ring, and exec/exit events that let
 * the loader snapshot and release per-process symbol state in ring order.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "abi/common.h"
#include "abi/unwind.h"
#include "lib/stats.bpf.h"
#include "lib/task.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile bool cfg_filter = false;		/* false: system-wide */
const volatile bool cfg_follow_children = false; /* `-- CMD`: new processes of a target are targets */
const volatile bool cfg_exec_wakeup = false;	/* the loader reads maps at exec: wake it at once */
const volatile bool cfg_exit_maps = false;	/* HC_REC_MAPS for young processes (user stacks) */
const volatile bool cfg_unwind_procs = false;	/* unwind_procs is the CFI tables' (reused fd) */

/*
 * Target rules (--cgroup, --comm): a process is a target when it is in one
 * of the cgroups (or below) and, with --comm rules, its name matches one.
 * The loader adds the processes that match at start; after that they are
 * checked here at exec (a new program, and usually a new cgroup's first
 * program: systemd clones into the service's cgroup, then execs), and new
 * processes of a matched one are followed, as long as they keep matching.
 */
const volatile __u32 cfg_nr_cgroups = 0;
const volatile __u64 cfg_cgroup_ids[HC_MAX_TARGET_RULES] = {};
const volatile __u32 cfg_cgroup_levels[HC_MAX_TARGET_RULES] = {};
const volatile __u32 cfg_nr_comms = 0;
const volatile char cfg_comms[HC_MAX_TARGET_RULES][HC_COMM_LEN] = {};
const volatile __u8 cfg_comm_len[HC_MAX_TARGET_RULES] = {};	/* bytes compared; 16: exact */

#include "proc_maps.bpf.h"
#include "unwind_procs.bpf.h"
#include "lib/vmas.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hc_stat_val);
} proc_stats SEC(".maps");

/*
 * Exit records need their place in the ring, not a prompt reader: the
 * loader releases state with them, which can wait for its poll timer
 * (100 ms). Past half full the reader is woken, as for samples. Exec wakes
 * it at once when it reads the new image's maps while the process lives.
 */
static __always_inline __u64 proc_wakeup(__u32 type)
{
	if (type == HC_REC_EXEC && cfg_exec_wakeup)
		return BPF_RB_FORCE_WAKEUP;
	if (bpf_ringbuf_query(&proc_events, BPF_RB_AVAIL_DATA) >
	    bpf_ringbuf_query(&proc_events, BPF_RB_RING_SIZE) / 2)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

static __always_inline void emit_proc(__u32 type, __u32 tgid, struct task_struct *t)
{
	struct hc_proc_rec *r;

	r = bpf_ringbuf_reserve(&proc_events, sizeof(*r), 0);
	if (!r) {
		stat_inc(&proc_stats, HC_STAT_PROC_RB_FULL);
		return;
	}
	r->hdr.type = type;
	r->hdr.size = sizeof(*r);
	r->tgid = tgid;
	r->pad = 0;
	BPF_CORE_READ_STR_INTO(&r->comm, t, comm);
	bpf_ringbuf_submit(r, proc_wakeup(type));
}

static __always_inline bool tgid_interesting(__u32 tgid)
{
	__u32 *v;

	if (!cfg_filter)
		return true;
	v = bpf_map_lookup_elem(&proc_targets, &tgid);
	return v && (*v & HC_TARGET_TGID);
}

static __always_inline bool have_rules(void)
{
	return cfg_nr_cgroups || cfg_nr_comms;
}

/* In one of the rule cgroups, or below one? (the current task) */
static __always_inline bool cgroup_matches(void)
{
	for (__u32 i = 0; i < HC_MAX_TARGET_RULES; i++) {
		if (i >= cfg_nr_cgroups)
			return false;
		if (bpf_get_current_ancestor_cgroup_id(cfg_cgroup_levels[i]) == cfg_cgroup_ids[i])
			return true;
	}
	return false;
}

static __always_inline bool comm_matches(void)
{
	char comm[HC_COMM_LEN];

	bpf_get_current_comm(comm, sizeof(comm));
	for (__u32 i = 0; i < HC_MAX_TARGET_RULES; i++) {
		__u32 n = cfg_comm_len[i], j;

		if (i >= cfg_nr_comms)
			return false;
		/* exact rules compare the NUL too (the loader stores it) */
		for (j = 0; j < HC_COMM_LEN; j++) {
			if (j >= n || comm[j] != cfg_comms[i][j])
				break;
		}
		if (j >= n)
			return true;
	}
	return false;
}

static __always_inline bool rules_match(void)
{
	if (cfg_nr_cgroups && !cgroup_matches())
		return false;
	return !cfg_nr_comms || comm_matches();
}

static __always_inline int on_fork(struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	__u32 bits = HC_TARGET_TGID;
	__u32 *v;

	/* a new thread shares its tgid, which already matches */
	if (!cfg_filter || (!cfg_follow_children && !have_rules()) || ctgid == ptgid)
		return 0;
	v = bpf_map_lookup_elem(&proc_targets, &ptgid);
	if (!v || !(*v & HC_TARGET_TGID))
		return 0;
	/* a child of an explicit -p target is not one (perf's -p); of a rule target, it is */
	if (!cfg_follow_children && !(*v & HC_TARGET_RULE))
		return 0;
	bits |= *v & HC_TARGET_RULE;
	if (bpf_map_update_elem(&proc_targets, &ctgid, &bits, BPF_ANY))
		stat_inc(&proc_stats, HC_STAT_TARGET_FULL);
	return 0;
}

/* At exec: a rule target that no longer matches leaves, a new match joins. */
static __always_inline void exec_rules(__u32 tgid)
{
	__u32 bits = HC_TARGET_TGID | HC_TARGET_RULE, *v;

	v = bpf_map_lookup_elem(&proc_targets, &tgid);
	if (rules_match()) {
		if (!v && bpf_map_update_elem(&proc_targets, &tgid, &bits, BPF_NOEXIST) == -7)
			stat_inc(&proc_stats, HC_STAT_TARGET_FULL);
		return;
	}
	if (v && (*v & HC_TARGET_RULE))
		bpf_map_delete_elem(&proc_targets, &tgid);
}

static __always_inline int on_exec(struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid), *v, bits;

	/* the -- CMD child has exec'd: from here on it is the command (abi/common.h) */
	v = cfg_filter ? bpf_map_lookup_elem(&proc_targets, &tgid) : NULL;
	if (v && (*v & HC_TARGET_EXEC)) {
		bits = *v & ~HC_TARGET_EXEC;
		bpf_map_update_elem(&proc_targets, &tgid, &bits, BPF_EXIST);
	}
	if (cfg_filter && have_rules())
		exec_rules(tgid);
	/*
	 * The old image's mappings go now, not when the loader reads this
	 * record (up to a poll later): until then the CFI walker would step
	 * the new image's code by the old one's tables, a pc outside them
	 * ending the walk at the leaf, one inside them (a non-PIE program
	 * execs another) walking it by the wrong rows. With no entry the walk
	 * is by frame pointer, marked "no CFI table yet", until the loader
	 * publishes the new image (its uproc_table_ready() updates only an
	 * entry that exists). Whatever the filter: an entry outlives a target
	 * that leaves it at exec.
	 */
	if (cfg_unwind_procs)
		bpf_map_delete_elem(&unwind_procs, &tgid);
	if (!tgid_interesting(tgid))
		return 0;
	if (cfg_exec_wakeup) {
		/*
		 * The loader reads the new image's maps on this record: the
		 * process is seen, so its exit gets a record that releases them
		 * even if it never produces a sample.
		 */
		__u32 now = seen_stamp();

		bpf_map_update_elem(&proc_seen, &tgid, &now, BPF_ANY);
	} else {
		/* next sample is "new" again: the loader re-reads the new image's maps */
		bpf_map_delete_elem(&proc_seen, &tgid);
	}
	emit_proc(HC_REC_EXEC, tgid, p);
	return 0;
}

/*
 * A process the loader saw for the first time less than HC_MAPS_WINDOW ago
 * may have been gone before it read /proc/PID/maps: leave its executable
 * mappings in the ring, ahead of its exit record. @p is current.
 */
static __always_inline void emit_exit_maps(struct task_struct *p, __u32 tgid, __u32 seen)
{
	struct hc_maps_rec *r;
	bool ok;

	if (seen_stamp() - seen >= HC_MAPS_WINDOW)
		return;
	r = bpf_ringbuf_reserve(&proc_events, sizeof(*r), 0);
	if (!r) {
		stat_inc(&proc_stats, HC_STAT_MAPS_ERR);
		return;
	}
	r->hdr.type = HC_REC_MAPS;
	r->hdr.size = sizeof(*r);
	r->tgid = tgid;
	r->pad = 0;
	ok = vma_read_exec(r, p);
	if (!ok)
		stat_inc(&proc_stats, HC_STAT_MAPS_ERR);
	if (r->flags & HC_MAPS_PARTIAL)
		stat_inc(&proc_stats, HC_STAT_MAPS_PARTIAL);
	if (!ok || !r->nr) {
		bpf_ringbuf_discard(r, 0);
		return;
	}
	bpf_ringbuf_submit(r, 0);
}

/* @maps: tp_btf only; a raw_tp program may not call the VMA iterator */
static __always_inline int on_exit(struct task_struct *p, bool maps)
{
	__u32 tgid = BPF_CORE_READ(p, tgid), *seen, stamp;

	if (!task_group_dead(p))
		return 0;
	/* only processes the loader holds state for need an exit record */
	seen = bpf_map_lookup_elem(&proc_seen, &tgid);
	if (!seen)
		goto out;
	stamp = *seen;
	if (bpf_map_delete_elem(&proc_seen, &tgid))
		goto out;
	if (maps && cfg_exit_maps)
		emit_exit_maps(p, tgid, stamp);
	emit_proc(HC_REC_EXIT, tgid, p);
out:
	/* an exited target leaves the filter: a process that reuses its pid is no target */
	if (cfg_filter)
		bpf_map_delete_elem(&proc_targets, &tgid);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(proc_fork, struct task_struct *parent, struct task_struct *child)
{
	return on_fork(parent, child);
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(proc_exec, struct task_struct *p)
{
	return on_exec(p);
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(proc_exit, struct task_struct *p)
{
	return on_exit(p, true);
}

/* raw_tp twins for kernels without tp_btf; the loader autoloads one set */
SEC("raw_tp/sched_process_fork")
int BPF_PROG(proc_fork_raw, struct task_struct *parent, struct task_struct *child)
{
	return on_fork(parent, child);
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(proc_exec_raw, struct task_struct *p)
{
	return on_exec(p);
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(proc_exit_raw, struct task_struct *p)
{
	return on_exit(p, false);
}
