// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Counter groups on CPUs or threads: open, enable, group reads, multiplex scaling. */
#include "pmu/counters.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "pmu/perf_event.h"
#include "util/log.h"

#define READ_FORMAT (PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED | \
		     PERF_FORMAT_TOTAL_TIME_RUNNING)

struct pmu_counters {
	struct pmu_counter_spec *specs;	/* [nr] */
	size_t nr;
	struct pmu_target t;
	int *ids_copy;			/* t.ids, owned */
	bool *supported;		/* [nr] */
	int *err;			/* [nr] */
	int *fd;			/* [t.nr * nr], -1 if not open */
	uint64_t *id;			/* [t.nr * nr] kernel event ids */
	uint64_t *prev_raw;		/* [t.nr * nr] at the previous read */
	uint64_t *prev_en, *prev_run;	/* [t.nr * nr] group times at the previous read */
	struct pmu_count *total;	/* [nr] */
	unsigned int max_group;
	uint64_t *buf;			/* one group read */
	size_t buf_words;
};

bool pmu_scale(uint64_t value, uint64_t enabled, uint64_t running, double *out)
{
	if (!running) {
		*out = 0;
		return false;
	}
	/* long double: value * enabled overflows 64 bits long before counts do */
	*out = (double)((long double)value * enabled / running);
	return true;
}

int pmu_group_decode(const uint64_t *buf, size_t words, const uint64_t *ids, size_t nr_ids,
		     uint64_t *values, uint64_t *enabled, uint64_t *running)
{
	uint64_t n;
	size_t j, k;

	if (words < 3)
		return -EINVAL;
	n = buf[0];
	if (n > (words - 3) / 2)
		return -EINVAL;
	*enabled = buf[1];
	*running = buf[2];
	for (j = 0; j < nr_ids; j++) {
		for (k = 0; k < n && buf[3 + 2 * k + 1] != ids[j]; k++)
			;
		if (k == n)
			return -ENOENT;
		values[j] = buf[3 + 2 * k];
	}
	return 0;
}

static bool means_unsupported(const struct pmu_counter_spec *s, int err)
{
	/* perf stat's rule; EINVAL is how x86 refuses an unknown cache event */
	return s->hardware && (pmu_should_fallback(err) || err == EINVAL);
}

static int open_fd(const struct pmu_counter_spec *s, const struct pmu_target *t, size_t ti,
		   int leader)
{
	struct perf_event_attr a;
	int pid = -1, cpu = -1, fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = s->ev.type;
	a.config = s->ev.config[0];
	a.config1 = s->ev.config[1];
	a.config2 = s->ev.config[2];
	a.read_format = READ_FORMAT;
	a.disabled = leader < 0;
	a.exclude_kernel = a.exclude_hv = t->user_only;
	if (t->kind == PMU_TARGET_THREADS) {
		pid = t->ids[ti];
		a.inherit = t->inherit;
		a.enable_on_exec = leader < 0 && t->enable_on_exec;
	} else {
		cpu = t->ids[ti];
	}
	fd = syscall(__NR_perf_event_open, &a, pid, cpu, leader, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int *fd_at(struct pmu_counters *pc, size_t ti, size_t ci)
{
	return &pc->fd[ti * pc->nr + ci];
}

/* Leader fd of @group on target @ti, -1 if none is open yet. */
static int group_leader(struct pmu_counters *pc, size_t ti, unsigned int group)
{
	for (size_t ci = 0; ci < pc->nr; ci++)
		if (pc->specs[ci].group == group && *fd_at(pc, ti, ci) >= 0)
			return *fd_at(pc, ti, ci);
	return -1;
}

/* A target that vanished between listing and opening: skip it entirely. */
static bool target_gone(const struct pmu_target *t, int err)
{
	return (t->kind == PMU_TARGET_CPUS && err == -ENODEV) ||
	       (t->kind == PMU_TARGET_THREADS && err == -ESRCH);
}

static void close_target(struct pmu_counters *pc, size_t ti)
{
	for (size_t ci = 0; ci < pc->nr; ci++) {
		if (*fd_at(pc, ti, ci) >= 0)
			close(*fd_at(pc, ti, ci));
		*fd_at(pc, ti, ci) = -1;
	}
}

static int open_target(struct pmu_counters *pc, size_t ti)
{
	int fd;

	for (size_t ci = 0; ci < pc->nr; ci++) {
		const struct pmu_counter_spec *s = &pc->specs[ci];

		if (!pc->supported[ci])
			continue;
		fd = open_fd(s, &pc->t, ti, group_leader(pc, ti, s->group));
		if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_ID, &pc->id[ti * pc->nr + ci])) {
			int e = -errno;

			close(fd);
			fd = e;
		}
		if (fd >= 0) {
			*fd_at(pc, ti, ci) = fd;
			continue;
		}
		if (ti == 0 && means_unsupported(s, -fd)) {
			pc->supported[ci] = false;
			pc->err[ci] = fd;
			pr_debug("pmu: '%s' not supported: %s\n", s->ev.name, strerror(-fd));
			continue;
		}
		close_target(pc, ti);
		if (target_gone(&pc->t, fd))
			return 0;
		pr_warn("pmu: cannot open '%s' on %s %d: %s\n", s->ev.name,
			pc->t.kind == PMU_TARGET_CPUS ? "cpu" : "thread", pc->t.ids[ti],
			strerror(-fd));
		return fd;
	}
	return 0;
}

static int alloc_arrays(struct pmu_counters *pc)
{
	size_t cells = pc->t.nr * pc->nr;

	pc->supported = calloc(pc->nr, sizeof(*pc->supported));
	pc->err = calloc(pc->nr, sizeof(*pc->err));
	pc->total = calloc(pc->nr, sizeof(*pc->total));
	pc->fd = malloc(cells * sizeof(*pc->fd));
	pc->id = calloc(cells, sizeof(*pc->id));
	pc->prev_raw = calloc(cells, sizeof(*pc->prev_raw));
	pc->prev_en = calloc(cells, sizeof(*pc->prev_en));
	pc->prev_run = calloc(cells, sizeof(*pc->prev_run));
	pc->buf_words = 3 + 2 * pc->nr;
	pc->buf = calloc(pc->buf_words, sizeof(*pc->buf));
	if (!pc->supported || !pc->err || !pc->total || !pc->fd || !pc->id || !pc->prev_raw ||
	    !pc->prev_en || !pc->prev_run || !pc->buf)
		return -ENOMEM;
	for (size_t i = 0; i < cells; i++)
		pc->fd[i] = -1;
	for (size_t i = 0; i < pc->nr; i++)
		pc->supported[i] = true;
	return 0;
}

int pmu_counters__open(struct pmu_counters **out, const struct pmu_counter_spec *specs, size_t nr,
		       const struct pmu_target *t)
{
	struct pmu_counters *pc;
	int err;

	*out = NULL;
	if (!nr || !t->nr)
		return -EINVAL;
	pc = calloc(1, sizeof(*pc));
	if (!pc)
		return -ENOMEM;
	pc->nr = nr;
	pc->t = *t;
	pc->specs = malloc(nr * sizeof(*specs));
	pc->ids_copy = malloc(t->nr * sizeof(*t->ids));
	if (!pc->specs || !pc->ids_copy) {
		err = -ENOMEM;
		goto err_free;
	}
	memcpy(pc->specs, specs, nr * sizeof(*specs));
	memcpy(pc->ids_copy, t->ids, t->nr * sizeof(*t->ids));
	pc->t.ids = pc->ids_copy;
	err = alloc_arrays(pc);
	if (err)
		goto err_free;
	for (size_t i = 0; i < nr; i++)
		if (specs[i].group > pc->max_group)
			pc->max_group = specs[i].group;
	for (size_t ti = 0; ti < t->nr; ti++) {
		err = open_target(pc, ti);
		if (err)
			goto err_free;
	}
	*out = pc;
	return 0;

err_free:
	pmu_counters__free(pc);
	return err;
}

static int ioctl_leaders(struct pmu_counters *pc, unsigned long req)
{
	int fd;

	for (size_t ti = 0; ti < pc->t.nr; ti++) {
		for (unsigned int g = 0; g <= pc->max_group; g++) {
			fd = group_leader(pc, ti, g);
			if (fd >= 0 && ioctl(fd, req, PERF_IOC_FLAG_GROUP))
				return -errno;
		}
	}
	return 0;
}

int pmu_counters__enable(struct pmu_counters *pc)
{
	return ioctl_leaders(pc, PERF_EVENT_IOC_ENABLE);
}

int pmu_counters__disable(struct pmu_counters *pc)
{
	return ioctl_leaders(pc, PERF_EVENT_IOC_DISABLE);
}

/* Read group @g on target @ti; add its deltas since the previous read to @acc. */
static int read_group(struct pmu_counters *pc, size_t ti, unsigned int g, struct pmu_count *acc)
{
	int leader = group_leader(pc, ti, g);
	uint64_t en, run, val;
	ssize_t n;
	int err;

	if (leader < 0)
		return 0;
	n = read(leader, pc->buf, pc->buf_words * sizeof(uint64_t));
	if (n < 0)
		return -errno;
	for (size_t ci = 0; ci < pc->nr; ci++) {
		size_t cell = ti * pc->nr + ci;

		if (pc->specs[ci].group != g || pc->fd[cell] < 0)
			continue;
		err = pmu_group_decode(pc->buf, n / sizeof(uint64_t), &pc->id[cell], 1, &val, &en,
				       &run);
		if (err)
			return err;
		acc[ci].raw += val - pc->prev_raw[cell];
		acc[ci].enabled += en - pc->prev_en[cell];
		acc[ci].running += run - pc->prev_run[cell];
		pc->prev_raw[cell] = val;
		pc->prev_en[cell] = en;
		pc->prev_run[cell] = run;
	}
	return 0;
}

int pmu_counters__read(struct pmu_counters *pc, struct pmu_count *delta, struct pmu_count *total)
{
	struct pmu_count *d = calloc(pc->nr, sizeof(*d));
	int err = 0;

	if (!d)
		return -ENOMEM;
	for (size_t ti = 0; ti < pc->t.nr && !err; ti++)
		for (unsigned int g = 0; g <= pc->max_group && !err; g++)
			err = read_group(pc, ti, g, d);
	if (err)
		goto out;
	for (size_t ci = 0; ci < pc->nr; ci++) {
		struct pmu_count *tot = &pc->total[ci];

		d[ci].supported = tot->supported = pc->supported[ci];
		d[ci].err = tot->err = pc->err[ci];
		/* perf's aggregate scaling: sum of values x sum of enabled / sum of running */
		d[ci].counted = pmu_scale(d[ci].raw, d[ci].enabled, d[ci].running, &d[ci].value);
		/* never enabled: the threads did not run (task events), a measured 0 */
		if (!d[ci].enabled && pc->supported[ci])
			d[ci].counted = true;
		d[ci].value *= pc->specs[ci].ev.scale;
		tot->counted |= d[ci].counted;
		tot->value += d[ci].value;
		tot->raw += d[ci].raw;
		tot->enabled += d[ci].enabled;
		tot->running += d[ci].running;
	}
	if (delta)
		memcpy(delta, d, pc->nr * sizeof(*d));
	if (total)
		memcpy(total, pc->total, pc->nr * sizeof(*d));
out:
	free(d);
	return err;
}

int pmu_probe_hardware(int cpu)
{
	struct pmu_counter_spec s;
	struct pmu_target t = { .kind = PMU_TARGET_CPUS, .ids = &cpu, .nr = 1 };
	int fd;

	memset(&s, 0, sizeof(s));
	pmu_generic_desc(PMU_G_CYCLES, &s.ev);
	fd = open_fd(&s, &t, 0, -1);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

size_t pmu_counters__nr(const struct pmu_counters *pc)
{
	return pc->nr;
}

void pmu_counters__status(const struct pmu_counters *pc, size_t i, struct pmu_count *out)
{
	memset(out, 0, sizeof(*out));
	if (i >= pc->nr)
		return;
	out->supported = pc->supported[i];
	out->err = pc->err[i];
}

void pmu_counters__free(struct pmu_counters *pc)
{
	if (!pc)
		return;
	if (pc->fd)
		for (size_t ti = 0; ti < pc->t.nr; ti++)
			close_target(pc, ti);
	free(pc->specs);
	free(pc->ids_copy);
	free(pc->supported);
	free(pc->err);
	free(pc->total);
	free(pc->fd);
	free(pc->id);
	free(pc->prev_raw);
	free(pc->prev_en);
	free(pc->prev_run);
	free(pc->buf);
	free(pc);
}
