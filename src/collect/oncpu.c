// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * On-CPU collector: per-CPU sampling events with bpf/oncpu.bpf.c attached to
 * each; dithered (pmu/dither.h): the events tick several times per sampling
 * interval and their tick period is re-drawn at every drain.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "abi/oncpu.h"
#include "abi/unwind.h"
#include "collect/collector.h"
#include "collect/parts.h"
#include "collect/proc.h"
#include "collect/python.h"
#include "collect/walk_stats.h"
#include "pmu/sample_open.h"
#include "oncpu.skel.h"
#include "pmu/dither.h"
#include "util/clock.h"
#include "util/log.h"

struct oncpu {
	struct oncpu_bpf *skel;
	const struct collector_env *env;
	enum pmu_event req_event;
	enum pmu_event event;	/* the one opened */
	uint64_t freq_hz;
	const struct pmu_sample_event *sample_ev;	/* record -e EVENT [-c N], or NULL */
	uint64_t sample_period;
	int nr_cpus;
	int *pmu_fds;		/* [nr_cpus]; -1 once owned by a link */
	int *rate_fds;		/* [nr_cpus]; our dup of each event, for re-draws; -1: none */
	struct bpf_link **links;/* [nr_cpus] */
	struct pmu_dither dither;
	uint64_t rng;		/* xorshift64 state for the re-draws */
	uint64_t redraw_errs;
	uint64_t start_ns;	/* CLOCK_MONOTONIC at start, for the share of ticks unseen */
	int nr_attached;	/* CPUs sampled */
	unsigned int refused;	/* parts the kernel refused (collect/parts.h) */
	const struct record_opts *o;	/* for a load */
};

static uint32_t oncpu_rand(struct oncpu *oc)
{
	oc->rng ^= oc->rng << 13;
	oc->rng ^= oc->rng >> 7;
	oc->rng ^= oc->rng << 17;
	return (uint32_t)(oc->rng >> 32);
}

/*
 * A new random tick period for every CPU's event. The kernel restarts each
 * timer from now, a phase shift as good as the new period; the BPF side
 * times its intervals by the clock, so neither moves the sampling rate.
 */
static void oncpu_redraw(struct oncpu *oc)
{
	if (!oc->dither.period_ns)
		return;
	for (int cpu = 0; cpu < oc->nr_cpus; cpu++) {
		if (oc->rate_fds[cpu] < 0)
			continue;
		if (pmu_set_rate(oc->rate_fds[cpu],
				 pmu_dither_redraw(&oc->dither, oc->event, oncpu_rand(oc))))
			oc->redraw_errs++;
	}
}

/* Keep a dup of each event fd: the bpf_link closes the one it is given. */
static int oncpu_dup_fds(struct oncpu *oc)
{
	for (int cpu = 0; cpu < oc->nr_cpus; cpu++) {
		if (oc->pmu_fds[cpu] < 0 || !oc->dither.period_ns)
			continue;
		oc->rate_fds[cpu] = fcntl(oc->pmu_fds[cpu], F_DUPFD_CLOEXEC, 0);
		if (oc->rate_fds[cpu] < 0)
			return -errno;
	}
	return 0;
}

/* parts_load_fn: the skeleton with @parts, a previous one destroyed first */
static int oncpu_try_load(void *ctx, unsigned int parts)
{
	struct oncpu *oc = ctx;
	const struct collector_env *env = oc->env;
	const struct record_opts *o = oc->o;
	int err;

	oncpu_bpf__destroy(oc->skel);
	oc->skel = oncpu_bpf__open();
	if (!oc->skel) {
		err = -errno;
		pr_warn("oncpu: cannot open BPF skeleton: %s\n", strerror(-err));
		return err;
	}
	oc->skel->rodata->cfg_filter = env->filter;
	oc->skel->rodata->cfg_idle = o->idle;
	oc->skel->rodata->cfg_unwind = parts & PART_BIT(HC_PART_CFI) ? HC_UNWIND_CFI :
								       HC_UNWIND_FP;
	oc->skel->rodata->cfg_refuse = parts_test_refuse();
	oc->skel->rodata->cfg_stacks = (o->kernel_stacks ? HC_ONCPU_KSTACK : 0) |
				       (o->user_stacks ? HC_ONCPU_USTACK : 0);
	oc->skel->rodata->cfg_period_ns = oc->dither.period_ns;
	oc->skel->rodata->cfg_max_late_ns = oc->dither.max_late_ns;
	oc->skel->rodata->cfg_max_ahead_ns = oc->dither.max_ahead_ns;
	oc->skel->rodata->cfg_branches = parts & PART_BIT(HC_PART_BRANCHES);
	/*
	 * cpu-clock ticks through idle: a late one was held off (interrupts
	 * off, a stolen vCPU) and the time did pass; only a tick a whole
	 * interval late is treated like a halt.
	 */
	if (oc->event == PMU_EV_CPU_CLOCK && oc->dither.period_ns)
		oc->skel->rodata->cfg_max_late_ns = oc->dither.period_ns;
	err = collector_share_maps(env, oc->skel->obj, "oncpu");
	if (!err)
		err = oncpu_bpf__load(oc->skel);
	if (err) {
		oncpu_bpf__destroy(oc->skel);
		oc->skel = NULL;
	}
	return err;
}

static int oncpu_open(struct collector *c, const struct record_opts *o,
		      const struct collector_env *env)
{
	struct oncpu *oc;
	unsigned int parts = 0;
	int err;

	oc = calloc(1, sizeof(*oc));
	if (!oc)
		return -ENOMEM;
	oc->env = env;
	oc->nr_cpus = env->nr_cpus;
	oc->req_event = o->event;
	oc->freq_hz = o->freq_hz;
	oc->pmu_fds = malloc(sizeof(*oc->pmu_fds) * oc->nr_cpus);
	oc->rate_fds = malloc(sizeof(*oc->rate_fds) * oc->nr_cpus);
	oc->links = calloc(oc->nr_cpus, sizeof(*oc->links));
	if (!oc->pmu_fds || !oc->rate_fds || !oc->links) {
		err = -ENOMEM;
		goto err_free;
	}
	for (int i = 0; i < oc->nr_cpus; i++)
		oc->pmu_fds[i] = oc->rate_fds[i] = -1;
	/*
	 * -e EVENT counts events, not time: every overflow is a sample, so the
	 * time-interval dithering (cpu-clock/cycles) is off for it
	 */
	if (o->no_dither || o->sample_ev_set)
		oc->dither = (struct pmu_dither){ .tick_hz = o->freq_hz };
	else
		pmu_dither_plan(o->freq_hz, &oc->dither);
	oc->rng = ((uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid() << 20) | 1;

	oc->o = o;
	/* open the events now so a missing PMU or permission error fails before loading */
	if (o->sample_ev_set) {
		oc->sample_ev = &o->sample_ev;
		oc->sample_period = o->sample_period;
		err = pmu_open_sample_event(&o->sample_ev, o->sample_period, oc->freq_hz,
					    o->branches, env->online, oc->nr_cpus, oc->pmu_fds);
	} else {
		err = pmu_open_sampling(oc->req_event, oc->dither.tick_hz, env->online,
					oc->nr_cpus, oc->pmu_fds, &oc->event);
	}
	if (err)
		goto err_close;
	err = oncpu_dup_fds(oc);
	if (err) {
		pr_warn("oncpu: cannot keep the event fds: %s\n", strerror(-err));
		goto err_close;
	}
	if (env->unwind_cfi)
		parts |= PART_BIT(HC_PART_CFI);
	if (o->branches)
		parts |= PART_BIT(HC_PART_BRANCHES);
	err = parts_load("oncpu", "BTF and perf_event programs (README, Kernels)",
			 oncpu_try_load, oc, &parts, &oc->refused);
	if (err)
		goto err_close;
	if (oc->req_event == PMU_EV_AUTO && oc->event != PMU_EV_CYCLES)
		pr_info("oncpu: no hardware cycles event here, sampling cpu-clock\n");
	c->parts_refused = oc->refused;
	c->walks_cfi = parts & PART_BIT(HC_PART_CFI);
	c->priv = oc;
	return 0;

err_close:
	oncpu_bpf__destroy(oc->skel);
	for (int cpu = 0; cpu < oc->nr_cpus; cpu++) {
		if (oc->pmu_fds[cpu] >= 0)
			close(oc->pmu_fds[cpu]);
		if (oc->rate_fds[cpu] >= 0)
			close(oc->rate_fds[cpu]);
	}
err_free:
	free(oc->pmu_fds);
	free(oc->rate_fds);
	free(oc->links);
	free(oc);
	return err;
}

static int oncpu_start(struct collector *c)
{
	struct oncpu *oc = c->priv;
	int err;

	for (int cpu = 0; cpu < oc->nr_cpus; cpu++) {
		if (oc->pmu_fds[cpu] < 0)
			continue;
		oc->links[cpu] = bpf_program__attach_perf_event(oc->skel->progs.oncpu_sample,
								oc->pmu_fds[cpu]);
		if (!oc->links[cpu]) {
			err = -errno;
			pr_warn("oncpu: cannot attach to cpu %d: %s\n", cpu, strerror(-err));
			return err;
		}
		/* the link owns the perf fd now and closes it on destroy */
		oc->pmu_fds[cpu] = -1;
		oc->nr_attached++;
	}
	oc->start_ns = clock_mono_ns();
	oncpu_redraw(oc);
	return 0;
}

/* Ring records are read by the session; the drain only re-draws the tick periods. */
static int oncpu_drain(struct collector *c, sample_fn fn, void *arg)
{
	oncpu_redraw(c->priv);
	return 0;
}

/* The per-CPU dither counters, summed. */
static void oncpu_dither_read(const struct oncpu *oc, struct oncpu_dither_cpu *sum)
{
	struct oncpu_dither_cpu d[oc->nr_cpus];
	__u32 zero = 0;

	memset(sum, 0, sizeof(*sum));
	if (bpf_map_lookup_elem(bpf_map__fd(oc->skel->maps.oncpu_dither_cpu), &zero, d))
		return;
	for (int i = 0; i < oc->nr_cpus; i++) {
		sum->intervals += d[i].intervals;
		sum->late += d[i].late;
		sum->no_storage += d[i].no_storage;
		sum->late_ns += d[i].late_ns;
		sum->gaps += d[i].gaps;
		sum->copied += d[i].copied;
		sum->pulled += d[i].pulled;
		sum->pulled_ns += d[i].pulled_ns;
		sum->kept += d[i].kept;
		sum->kept_ns += d[i].kept_ns;
		sum->multi += d[i].multi;
		sum->multi_extra += d[i].multi_extra;
	}
}

static int oncpu_stop(struct collector *c)
{
	struct oncpu *oc = c->priv;

	for (int cpu = 0; cpu < oc->nr_cpus; cpu++) {
		bpf_link__destroy(oc->links[cpu]);
		oc->links[cpu] = NULL;
	}
	return 0;
}

/*
 * Ticks missed while one task ran on for over an interval (the BPF side
 * checks the task's own account, so an idle CPU's sparser ticks are not
 * counted here: docs/architecture.md, "Ticks unseen"). Nothing is lost: a
 * thread's time is re-based on the kernel's account at its next tick, and
 * the samples of the gap are that tick's: one sample weighing them all
 * (hc_dither_next()). Shown when that time
 * exceeds 5% of the CPU time.
 */
static const char *oncpu_unseen_name(const struct oncpu *oc, const struct oncpu_dither_cpu *d)
{
	uint64_t span = (clock_mono_ns() - oc->start_ns) * (uint64_t)oc->nr_attached;

	if (oc->event == PMU_EV_CPU_CLOCK && oc->start_ns && d->late_ns * 20 > span)
		return "ticks missed over 5% of the time (samples taken late)";
	return "ticks missed while a task ran";
}

static void oncpu_stats(const struct collector *c, struct collector_stats *st)
{
	const struct oncpu *oc = c->priv;
	uint64_t v[HC_STAT_NR];

	st->nr = 0;
	if (percpu_stats_read(bpf_map__fd(oc->skel->maps.oncpu_stats), oc->nr_cpus, v,
			      HC_STAT_NR))
		return;
	st->s[st->nr++] = (struct collector_stat){ "samples", v[HC_STAT_SAMPLES], false };
	st->s[st->nr++] = (struct collector_stat){ "lost (ring full)", v[HC_STAT_RB_FULL], true };
	st->s[st->nr++] = (struct collector_stat){ "kernel stack errors", v[HC_STAT_KSTACK_ERR],
						   true };
	st->s[st->nr++] = (struct collector_stat){ "user stack errors", v[HC_STAT_USTACK_ERR],
						   true };
	st->s[st->nr++] = (struct collector_stat){ "user stacks truncated",
						   v[HC_STAT_USTACK_TRUNC], true };
	parts_stats_add(st, oc->refused);
	if (oc->skel->rodata->cfg_branches) {
		st->s[st->nr++] = (struct collector_stat){ "branch stacks lost (ring full)",
							   v[HC_STAT_BRANCH_RB_FULL], true };
		st->s[st->nr++] = (struct collector_stat){ "samples without branch records",
							   v[HC_STAT_BRANCH_NONE], true };
	}
	if (oc->dither.period_ns) {
		struct oncpu_dither_cpu d;

		oncpu_dither_read(oc, &d);
		st->s[st->nr++] = (struct collector_stat){ oncpu_unseen_name(oc, &d), d.late,
							   false };
		st->s[st->nr++] = (struct collector_stat){ "tick gaps (idle CPU or a switch)", d.gaps,
							   false };
		st->s[st->nr++] = (struct collector_stat){ "ticks without task storage", d.no_storage,
							   true };
		st->s[st->nr++] = (struct collector_stat){
			"ticks decided on the CPU's copy (no task storage lookup)", d.copied, false };
		st->s[st->nr++] = (struct collector_stat){ "tick re-draws failed",
							   oc->redraw_errs, true };
		/* hc_dither_charge(): another task's time given back, steal kept */
		st->s[st->nr++] = (struct collector_stat){
			"ticks past a thread's account after a switch (time given back)", d.pulled,
			false };
		st->s[st->nr++] = (struct collector_stat){
			"ticks past a thread's account with no switch (steal kept)", d.kept, false };
		st->s[st->nr++] = (struct collector_stat){ "ms of steal kept in threads' time",
							   d.kept_ns / 1000000, false };
		/* hc_dither_next(): a catch-up's instants in one sample, not spread over later code */
		st->s[st->nr++] = (struct collector_stat){
			"samples standing for more than one interval", d.multi, false };
		st->s[st->nr++] = (struct collector_stat){ "intervals in them beyond the first",
							   d.multi_extra, false };
	}
	if (!oc->skel->rodata->cfg_unwind)
		return;
	walk_stats_add(st, v);
}

static void oncpu_describe(const struct collector *c, char *buf, size_t len)
{
	const struct oncpu *oc = c->priv;

	if (oc->sample_ev && oc->sample_period) {
		snprintf(buf, len, "%s every %llu, user stacks by %s", oc->sample_ev->name,
			 (unsigned long long)oc->sample_period,
			 oc->skel->rodata->cfg_unwind ? "CFI" : "frame pointers");
		return;
	}
	snprintf(buf, len, "%s @ %llu Hz%s, user stacks by %s",
		 oc->sample_ev ? oc->sample_ev->name : pmu_event_name(oc->event),
		 (unsigned long long)oc->freq_hz, oc->dither.period_ns ? " (dithered)" : "",
		 oc->skel->rodata->cfg_unwind ? "CFI" : "frame pointers");
}

static void oncpu_close(struct collector *c)
{
	struct oncpu *oc = c->priv;

	if (!oc)
		return;
	for (int cpu = 0; cpu < oc->nr_cpus; cpu++) {
		bpf_link__destroy(oc->links[cpu]);
		if (oc->pmu_fds[cpu] >= 0)
			close(oc->pmu_fds[cpu]);
		if (oc->rate_fds[cpu] >= 0)
			close(oc->rate_fds[cpu]);
	}
	oncpu_bpf__destroy(oc->skel);
	free(oc->pmu_fds);
	free(oc->rate_fds);
	free(oc->links);
	free(oc);
	c->priv = NULL;
}

const struct collector_ops oncpu_ops = {
	.name = "oncpu",
	.open = oncpu_open,
	.start = oncpu_start,
	.stop = oncpu_stop,
	.drain = oncpu_drain,
	.stats = oncpu_stats,
	.describe = oncpu_describe,
	.close = oncpu_close,
};
