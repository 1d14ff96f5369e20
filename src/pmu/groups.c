// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Counter groups sized to the PMU (groups.h). */
#include "pmu/groups.h"

#include <stdio.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#define UNPLACED ((unsigned int)-1)

unsigned int pmu_counters_from_cpuid(bool intel, unsigned int family, uint32_t a_0a,
				     uint32_t b_80000022)
{
	if (intel)
		return (a_0a >> 8) & 0xff;
	if (b_80000022 & 0xf)
		return b_80000022 & 0xf;
	return family >= 0x17 ? 6 : 4;
}

/* The NMI watchdog (x86 perf-based hard lockup detector) holds one counter. */
static bool watchdog_on(void)
{
	FILE *f = fopen("/proc/sys/kernel/nmi_watchdog", "re");
	int c = f ? fgetc(f) : EOF;

	if (f)
		fclose(f);
	return c == '1';
}

void pmu_nr_counters(struct pmu_nr_counters *out)
{
	memset(out, 0, sizeof(*out));
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a = 0, b = 0, c = 0, d = 0, max = 0, family;
	char vendor[13];

	if (__get_cpuid(0, &max, &b, &c, &d)) {
		memcpy(vendor, &b, 4);
		memcpy(vendor + 4, &d, 4);
		memcpy(vendor + 8, &c, 4);
		vendor[12] = 0;
		__get_cpuid(1, &a, &b, &c, &d);
		family = (a >> 8 & 0xf) + ((a >> 8 & 0xf) == 0xf ? (a >> 20 & 0xff) : 0);
		if (!strcmp(vendor, "GenuineIntel") && max >= 0xa) {
			__get_cpuid(0xa, &a, &b, &c, &d);
			out->n = pmu_counters_from_cpuid(true, family, a, 0);
			out->source = "CPUID leaf 0xA";
		} else if (!strcmp(vendor, "AuthenticAMD")) {
			b = 0;
			if (__get_cpuid_max(0x80000000, NULL) >= 0x80000022)
				__get_cpuid(0x80000022, &a, &b, &c, &d);
			out->n = pmu_counters_from_cpuid(false, family, 0, b);
			out->source = b & 0xf ? "CPUID leaf 0x80000022" : "AMD family default";
		}
	}
	/* a guest without a virtual PMU reports 0: fall back below */
	if (out->n && watchdog_on()) {
		out->n--;
		out->watchdog = true;
	}
#endif
	if (out->n < 2) {
		out->n = PMU_COUNTERS_FALLBACK;
		out->source = "fallback";
		out->watchdog = false;
	}
}

size_t pmu_pack_pairs(const size_t *a, const size_t *b, size_t nr_pairs, size_t nr_events,
		      unsigned int cap, unsigned int *group)
{
	unsigned int cur = 0, used = 0;	/* the group being filled and its size */
	size_t nr_groups = 0;

	if (cap < 2)
		cap = 2;
	for (size_t e = 0; e < nr_events; e++)
		group[e] = UNPLACED;
	for (size_t i = 0; i < nr_pairs; i++) {
		size_t x = a[i], y = b[i];
		unsigned int need = (group[x] == UNPLACED) + (y != x && group[y] == UNPLACED);

		if (!need)
			continue;
		/* the partner placed earlier: join its group when there is room */
		if (need == 1 && nr_groups && group[x] != group[y]) {
			size_t z = group[x] == UNPLACED ? x : y, other = z == x ? y : x;
			unsigned int g = group[other], n = 0;

			for (size_t e = 0; e < nr_events; e++)
				n += group[e] == g;
			if (n < cap) {
				group[z] = g;
				used += g == cur;
				continue;
			}
		}
		if (!nr_groups || used + need > cap) {
			cur = (unsigned int)nr_groups++;
			used = 0;
		}
		if (group[x] == UNPLACED)
			group[x] = cur, used++;
		if (group[y] == UNPLACED)
			group[y] = cur, used++;
	}
	for (size_t e = 0; e < nr_events; e++)
		if (group[e] == UNPLACED)
			group[e] = (unsigned int)nr_groups++;
	return nr_groups;
}
