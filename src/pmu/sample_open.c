// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Opening any named sampling event per CPU (sample_open.h). */
#include "pmu/sample_open.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pmu/perf_event.h"
#include "util/log.h"

uint64_t pmu_sample_default_period(const struct pmu_sample_event *ev)
{
	if (ev->clock)
		return 0;
	return ev->hardware ? 100003 : 1;
}

void pmu_sample_attr(struct perf_event_attr *attr, const struct pmu_sample_event *ev,
		     uint64_t period, uint64_t freq_hz)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = ev->type;
	attr->config = ev->config;
	if (period) {
		attr->sample_period = period;
	} else {
		attr->freq = 1;
		attr->sample_freq = freq_hz;
	}
	attr->sample_type = 0;	/* BPF reads the stacks; the perf ring is never mmapped */
}

static void pmu_close_fds(int *fds, size_t nr_cpus)
{
	for (size_t i = 0; i < nr_cpus; i++)
		if (fds[i] >= 0) {
			close(fds[i]);
			fds[i] = -1;
		}
}

void pmu_sample_attr_branches(struct perf_event_attr *attr)
{
	attr->sample_type |= PERF_SAMPLE_BRANCH_STACK;
	attr->branch_sample_type = PMU_BRANCH_SAMPLE_TYPE;
}

/*
 * Why a branch-stack event did not open (@err): the same event without the
 * branch stack tells a machine without the hardware event at all from a
 * PMU without LBR/BRBE. Message only; the caller returns @err.
 */
static void pmu_branch_explain(const struct perf_event_attr *battr, const char *name, int cpu,
			       int err)
{
	struct perf_event_attr attr = *battr;
	const char *why;
	int fd;

	attr.sample_type &= ~(uint64_t)PERF_SAMPLE_BRANCH_STACK;
	attr.branch_sample_type = 0;
	fd = (int)syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		why = "this PMU has no branch stack";
	} else if (pmu_should_fallback(errno)) {
		why = "no hardware PMU here";
	} else {
		why = "the event cannot be opened";
		err = -errno;
	}
	pr_warn("pmu: branch records (-b) need a PMU branch stack (Intel LBR, AMD Zen 4+ "
		"LbrExtV2, Arm BRBE): %s ('%s' on cpu %d: %s)\n", why, name, cpu, strerror(-err));
}

int pmu_open_sample_event(const struct pmu_sample_event *ev, uint64_t period, uint64_t freq_hz,
			  bool branches, const bool *online, size_t nr_cpus, int *fds)
{
	struct perf_event_attr attr;
	bool probed = false;

	pmu_sample_attr(&attr, ev, period, freq_hz);
	if (branches)
		pmu_sample_attr_branches(&attr);
	for (size_t i = 0; i < nr_cpus; i++)
		fds[i] = -1;
	for (size_t cpu = 0; cpu < nr_cpus; cpu++) {
		int fd;

		if (!online[cpu])
			continue;
		fd = (int)syscall(__NR_perf_event_open, &attr, -1, (int)cpu, -1,
				  PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && errno == ENODEV && probed)
			continue;	/* went offline since the mask was read */
		if (fd < 0 && branches) {
			int err = -errno;

			pmu_branch_explain(&attr, ev->name, (int)cpu, err);
			pmu_close_fds(fds, nr_cpus);
			return err;
		}
		if (fd < 0) {
			int err = -errno;

			pr_warn("pmu: cannot open '%s' on cpu %zu: %s%s\n", ev->name, cpu,
				strerror(-err), ev->hardware && pmu_should_fallback(-err) ?
				" (no hardware PMU here: software events such as cpu-clock, "
				"page-faults, context-switches, cpu-migrations work)" : "");
			pmu_close_fds(fds, nr_cpus);
			return err;
		}
		probed = true;
		fds[cpu] = fd;
	}
	if (!probed) {
		pr_warn("pmu: no online CPU to sample\n");
		return -ENODEV;
	}
	return 0;
}
