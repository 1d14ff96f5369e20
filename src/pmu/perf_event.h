/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* perf_event_open plumbing: per-CPU sampling events, online CPUs, fallback. No BPF. */
#ifndef HC_PMU_PERF_EVENT_H
#define HC_PMU_PERF_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

enum pmu_event {
	PMU_EV_AUTO = 0,	/* cycles, falling back to cpu-clock */
	PMU_EV_CYCLES,
	PMU_EV_CPU_CLOCK,
};

/* "cycles", "cpu-clock"; NULL for AUTO. */
const char *pmu_event_name(enum pmu_event ev);
/* Parse a name accepted by -e; 0 or -EINVAL. */
int pmu_event_parse(const char *name, enum pmu_event *out);

/*
 * Fill @attr for an event @ev (not AUTO) sampled @freq_hz times a second:
 * cycles in frequency mode, cpu-clock in period mode (1e9 / @freq_hz ns).
 */
void pmu_sampling_attr(struct perf_event_attr *attr, enum pmu_event ev, uint64_t freq_hz);

/*
 * PERF_EVENT_IOC_PERIOD: a new period (period mode, cpu-clock: ns) or rate
 * (frequency mode, cycles: Hz) for @fd; the kernel restarts the event's
 * count from now. 0 or -errno.
 */
int pmu_set_rate(int fd, uint64_t value);

/*
 * True when a failed hardware-event open means "no such PMU here" and the
 * software cpu-clock should be used: ENOENT, ENXIO, ENODEV and EOPNOTSUPP
 * (hypervisors return the last one; perf itself once missed it). @err > 0.
 */
bool pmu_should_fallback(int err);

/*
 * Online CPUs from /sys/devices/system/cpu/online into @mask[0..nr), nr >=
 * the number of possible CPUs. 0 or -errno.
 */
int pmu_online_cpus(bool *mask, size_t nr);

/*
 * Open one sampling event per online CPU in @online[0..nr_cpus), all tasks.
 * fds[cpu] = -1 for offline CPUs. With @ev == PMU_EV_AUTO, try cycles on the
 * first online CPU and fall back to cpu-clock when pmu_should_fallback().
 * *used gets the event actually opened. The fds are the caller's (see
 * oncpu: a bpf_link takes ownership on attach). 0 or -errno; on error no fd
 * stays open.
 */
int pmu_open_sampling(enum pmu_event ev, uint64_t freq_hz, const bool *online, size_t nr_cpus,
		      int *fds, enum pmu_event *used);

#endif /* HC_PMU_PERF_EVENT_H */
