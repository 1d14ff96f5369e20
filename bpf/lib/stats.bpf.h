/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Per-CPU stat counters: each collector passes its own PERCPU_ARRAY map. */
#ifndef HC_BPF_LIB_STATS_BPF_H
#define HC_BPF_LIB_STATS_BPF_H

/* Value of a stats map: one slot per enum hc_stat. */
struct hc_stat_val {
	__u64 v[HC_STAT_NR];
};

/* Per-CPU slot, so no atomics on hot paths such as sched_switch. */
static __always_inline void stat_inc(void *stats_map, enum hc_stat idx)
{
	__u32 zero = 0;
	struct hc_stat_val *s = bpf_map_lookup_elem(stats_map, &zero);

	if (s && idx < HC_STAT_NR)
		s->v[idx]++;
}

#endif /* HC_BPF_LIB_STATS_BPF_H */
