/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Per-process counters accumulated in BPF (bpf/counters.bpf.c): one event
 * per CPU per configured counter, read at every sched_switch and charged to
 * the process leaving the CPU. Used by `hotcold stat --per-process / -a`
 * directly and by `record --counters` through counters_ops.
 */
#ifndef HC_COLLECT_COUNTERS_H
#define HC_COLLECT_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <stdio.h>

#include "analysis/counters.h"
#include "pmu/events.h"

#define TASK_COUNTERS_MAX_EVENTS 4

struct task_counters_opts {
	const struct pmu_event_desc *events;	/* [nr_events], opened once per online CPU */
	size_t nr_events;			/* 1..TASK_COUNTERS_MAX_EVENTS */
	int nr_cpus;				/* possible CPUs */
	const bool *online;			/* [nr_cpus] */
	uint32_t max_procs;			/* process table size; 0: 16384 */
	int targets_fd;				/* >= 0: only tasks in this proc_targets */
};

/* One process's raw sums; scale value by enabled / running. */
struct task_counters_proc {
	uint32_t tgid;
	uint32_t ppid;		/* parent when first seen */
	char comm[17];
	uint64_t value[TASK_COUNTERS_MAX_EVENTS];
	uint64_t enabled[TASK_COUNTERS_MAX_EVENTS];
	uint64_t running[TASK_COUNTERS_MAX_EVENTS];
	uint64_t spans;		/* on-CPU spans charged */
};

struct task_counters_stats {
	uint64_t spans;		/* spans charged to a process */
	uint64_t first;		/* first reads (baselines) */
	uint64_t read_err;	/* bpf_perf_event_read_value() failures: spans lost */
	uint64_t map_full;	/* spans lost: process table full */
	uint64_t scaled;	/* spans scaled to their task's runtime (untraced switches inside) */
	int64_t last_err;	/* the last read error, -errno, 0 if none */
};

struct task_counters;

/*
 * Load the BPF program (tp_btf sched_switch, raw_tp twin where tp_btf is
 * missing) and open every event on every online CPU. Nothing counts before
 * task_counters__start(). 0 or -errno (a pr_warn says what failed).
 */
int task_counters__open(struct task_counters **out, const struct task_counters_opts *o);

/* Enable the events, attach, and take each CPU's baseline. 0 or -errno. */
int task_counters__start(struct task_counters *tc);

/*
 * Charge the task running on each CPU its time so far (the sync program run
 * on that CPU by BPF_PROG_TEST_RUN), so a read covers everything up to now.
 * 0 or -errno.
 */
int task_counters__sync(struct task_counters *tc);

/* A last sync, then detach; the sums stay readable. 0 or -errno. */
int task_counters__stop(struct task_counters *tc);

/* Every process's sums into a malloc'd array (*out, *nr) the caller frees. 0 or -errno. */
int task_counters__read(struct task_counters *tc, struct task_counters_proc **out, size_t *nr);

/*
 * The same as a table of scaled values with @ev's names (t->procs malloc'd,
 * the caller frees it; seconds and top left 0). @take: the sums are moved
 * out, so the next table covers only what comes after (the agent's
 * intervals). 0 or -errno.
 */
int task_counters__table(struct task_counters *tc, const struct pmu_event_desc *ev,
			 size_t nr_ev, bool take, struct counters_proc_table *t);

void task_counters__stats(const struct task_counters *tc, struct task_counters_stats *st);
void task_counters__free(struct task_counters *tc);	/* NULL is a no-op */

struct collector;

/*
 * The counters collector (counters_ops) of a running session: every
 * process's counters since the previous call (or the start) as one JSON
 * object (counters_write_procs_json) to @out; the agent writes one per
 * interval. 0, -EINVAL if @c is another collector, or -errno.
 */
int counters_collector_interval(struct collector *c, FILE *out);

#endif /* HC_COLLECT_COUNTERS_H */
