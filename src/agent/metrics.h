/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The agent observing itself: its CPU and memory, what each interval held
 * and lost, the history on disk, and the kernel-side cost of its BPF
 * programs. Logged each interval and served as Prometheus text.
 */
#ifndef HC_AGENT_METRICS_H
#define HC_AGENT_METRICS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "agent/push.h"
#include "agent/store.h"
#include "agent/writer.h"
#include "record/session.h"

#define METRICS_MAX_PROGS 32
#define METRICS_MAX_LOSSES 64

struct metrics_prog {
	char name[16];
	uint64_t run_time_ns, run_cnt;
};

struct metrics_loss {
	char group[16];
	char name[96];
	uint64_t value;
	uint64_t logged;	/* value at the last metrics_log() */
	int cls;		/* enum diag_class: in loss[], DIAG_LOSS or DIAG_DEGRADED */
};

struct metrics {
	/* the agent process */
	double cpu_s;			/* user + sys since start */
	double cpu_pct_interval;	/* of one core, over the last interval */
	uint64_t rss_bytes, rss_peak_bytes;
	/* the last interval */
	struct session_counts last;
	uint64_t intervals;
	uint64_t write_ns;		/* naming, encoding, writing and trimming, all intervals */
	struct writer_stats writer;	/* the writer thread (writer.h) */
	/* the loop (agent.c): how late it came back to its timers and signal flags */
	uint64_t loop_turns;
	uint64_t loop_lag_ns;		/* summed over every turn */
	uint64_t loop_lag_max_ns;	/* the longest in the last interval */
	uint64_t loop_lag_max_cur;	/* ... in the interval in progress */
	uint64_t interval_late_ns;	/* the last interval's end past its due time */
	uint64_t stalls;		/* steps longer than the stall threshold */
	uint64_t intervals_late;	/* ended past a tenth of their length late */
	uint64_t slowest_ns;		/* the longest step of the last interval ... */
	const char *slowest_what;	/* ... and what it was (static string or NULL) */
	uint64_t slowest_cpu_ns;	/* ... and the CPU time the agent got in it */
	uint64_t stacks_dropped_total;	/* over max_stacks, all intervals */
	/* cumulative loss and degradation counters by collector (util/diag.h's class) */
	struct metrics_loss loss[METRICS_MAX_LOSSES];
	size_t nr_loss;
	/* cumulative work counters by collector (samples, tables built, ...) */
	struct metrics_loss work[METRICS_MAX_LOSSES];
	size_t nr_work;
	/* symbolizer */
	uint64_t sym_procs, sym_objects, sym_objects_dropped, sym_object_errors;
	uint64_t sym_objects_evicted, sym_objects_live, sym_procs_live, sym_procs_pruned;
	/* BPF */
	bool bpf_stats_enabled;
	struct metrics_prog progs[METRICS_MAX_PROGS];
	size_t nr_progs;
	/* the store */
	struct store_stats store;
	size_t store_intervals;
	/* push.h: refreshed by the agent each interval when pushing */
	bool push_enabled;
	struct push_stats push;
};

/*
 * Refresh from the process and @s (last interval's counts in @c); the
 * store's and the writer's fields are the agent's to fill (the writer
 * thread's, see sink.h).
 */
void metrics_update(struct metrics *m, struct session *s, const struct session_counts *c,
		    double wall_s);

/* One turn of the loop came back to its timers @lag_ns late (0: on time). */
void metrics_loop_turn(struct metrics *m, uint64_t lag_ns);

/* One summary line on stderr (pr_info); losses that grew since the last log with pr_warn. */
void metrics_log(struct metrics *m);

/* Prometheus text exposition format 0.0.4. 0 or -EIO. */
int metrics_write_prometheus(const struct metrics *m, FILE *out);

#endif /* HC_AGENT_METRICS_H */
