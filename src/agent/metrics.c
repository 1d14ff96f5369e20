// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Self-observation: rusage, RSS, loss counters, symbolizer size, BPF program cost. */
#include "agent/metrics.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "sym/symbolizer.h"
#include "util/diag.h"
#include "util/log.h"

static uint64_t rss_now(void)
{
	unsigned long size, resident;
	FILE *f = fopen("/proc/self/statm", "re");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "%lu %lu", &size, &resident);
	fclose(f);
	return n == 2 ? (uint64_t)resident * sysconf(_SC_PAGESIZE) : 0;
}

static bool bpf_stats_on(void)
{
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "re");
	int v = 0;

	if (!f)
		return false;
	if (fscanf(f, "%d", &v) != 1)
		v = 0;
	fclose(f);
	return v != 0;
}

/* Our BPF programs are the bpf-prog fds we hold; sum by name (one per collector hook). */
static void read_progs(struct metrics *m)
{
	char link[300], target[64];
	struct bpf_prog_info info;
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");
	__u32 len;
	ssize_t n;

	m->nr_progs = 0;
	if (!d)
		return;
	while ((de = readdir(d))) {
		snprintf(link, sizeof(link), "/proc/self/fd/%s", de->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strcmp(target, "anon_inode:bpf-prog"))
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (bpf_obj_get_info_by_fd(atoi(de->d_name), &info, &len))
			continue;
		size_t i;
		for (i = 0; i < m->nr_progs; i++)
			if (!strcmp(m->progs[i].name, info.name))
				break;
		if (i == m->nr_progs) {
			if (m->nr_progs == METRICS_MAX_PROGS)
				continue;
			memset(&m->progs[i], 0, sizeof(m->progs[i]));
			snprintf(m->progs[i].name, sizeof(m->progs[i].name), "%s", info.name);
			m->nr_progs++;
		}
		m->progs[i].run_time_ns += info.run_time_ns;
		m->progs[i].run_cnt += info.run_cnt;
	}
	closedir(d);
}

/* Each counter by its class in the diagnostics registry (the collector's flag for others). */
static void on_stat(const char *group, const char *name, uint64_t value, bool loss, void *arg);

static void on_symbolizer_stat(const char *name, uint64_t value, bool loss, void *arg)
{
	on_stat("symbolizer", name, value, loss, arg);
}

static void on_stat(const char *group, const char *name, uint64_t value, bool loss, void *arg)
{
	enum diag_class cls = diag__class(name, loss);
	struct metrics *m = arg;
	struct metrics_loss *l;

	if (cls == DIAG_WORK) {
		if (m->nr_work == METRICS_MAX_LOSSES)
			return;
		l = &m->work[m->nr_work++];
		snprintf(l->group, sizeof(l->group), "%s", group);
		snprintf(l->name, sizeof(l->name), "%s", name);
		l->value = value;
		return;
	}
	if (m->nr_loss == METRICS_MAX_LOSSES)
		return;
	/* the same counters in the same order every interval: keep what was logged */
	l = &m->loss[m->nr_loss++];
	if (strcmp(l->name, name))
		l->logged = 0;
	snprintf(l->group, sizeof(l->group), "%s", group);
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->value = value;
	l->cls = cls;
}

void metrics_update(struct metrics *m, struct session *s, const struct session_counts *c,
		    double wall_s)
{
	struct symbolizer_stats ss;
	struct rusage ru;
	double cpu;

	if (!getrusage(RUSAGE_SELF, &ru)) {
		cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
		      ru.ru_stime.tv_usec / 1e6;
		m->cpu_pct_interval = wall_s > 0 ? 100.0 * (cpu - m->cpu_s) / wall_s : 0;
		m->cpu_s = cpu;
		m->rss_peak_bytes = (uint64_t)ru.ru_maxrss * 1024;
	}
	m->rss_bytes = rss_now();
	m->last = *c;
	m->nr_loss = m->nr_work = 0;
	session__stats(s, on_stat, m);
	m->stacks_dropped_total += c->stacks_dropped;
	on_stat("user", "stacks over the aggregation limit", m->stacks_dropped_total, true, m);
	symbolizer__stats(session__symbolizer(s), &ss);
	on_stat("user", "processes gone before their maps were read", c->procs_late, false, m);
	on_stat("user", "... of them named from the maps BPF read at their exit", ss.procs_exit_maps,
		false, m);
	on_stat("user", "... of them left unnamed (no exit maps)",
		c->procs_late > ss.procs_exit_maps ? c->procs_late - ss.procs_exit_maps : 0, true, m);
	on_stat("user", "records not held for exit maps (limit)", c->held_dropped, true, m);
	on_stat("symbolizer", "objects over the object limit (frames unknown)", ss.objects_dropped,
		true, m);
	on_stat("symbolizer", "pprof frames without source lines (an object's line cache full)",
		ss.srclines_skipped, true, m);
	/* sym/hotspot.h: JVMs' JIT frames; keys from util/diag.c (reason="hotspot_no_blob") */
	symbolizer_stats_hotspot(&ss, on_symbolizer_stat, m);
	/* sym/v8.h: JavaScript frames (reason="v8_stale") */
	symbolizer_stats_v8(&ss, on_symbolizer_stat, m);
	m->sym_procs = ss.procs;
	m->sym_objects_evicted = ss.objects_evicted;
	m->sym_objects_live = ss.objects_live;
	m->sym_procs_live = ss.procs_live;
	m->sym_procs_pruned = ss.procs_pruned;
	m->sym_objects = ss.objects;
	m->sym_objects_dropped = ss.objects_dropped;
	m->sym_object_errors = ss.object_errors;
	m->bpf_stats_enabled = bpf_stats_on();
	read_progs(m);
}

void metrics_loop_turn(struct metrics *m, uint64_t lag_ns)
{
	m->loop_turns++;
	m->loop_lag_ns += lag_ns;
	if (lag_ns > m->loop_lag_max_cur)
		m->loop_lag_max_cur = lag_ns;
}

void metrics_log(struct metrics *m)
{
	char bpf[512] = "";
	size_t off = 0;

	for (size_t i = 0; i < m->nr_progs && off < sizeof(bpf); i++)
		off += snprintf(bpf + off, sizeof(bpf) - off, " %s %.0f ns x %llu",
				m->progs[i].name,
				m->progs[i].run_cnt ? (double)m->progs[i].run_time_ns /
						      m->progs[i].run_cnt : 0.0,
				(unsigned long long)m->progs[i].run_cnt);
	/* the runq kind's total, as stored: --off-cpu's [cpu wait] after wakeups is in it */
	pr_info("agent: interval %llu: %llu samples, %.3f s off-CPU, %.3f s runq, %llu stacks; "
		"cpu %.3f%%, rss %.1f MiB; history %llu intervals, %.1f MiB\n",
		(unsigned long long)m->intervals, (unsigned long long)m->last.samples,
		(m->last.off_ns + m->last.short_ns) / 1e9,
		(m->last.runq_ns + m->last.cpuwait_ns) / 1e9,
		(unsigned long long)m->last.stacks, m->cpu_pct_interval,
		m->rss_bytes / 1048576.0, (unsigned long long)m->store_intervals,
		m->store.bytes / 1048576.0);
	pr_debug("agent: loop lag max %.1f ms, interval ended %.1f ms late; slowest step %.1f ms "
		 "(%s)\n", m->loop_lag_max_ns / 1e6, m->interval_late_ns / 1e6, m->slowest_ns / 1e6,
		 m->slowest_what ? m->slowest_what : "none");
	pr_debug("agent: bpf (stats %s):%s\n", m->bpf_stats_enabled ? "on" : "off (bpf_stats = yes)",
		 bpf);
	for (size_t i = 0; i < m->nr_loss; i++) {
		struct metrics_loss *l = &m->loss[i];
		const struct diag *d = diag__find(l->name);
		bool lost = l->cls == DIAG_LOSS;

		/*
		 * One line per counter that grew, with what to do: a loss warns; a
		 * degradation (a stack cut short, a frame unnamed) recurs every
		 * interval of a long-running service: -v, and degraded_total.
		 */
		if (l->value > l->logged)
			log_printf(lost ? LOG_WARN : LOG_DEBUG, "agent: %s: %llu %s%s this interval (%llu "
				   "in all)%s%s\n", l->group,
				   (unsigned long long)(l->value - l->logged), l->name,
				   lost && !strstr(l->name, "lost") ? " (lost)" : "",
				   (unsigned long long)l->value, d && *d->remedy ? ": " : "",
				   d ? d->remedy : "");
		l->logged = l->value;
	}
}
