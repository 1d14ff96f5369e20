/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The collector lifecycle every BPF collector implements, and the decoded
 * sample the event ring hands to the session. record/session.c loops over
 * collectors through this interface and never sees a skeleton.
 */
#ifndef HC_COLLECT_COLLECTOR_H
#define HC_COLLECT_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "collect/opts.h"

/* Kernel objects shared by all collectors, owned by the proc tracker. */
struct collector_env {
	int targets_fd;		/* pid -> HC_TARGET_* filter */
	int seen_fd;		/* tgids that already produced a record */
	int events_fd;		/* the one event ring */
	bool filter;		/* false: system-wide */
	bool unwind_cfi;	/* walk user stacks with the CFI tables below */
	int unwind_procs_fd;	/* owned by the session's unwind tables */
	int unwind_objs_fd;
	bool python;		/* walk Python frames with the maps below (collect/python.h) */
	int python_procs_fd;	/* owned by the session's struct python */
	int python_stats_fd;
	int python_nprocs_fd;
	bool hotspot;		/* walk JVMs' Java frames with the maps below (collect/hotspot_walk.h) */
	int hotspot_procs_fd;	/* owned by the session's struct hotspot_walk */
	int hotspot_nprocs_fd;
	bool v8;		/* find V8's JavaScript frames with these maps (collect/v8_walk.h) */
	int v8_procs_fd;	/* owned by the session's struct v8_walk */
	int v8_nprocs_fd;
	struct locknames *locknames;	/* the session's lock registry (collect/locknames.h) */
	int nr_cpus;		/* possible CPUs */
	const bool *online;	/* [nr_cpus] */
};

/* One counter a collector reports; @loss marks data that was lost. */
struct collector_stat {
	const char *name;
	uint64_t value;
	bool loss;
};

#define COLLECTOR_MAX_STATS 40

struct collector_stats {
	size_t nr;
	struct collector_stat s[COLLECTOR_MAX_STATS];
};

struct collector;
struct sample_view;
struct locknames;

/* Receives decoded samples; non-zero stops the producer and is returned. */
typedef int (*sample_fn)(const struct sample_view *v, void *arg);

struct collector_ops {
	const char *name;
	/* open + load; env fds are borrowed. 0 or -errno. */
	int (*open)(struct collector *c, const struct record_opts *o,
		    const struct collector_env *env);
	int (*start)(struct collector *c);	/* attach, enable */
	int (*stop)(struct collector *c);	/* detach; maps kept for a final read */
	/*
	 * an interval ended (agent) at @at_ns, CLOCK_MONOTONIC: emit what is
	 * still going, up to then; may be NULL
	 */
	int (*cut)(struct collector *c, uint64_t at_ns);
	/* move in-kernel aggregates (not ring records) out; periodic and final; may be NULL */
	int (*drain)(struct collector *c, sample_fn fn, void *arg);
	void (*stats)(const struct collector *c, struct collector_stats *st);
	/* one line on stderr describing what it records, e.g. the event used */
	void (*describe)(const struct collector *c, char *buf, size_t len);
	/* a text report of non-stack data (histograms) to @out; may be NULL */
	int (*report)(struct collector *c, FILE *out);
	void (*close)(struct collector *c);	/* NULL-safe, after stop or failed open */
};

struct budget;

struct collector {
	const struct collector_ops *ops;
	void *priv;
	/*
	 * Set by the session around a drain: the turn's budget (NULL: drain
	 * everything, as at the end of a run); a drain that stops on it sets
	 * drain_more, and the next turn's drain goes on (collect/drain.h).
	 */
	struct budget *budget;
	bool drain_more;
	/*
	 * Set by open: the optional parts the kernel refused (collect/parts.h),
	 * and whether the loaded programs walk user stacks with the CFI tables.
	 * A session whose collectors all lost the walker builds no tables.
	 */
	unsigned int parts_refused;
	bool walks_cfi;
};

/* Registry */
extern const struct collector_ops oncpu_ops;
extern const struct collector_ops sched_ops;	/* off-CPU time and run-queue latency */

/*
 * sched_ops: every run-queue wait so far, with a stack or not (the sums of
 * its histograms; batches not yet flushed from task storage, up to 63 waits
 * per thread, come later). 0, -EINVAL if @c is another collector.
 */
int sched_runq_totals(const struct collector *c, uint64_t *waits, uint64_t *ns);
extern const struct collector_ops locks_ops;	/* futex waits and kernel lock contention */
extern const struct collector_ops counters_ops;	/* record --counters: per-process counter sums */

/* A stack sample decoded from the ring; pointers valid during the callback only. */
struct sample_view {
	unsigned int kind;	/* enum sample_kind */
	uint32_t tgid;
	uint32_t pid;
	uint32_t cpu;
	bool new_tgid;		/* first record of this tgid */
	bool kthread;
	bool ustack_truncated;
	bool unwind_cfi;	/* user stack walked with CFI tables */
	bool unwind_partial;	/* that walk stopped before the outermost frame */
	bool unwind_unmapped;	/* ... at a pc in no published mapping */
	bool unwind_pending;	/* ... in code whose CFI table was being built */
	bool short_blocks;	/* off-CPU time of blocks below the stack threshold; no stack */
	uint32_t state;		/* off-CPU: task state bits at switch-out */
	int32_t syscall;	/* off-CPU: syscall it blocked in, -1 if none */
	uint64_t weight;
	uint64_t count;		/* events summed in weight */
	uint64_t addr;		/* SAMPLE_LOCK: the lock's address */
	uint64_t time_ns;
	const char *comm;	/* NUL-terminated */
	const char *pcomm;
	const uint64_t *kips;	/* leaf first */
	size_t nr_kips;
	const uint64_t *uips;	/* leaf first */
	size_t nr_uips;
};

enum sample_kind {
	SAMPLE_ONCPU = 1,	/* weight: samples */
	SAMPLE_OFFCPU = 2,	/* weight: nanoseconds blocked */
	SAMPLE_RUNQ = 3,	/* weight: nanoseconds waiting for a CPU after a preemption */
	SAMPLE_LOCK = 5,	/* weight: nanoseconds waiting for lock addr (state: type bits) */
	SAMPLE_WAKER = 4,	/* stacks that woke task pid's block started at time_ns;
				 * the waker is tgid state, pid syscall */
};

#endif /* HC_COLLECT_COLLECTOR_H */
