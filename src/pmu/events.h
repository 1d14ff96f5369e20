/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Named counter events: the generic perf events (cycles, task-clock, ...),
 * vendor events the kernel names under /sys/bus/event_source/devices/<pmu>/
 * events (encoded through the PMU's format/ files), the CPU's identity, and
 * which events each top-down level-1 method needs. No perf_event_open here.
 */
#ifndef HC_PMU_EVENTS_H
#define HC_PMU_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PMU_SYSFS_ROOT "/sys/bus/event_source/devices"

/* The generic events `stat` counts, in display order. */
enum pmu_generic {
	PMU_G_TASK_CLOCK = 0,
	PMU_G_CPU_CLOCK,
	PMU_G_CONTEXT_SWITCHES,
	PMU_G_CPU_MIGRATIONS,
	PMU_G_PAGE_FAULTS,
	PMU_G_CYCLES,
	PMU_G_INSTRUCTIONS,
	PMU_G_BRANCHES,
	PMU_G_BRANCH_MISSES,
	PMU_G_CACHE_REFERENCES,
	PMU_G_CACHE_MISSES,
	PMU_G_LLC_LOAD_MISSES,
	PMU_G_NR,
};

struct pmu_generic_info {
	const char *name;	/* perf's name: "task-clock", "LLC-load-misses" */
	uint32_t type;		/* PERF_TYPE_SOFTWARE, _HARDWARE or _HW_CACHE */
	uint64_t config;
	bool hardware;		/* needs a hardware PMU */
	bool clock;		/* counts nanoseconds */
};

/* The table entry of @id; NULL if out of range. */
const struct pmu_generic_info *pmu_generic(enum pmu_generic id);
/* Look a generic event up by perf name. 0 or -ENOENT. */
int pmu_generic_find(const char *name, enum pmu_generic *out);

struct pmu_event_desc;
/* The generic event @id as a resolved event (scale 1). */
void pmu_generic_desc(enum pmu_generic id, struct pmu_event_desc *out);

/* One field of a PMU's format/ directory: "event" -> "config:0-7,32-35". */
#define PMU_FORMAT_MAX_RANGES 4
struct pmu_format {
	char name[32];
	unsigned int nr;
	struct {
		uint8_t reg;	/* 0 config, 1 config1, 2 config2 */
		uint8_t lo, hi;	/* bit range, inclusive */
	} range[PMU_FORMAT_MAX_RANGES];
};

/* Parse a format spec such as "config:0-7,32-35" or "config1:3". 0 or -EINVAL. */
int pmu_format_parse(const char *name, const char *spec, struct pmu_format *out);

/*
 * Encode event terms ("event=0x1a0,umask=0x1e,cmask=1", a bare "any" means 1)
 * through @fmt into config[0..2] (added to what is there). -ENOENT for a term
 * the PMU has no format for, -ERANGE for a value too wide for its bits,
 * -EINVAL for malformed terms.
 */
int pmu_terms_encode(const char *terms, const struct pmu_format *fmt, size_t nr,
		     uint64_t config[3]);

/* A resolved event: what perf_event_open needs, and how to scale its count. */
struct pmu_event_desc {
	char name[64];
	uint32_t type;
	uint64_t config[3];	/* config, config1, config2 */
	double scale;		/* events/<name>.scale, 1.0 when absent */
};

/*
 * The core CPU PMU under @root (PMU_SYSFS_ROOT in production): "cpu",
 * "cpu_core" (hybrid Intel), or an Arm "armv8_pmuv3*" / "armv9_*" one, in
 * that order, into @name. 0 or -ENOENT (no hardware PMU).
 */
int pmu_core_find(const char *root, char *name, size_t len);

/* Resolve the kernel-named event @event of @pmu (events/@event). 0 or -errno. */
int pmu_sysfs_event(const char *root, const char *pmu, const char *event,
		    struct pmu_event_desc *out);

/* Resolve raw @terms (vendor events the kernel does not name) of @pmu. 0 or -errno. */
int pmu_sysfs_raw(const char *root, const char *pmu, const char *name, const char *terms,
		  struct pmu_event_desc *out);

/* True when @pmu under @root names @event. */
bool pmu_sysfs_has(const char *root, const char *pmu, const char *event);

enum pmu_vendor {
	PMU_VENDOR_UNKNOWN = 0,
	PMU_VENDOR_INTEL,
	PMU_VENDOR_AMD,
	PMU_VENDOR_ARM,		/* CPU implementer 0x41 */
};

struct pmu_cpu_id {
	enum pmu_vendor vendor;
	unsigned int family;	/* x86 */
	unsigned int model;	/* x86 */
	unsigned int part;	/* Arm "CPU part", e.g. 0xd0c Neoverse N1 */
};

/* Identify the CPU from /proc/cpuinfo text (first processor). 0 or -ENOENT. */
int pmu_cpu_identify(const char *cpuinfo, struct pmu_cpu_id *out);

/* Top-down level-1 methods and the events each needs, in this order. */
enum pmu_topdown_method {
	PMU_TD_NONE = 0,
	PMU_TD_INTEL_METRICS,	/* slots, topdown-retiring, -bad-spec, -fe-bound, -be-bound */
	PMU_TD_INTEL_4WIDE,	/* topdown-total-slots, -slots-issued, -slots-retired,
				 * -fetch-bubbles, -recovery-bubbles */
	PMU_TD_AMD_ZEN,		/* ls_not_halted_cyc, ex_ret_ops, de_src_op_disp.all,
				 * de_no_dispatch_per_slot.{no_ops_from_frontend,
				 * backend_stalls} (+ smt_contention, own group) */
	PMU_TD_ARM_SLOTS,	/* cpu_cycles, op_retired, op_spec, stall_slot,
				 * stall_slot_frontend, stall_slot_backend */
	PMU_TD_ARM_CYCLES,	/* cpu_cycles, op_retired, op_spec, stall_frontend,
				 * stall_backend */
};

#define PMU_TD_MAX_EVENTS 16	/* level 1 (6), extras, level 2 (up to 6) */

/* Level-2 methods (analysis/topdown2.h) and where their events go. */
enum pmu_td2_method {
	PMU_TD2_NONE = 0,
	PMU_TD2_INTEL_METRICS,	/* topdown-heavy-ops, -br-mispredict, -fetch-lat, -mem-bound:
				 * in the leading (PERF_METRICS) group */
	PMU_TD2_AMD_ZEN,	/* ex_ret_ucode_ops, ex_ret_brn_misp, resyncs_or_nc_redirects,
				 * no_ops_from_frontend cmask=width, ex_no_retire.not_complete,
				 * .load_not_complete: a group of their own */
	PMU_TD2_ARM,		/* stall_frontend, stall_frontend_mem, stall_backend,
				 * stall_backend_mem: a group of their own */
};

struct pmu_topdown_plan {
	enum pmu_topdown_method method;
	const char *label;		/* "Intel PERF_METRICS", "AMD Zen 4", ... */
	double slots_per_cycle;		/* AMD: dispatch width; Arm slots: caps/slots */
	size_t nr;			/* events in the leading group */
	size_t nr_extra;		/* events after it, each in its own group (AMD SMT) */
	enum pmu_td2_method l2;		/* level 2, its events after the extras */
	size_t nr_l2;
	char l2_why[128];		/* why no level 2 (l2 NONE with a level 1) */
	struct pmu_event_desc ev[PMU_TD_MAX_EVENTS];
	char why[256];			/* why there is no plan (method NONE) */
};

/*
 * Pick the top-down method for this machine from the events @root exposes
 * and @cpu (vendor events the kernel does not name are encoded from
 * built-in codes). Always fills @plan; method NONE with @plan->why set
 * ("no PMU", "no top-down events for this CPU") when there is none.
 * 0, or -errno for an unreadable sysfs file.
 */
int pmu_topdown_plan(const char *root, const struct pmu_cpu_id *cpu,
		     struct pmu_topdown_plan *plan);


/* ---- sampling events (record -e) ------------------------------------------ */

/*
 * An event record samples on: what perf_event_open needs, whether it counts
 * time (cpu-clock: frequency-sampled, samples × period = CPU time) and whether
 * it needs a hardware PMU. @unit is what one count is ("page-fault").
 */
struct pmu_sample_event {
	char name[64];		/* as the user named it, canonical for aliases */
	const char *unit;	/* one count of it: "page-fault", "event" for raw */
	uint32_t type;
	uint64_t config;
	bool clock;
	bool hardware;
};

/*
 * Parse a sampling event name: the software events (cpu-clock, task-clock,
 * page-faults/faults, minor-faults, major-faults, context-switches/cs,
 * cpu-migrations/migrations, alignment-faults, emulation-faults), the
 * generic hardware ones (cycles/cpu-cycles, instructions, branches,
 * branch-misses, cache-references, cache-misses, bus-cycles, ref-cycles,
 * stalled-cycles-frontend/-backend) and raw rNNNN (hex, PERF_TYPE_RAW).
 * 0, or -EINVAL for anything else.
 */
int pmu_sample_event_parse(const char *name, struct pmu_sample_event *out);

/* The names pmu_sample_event_parse() accepts (not raw), NULL-terminated: for --help. */
extern const char *const pmu_sample_event_names[];

/*
 * Resolve an event name for counting (stat --mode, and the base of stat -e):
 * the generic table, perf's generic cache names (L1-dcache-loads,
 * L1-dcache-load-misses, LLC-loads, dTLB-loads, dTLB-load-misses,
 * iTLB-loads, iTLB-load-misses), an event the core PMU under @root names in
 * sysfs (Arm: l1d_cache_refill, ...), or raw rNNNN. 0, -ENOENT (no such
 * event here, e.g. no PMU), -EINVAL (not a name at all).
 */
int pmu_event_resolve(const char *root, const char *name, struct pmu_event_desc *out);

#endif /* HC_PMU_EVENTS_H */
