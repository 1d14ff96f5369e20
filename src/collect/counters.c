// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Counter collector: owns bpf/counters.bpf.c and its per-CPU counter fds,
 * syncs the running tasks on each CPU before a read, and reads the
 * per-process sums. counters_ops puts the same snapshot in a recording's
 * end-of-run summary (record --counters).
 */
#include "collect/counters.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>

#include "abi/counters.h"
#include "analysis/counters.h"
#include "collect/collector.h"
#include "collect/proc.h"
#include "counters.skel.h"
#include "pmu/counters.h"
#include "pmu/perf_event.h"
#include "util/clock.h"
#include "util/log.h"

_Static_assert(sizeof(struct hc_counters_proc) == 128, "hc_counters_proc ABI changed");
_Static_assert(TASK_COUNTERS_MAX_EVENTS == HC_COUNTERS_MAX_EVENTS, "event slots differ");
_Static_assert(TASK_COUNTERS_MAX_EVENTS == COUNTERS_PROC_MAX_EVENTS, "event slots differ");

struct task_counters {
	struct counters_bpf *skel;
	int nr_cpus;
	bool *online;		/* [nr_cpus] */
	size_t nr_events;
	int *fds;		/* [nr_events * nr_cpus], -1 where not open */
};

/* Open the skeleton with one of the two sched_switch programs, configured. */
static int load_skel(struct task_counters *tc, const struct task_counters_opts *o, bool raw_tp)
{
	struct counters_bpf *skel;
	int err;

	skel = counters_bpf__open();
	if (!skel) {
		err = -errno;
		pr_warn("counters: cannot open BPF skeleton: %s\n", strerror(-err));
		return err;
	}
	skel->rodata->cfg_filter = o->targets_fd >= 0;
	skel->rodata->cfg_nr_events = o->nr_events;
	skel->rodata->cfg_nr_cpus = o->nr_cpus;
	bpf_program__set_autoload(skel->progs.counters_switch, !raw_tp);
	bpf_program__set_autoload(skel->progs.counters_switch_raw, raw_tp);
	/* the exec hook re-decides a span by the target set: none, nothing to decide */
	bpf_program__set_autoload(skel->progs.counters_exec, !raw_tp && o->targets_fd >= 0);
	bpf_program__set_autoload(skel->progs.counters_exec_raw, raw_tp && o->targets_fd >= 0);
	bpf_program__set_autoattach(skel->progs.counters_sync, false);
	err = bpf_map__set_max_entries(skel->maps.counters_events, o->nr_events * o->nr_cpus);
	if (!err && o->max_procs)
		err = bpf_map__set_max_entries(skel->maps.counters_procs, o->max_procs);
	if (!err && o->targets_fd >= 0)
		err = bpf_map__reuse_fd(skel->maps.proc_targets, o->targets_fd);
	if (!err)
		err = counters_bpf__load(skel);
	if (err) {
		counters_bpf__destroy(skel);
		return err;
	}
	tc->skel = skel;
	return 0;
}

/* One counting event on @cpu for every task, disabled until start. */
static int open_event(const struct pmu_event_desc *ev, int cpu)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = ev->type;
	a.config = ev->config[0];
	a.config1 = ev->config[1];
	a.config2 = ev->config[2];
	a.disabled = 1;
	/* no inherit: bpf_perf_event_read_value() refuses inherited events */
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = syscall(__NR_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int open_events(struct task_counters *tc, const struct task_counters_opts *o)
{
	int map = bpf_map__fd(tc->skel->maps.counters_events), fd;
	__u32 key;

	for (size_t e = 0; e < o->nr_events; e++) {
		for (int cpu = 0; cpu < o->nr_cpus; cpu++) {
			if (!o->online[cpu])
				continue;
			fd = open_event(&o->events[e], cpu);
			if (fd == -ENODEV)
				continue;	/* went offline since the mask was read */
			if (fd < 0) {
				pr_warn("counters: cannot open '%s' on cpu %d: %s\n",
					o->events[e].name, cpu, strerror(-fd));
				return fd;
			}
			tc->fds[e * o->nr_cpus + cpu] = fd;
			key = e * o->nr_cpus + cpu;
			if (bpf_map_update_elem(map, &key, &fd, BPF_ANY)) {
				fd = -errno;
				pr_warn("counters: cannot add '%s' of cpu %d to the map: %s\n",
					o->events[e].name, cpu, strerror(-fd));
				return fd;
			}
		}
	}
	return 0;
}

int task_counters__open(struct task_counters **out, const struct task_counters_opts *o)
{
	struct task_counters *tc;
	size_t cells = o->nr_events * o->nr_cpus;
	int err;

	*out = NULL;
	if (!o->nr_events || o->nr_events > TASK_COUNTERS_MAX_EVENTS || o->nr_cpus <= 0)
		return -EINVAL;
	tc = calloc(1, sizeof(*tc));
	if (!tc)
		return -ENOMEM;
	tc->nr_cpus = o->nr_cpus;
	tc->nr_events = o->nr_events;
	tc->online = calloc(o->nr_cpus, sizeof(*tc->online));
	tc->fds = malloc(cells * sizeof(*tc->fds));
	if (!tc->online || !tc->fds) {
		err = -ENOMEM;
		goto err_free;
	}
	memcpy(tc->online, o->online, o->nr_cpus * sizeof(*tc->online));
	for (size_t i = 0; i < cells; i++)
		tc->fds[i] = -1;
	err = load_skel(tc, o, false);
	if (err) {
		pr_debug("counters: tp_btf program not loaded (%s), trying raw_tp\n",
			 strerror(-err));
		err = load_skel(tc, o, true);
	}
	if (err) {
		pr_warn("counters: cannot load BPF programs: %s\n", strerror(-err));
		goto err_free;
	}
	err = open_events(tc, o);
	if (err)
		goto err_free;
	*out = tc;
	return 0;

err_free:
	task_counters__free(tc);
	return err;
}

int task_counters__sync(struct task_counters *tc)
{
	int fd = bpf_program__fd(tc->skel->progs.counters_sync), err;
	__u64 args[4] = { 0 };

	for (int cpu = 0; cpu < tc->nr_cpus; cpu++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args),
			    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = cpu);

		if (!tc->online[cpu])
			continue;
		err = bpf_prog_test_run_opts(fd, &opts);
		if (err == -ENXIO)
			continue;	/* offline now: nothing runs there */
		if (err) {
			pr_warn("counters: cannot sync cpu %d: %s\n", cpu, strerror(-err));
			return err;
		}
	}
	return 0;
}

int task_counters__start(struct task_counters *tc)
{
	size_t cells = tc->nr_events * tc->nr_cpus;
	int err;

	for (size_t i = 0; i < cells; i++) {
		if (tc->fds[i] >= 0 && ioctl(tc->fds[i], PERF_EVENT_IOC_ENABLE, 0)) {
			err = -errno;
			pr_warn("counters: cannot enable a counter: %s\n", strerror(-err));
			return err;
		}
	}
	err = counters_bpf__attach(tc->skel);
	if (err) {
		pr_warn("counters: cannot attach to sched_switch: %s\n", strerror(-err));
		return err;
	}
	/* baselines now, so the first span on each CPU is charged too */
	return task_counters__sync(tc);
}

int task_counters__stop(struct task_counters *tc)
{
	int err = task_counters__sync(tc);

	counters_bpf__detach(tc->skel);
	return err;
}

/* @take: move the sums out (lookup_and_delete), so the next read starts at 0. */
static int read_procs(struct task_counters *tc, struct task_counters_proc **out, size_t *nr,
		      bool take)
{
	int fd = bpf_map__fd(tc->skel->maps.counters_procs);
	struct task_counters_proc *v = NULL, *n;
	struct hc_counters_proc val;
	__u32 key, *prev = NULL;
	size_t cnt = 0, cap = 0;

	while (!bpf_map_get_next_key(fd, prev, &key)) {
		prev = &key;
		if (take) {
			/*
			 * Atomic per entry; the program makes a new one at the
			 * process's next span. Deleting @key ends the walk's
			 * cursor: start over (taken entries are gone).
			 */
			prev = NULL;
			if (bpf_map_lookup_and_delete_elem(fd, &key, &val))
				continue;
		} else if (bpf_map_lookup_elem(fd, &key, &val)) {
			continue;	/* deleted meanwhile */
		}
		if (cnt == cap) {
			cap = cap ? 2 * cap : 256;
			n = realloc(v, cap * sizeof(*v));
			if (!n) {
				free(v);
				return -ENOMEM;
			}
			v = n;
		}
		memset(&v[cnt], 0, sizeof(v[cnt]));
		v[cnt].tgid = key;
		v[cnt].ppid = val.ppid;
		memcpy(v[cnt].comm, val.comm, HC_COMM_LEN);
		v[cnt].comm[HC_COMM_LEN] = '\0';
		memcpy(v[cnt].value, val.value, sizeof(val.value));
		memcpy(v[cnt].enabled, val.enabled, sizeof(val.enabled));
		memcpy(v[cnt].running, val.running, sizeof(val.running));
		v[cnt].spans = val.spans;
		cnt++;
	}
	*out = v;
	*nr = cnt;
	return 0;
}

int task_counters__read(struct task_counters *tc, struct task_counters_proc **out, size_t *nr)
{
	return read_procs(tc, out, nr, false);
}

int task_counters__table(struct task_counters *tc, const struct pmu_event_desc *ev,
			 size_t nr_ev, bool take, struct counters_proc_table *t)
{
	struct task_counters_proc *p;
	size_t nr;
	int err;

	memset(t, 0, sizeof(*t));
	err = read_procs(tc, &p, &nr, take);
	if (err)
		return err;
	t->procs = calloc(nr ? nr : 1, sizeof(*t->procs));
	if (!t->procs) {
		free(p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nr; i++) {
		struct counters_proc *cp = &t->procs[i];

		cp->pid = p[i].tgid;
		cp->ppid = p[i].ppid;
		snprintf(cp->comm, sizeof(cp->comm), "%s", p[i].comm);
		for (size_t e = 0; e < nr_ev; e++) {
			/* nothing enabled: no span had time, a measured 0 */
			cp->counted[e] = pmu_scale(p[i].value[e], p[i].enabled[e], p[i].running[e],
						   &cp->value[e]) || !p[i].enabled[e];
			cp->running[e] = p[i].enabled[e] ?
					 (double)p[i].running[e] / p[i].enabled[e] : 1;
		}
	}
	free(p);
	t->nr = nr;
	for (size_t e = 0; e < nr_ev; e++) {
		enum pmu_generic id;

		t->names[e] = ev[e].name;
		t->clock[e] = !pmu_generic_find(ev[e].name, &id) && pmu_generic(id)->clock;
	}
	t->nr_events = nr_ev;
	counters_model_default(&t->model);
	return 0;
}

void task_counters__stats(const struct task_counters *tc, struct task_counters_stats *st)
{
	uint64_t v[HC_CSTAT_NR];

	memset(st, 0, sizeof(*st));
	if (percpu_stats_read(bpf_map__fd(tc->skel->maps.counters_stats), tc->nr_cpus, v,
			      HC_CSTAT_NR))
		return;
	st->spans = v[HC_CSTAT_SPANS];
	st->first = v[HC_CSTAT_FIRST];
	st->read_err = v[HC_CSTAT_READ_ERR];
	st->map_full = v[HC_CSTAT_MAP_FULL];
	st->scaled = v[HC_CSTAT_SCALED];
	st->last_err = tc->skel->bss->stat_last_read_err;
}

void task_counters__free(struct task_counters *tc)
{
	if (!tc)
		return;
	counters_bpf__destroy(tc->skel);
	if (tc->fds)
		for (size_t i = 0; i < tc->nr_events * tc->nr_cpus; i++)
			if (tc->fds[i] >= 0)
				close(tc->fds[i]);
	free(tc->fds);
	free(tc->online);
	free(tc);
}

/* ---- record --counters ------------------------------------------------- */

struct counters_col {
	struct task_counters *tc;
	struct pmu_event_desc ev[TASK_COUNTERS_MAX_EVENTS];
	size_t nr;
	bool pmu;
	uint64_t t0, t1;	/* CLOCK_MONOTONIC ns at start and stop */
	uint64_t t_last;	/* of the last counters_collector_interval(), 0: none */
};

/* With a PMU the classifier's inputs; without, what software can say. */
static void pick_events(struct counters_col *cc, const struct collector_env *env)
{
	static const enum pmu_generic hw[] = { PMU_G_CYCLES, PMU_G_INSTRUCTIONS,
					       PMU_G_BRANCH_MISSES, PMU_G_LLC_LOAD_MISSES };
	static const enum pmu_generic sw[] = { PMU_G_CPU_CLOCK, PMU_G_PAGE_FAULTS };
	int cpu = 0, err;

	while (cpu < env->nr_cpus && !env->online[cpu])
		cpu++;
	err = pmu_probe_hardware(cpu);
	cc->pmu = !err;
	if (err && pmu_should_fallback(-err))
		pr_info("counters: no hardware PMU here (cycles: %s): counting cpu-clock and "
			"page-faults only\n", strerror(-err));
	cc->nr = cc->pmu ? 4 : 2;
	for (size_t i = 0; i < cc->nr; i++)
		pmu_generic_desc(cc->pmu ? hw[i] : sw[i], &cc->ev[i]);
}

static int counters_open(struct collector *c, const struct record_opts *o,
			 const struct collector_env *env)
{
	struct task_counters_opts to = {
		.nr_cpus = env->nr_cpus,
		.online = env->online,
		.targets_fd = env->filter ? env->targets_fd : -1,
	};
	struct counters_col *cc = calloc(1, sizeof(*cc));
	int err;

	if (!cc)
		return -ENOMEM;
	pick_events(cc, env);
	to.events = cc->ev;
	to.nr_events = cc->nr;
	err = task_counters__open(&cc->tc, &to);
	if (err) {
		free(cc);
		return err;
	}
	c->priv = cc;
	return 0;
}

static int counters_start(struct collector *c)
{
	struct counters_col *cc = c->priv;

	cc->t0 = clock_mono_ns();
	return task_counters__start(cc->tc);
}

static int counters_stop(struct collector *c)
{
	struct counters_col *cc = c->priv;

	cc->t1 = clock_mono_ns();
	return task_counters__stop(cc->tc);
}

int counters_collector_interval(struct collector *c, FILE *out)
{
	struct counters_col *cc = c->priv;
	struct counters_proc_table t;
	uint64_t now = clock_mono_ns();
	int err;

	if (c->ops != &counters_ops)
		return -EINVAL;
	/* charge the running tasks their time so far, then move the sums out */
	err = task_counters__sync(cc->tc);
	if (!err)
		err = task_counters__table(cc->tc, cc->ev, cc->nr, true, &t);
	if (err)
		return err;
	t.seconds = (now - (cc->t_last ? cc->t_last : cc->t0)) / 1e9;
	cc->t_last = now;
	counters_procs_sort(t.procs, t.nr);
	err = counters_write_procs_json(out, &t);
	free(t.procs);
	return err;
}

static void counters_stats(const struct collector *c, struct collector_stats *st)
{
	const struct counters_col *cc = c->priv;
	struct task_counters_stats ts;

	task_counters__stats(cc->tc, &ts);
	st->nr = 0;
	st->s[st->nr++] = (struct collector_stat){ "spans lost (counter read failed)", ts.read_err,
						   true };
	st->s[st->nr++] = (struct collector_stat){ "spans lost (process table full)", ts.map_full,
						   true };
}

static void counters_describe(const struct collector *c, char *buf, size_t len)
{
	const struct counters_col *cc = c->priv;
	size_t off = snprintf(buf, len, "counters (");

	for (size_t i = 0; i < cc->nr && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? ", " : "", cc->ev[i].name);
	if (off < len)
		snprintf(buf + off, len - off, ")");
}

/* The whole recording's snapshot: every tracked process summed, one line to @out. */
static int counters_report(struct collector *c, FILE *out)
{
	struct counters_col *cc = c->priv;
	struct counters_row rows[TASK_COUNTERS_MAX_EVENTS];
	uint64_t val[TASK_COUNTERS_MAX_EVENTS] = { 0 }, en[TASK_COUNTERS_MAX_EVENTS] = { 0 };
	uint64_t run[TASK_COUNTERS_MAX_EVENTS] = { 0 };
	struct counters_snapshot s = { .target = "the recorded tasks", .interval_end = -1 };
	struct task_counters_proc *p;
	char line[1024];
	size_t nr;
	int err;

	err = task_counters__read(cc->tc, &p, &nr);
	if (err)
		return err;
	for (size_t i = 0; i < nr; i++) {
		for (size_t e = 0; e < cc->nr; e++) {
			val[e] += p[i].value[e];
			en[e] += p[i].enabled[e];
			run[e] += p[i].running[e];
		}
	}
	free(p);
	for (size_t e = 0; e < cc->nr; e++) {
		const struct pmu_generic_info *g = NULL;
		enum pmu_generic id;

		if (!pmu_generic_find(cc->ev[e].name, &id))
			g = pmu_generic(id);
		rows[e] = (struct counters_row){ .name = cc->ev[e].name, .clock = g && g->clock,
						 .supported = true };
		/* nothing enabled: no span had time, a measured 0 */
		rows[e].counted = pmu_scale(val[e], en[e], run[e], &rows[e].value) || !en[e];
		rows[e].running = en[e] ? (double)run[e] / en[e] : 1;
	}
	s.rows = rows;
	s.nr = cc->nr;
	s.pmu = cc->pmu;
	s.seconds = (cc->t1 - cc->t0) / 1e9;
	counters_model_default(&s.model);
	counters_snapshot_derive(&s);
	fprintf(out, "%s\n", counters_summary(&s, line, sizeof(line)));
	return ferror(out) ? -EIO : 0;
}

static void counters_close(struct collector *c)
{
	struct counters_col *cc = c->priv;

	if (!cc)
		return;
	task_counters__free(cc->tc);
	free(cc);
	c->priv = NULL;
}

const struct collector_ops counters_ops = {
	.name = "counters",
	.open = counters_open,
	.start = counters_start,
	.stop = counters_stop,
	.stats = counters_stats,
	.describe = counters_describe,
	.report = counters_report,
	.close = counters_close,
};
