/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Counter groups sized to the PMU: how many general-purpose counters the
 * core PMU has, and packing ratio pairs into groups no larger. A group is
 * scheduled on the PMU whole or not at all: one larger than the counters
 * never counts; a ratio whose two events share a group is exact under
 * multiplexing (both scaled by the same running fraction, which cancels).
 */
#ifndef HC_PMU_GROUPS_H
#define HC_PMU_GROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* When nothing says: what every x86 core since Nehalem and every Neoverse has at least. */
#define PMU_COUNTERS_FALLBACK 4

struct pmu_nr_counters {
	unsigned int n;		/* usable for our groups */
	const char *source;	/* "CPUID leaf 0xA", "fallback", ... */
	bool watchdog;		/* one taken by the NMI watchdog (x86) */
};

/*
 * From x86 CPUID registers (pure): Intel leaf 0xA EAX[15:8] (@a_0a); AMD
 * leaf 0x80000022 EBX[3:0] (@b_80000022, PerfMonV2), else 6 for family
 * 0x17 and later (Zen's core PMU), else 4. @intel says which. 0: unknown.
 */
unsigned int pmu_counters_from_cpuid(bool intel, unsigned int family, uint32_t a_0a,
				     uint32_t b_80000022);
/*
 * This machine's: CPUID on x86 (less one if /proc/sys/kernel/nmi_watchdog
 * is 1: the watchdog holds a general-purpose counter), else the fallback.
 */
void pmu_nr_counters(struct pmu_nr_counters *out);

/*
 * Pack the pairs (@a[i], @b[i]) (event indices < @nr_events), in order, into
 * groups of at most @cap (>= 2) events: a pair whose two events are both
 * unplaced goes whole into the current group if it fits, else opens a new
 * one; a pair with one event placed adds the other where it fits. @group[e]
 * gets each event's group (from 0; events in no pair: their own groups
 * after). Returns the number of groups.
 */
size_t pmu_pack_pairs(const size_t *a, const size_t *b, size_t nr_pairs, size_t nr_events,
		      unsigned int cap, unsigned int *group);

#endif /* HC_PMU_GROUPS_H */
