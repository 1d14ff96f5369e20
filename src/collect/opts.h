/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What a recording run was asked to do: filled by cli/, read by record/ and collect/. */
#ifndef HC_COLLECT_OPTS_H
#define HC_COLLECT_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmu/events.h"
#include "pmu/perf_event.h"
#include "collect/target_rules.h"

enum out_format {
	FORMAT_AUTO = 0,	/* by the output's extension: .svg, .pb.gz/.pprof, else folded */
	FORMAT_FOLDED,
	FORMAT_PPROF,
	FORMAT_SVG,
};

enum frame_root {
	ROOT_PROCESS = 0,	/* first frame: process name */
	ROOT_PID,		/* "name-PID" */
	ROOT_THREAD,		/* "threadname-TID" */
};

enum unwind_mode {
	UNWIND_AUTO = 0,	/* CFI where supported (x86-64), frame pointers elsewhere */
	UNWIND_FP,		/* frame pointers only */
	UNWIND_CFI,		/* CFI tables; an error where unsupported */
};

struct record_opts {
	/* targets: none of pids/tids/cmd means system-wide */
	uint32_t *pids;
	size_t nr_pids;
	uint32_t *tids;
	size_t nr_tids;
	char **cmd_argv;	/* `-- CMD ARGS...`, NULL-terminated; NULL if none */
	struct target_rules rules;	/* --cgroup, --comm */
	bool system_wide;	/* -a given explicitly */

	/* what to record */
	bool oncpu;		/* default; off with --off-cpu alone */
	bool offcpu;		/* --off-cpu */
	uint64_t min_block_ns;	/* off-CPU blocks shorter than this carry no stack */
	/* ... but one of them a stack per this much of a thread's time in them (0: 1 ms) */
	uint64_t block_quantum_ns;
	uint64_t max_block_ns;
	unsigned int offcpu_states;	/* HC_OFFCPU_STATE_* style bits: 1 S, 2 D, 4 other */
	bool kthreads;		/* off-CPU: include kernel threads */
	bool wakers;		/* off-CPU: join the waker's stack to each long block */
	bool runq;		/* run-queue latency */
	unsigned int runq_per;	/* 0 all, 1 per process, 2 per thread (histograms) */
	uint64_t min_runq_ns;	/* preemption waits >= this carry a stack; UINT64_MAX: none */
	bool runq_report;	/* `hotcold runqlat`: write histograms instead of stacks */
	bool locks;		/* lock contention */
	bool locks_user;	/* futex waits (default with locks) */
	bool locks_kernel;	/* lock:contention_begin/end (default with locks) */
	uint64_t min_lock_wait_ns;	/* lock waits >= this carry a stack */
	bool locks_report;	/* `hotcold locks`: write the lock table instead of stacks */
	unsigned int locks_sort;	/* 0 total, 1 max, 2 count */
	bool locks_by_lock;	/* --by lock: a row per lock address, not per lock site */
	bool locks_all_waits;	/* --all-waits: condvar, join, barrier waits too */
	size_t locks_top;	/* rows in the table */
	bool json;		/* machine-readable report */
	bool counters;		/* --counters: per-process counter snapshot in the summary */

	/* sampling */
	enum pmu_event event;	/* PMU_EV_AUTO unless -e */
	uint64_t freq_hz;
	/* -e for any other event, or -c: sample on @sample_ev every @sample_period */
	bool sample_ev_set;
	struct pmu_sample_event sample_ev;
	uint64_t sample_period;	/* 0: frequency sampling at freq_hz (clocks only) */
	bool branches;		/* -b: each sample's branch stack (sample_ev is hardware) */
	bool user_stacks;
	bool kernel_stacks;
	bool idle;		/* include the idle task */
	bool no_dither;		/* --no-dither: a fixed sampling period (bench, A/B) */
	enum unwind_mode unwind;
	size_t unwind_max_rows;	/* CFI rows in kernel memory, about 12 bytes each */
	uint64_t unwind_defer_ns;	/* build a new process's missing tables only once it
					 * has lived this long (0: at first sight) */
	bool snapshot_at_exec;	/* read a process's maps at exec, not only at first sight */

	/* run */
	uint64_t duration_ns;	/* 0: until signal / targets exit */
	uint64_t drain_interval_ns;
	size_t ring_bytes;	/* per-run event ring size (power of two) */
	size_t max_stacks;	/* user-space aggregation bound */
	size_t max_targets;	/* BPF target filter size */

	/* output */
	const char *output;	/* path; "-" is stdout */
	enum out_format format;
	enum frame_root root;
	bool name_ahead;	/* the agent: name an interval's stacks while it runs (session_name.c) */
	bool exit_while_loading;	/* the agent: SIGINT/SIGTERM while loading BPF: _exit(0) */
	bool label_cmdline;	/* --label cmdline: root at the command line (record/labels.h) */
	bool proc_labels;	/* pprof labels cmdline and cgroup per sample (agent --push) */
	bool no_demangle;
};

/* Defaults: system-wide, auto event, 99 Hz, both stacks, output "hotcold.folded". */
void record_opts_init(struct record_opts *o);
/* Check combinations; prints the reason with pr_warn. 0 or -EINVAL. */
int record_opts_validate(const struct record_opts *o);
void record_opts_release(struct record_opts *o);
/* --label / the agent's label key: "comm" or "cmdline" -> *@cmdline. 0 or -EINVAL. */
int record_opts_parse_label(const char *s, bool *cmdline);
/* "auto", "fp" or "cfi" into @mode; 0 or -EINVAL */
int record_opts_parse_unwind(const char *s, enum unwind_mode *mode);	/* frees lists, not the struct */

#endif /* HC_COLLECT_OPTS_H */
