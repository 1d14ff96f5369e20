/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What kind of slow (SEEDS §2): numbers derived from counter snapshots
 * (IPC, branch-miss %, LLC MPKI), the crude cost model and its
 * classification, top-down level 1 per vendor, and verdict text; writers of
 * a snapshot as text, JSON or CSV. Pure: no perf, no BPF, no I/O but the
 * writers' FILE *.
 */
#ifndef HC_ANALYSIS_COUNTERS_H
#define HC_ANALYSIS_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Cost-model defaults (SEEDS §2: a mispredict ~15-20 cycles, a DRAM miss ~300 cycles). */
#define COUNTERS_MISPREDICT_PENALTY	20.0	/* cycles */
#define COUNTERS_DRAM_LATENCY		300.0	/* cycles */
/* 5: with it 5 LLC MPKI at IPC 1 gives a memory stall fraction of exactly 0.30 */
#define COUNTERS_MLP			5.0
#define COUNTERS_MEMORY_THRESHOLD	0.30	/* memory >= this and >= branch: Memory */
#define COUNTERS_BRANCH_THRESHOLD	0.15	/* else branch >= this: Branch mispredict */

/* Top-down thresholds (SEEDS §2). */
#define TOPDOWN_RETIRING_PEAK		0.80	/* above: near peak */
#define TOPDOWN_BAD_SPEC_HIGH		0.15	/* above: worth drilling into */
#define TOPDOWN_FRONTEND_HIGH		0.20
#define TOPDOWN_BACKEND_HIGH		0.40

struct counters_model {
	double mispredict_penalty;	/* cycles lost per branch mispredict */
	double dram_latency;		/* cycles per LLC miss served from DRAM */
	double mlp;			/* memory-level parallelism: misses in flight, >= 1 */
};

void counters_model_default(struct counters_model *m);

/* instructions / cycles; 0 when there are no cycles. */
double counters_ipc(double instructions, double cycles);
/* branch_misses / branches x 100; 0 when there are no branches. */
double counters_branch_miss_pct(double branch_misses, double branches);
/* llc_misses x 1000 / instructions; 0 when there are no instructions. */
double counters_llc_mpki(double llc_misses, double instructions);
/* branch_misses x penalty / cycles, clamped to [0, 1]; 0 with no cycles. */
double counters_branch_stall(double branch_misses, double penalty, double cycles);
/* llc_misses x latency / mlp / cycles, clamped to [0, 1]; 0 with no cycles. mlp < 1 counts as 1. */
double counters_memory_stall(double llc_misses, double latency, double mlp, double cycles);

enum counters_class {
	COUNTERS_CLASS_NONE = 0,	/* not enough counters to say */
	COUNTERS_CLASS_COMPUTE,
	COUNTERS_CLASS_BRANCH,
	COUNTERS_CLASS_MEMORY,
};

/*
 * Memory if memory >= COUNTERS_MEMORY_THRESHOLD and memory >= branch; else
 * Branch mispredict if branch >= COUNTERS_BRANCH_THRESHOLD; else Compute.
 */
enum counters_class counters_classify(double memory_stall, double branch_stall);
/* "Memory", "Branch mispredict", "Compute" ("unknown" for NONE) */
const char *counters_class_name(enum counters_class c);
const char *counters_class_advice(enum counters_class c);	/* the next step, one phrase */

/* A count that may be missing: not supported here, or never scheduled. */
struct counters_num {
	double v;
	bool ok;
};

struct counters_input {
	struct counters_num cycles, instructions, branches, branch_misses, llc_misses;
};

struct counters_derived {
	struct counters_num ipc, branch_miss_pct, llc_mpki, branch_stall, memory_stall;
	enum counters_class cls;	/* NONE unless both stall fractions are known */
};

/* Every derived number whose inputs are known. */
void counters_derive(const struct counters_input *in, const struct counters_model *m,
		     struct counters_derived *out);

/* Top-down level 1: fractions of pipeline slots. */
struct topdown {
	double retiring;
	double bad_spec;
	double frontend;
	double backend;
	double smt;		/* AMD: slots given to the other SMT thread; 0 elsewhere */
};

/*
 * The methods and the counts each takes in @v, in this order (the same as
 * pmu/events.h lists its events; sysfs .scale already applied):
 *  INTEL_METRICS  slots, topdown-retiring, -bad-spec, -fe-bound, -be-bound
 *                 (Ice Lake+; each metric over the sum of the four, as perf)
 *  INTEL_4WIDE    topdown-total-slots, -slots-issued, -slots-retired,
 *                 -fetch-bubbles, -recovery-bubbles (Yasin's TMA level 1:
 *                 FE = fetch bubbles / slots, BadSpec = (issued - retired +
 *                 recovery) / slots, Retiring = retired / slots, BE = rest)
 *  AMD_ZEN        cycles, ops retired, ops dispatched, no-ops-from-frontend
 *                 slots, backend-stall slots [, SMT-contention slots];
 *                 @param = dispatch width (perf amdzen4/5 pipeline.json)
 *  ARM_SLOTS      cpu_cycles, op_retired, op_spec, stall_slot,
 *                 stall_slot_frontend, stall_slot_backend; @param = slots
 *                 per cycle (perf arm64 sbsa.json)
 *  ARM_CYCLES     cpu_cycles, op_retired, op_spec, stall_frontend,
 *                 stall_backend (Neoverse N1, no STALL_SLOT: sbsa's split in
 *                 cycles instead of slots)
 */
enum topdown_method {
	TOPDOWN_INTEL_METRICS = 1,
	TOPDOWN_INTEL_4WIDE,
	TOPDOWN_AMD_ZEN,
	TOPDOWN_ARM_SLOTS,
	TOPDOWN_ARM_CYCLES,
};

/*
 * Level 1 from @v[0..nr); every fraction clamped to [0, 1].
 * 0, or -EINVAL (too few counts, or no slots counted).
 */
int topdown_compute(enum topdown_method m, const double *v, size_t nr, double param,
		    struct topdown *out);

enum topdown_focus {
	TOPDOWN_FOCUS_NONE = 0,		/* nothing over its threshold */
	TOPDOWN_FOCUS_PEAK,		/* Retiring > 80% */
	TOPDOWN_FOCUS_BAD_SPEC,
	TOPDOWN_FOCUS_FRONTEND,
	TOPDOWN_FOCUS_BACKEND,
};

/* Retiring above its mark wins; else the largest category over its threshold. */
enum topdown_focus topdown_focus(const struct topdown *td);
/* One line: the finding and the next step. Returns @buf. */
const char *topdown_verdict(const struct topdown *td, char *buf, size_t len);

/* One counter of a snapshot, as measured. */
struct counters_row {
	const char *name;	/* perf's event name */
	bool clock;		/* nanoseconds: printed as msec */
	bool supported;
	bool counted;		/* ran at least once: value is a measurement */
	double value;		/* scaled */
	double running;		/* time_running / time_enabled, [0, 1] */
	const char *error;	/* !supported: why (strerror) */
};

/* Everything one snapshot line set shows. Writers compute nothing. */
#include "analysis/topdown2.h"

struct drill_row;

struct counters_snapshot {
	const char *target;		/* "'make -j2'", "pid 1234", "system-wide" */
	double seconds;			/* wall time the counts cover */
	double interval_end;		/* -I: seconds since start; < 0: the whole run */
	const struct counters_row *rows;
	size_t nr;
	bool pmu;			/* a hardware PMU answered */
	struct counters_model model;
	struct counters_derived derived;
	bool topdown_ok;
	struct topdown td;
	double td_running;		/* running fraction of the top-down group */
	const char *topdown_label;	/* method, when ok */
	const char *topdown_status;	/* why not, when !ok: "not available (no PMU)" */
	bool td2_ok;			/* level 2 (topdown2.h), when topdown_ok */
	struct topdown2 td2;
	const char *td2_status;		/* why not, when topdown_ok && !td2_ok; NULL: unsaid */
	/* stat --mode: its rows (counters_drill.h), written into the JSON as "drill" */
	bool drill;
	int drill_mode;			/* enum drill_mode */
	const struct drill_row *drill_rows;
	size_t nr_drill;
	const char *drill_status;	/* NULL: computed; else why not ("no hardware PMU") */
};

/*
 * Fill @s->derived from @s->rows by event name (cycles, instructions,
 * branches, branch-misses, LLC-load-misses, else cache-misses).
 */
void counters_snapshot_derive(struct counters_snapshot *s);

/* A row by name, NULL if absent. */
const struct counters_row *counters_row_find(const struct counters_snapshot *s, const char *name);

/* perf-stat-like text; with interval_end >= 0 every line starts with the time. 0 or -EIO. */
int counters_write_text(FILE *out, const struct counters_snapshot *s);
/* One JSON object and a newline; missing values are null, never 0. 0 or -EIO. */
int counters_write_json(FILE *out, const struct counters_snapshot *s);
/* time,event,value,unit,running,status rows (with @header the header first). 0 or -EIO. */
int counters_write_csv(FILE *out, const struct counters_snapshot *s, bool header);
/* One summary line (no newline) for record's end-of-run report into @buf. Returns @buf. */
const char *counters_summary(const struct counters_snapshot *s, char *buf, size_t len);

/* Per-process counters from the BPF accumulator. */
#define COUNTERS_PROC_MAX_EVENTS 4

struct counters_proc {
	uint32_t pid;
	uint32_t ppid;
	char comm[17];
	double value[COUNTERS_PROC_MAX_EVENTS];		/* scaled */
	double running[COUNTERS_PROC_MAX_EVENTS];	/* fraction */
	bool counted[COUNTERS_PROC_MAX_EVENTS];
};

struct counters_proc_table {
	const char *names[COUNTERS_PROC_MAX_EVENTS];	/* event names, as the rows' columns */
	bool clock[COUNTERS_PROC_MAX_EVENTS];
	size_t nr_events;
	struct counters_proc *procs;
	size_t nr;
	size_t top;			/* rows to print, 0 = all */
	double seconds;
	struct counters_model model;
};

/* Sort by the first event, largest first; ties by pid. */
void counters_procs_sort(struct counters_proc *p, size_t nr);
/*
 * Keep only @root and its descendants (by the ppid each row recorded), in
 * place; returns the new count. Rows whose parent chain leaves the table
 * without reaching @root are dropped.
 */
size_t counters_procs_keep_tree(struct counters_proc *p, size_t nr, uint32_t root);
/* Keep only the rows whose pid is in @pids[0..nr_pids); returns the new count. */
size_t counters_procs_keep_pids(struct counters_proc *p, size_t nr, const uint32_t *pids,
				size_t nr_pids);

int counters_write_procs_text(FILE *out, const struct counters_proc_table *t);
int counters_write_procs_json(FILE *out, const struct counters_proc_table *t);
int counters_write_procs_csv(FILE *out, const struct counters_proc_table *t);

#endif /* HC_ANALYSIS_COUNTERS_H */
