/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Branch sites from branch records (record -b): every recorded taken branch
 * (from -> to) counted with how often the PMU flagged it mispredicted or
 * predicted and its cycles, per site; then named (object, file offset,
 * function, source line) by the recorder and written next to the profile
 * as OUTPUT.branches (analysis/branches_io.c), read back by `report
 * --branches` and `annotate` (analysis/branches_report.c). Aggregation
 * only: no BPF, no I/O, no symbolizer.
 */
#ifndef HC_STACK_BRANCH_SITES_H
#define HC_STACK_BRANCH_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Entries per sample, at most (abi/branches.h HC_MAX_BRANCHES). */
#define BRANCH_MAX_ENTRIES 32
/* Sites kept; later new ones are counted in dropped_sites (record-time memory bound). */
#define BRANCH_MAX_SITES (1u << 18)

/* One decoded entry of a sample's branch stack (collect/branches.c). */
struct branch_entry {
	uint64_t from, to;	/* raw addresses in the sampled process */
	uint16_t cycles;	/* cycles since the previous entry; 0: not measured */
	bool mispred;		/* the PMU flagged the target mispredicted */
	bool predicted;		/* ... or predicted (neither: the PMU does not say) */
};

/* One end of a site: where in which object, and its names once known. */
struct branch_end {
	uint32_t obj;		/* object id (the recorder's, or the reader's module index) */
	uint64_t off;		/* file offset in the object (raw address when obj is 0) */
	const char *module;	/* object path; NULL: unknown. Owned by the table */
	const char *func;	/* function; NULL: unknown */
	uint64_t func_off;	/* @off's distance from the function's start; valid with func */
	bool has_func_off;
	const char *file;	/* source file; NULL: unknown */
	uint32_t line;		/* 0: unknown */
};

struct branch_site {
	struct branch_end from, to;
	uint64_t taken;		/* times this branch is in a recorded stack */
	uint64_t mispred;	/* ... flagged mispredicted */
	uint64_t predicted;	/* ... flagged predicted */
	uint64_t cycles;	/* sum of cycles over entries that had some */
	uint64_t cycles_n;	/* entries with a cycle count */
};

struct branch_totals {
	uint64_t samples;	/* branch stacks added */
	uint64_t entries;	/* taken branches in them */
	uint64_t mispred, predicted;
	uint64_t dropped_sites;	/* entries of sites past BRANCH_MAX_SITES, not counted per site */
	uint64_t bad_records;	/* branch stacks not fully counted: out of memory (the recorder's) */
};

struct branch_table {
	struct branch_site *v;
	size_t nr, cap;
	uint32_t *slots;	/* open addressing: index + 1, 0 empty; power of two */
	size_t nr_slots;
	struct branch_totals t;
	char **pool;		/* strings owned */
	size_t nr_pool, cap_pool;
};

void branch_table_init(struct branch_table *t);
void branch_table_release(struct branch_table *t);

/*
 * Count one sample's branch stack, ends already normalized: @from[i] and
 * @to[i] are entry i's (object, offset) (names unset). 0, or -ENOMEM
 * (nothing counted for that entry; totals still are).
 */
int branch_table_add(struct branch_table *t, const struct branch_entry *e,
		     const struct branch_end *from, const struct branch_end *to, size_t nr);

/* Add one site as read from a file (counts and names copied). 0 or -errno. */
int branch_table_put(struct branch_table *t, const struct branch_site *s);

/* Copy @s into the table's pool; NULL on ENOMEM (and for NULL). */
const char *branch_table_intern(struct branch_table *t, const char *s);

/* Order sites by mispredicts, then taken, then from's (obj, off): the report's order. */
void branch_table_sort(struct branch_table *t);

/* Percent helpers, 0 for a zero denominator. */
double branch_pct(uint64_t part, uint64_t whole);

/*
 * Sites whose branch instruction lies in [@lo, @hi) of @module (by file
 * offset; the object by path, or by file name when the paths differ), into *@out (malloc'd indexes into t->v, in the table's order):
 * annotate marks them. Returns how many, or -ENOMEM.
 */
long branches_in_range(const struct branch_table *t, const char *module, uint64_t lo,
		       uint64_t hi, size_t **out);

#endif /* HC_STACK_BRANCH_SITES_H */
