/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Counting-mode counter groups: open a set of events on CPUs or threads,
 * each group read at once with PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED |
 * TOTAL_TIME_RUNNING, counts scaled by time_enabled / time_running when the
 * kernel multiplexed them. No BPF.
 */
#ifndef HC_PMU_COUNTERS_H
#define HC_PMU_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmu/events.h"

/* One counter to open; counters sharing @group are read together (small groups). */
struct pmu_counter_spec {
	struct pmu_event_desc ev;
	unsigned int group;
	bool hardware;		/* "no such event" on open: unsupported, not an error */
};

enum pmu_target_kind {
	PMU_TARGET_CPUS = 0,	/* per CPU, every task: -a */
	PMU_TARGET_THREADS,	/* per thread, on any CPU: -p, -- CMD */
};

struct pmu_target {
	enum pmu_target_kind kind;
	const int *ids;		/* CPU numbers or thread ids */
	size_t nr;
	bool inherit;		/* threads: also count the tasks they create */
	bool enable_on_exec;	/* threads: start counting at their exec (held `-- CMD`) */
	bool user_only;		/* exclude the kernel: what an unprivileged caller may count */
};

/* One counter over a period: since the previous read, or since open. */
struct pmu_count {
	bool supported;		/* opened on every target */
	int err;		/* !supported: -errno of the failed open */
	bool counted;		/* ran in the period (time_running > 0), or was never
				 * enabled because the threads did not run: value 0 */
	double value;		/* scaled by enabled / running and the event's sysfs scale */
	uint64_t raw;		/* unscaled, summed over targets */
	uint64_t enabled;	/* ns, summed over targets */
	uint64_t running;
};

struct pmu_counters;

/*
 * Open @specs[0..nr) on every target of @t. The first target decides which
 * counters are supported (a hardware counter whose open fails with ENOENT,
 * ENXIO, ENODEV, EOPNOTSUPP or EINVAL is marked unsupported; the next
 * counter of its group leads the group); later targets must open the
 * supported ones, except CPUs gone offline (ENODEV) and threads gone (ESRCH),
 * which are skipped. Group leaders start disabled: pmu_counters__enable(),
 * or their exec with @t->enable_on_exec. 0 or -errno, *out NULL on error.
 */
int pmu_counters__open(struct pmu_counters **out, const struct pmu_counter_spec *specs, size_t nr,
		       const struct pmu_target *t);

/* Start (ioctl ENABLE on every leader) / stop counting. 0 or -errno. */
int pmu_counters__enable(struct pmu_counters *pc);
int pmu_counters__disable(struct pmu_counters *pc);

/*
 * Read every group. @delta[i] (may be NULL) gets counter i since the
 * previous read, @total[i] (may be NULL) since open: the sum of the scaled
 * per-read deltas, as perf stat -I does. Both arrays have nr entries.
 * 0 or -errno.
 */
int pmu_counters__read(struct pmu_counters *pc, struct pmu_count *delta, struct pmu_count *total);

/* Counters in the set; the state of counter @i as of open (supported, err). */
size_t pmu_counters__nr(const struct pmu_counters *pc);
void pmu_counters__status(const struct pmu_counters *pc, size_t i, struct pmu_count *out);

void pmu_counters__free(struct pmu_counters *pc);	/* NULL is a no-op; closes every fd */

/*
 * Is there a hardware PMU? Opens (and closes) a cycles counter on @cpu for
 * all tasks. 0 if it opens, else -errno: pmu_should_fallback() tells "no PMU".
 */
int pmu_probe_hardware(int cpu);

/*
 * Multiplex scaling: *out = value * enabled / running. False (and *out = 0)
 * when running is 0: the counter never ran, nothing is known.
 */
bool pmu_scale(uint64_t value, uint64_t enabled, uint64_t running, double *out);

/*
 * Decode one read() of a group leader opened with PERF_FORMAT_GROUP |
 * PERF_FORMAT_ID | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING:
 * { nr, time_enabled, time_running, { value, id } [nr] } in @buf[0..words).
 * values[j] gets the value whose id is ids[j] (j < nr_ids); *enabled and
 * *running the group's times. 0, -EINVAL for a short or inconsistent buffer,
 * -ENOENT if an id in @ids is missing.
 */
int pmu_group_decode(const uint64_t *buf, size_t words, const uint64_t *ids, size_t nr_ids,
		     uint64_t *values, uint64_t *enabled, uint64_t *running);

#endif /* HC_PMU_COUNTERS_H */
