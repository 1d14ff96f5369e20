/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The proc tracker: loads bpf/proc.bpf.c, owns the target filter and the one
 * event ring every collector writes to, and decodes that ring for the
 * session (samples, exec, exit — in the order the kernel produced them).
 */
#ifndef HC_COLLECT_PROC_H
#define HC_COLLECT_PROC_H

#include <stdint.h>

#include "collect/collector.h"

struct proc_tracker;
struct procmap;

struct branch_sample;

struct proc_handlers {
	/* return non-zero to stop consuming (propagated) */
	int (*sample)(const struct sample_view *s, void *arg);
	int (*exec)(uint32_t tgid, const char *comm, void *arg);
	int (*exit)(uint32_t tgid, void *arg);
	int (*seen)(uint32_t tgid, const char *comm, void *arg);	/* first sight, no sample */
	/* a sample's branch stack (record -b), decoded (collect/branches.h) */
	int (*branches)(const struct branch_sample *b, void *arg);
	/* a young process's executable mappings, just before its exit (path "") */
	int (*maps)(uint32_t tgid, const struct procmap *m, size_t n, void *arg);
	void *arg;
	/*
	 * A turn's budget: stop after @max_records records (0: no limit) or
	 * @budget_ns of consuming (0: none; checked after every record, ~20 ns
	 * against 1-5 us to decode one and a millisecond or more for one that
	 * reads a new process's maps; the wait for a wakeup does not count).
	 * What is left stays in the ring.
	 */
	size_t max_records;
	uint64_t budget_ns;
};

/*
 * Load the tracker with the targets in @o (plus @child_pid, the not yet
 * exec'd `-- CMD` child, or 0). @env is filled for collectors. 0 or -errno.
 */
int proc_tracker__open(struct proc_tracker **out, const struct record_opts *o,
		       uint32_t child_pid, struct collector_env *env);
int proc_tracker__start(struct proc_tracker *pt);

/*
 * Wait up to @timeout_ms for the ring's wakeup (a signal ends it early).
 * 0 or -errno. Then proc_tracker__consume().
 */
int proc_tracker__wait(struct proc_tracker *pt, int timeout_ms);

/*
 * Decode what the ring holds within @h's budget. 0: consumed all there
 * was; 1: the budget ended first (call again without waiting); or -errno.
 */
int proc_tracker__consume(struct proc_tracker *pt, const struct proc_handlers *h);

void proc_tracker__stats(const struct proc_tracker *pt, struct collector_stats *st);
void proc_tracker__close(struct proc_tracker *pt);	/* NULL is a no-op */

struct bpf_map;
struct bpf_object;

/*
 * collector_reuse_maps() and python_reuse_maps() for the maps of a
 * collector's object @obj, found by their names in bpf/shared_maps.bpf.h;
 * a failure is said as "@who: cannot share the proc maps". 0 or -errno.
 */
int collector_share_maps(const struct collector_env *env, struct bpf_object *obj,
			 const char *who);

/*
 * Point a collector object's copies of the shared maps (bpf/shared_maps.bpf.h)
 * at the proc tracker's and, with CFI unwinding, the unwind tables'. Before
 * load. 0 or -errno.
 */
int collector_reuse_maps(const struct collector_env *env, struct bpf_map *targets,
			 struct bpf_map *seen, struct bpf_map *events, struct bpf_map *unwind_procs,
			 struct bpf_map *unwind_objs);

/* Sum a per-CPU array of u64[nr] at key 0 into @out[nr]. 0 or -errno. */
int percpu_stats_read(int map_fd, int nr_cpus, uint64_t *out, size_t nr);

#endif /* HC_COLLECT_PROC_H */
