// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One `hotcold stat` run: counting-mode groups from pmu/counters on the
 * targets, top-down where the CPU has it, snapshots through
 * analysis/counters, and per-process sums from the BPF sched_switch
 * accumulator (collect/counters).
 */
#include "cli/stat_run.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "collect/counters.h"
#include "output/outfile.h"
#include "pmu/counters.h"
#include "pmu/events.h"
#include "pmu/groups.h"
#include "pmu/perf_event.h"
#include "record/target.h"
#include "util/clock.h"
#include "util/compiler.h"
#include "util/log.h"

#define STAT_TICK_NS 100000000ull	/* how often targets are checked */
#define STAT_TD_READ_NS 1000000000ull	/* PERF_METRICS fractions: read often (FIELD-NOTES) */
#define STAT_MAX_SPECS (PMU_G_NR + PMU_TD_MAX_EVENTS + DRILL_MAX_EVENTS + STAT_MAX_EXTRA)

struct stat_run {
	const struct stat_opts *o;
	int nr_cpus;
	bool *online;
	struct target_child child;
	bool child_started, child_done, exec_failed;
	int child_wstatus;
	struct pmu_counter_spec specs[STAT_MAX_SPECS];
	size_t nr_specs;	/* the PMU_G_NR generic ones first, then top-down */
	struct pmu_topdown_plan plan;
	bool td_on;
	const char *td_status;
	char td_why[320];
	size_t drill_first, nr_drill;	/* --mode events: specs[drill_first ..] */
	struct pmu_nr_counters counters;	/* --mode: the groups' size bound */
	size_t nr_drill_groups;
	size_t extra_first;		/* -e events: specs[extra_first .. + o->nr_extra] */
	struct pmu_counters *pc;
	struct pmu_count *delta, *total;
	bool pmu;
	struct task_counters *tc;
	struct pmu_event_desc tev[TASK_COUNTERS_MAX_EVENTS];
	size_t nr_tev;
	char target[256];
	struct outfile out;
	bool out_open;
	bool csv_header;
	uint64_t t0;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* Small groups: software; cycles+instructions; branches; cache; LLC (SEEDS §2). */
static void add_generic_specs(struct stat_run *r)
{
	static const unsigned int group[PMU_G_NR] = {
		[PMU_G_TASK_CLOCK] = 0, [PMU_G_CPU_CLOCK] = 0, [PMU_G_CONTEXT_SWITCHES] = 0,
		[PMU_G_CPU_MIGRATIONS] = 0, [PMU_G_PAGE_FAULTS] = 0,
		[PMU_G_CYCLES] = 1, [PMU_G_INSTRUCTIONS] = 1,
		[PMU_G_BRANCHES] = 2, [PMU_G_BRANCH_MISSES] = 2,
		[PMU_G_CACHE_REFERENCES] = 3, [PMU_G_CACHE_MISSES] = 3,
		[PMU_G_LLC_LOAD_MISSES] = 4,
	};

	for (int id = 0; id < PMU_G_NR; id++) {
		struct pmu_counter_spec *s = &r->specs[r->nr_specs++];

		memset(s, 0, sizeof(*s));
		pmu_generic_desc(id, &s->ev);
		s->group = group[id];
		s->hardware = pmu_generic(id)->hardware;
	}
}

static int read_cpuinfo(struct pmu_cpu_id *id)
{
	static char buf[16384];
	FILE *f = fopen("/proc/cpuinfo", "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return pmu_cpu_identify(buf, id);
}

/* Top-down group (5 or 6 events, SLOTS first on Intel) after the generic ones. */
static void add_topdown_specs(struct stat_run *r)
{
	struct pmu_cpu_id cpu = { 0 };
	bool have_cpu = !read_cpuinfo(&cpu);

	pmu_topdown_plan(PMU_SYSFS_ROOT, have_cpu ? &cpu : NULL, &r->plan);
	if (r->plan.method == PMU_TD_NONE) {
		snprintf(r->td_why, sizeof(r->td_why), "not available (%s)", r->plan.why);
		r->td_status = r->td_why;
		return;
	}
	for (size_t i = 0; i < r->plan.nr + r->plan.nr_extra + r->plan.nr_l2; i++) {
		struct pmu_counter_spec *s = &r->specs[r->nr_specs++];
		bool l2 = i >= r->plan.nr + r->plan.nr_extra;

		memset(s, 0, sizeof(*s));
		s->ev = r->plan.ev[i];
		/* Intel's level-2 metrics read with SLOTS, in its group; others: a group of their own */
		s->group = i < r->plan.nr || (l2 && r->plan.l2 == PMU_TD2_INTEL_METRICS) ? 5 :
			   l2 ? 19 : 6 + (unsigned int)(i - r->plan.nr);
		s->hardware = true;
	}
	r->td_on = true;
}

/*
 * --mode: the ratios' events after the others, packed into groups no larger
 * than the PMU's counters with each ratio's two events together where they
 * fit (pmu/groups.h: exact ratios under multiplexing; the kernel multiplexes
 * the groups, every ratio shows its running fraction). An event this
 * machine does not name is left out: its ratios say "not counted".
 */
static void add_drill_specs(struct stat_run *r)
{
	const char *names[DRILL_MAX_EVENTS];
	size_t num[DRILL_MAX_METRICS], den[DRILL_MAX_METRICS], np;
	unsigned int group[DRILL_MAX_EVENTS];
#if defined(__aarch64__)
	enum drill_isa isa = DRILL_ARM;
#else
	enum drill_isa isa = DRILL_X86;
#endif
	size_t n = drill_events(r->o->drill_mode, isa, names);

	pmu_nr_counters(&r->counters);
	np = drill_pairs(r->o->drill_mode, isa, names, n, num, den);
	r->nr_drill_groups = pmu_pack_pairs(num, den, np, n, r->counters.n, group);

	r->drill_first = r->nr_specs;
	for (size_t i = 0; i < n && r->nr_specs < STAT_MAX_SPECS; i++) {
		struct pmu_counter_spec *s = &r->specs[r->nr_specs];

		memset(s, 0, sizeof(*s));
		if (pmu_event_resolve(PMU_SYSFS_ROOT, names[i], &s->ev)) {
			pr_debug("stat: --mode: no event %s here\n", names[i]);
			continue;
		}
		s->group = 20 + group[i];
		s->hardware = true;
		r->nr_specs++;
	}
	r->nr_drill = r->nr_specs - r->drill_first;
}

struct drill_ctx {
	const struct stat_run *r;
	const struct pmu_count *c;
};

static bool drill_look(void *ctx, const char *name, double *v, double *running)
{
	const struct drill_ctx *d = ctx;

	for (size_t i = d->r->drill_first; i < d->r->drill_first + d->r->nr_drill; i++) {
		const struct pmu_count *c = &d->c[i];

		if (strcmp(d->r->specs[i].ev.name, name))
			continue;
		if (!c->supported || !c->counted)
			return false;
		*v = c->value;
		*running = c->enabled ? (double)c->running / c->enabled : 1;
		return true;
	}
	return false;
}

/* The --mode rows of @c into @rows; 0 without a PMU. */
static size_t compute_drill(struct stat_run *r, const struct pmu_count *c, struct drill_row *rows)
{
	struct drill_ctx ctx = { r, c };

	if (!r->pmu)
		return 0;
#if defined(__aarch64__)
	return drill_compute(r->o->drill_mode, DRILL_ARM, drill_look, &ctx, rows);
#else
	return drill_compute(r->o->drill_mode, DRILL_X86, drill_look, &ctx, rows);
#endif
}

static int write_drill(struct stat_run *r, const struct pmu_count *c, FILE *f)
{
	struct drill_row rows[DRILL_MAX_METRICS];
	size_t nr = compute_drill(r, c, rows);

	if (!r->pmu) {
		fprintf(f, "  %s drill-down: not available (no hardware PMU)\n",
			drill_mode_name(r->o->drill_mode));
		return ferror(f) ? -EIO : 0;
	}
	if (drill_write_text(f, r->o->drill_mode, rows, nr))
		return -EIO;
	fprintf(f, "  (%zu events in %zu groups of at most %u counters: %s%s; a ratio's two "
		"events share a group where they fit, so it is exact when multiplexed)\n",
		r->nr_drill, r->nr_drill_groups, r->counters.n, r->counters.source,
		r->counters.watchdog ? ", one left to the NMI watchdog" : "");
	return ferror(f) ? -EIO : 0;
}

/* Every thread of process @pid appended to @ids. 0 or -errno (-ESRCH: gone). */
static int list_threads(uint32_t pid, int **ids, size_t *nr)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int *n;

	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		n = realloc(*ids, (*nr + 1) * sizeof(**ids));
		if (!n) {
			closedir(d);
			return -ENOMEM;
		}
		*ids = n;
		(*ids)[(*nr)++] = atoi(de->d_name);
	}
	closedir(d);
	return 0;
}

static int build_target(struct stat_run *r, struct pmu_target *t, int **ids)
{
	size_t nr = 0;
	int err;

	memset(t, 0, sizeof(*t));
	*ids = NULL;
	if (r->o->system_wide) {
		*ids = calloc(r->nr_cpus, sizeof(**ids));
		if (!*ids)
			return -ENOMEM;
		for (int cpu = 0; cpu < r->nr_cpus; cpu++)
			if (r->online[cpu])
				(*ids)[nr++] = cpu;
		t->kind = PMU_TARGET_CPUS;
	} else if (r->o->cmd_argv) {
		*ids = malloc(sizeof(**ids));
		if (!*ids)
			return -ENOMEM;
		(*ids)[nr++] = r->child.pid;
		t->kind = PMU_TARGET_THREADS;
		t->inherit = true;
		t->enable_on_exec = true;	/* held before exec: count from exec on, as perf */
	} else {
		for (size_t i = 0; i < r->o->nr_pids; i++) {
			err = list_threads(r->o->pids[i], ids, &nr);
			if (err)
				return err;
		}
		t->kind = PMU_TARGET_THREADS;
		t->inherit = true;
	}
	t->ids = *ids;
	t->nr = nr;
	t->user_only = r->o->user_only;
	return 0;
}

static void describe_target(struct stat_run *r)
{
	size_t off = 0;

	if (r->o->system_wide) {
		snprintf(r->target, sizeof(r->target), "system-wide");
	} else if (r->o->cmd_argv) {
		off = snprintf(r->target, sizeof(r->target), "'");
		for (char **a = r->o->cmd_argv; *a && off < sizeof(r->target) - 2; a++)
			off += snprintf(r->target + off, sizeof(r->target) - 1 - off, "%s%s",
					a == r->o->cmd_argv ? "" : " ", *a);
		snprintf(r->target + off, sizeof(r->target) - off, "'");
	} else {
		off = snprintf(r->target, sizeof(r->target), "pid");
		for (size_t i = 0; i < r->o->nr_pids && off < sizeof(r->target); i++)
			off += snprintf(r->target + off, sizeof(r->target) - off, "%s%u",
					i ? "," : " ", r->o->pids[i]);
	}
}

/* Open the counting groups; say once when there is no hardware PMU. */
static int open_counting(struct stat_run *r)
{
	struct pmu_count cyc;
	struct pmu_target t;
	int *ids, err;

	add_generic_specs(r);
	add_topdown_specs(r);
	if (r->o->drill)
		add_drill_specs(r);
	/* -e: each its own group; software ones count without a PMU */
	r->extra_first = r->nr_specs;
	for (size_t i = 0; i < r->o->nr_extra && r->nr_specs < STAT_MAX_SPECS; i++) {
		struct pmu_counter_spec *sp = &r->specs[r->nr_specs++];

		memset(sp, 0, sizeof(*sp));
		sp->ev = r->o->extra[i];
		sp->group = 40 + (unsigned int)i;
		sp->hardware = sp->ev.type != PERF_TYPE_SOFTWARE;
	}
	err = build_target(r, &t, &ids);
	if (!err)
		err = pmu_counters__open(&r->pc, r->specs, r->nr_specs, &t);
	free(ids);
	if (err)
		return err;
	r->delta = calloc(r->nr_specs, sizeof(*r->delta));
	r->total = calloc(r->nr_specs, sizeof(*r->total));
	if (!r->delta || !r->total)
		return -ENOMEM;
	for (int id = 0; id < PMU_G_NR; id++) {
		pmu_counters__status(r->pc, id, &cyc);
		if (pmu_generic(id)->hardware && cyc.supported)
			r->pmu = true;
	}
	if (!r->pmu) {
		pmu_counters__status(r->pc, PMU_G_CYCLES, &cyc);
		pr_info("stat: no hardware PMU here (cycles: %s): counting software events only\n",
			strerror(-cyc.err));
		r->td_on = false;
		r->td_status = "not available (no PMU)";
	}
	return 0;
}

/* Per-process events: the classifier's inputs with a PMU, else cpu-clock and page-faults. */
static int open_per_process(struct stat_run *r)
{
	static const enum pmu_generic hw[] = { PMU_G_CYCLES, PMU_G_INSTRUCTIONS,
					       PMU_G_BRANCH_MISSES, PMU_G_LLC_LOAD_MISSES };
	static const enum pmu_generic sw[] = { PMU_G_CPU_CLOCK, PMU_G_PAGE_FAULTS };
	struct task_counters_opts to = { .nr_cpus = r->nr_cpus, .online = r->online,
					 .targets_fd = -1 };
	struct pmu_count st;

	for (size_t i = 0; i < (r->pmu ? ARRAY_SIZE(hw) : ARRAY_SIZE(sw)); i++) {
		enum pmu_generic id = r->pmu ? hw[i] : sw[i];

		pmu_counters__status(r->pc, id, &st);
		if (id == PMU_G_LLC_LOAD_MISSES && !st.supported)
			id = PMU_G_CACHE_MISSES;
		pmu_generic_desc(id, &r->tev[r->nr_tev++]);
	}
	to.events = r->tev;
	to.nr_events = r->nr_tev;
	return task_counters__open(&r->tc, &to);
}

static int stat_open(struct stat_run *r)
{
	const struct stat_opts *o = r->o;
	int err;

	r->child.pid = -1;
	r->child.go_fd = r->child.err_fd = -1;
	r->nr_cpus = libbpf_num_possible_cpus();
	if (r->nr_cpus <= 0)
		return r->nr_cpus ? r->nr_cpus : -EINVAL;
	r->online = calloc(r->nr_cpus, sizeof(*r->online));
	if (!r->online)
		return -ENOMEM;
	err = pmu_online_cpus(r->online, r->nr_cpus);
	if (err)
		return err;
	err = outfile_open(&r->out, o->output, 0644);
	if (err) {
		pr_warn("stat: cannot create '%s': %s\n", o->output, strerror(-err));
		return err;
	}
	r->out_open = true;
	err = target_check(o->pids, o->nr_pids, "process");
	if (err)
		return err;
	if (o->cmd_argv) {
		err = target_child_spawn(o->cmd_argv, &r->child);
		if (err) {
			pr_warn("stat: cannot start '%s': %s\n", o->cmd_argv[0], strerror(-err));
			return err;
		}
		r->child_started = true;
	}
	describe_target(r);
	err = open_counting(r);
	if (err)
		return err;
	if (o->per_process || o->system_wide)
		err = open_per_process(r);
	return err;
}

static int stat_start(struct stat_run *r)
{
	int err = 0;

	if (!r->o->cmd_argv)
		err = pmu_counters__enable(r->pc);
	if (!err && r->tc)
		err = task_counters__start(r->tc);
	if (err)
		return err;
	pr_info("stat: counting %s%s; Ctrl-C to stop\n", r->target,
		r->tc ? " with per-process sums from sched_switch" : "");
	r->t0 = clock_mono_ns();
	if (r->o->cmd_argv) {
		err = target_child_release(&r->child);
		if (err) {
			pr_warn("stat: cannot execute '%s': %s\n", r->o->cmd_argv[0],
				strerror(-err));
			r->child.pid = -1;	/* reaped by target_child_release() */
			r->exec_failed = true;
		}
	}
	return err;
}

static bool targets_gone(struct stat_run *r)
{
	if (r->o->cmd_argv) {
		if (!r->child_done &&
		    waitpid(r->child.pid, &r->child_wstatus, WNOHANG) == r->child.pid)
			r->child_done = true;
		return r->child_done;
	}
	for (size_t i = 0; i < r->o->nr_pids; i++)
		if (target_alive(r->o->pids[i]))
			return false;
	return r->o->nr_pids > 0;
}

static enum topdown_method td_method(enum pmu_topdown_method m)
{
	switch (m) {
	case PMU_TD_INTEL_METRICS:
		return TOPDOWN_INTEL_METRICS;
	case PMU_TD_INTEL_4WIDE:
		return TOPDOWN_INTEL_4WIDE;
	case PMU_TD_AMD_ZEN:
		return TOPDOWN_AMD_ZEN;
	case PMU_TD_ARM_SLOTS:
		return TOPDOWN_ARM_SLOTS;
	default:
		return TOPDOWN_ARM_CYCLES;
	}
}

/*
 * Level 2 from the plan's level-2 counts @c[nr + nr_extra ..] and the level-1
 * counts @l1 (topdown2.h's input orders).
 */
static void snapshot_topdown2(struct stat_run *r, const struct pmu_count *c, const double *l1,
			      struct counters_snapshot *s)
{
	const struct pmu_count *e = c + r->plan.nr + r->plan.nr_extra;
	double v[8], w[6];
	enum topdown2_method m;

	s->td2_status = r->plan.l2 == PMU_TD2_NONE ? r->plan.l2_why : NULL;
	if (r->plan.l2 == PMU_TD2_NONE)
		return;
	for (size_t i = 0; i < r->plan.nr_l2 && i < 6; i++) {
		if (!e[i].supported || !e[i].counted) {
			s->td2_status = "not counted (its group never got the PMU)";
			return;
		}
		w[i] = e[i].value;
		if (e[i].enabled && (double)e[i].running / e[i].enabled < s->td_running)
			s->td_running = (double)e[i].running / e[i].enabled;
	}
	switch (r->plan.l2) {
	case PMU_TD2_INTEL_METRICS:	/* the four level-1 metrics, then the four level-2 */
		m = TOPDOWN2_INTEL_METRICS;
		memcpy(v, l1 + 1, 4 * sizeof(*v));
		memcpy(v + 4, w, 4 * sizeof(*v));
		break;
	case PMU_TD2_AMD_ZEN:	/* level 1 gave cycles (0) and retired ops (1) */
		m = TOPDOWN2_AMD_ZEN;
		v[0] = l1[1], v[1] = w[0], v[2] = w[1], v[3] = w[2], v[4] = w[3], v[5] = l1[0];
		v[6] = w[4], v[7] = w[5];
		break;
	default:
		m = TOPDOWN2_ARM;
		memcpy(v, w, 4 * sizeof(*v));
		break;
	}
	if (topdown2_compute(m, &s->td, v, topdown2_nr_inputs(m), r->plan.slots_per_cycle, &s->td2))
		s->td2_status = "not available (nothing counted)";
	else
		s->td2_ok = true;
}

static void snapshot_topdown(struct stat_run *r, const struct pmu_count *c,
			     struct counters_snapshot *s)
{
	double v[PMU_TD_MAX_EVENTS], run = 1;
	size_t nr = 0, first = PMU_G_NR;

	s->topdown_status = r->td_status;
	if (!r->td_on)
		return;
	for (size_t i = 0; i < r->plan.nr + r->plan.nr_extra; i++) {
		const struct pmu_count *e = &c[first + i];

		if (!e->supported || !e->counted) {
			if (i < r->plan.nr) {
				s->topdown_status = "not counted (the group never got the PMU)";
				return;
			}
			break;	/* optional extras (AMD SMT contention) may be missing */
		}
		v[nr++] = e->value;
		if (e->enabled && (double)e->running / e->enabled < run)
			run = (double)e->running / e->enabled;
	}
	if (topdown_compute(td_method(r->plan.method), v, nr, r->plan.slots_per_cycle, &s->td)) {
		s->topdown_status = "not available (no slots counted)";
		return;
	}
	s->topdown_ok = true;
	s->td_running = run;
	s->topdown_label = r->plan.label;
	snapshot_topdown2(r, c + first, v, s);
}

static void snapshot_build(struct stat_run *r, const struct pmu_count *c, double seconds,
			   double interval_end, struct counters_row *rows,
			   struct counters_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < PMU_G_NR; i++) {
		rows[i] = (struct counters_row){
			.name = r->specs[i].ev.name,
			.clock = pmu_generic(i)->clock,
			.supported = c[i].supported,
			.counted = c[i].counted,
			.value = c[i].value,
			.running = c[i].enabled ? (double)c[i].running / c[i].enabled : 1,
			.error = c[i].supported ? NULL : strerror(-c[i].err),
		};
	}
	for (size_t i = 0; i < r->o->nr_extra; i++) {
		const struct pmu_count *e = &c[r->extra_first + i];
		const struct pmu_event_desc *ev = &r->specs[r->extra_first + i].ev;

		rows[PMU_G_NR + i] = (struct counters_row){
			.name = ev->name,
			.clock = ev->type == PERF_TYPE_SOFTWARE &&
				 (ev->config[0] == PERF_COUNT_SW_CPU_CLOCK ||
				  ev->config[0] == PERF_COUNT_SW_TASK_CLOCK),
			.supported = e->supported,
			.counted = e->counted,
			.value = e->value,
			.running = e->enabled ? (double)e->running / e->enabled : 1,
			.error = e->supported ? NULL : strerror(-e->err),
		};
	}
	s->target = r->target;
	s->seconds = seconds;
	s->interval_end = interval_end;
	s->rows = rows;
	s->nr = PMU_G_NR + r->o->nr_extra;
	s->pmu = r->pmu;
	s->model = r->o->model;
	counters_snapshot_derive(s);
	snapshot_topdown(r, c, s);
}

static int write_snapshot(struct stat_run *r, const struct pmu_count *c, double seconds,
			  double interval_end)
{
	struct counters_row rows[PMU_G_NR + STAT_MAX_EXTRA];
	struct counters_snapshot s;
	FILE *f = r->out.f;

	snapshot_build(r, c, seconds, interval_end, rows, &s);
	if (r->o->repeat && interval_end < 0) {
		cstats_add(r->o->repeat, &s);
		return 0;
	}
	switch (r->o->fmt) {
	case FMT_JSON: {
		struct drill_row drows[DRILL_MAX_METRICS];

		if (r->o->drill) {
			s.drill = true;
			s.drill_mode = r->o->drill_mode;
			s.nr_drill = compute_drill(r, c, drows);
			s.drill_rows = drows;
			s.drill_status = r->pmu ? NULL : "no hardware PMU";
		}
		return counters_write_json(f, &s);
	}
	case FMT_CSV: {
		int err = counters_write_csv(f, &s, !r->csv_header);

		r->csv_header = true;
		return err;
	}
	default: {
		int err = counters_write_text(f, &s);

		return !err && r->o->drill ? write_drill(r, c, f) : err;
	}
	}
}

static int stat_loop(struct stat_run *r)
{
	const struct stat_opts *o = r->o;
	uint64_t end = o->duration_ns ? r->t0 + o->duration_ns : UINT64_MAX;
	uint64_t next_iv = o->interval_ns ? r->t0 + o->interval_ns : UINT64_MAX;
	uint64_t next_td = r->td_on && !o->interval_ns ? r->t0 + STAT_TD_READ_NS : UINT64_MAX;
	uint64_t last_iv = r->t0, t, wake;
	struct timespec ts;
	int err;

	while (!stop_signal) {
		t = clock_mono_ns();
		if (t >= end || targets_gone(r))
			break;
		if (t >= next_iv) {
			err = pmu_counters__read(r->pc, r->delta, r->total);
			if (!err)
				err = write_snapshot(r, r->delta, (t - last_iv) / 1e9,
						     (t - r->t0) / 1e9);
			if (err)
				return err;
			fflush(r->out.f);
			last_iv = t;
			next_iv += o->interval_ns;
		} else if (t >= next_td) {
			/* keeps the 8-bit PERF_METRICS fractions from losing precision */
			err = pmu_counters__read(r->pc, NULL, NULL);
			if (err)
				return err;
			next_td += STAT_TD_READ_NS;
		}
		wake = t + STAT_TICK_NS;
		wake = wake < next_iv ? wake : next_iv;
		wake = wake < end ? wake : end;
		ts.tv_sec = (wake - t) / 1000000000ull;
		ts.tv_nsec = (wake - t) % 1000000000ull;
		nanosleep(&ts, NULL);	/* a signal cuts it short: checked above */
	}
	/* what is left: the last (partial) interval, or the whole run */
	t = clock_mono_ns();
	err = pmu_counters__read(r->pc, r->delta, r->total);
	if (err)
		return err;
	if (o->interval_ns)
		return t - last_iv >= 1000000 ?
		       write_snapshot(r, r->delta, (t - last_iv) / 1e9, (t - r->t0) / 1e9) : 0;
	return write_snapshot(r, r->total, (t - r->t0) / 1e9, -1);
}

static int write_procs(struct stat_run *r, double seconds)
{
	struct counters_proc_table t;
	struct task_counters_stats st;
	int err;

	memset(&t, 0, sizeof(t));
	err = task_counters__stop(r->tc);
	if (!err)
		err = task_counters__table(r->tc, r->tev, r->nr_tev, false, &t);
	if (err)
		return err;
	t.top = r->o->top;
	t.seconds = seconds;
	t.model = r->o->model;
	if (r->o->cmd_argv && r->child_started)
		t.nr = counters_procs_keep_tree(t.procs, t.nr, r->child.pid);
	else if (r->o->nr_pids)
		t.nr = counters_procs_keep_pids(t.procs, t.nr, r->o->pids, r->o->nr_pids);
	counters_procs_sort(t.procs, t.nr);
	if (r->o->fmt == FMT_JSON)
		err = counters_write_procs_json(r->out.f, &t);
	else if (r->o->fmt == FMT_CSV)
		err = fputc('\n', r->out.f) == EOF ? -EIO : counters_write_procs_csv(r->out.f, &t);
	else
		err = counters_write_procs_text(r->out.f, &t);
	free(t.procs);
	task_counters__stats(r->tc, &st);
	pr_info("stat: per-process: %llu spans charged, %llu lost (counter read failed%s%s), "
		"%llu lost (process table full)\n", (unsigned long long)st.spans,
		(unsigned long long)st.read_err, st.read_err ? ": " : "",
		st.read_err ? strerror((int)-st.last_err) : "", (unsigned long long)st.map_full);
	if (st.scaled)
		pr_info("stat: per-process: %llu spans held other tasks' time (their switches were "
			"not traced): scaled to their own task's runtime\n",
			(unsigned long long)st.scaled);
	return err;
}

static void stat_close(struct stat_run *r)
{
	if (r->out_open)
		outfile_discard(&r->out);
	task_counters__free(r->tc);
	pmu_counters__free(r->pc);
	if (r->child_started && r->child.pid > 0 && !r->child_done)
		target_child_abort(&r->child);
	free(r->delta);
	free(r->total);
	free(r->online);
}

/* Wait for the command so we can exit with its status. */
static int reap_child(struct stat_run *r)
{
	if (!r->o->cmd_argv || r->child.pid <= 0)
		return -1;
	while (!r->child_done && waitpid(r->child.pid, &r->child_wstatus, 0) < 0 && errno == EINTR)
		;
	r->child_done = true;
	return target_exit_status(r->child_wstatus);
}

int stat_run(const struct stat_opts *o, int *cmd_status)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct stat_run r = { .o = o };
	double seconds;
	int err;

	*cmd_status = -1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	err = stat_open(&r);
	if (!err)
		err = stat_start(&r);
	if (!err)
		err = stat_loop(&r);
	seconds = (clock_mono_ns() - r.t0) / 1e9;
	if (!err && r.tc)
		err = write_procs(&r, seconds);
	if (!err) {
		err = outfile_commit(&r.out);
		r.out_open = false;
		if (err)
			pr_warn("stat: cannot write '%s': %s\n", o->output, strerror(-err));
	} else if (r.out_open && err == -EIO) {
		/* a writer saw ferror(): the sink knows why (-ENOSPC, ...) */
		err = outfile_fail(&r.out, err);
		r.out_open = false;
		pr_warn("stat: cannot write '%s': %s\n", o->output, strerror(-err));
	}
	if (r.child_started && !r.exec_failed && r.child.pid > 0 && (r.t0 || r.child_done))
		*cmd_status = reap_child(&r);
	if (r.exec_failed)
		*cmd_status = 127;
	stat_close(&r);
	return err;
}
