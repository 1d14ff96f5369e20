// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Per-CPU sampling events for on-CPU profiling, with the hardware -> software fallback. */
#include "pmu/perf_event.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/parse.h"
#include "util/log.h"

static const char *const ev_names[] = {
	[PMU_EV_CYCLES] = "cycles",
	[PMU_EV_CPU_CLOCK] = "cpu-clock",
};

const char *pmu_event_name(enum pmu_event ev)
{
	if (ev == PMU_EV_CYCLES || ev == PMU_EV_CPU_CLOCK)
		return ev_names[ev];
	return NULL;
}

int pmu_event_parse(const char *name, enum pmu_event *out)
{
	if (!strcmp(name, "cycles") || !strcmp(name, "cpu-cycles"))
		*out = PMU_EV_CYCLES;
	else if (!strcmp(name, "cpu-clock"))
		*out = PMU_EV_CPU_CLOCK;
	else
		return -EINVAL;
	return 0;
}

void pmu_sampling_attr(struct perf_event_attr *attr, enum pmu_event ev, uint64_t freq_hz)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	if (ev == PMU_EV_CYCLES) {
		attr->type = PERF_TYPE_HARDWARE;
		attr->config = PERF_COUNT_HW_CPU_CYCLES;
	} else {
		attr->type = PERF_TYPE_SOFTWARE;
		attr->config = PERF_COUNT_SW_CPU_CLOCK;
	}
	if (ev == PMU_EV_CYCLES) {
		/* the kernel adapts the cycle count to the rate */
		attr->freq = 1;
		attr->sample_freq = freq_hz;
	} else {
		/*
		 * Period mode, as the kernel turns a cpu-clock frequency into a
		 * period anyway; PERF_EVENT_IOC_PERIOD then takes nanoseconds.
		 */
		attr->freq = 0;
		attr->sample_period = 1000000000ull / freq_hz;
	}
	/* BPF reads the stacks; the perf ring itself is never mmapped */
	attr->sample_type = 0;
}

int pmu_set_rate(int fd, uint64_t value)
{
	return ioctl(fd, PERF_EVENT_IOC_PERIOD, &value) ? -errno : 0;
}

bool pmu_should_fallback(int err)
{
	return err == ENOENT || err == ENXIO || err == ENODEV || err == EOPNOTSUPP;
}

int pmu_online_cpus(bool *mask, size_t nr)
{
	char buf[4096];
	FILE *f;
	size_t n;
	int err;

	f = fopen("/sys/devices/system/cpu/online", "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	err = parse_cpu_list(buf, mask, nr);
	if (err)
		pr_warn("pmu: cannot parse online CPU list '%s': %s\n", buf, strerror(-err));
	return err;
}

static int open_one(enum pmu_event ev, uint64_t freq_hz, int cpu)
{
	struct perf_event_attr attr;
	int fd;

	pmu_sampling_attr(&attr, ev, freq_hz);
	fd = syscall(__NR_perf_event_open, &attr, -1 /* all tasks */, cpu, -1,
		     PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static void close_all(int *fds, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

int pmu_open_sampling(enum pmu_event ev, uint64_t freq_hz, const bool *online, size_t nr_cpus,
		      int *fds, enum pmu_event *used)
{
	enum pmu_event cur = ev == PMU_EV_AUTO ? PMU_EV_CYCLES : ev;
	bool probed = false;
	int fd, err;

	for (size_t i = 0; i < nr_cpus; i++)
		fds[i] = -1;
	for (size_t cpu = 0; cpu < nr_cpus; cpu++) {
		if (!online[cpu])
			continue;
		fd = open_one(cur, freq_hz, cpu);
		/* the first CPU decides the event; ENODEV there means "no PMU" */
		if (fd < 0 && !probed && ev == PMU_EV_AUTO && pmu_should_fallback(-fd)) {
			pr_debug("pmu: cycles unavailable: %s\n", strerror(-fd));
			cur = PMU_EV_CPU_CLOCK;
			fd = open_one(cur, freq_hz, cpu);
		}
		if (fd == -ENODEV && probed) {
			/* went offline since we read the mask: nothing to sample there */
			pr_debug("pmu: cpu %zu offline, skipped\n", cpu);
			continue;
		}
		probed = true;
		if (fd < 0) {
			err = fd;
			pr_warn("pmu: cannot open '%s' on cpu %zu: %s%s\n", pmu_event_name(cur), cpu,
				strerror(-err),
				cur == PMU_EV_CYCLES && pmu_should_fallback(-err) ?
				" (no hardware PMU here: use -e cpu-clock)" : "");
			close_all(fds, nr_cpus);
			return err;
		}
		fds[cpu] = fd;
	}
	if (!probed) {
		pr_warn("pmu: no online CPU to sample\n");
		return -ENODEV;
	}
	*used = cur;
	return 0;
}
