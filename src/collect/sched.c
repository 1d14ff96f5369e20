// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Scheduler collector: owns bpf/sched.bpf.c (off-CPU time, run-queue
 * latency), drains the per-thread short-block sums and reports the run-queue
 * histograms.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "abi/sched.h"
#include "abi/unwind.h"
#include "collect/collector.h"
#include "collect/drain.h"
#include "collect/kfuncs.h"
#include "collect/parts.h"
#include "collect/proc.h"
#include "collect/python.h"
#include "collect/walk_stats.h"
#include "sched.skel.h"
#include "util/clock.h"
#include "util/log.h"

_Static_assert(sizeof(struct hc_offcpu_short) == 56, "hc_offcpu_short ABI changed");

struct offcpu {
	struct sched_bpf *skel;
	bool offcpu, runq, wakers;
	bool task_work;		/* user stacks deferred by task work, not sys_exit */
	bool prev_state;	/* sched_switch passes the blocked state */
	unsigned int refused;	/* parts the kernel refused (collect/parts.h) */
	/* for a load: the options and the shared maps */
	const struct record_opts *o;
	const struct collector_env *env;
	unsigned int runq_per;
	int nr_cpus;
	uint64_t min_block_ns;
	uint64_t short_drained;	/* short-block entries moved out */
	struct map_drain short_drain;	/* offcpu_short, a budget at a time */
};

/* A drain's sample callback and its argument, through map_drain__run(). */
struct sample_fn_arg {
	sample_fn fn;
	void *arg;
};

/*
 * BPF task work (Linux 6.18): a callback run by the task itself on its way
 * back to user space. Without it, deferred user stacks need a program on
 * every syscall exit of every task.
 */
static bool have_task_work(void)
{
	/* for tests and for ruling it out: the sys_exit path everywhere else */
	if (getenv("HOTCOLD_NO_TASK_WORK"))
		return false;
	return kfunc_present("bpf_task_work_schedule_resume_impl");
}

/*
 * sched_switch passes the state __schedule() blocked the task in (5.18+:
 * a fourth argument). Read then, prev->__state may already be TASK_WAKING:
 * a waker on another CPU is waiting for the switch to finish.
 */
static bool have_prev_state(const struct btf *vmlinux)
{
	const struct btf_type *t;
	int id;

	id = vmlinux ? btf__find_by_name_kind(vmlinux, "btf_trace_sched_switch",
					      BTF_KIND_TYPEDEF) : -1;
	if (id <= 0)
		return false;
	t = btf__type_by_id(vmlinux, btf__resolve_type(vmlinux, id));
	if (!t || !btf_is_ptr(t))
		return false;
	t = btf__type_by_id(vmlinux, t->type);
	/* void *__data, bool preempt, prev, next, prev_state */
	return t && btf_is_func_proto(t) && btf_vlen(t) >= 5;
}

/*
 * Short-block samples a second per CPU, all threads together (abi/sched.h).
 * HOTCOLD_OFFCPU_SAMPLE_RATE sets another, for tests that make it bite.
 */
static uint64_t sample_rate(void)
{
	const char *e = getenv("HOTCOLD_OFFCPU_SAMPLE_RATE");
	char *end;
	unsigned long long v;

	if (!e || !*e)
		return HC_OFFCPU_SAMPLES_PER_CPU;
	errno = 0;
	v = strtoull(e, &end, 10);
	if (errno || *end || !v || v > 1000000) {
		pr_warn("offcpu: HOTCOLD_OFFCPU_SAMPLE_RATE=%s ignored (1 to 1000000 a second)\n", e);
		return HC_OFFCPU_SAMPLES_PER_CPU;
	}
	return v;
}

static void configure(struct sched_bpf *skel, const struct record_opts *o,
		      const struct collector_env *env, unsigned int parts)
{
	bool task_work = parts & PART_BIT(HC_PART_TASK_WORK);
	bool wakers = parts & PART_BIT(HC_PART_WAKERS);

	skel->rodata->cfg_filter = env->filter;
	skel->rodata->cfg_kthreads = o->kthreads;
	skel->rodata->cfg_min_block_ns = o->min_block_ns;
	skel->rodata->cfg_quantum_ns = o->block_quantum_ns ? o->block_quantum_ns : 1000000;
	skel->rodata->cfg_max_block_ns = o->max_block_ns;
	skel->rodata->cfg_states = o->offcpu_states;
	skel->rodata->cfg_stacks = (o->kernel_stacks ? 0x1 : 0) | (o->user_stacks ? 0x2 : 0);
	skel->rodata->cfg_unwind = parts & PART_BIT(HC_PART_CFI) ? HC_UNWIND_CFI : HC_UNWIND_FP;
	skel->rodata->cfg_refuse = parts_test_refuse();
	skel->rodata->cfg_offcpu = o->offcpu;
	skel->rodata->cfg_runq = o->runq;
	skel->rodata->cfg_runq_per = o->runq_per;
	skel->rodata->cfg_min_runq_ns = o->min_runq_ns;
	skel->rodata->cfg_wakers = wakers;
	skel->rodata->cfg_task_work = task_work;
	skel->rodata->cfg_sample_cost_ns = 1000000000ull / sample_rate();
	/*
	 * Wakeups matter only for wakers (new tasks: for the run queue's first
	 * wait); sys_exit only for off-CPU user stacks where task work is missing.
	 */
	bpf_program__set_autoload(skel->progs.offcpu_waking, wakers);
	bpf_program__set_autoload(skel->progs.runq_wakeup_new, o->runq);
	bpf_program__set_autoload(skel->progs.offcpu_sys_exit, o->offcpu && !task_work);
	/* both flush counts batched in task storage */
	bpf_program__set_autoload(skel->progs.offcpu_exit, o->offcpu || o->runq);
	bpf_program__set_autoload(skel->progs.flush_tasks, o->offcpu || o->runq);
	bpf_program__set_autoload(skel->progs.mark_blocked, o->offcpu);
	bpf_program__set_autoload(skel->progs.still_blocked, o->offcpu);
	/* run once each, by offcpu_start and offcpu_stop, not attached with the others */
	bpf_program__set_autoattach(skel->progs.flush_tasks, false);
	bpf_program__set_autoattach(skel->progs.mark_blocked, false);
	bpf_program__set_autoattach(skel->progs.still_blocked, false);
}

/* parts_load_fn: the skeleton with @parts, a previous one destroyed first */
static int sched_try_load(void *ctx, unsigned int parts)
{
	struct offcpu *oc = ctx;
	int err;

	sched_bpf__destroy(oc->skel);
	oc->skel = sched_bpf__open();
	if (!oc->skel) {
		err = -errno;
		pr_warn("offcpu: cannot open BPF skeleton: %s\n", strerror(-err));
		return err;
	}
	oc->skel->rodata->cfg_prev_state = oc->prev_state;
	configure(oc->skel, oc->o, oc->env, parts);
	err = collector_share_maps(oc->env, oc->skel->obj, "offcpu");
	if (!err)
		err = sched_bpf__load(oc->skel);
	if (err) {
		sched_bpf__destroy(oc->skel);
		oc->skel = NULL;
	}
	return err;
}

static int offcpu_open(struct collector *c, const struct record_opts *o,
		       const struct collector_env *env)
{
	struct offcpu *oc;
	unsigned int parts = 0;
	int err;

	oc = calloc(1, sizeof(*oc));
	if (!oc)
		return -ENOMEM;
	oc->o = o;
	oc->env = env;
	oc->nr_cpus = env->nr_cpus;
	oc->min_block_ns = o->min_block_ns;
	oc->offcpu = o->offcpu;
	oc->runq = o->runq;
	oc->runq_per = o->runq_per;
	/*
	 * Queuing task work costs a few microseconds per long block (an
	 * irq_work self-interrupt: a VM exit here); the sys_exit program costs
	 * ~0.1 us per syscall of every task. With the default threshold long
	 * blocks are rare and task work wins by far; when nearly every block
	 * takes a stack (--min-block under 10 us), sys_exit is cheaper. A
	 * kernel whose verifier refuses the kfunc's use gets sys_exit too.
	 */
	if (o->offcpu && o->min_block_ns >= 10000 && have_task_work())
		parts |= PART_BIT(HC_PART_TASK_WORK);
	oc->prev_state = have_prev_state(kernel_btf());
	if (o->wakers)
		parts |= PART_BIT(HC_PART_WAKERS);
	if (env->unwind_cfi)
		parts |= PART_BIT(HC_PART_CFI);
	if (env->unwind_cfi && o->offcpu)
		kfunc_check("offcpu", "bpf_task_from_pid", "6.2+",
			    "CFI walks of blocks still going at the stop (their pc kept)");
	err = parts_load("offcpu", "BTF, tp_btf and task storage (README, Kernels)",
			 sched_try_load, oc, &parts, &oc->refused);
	if (err)
		goto err_free;
	oc->task_work = parts & PART_BIT(HC_PART_TASK_WORK);
	oc->wakers = parts & PART_BIT(HC_PART_WAKERS);
	c->parts_refused = oc->refused;
	c->walks_cfi = parts & PART_BIT(HC_PART_CFI);
	if (o->offcpu)
		pr_debug("offcpu: user stacks of long blocks taken %s\n",
			 oc->task_work ? "by task work on the way back to user space" :
			 o->min_block_ns < 10000 ? "at sys_exit (--min-block under 10 us)" :
						   "at sys_exit (no BPF task work in this kernel)");
	err = map_drain__init(&oc->short_drain, bpf_map__fd(oc->skel->maps.offcpu_short),
			      sizeof(struct hc_offcpu_thread), sizeof(struct hc_offcpu_short));
	if (err)
		goto err_destroy;
	c->priv = oc;
	return 0;

err_destroy:
	sched_bpf__destroy(oc->skel);
err_free:
	free(oc);
	return err;
}

/*
 * Run a task iterator program once over every task. It reads the clock of
 * the run queue it runs on, which the scheduler updates as a task wakes on
 * it: a short sleep first makes that within microseconds of now.
 */
static int run_task_iter(struct bpf_program *prog)
{
	struct bpf_link *link;
	char buf[64];
	int fd, err = 0;
	ssize_t n;

	usleep(100);
	link = bpf_program__attach_iter(prog, NULL);
	if (!link)
		return -errno;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	/* the program prints nothing: reading to the end runs it over every task */
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0)
		err = -errno;
	close(fd);
out:
	bpf_link__destroy(link);
	return err;
}

static int offcpu_start(struct collector *c)
{
	struct offcpu *oc = c->priv;
	int err = sched_bpf__attach(oc->skel);

	if (err) {
		pr_warn("offcpu: cannot attach to the scheduler tracepoints: %s\n", strerror(-err));
		return err;
	}
	/* tasks blocked since before now: timed from now, marked "blocked at start" */
	if (oc->offcpu) {
		err = run_task_iter(oc->skel->progs.mark_blocked);
		if (err)
			pr_warn("offcpu: tasks already blocked are not counted: cannot run the "
				"iterator: %s\n", strerror(-err));
	}
	return 0;
}

static int offcpu_stop(struct collector *c)
{
	struct offcpu *oc = c->priv;
	int err;

	sched_bpf__detach(oc->skel);
	/*
	 * Short blocks and run-queue waits still batched in task storage go to
	 * the shared maps for the final drain, and blocks still going are
	 * emitted, to now. After detach, so nothing races it; an exited thread
	 * flushed its own.
	 */
	err = run_task_iter(oc->skel->progs.flush_tasks);
	if (err)
		pr_warn("offcpu: live threads' last (< 64) short blocks and run-queue waits not "
			"counted: cannot run the flush iterator: %s\n", strerror(-err));
	oc->skel->bss->ctl_cut = false;
	err = oc->offcpu ? run_task_iter(oc->skel->progs.still_blocked) : 0;
	if (err)
		pr_warn("offcpu: blocks still going not counted: cannot run the iterator: %s\n",
			strerror(-err));
	return 0;
}

/*
 * The agent's interval ended at @at_ns: blocks still going are split there
 * (still_blocked), not when the iterator reaches them, which under load came
 * 16 ms after the end's stamp (session 14): the interval held 1,019 ms of a
 * sleep in its 1,003.
 */
static int offcpu_cut(struct collector *c, uint64_t at_ns)
{
	struct offcpu *oc = c->priv;
	int err;

	uint64_t t0 = clock_mono_ns();

	if (!oc->offcpu)
		return 0;
	oc->skel->bss->ctl_cut = true;
	oc->skel->bss->ctl_cut_ns = at_ns;
	err = run_task_iter(oc->skel->progs.still_blocked);
	pr_debug("offcpu: blocks going on cut at the interval end, %.1f ms after it, in %.1f ms\n",
		 t0 > at_ns ? (t0 - at_ns) / 1e6 : 0.0, (clock_mono_ns() - t0) / 1e6);
	if (err)
		pr_warn("offcpu: blocks going on across the interval end stay in the next one: "
			"cannot run the iterator: %s\n", strerror(-err));
	return err;
}

static int emit_short(const struct hc_offcpu_thread *k, const struct hc_offcpu_short *v,
		      sample_fn fn, void *arg)
{
	char comm[HC_COMM_LEN + 1], pcomm[HC_COMM_LEN + 1];
	struct sample_view sv;

	memcpy(comm, v->comm, HC_COMM_LEN);
	comm[HC_COMM_LEN] = '\0';
	memcpy(pcomm, v->pcomm, HC_COMM_LEN);
	pcomm[HC_COMM_LEN] = '\0';
	memset(&sv, 0, sizeof(sv));
	sv.kind = SAMPLE_OFFCPU;
	sv.tgid = k->tgid;
	sv.pid = k->pid;
	sv.short_blocks = true;
	sv.syscall = -1;
	sv.weight = v->ns;
	sv.addr = v->wait_ns;	/* their CPU wait, as for a block with a stack */
	sv.count = v->count;
	sv.comm = comm;
	sv.pcomm = pcomm;
	return fn(&sv, arg);
}

static int drain_short(const void *key, const void *val, void *arg)
{
	struct sample_fn_arg *sa = arg;

	return emit_short(key, val, sa->fn, sa->arg);
}

/*
 * Move the threads' short-block sums out, within the turn's budget
 * (collect/drain.h); the rest on the next turn.
 */
static int offcpu_drain(struct collector *c, sample_fn fn, void *arg)
{
	struct offcpu *oc = c->priv;
	struct sample_fn_arg sa = { fn, arg };
	int ret = map_drain__run(&oc->short_drain, c->budget, drain_short, &sa);

	oc->short_drained = oc->short_drain.moved;
	c->drain_more = ret == 1;
	return ret < 0 ? ret : 0;
}

/*
 * Context switches the kernel did not run offcpu_switch for: a tracing
 * program does not nest on a CPU (the kernel counts the skips); a missed
 * switch-in loses that block's time.
 */
static uint64_t switches_missed(const struct offcpu *oc)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(oc->skel->progs.offcpu_switch), &info, &len))
		return 0;
	return info.recursion_misses;
}

/* The scheduler collector's own counters: clock steps and --wakers misses by cause. */
static void sched_stats_add(const struct offcpu *oc, struct collector_stats *st)
{
	uint64_t v[HC_SCHED_STAT_NR];

	if (percpu_stats_read(bpf_map__fd(oc->skel->maps.sched_stats), oc->nr_cpus, v,
			      HC_SCHED_STAT_NR))
		return;
	st->s[st->nr++] = (struct collector_stat){ "blocks timed 0 (ended by an earlier clock "
						   "of another CPU)", v[HC_SCHED_CLOCK_BACK], true };
	st->s[st->nr++] = (struct collector_stat){ "switches not seen (the program was busy "
						   "on that CPU)", switches_missed(oc), true };
	st->s[st->nr++] = (struct collector_stat){ "blocks whose switch-in was not traced "
						   "(timed, no stack)", v[HC_SCHED_UNSEEN], true };
	st->s[st->nr++] = (struct collector_stat){ "blocks whose switch-in was not traced, "
						   "untimed", v[HC_SCHED_UNSEEN_UNTIMED], true };
	st->s[st->nr++] = (struct collector_stat){ "short-block samples put off (CPU budget "
						   "spent)", v[HC_SCHED_SAMPLE_DEFERRED], true };
	if (!oc->wakers)
		return;
	st->s[st->nr++] = (struct collector_stat){ "long blocks without waker stacks: no wakeup "
						   "seen", v[HC_SCHED_WK_NONE], true };
	st->s[st->nr++] = (struct collector_stat){ "woken under --min-block by the waker's "
						   "clock", v[HC_SCHED_WK_SHORT], true };
	st->s[st->nr++] = (struct collector_stat){ "waker record lost", v[HC_SCHED_WK_LOST],
						   true };
	st->s[st->nr++] = (struct collector_stat){ "sampled (the previous one still pending)",
						   v[HC_SCHED_WK_SAMPLED], true };
}

static void offcpu_stats(const struct collector *c, struct collector_stats *st)
{
	const struct offcpu *oc = c->priv;
	uint64_t v[HC_STAT_NR];

	st->nr = 0;
	if (percpu_stats_read(bpf_map__fd(oc->skel->maps.offcpu_stats), oc->nr_cpus, v,
			      HC_STAT_NR))
		return;
	st->s[st->nr++] = (struct collector_stat){ "blocks with stacks", v[HC_STAT_SAMPLES], false };
	st->s[st->nr++] = (struct collector_stat){ "lost (ring full)", v[HC_STAT_RB_FULL], true };
	st->s[st->nr++] = (struct collector_stat){ "untimed (no task storage)",
						   v[HC_STAT_TASK_STORAGE_ERR], true };
	st->s[st->nr++] = (struct collector_stat){ "short-block time lost (map full)",
						   v[HC_STAT_SHORT_FULL], true };
	st->s[st->nr++] = (struct collector_stat){ "kernel stack errors", v[HC_STAT_KSTACK_ERR],
						   true };
	st->s[st->nr++] = (struct collector_stat){ "user stack errors", v[HC_STAT_USTACK_ERR],
						   true };
	st->s[st->nr++] = (struct collector_stat){ "user stacks left to the next switch-out "
						   "(no task work)", v[HC_STAT_DEFER_FAIL], true };
	st->s[st->nr++] = (struct collector_stat){ "user stacks dropped (registers moved "
						   "before the walk)", v[HC_STAT_USTACK_MOVED], true };
	st->s[st->nr++] = (struct collector_stat){ "run-queue waits lost (histogram map full)",
						   v[HC_STAT_RUNQ_FULL], true };
	parts_stats_add(st, oc->refused);
	sched_stats_add(oc, st);
	if (oc->skel->rodata->cfg_unwind)
		walk_stats_add(st, v);
}

static void offcpu_describe(const struct collector *c, char *buf, size_t len)
{
	const struct offcpu *oc = c->priv;

	if (oc->offcpu && oc->runq)
		snprintf(buf, len, "off-CPU (stacks for blocks >= %llu us) + run-queue latency",
			 (unsigned long long)(oc->min_block_ns / 1000));
	else if (oc->offcpu)
		snprintf(buf, len, "off-CPU (stacks for blocks >= %llu us)",
			 (unsigned long long)(oc->min_block_ns / 1000));
	else
		snprintf(buf, len, "run-queue latency");
}

struct runq_entry {
	struct hc_offcpu_thread key;
	struct hc_runq_hist h;
};

/* The value below which @pct percent of the waits fall: upper edge of its log2 slot. */
static uint64_t runq_percentile(const struct hc_runq_hist *h, double pct)
{
	uint64_t want = (uint64_t)(h->count * pct / 100.0 + 0.5), seen = 0;

	for (int i = 0; i < HC_RUNQ_SLOTS; i++) {
		seen += h->slots[i];
		if (seen >= want && seen)
			return i >= 63 ? UINT64_MAX : (2ull << i) - 1;
	}
	return h->max_ns;
}

static int cmp_total(const void *a, const void *b)
{
	const struct runq_entry *x = a, *y = b;

	if (x->h.total_ns != y->h.total_ns)
		return x->h.total_ns < y->h.total_ns ? 1 : -1;
	if (x->key.tgid != y->key.tgid)
		return x->key.tgid < y->key.tgid ? -1 : 1;
	return x->key.pid < y->key.pid ? -1 : x->key.pid > y->key.pid;
}

static void print_hist(FILE *out, const struct runq_entry *e, unsigned int per)
{
	const struct hc_runq_hist *h = &e->h;
	uint64_t peak = 0;
	int lo = HC_RUNQ_SLOTS, hi = -1;
	char comm[HC_COMM_LEN + 1];

	memcpy(comm, h->comm, HC_COMM_LEN);
	comm[HC_COMM_LEN] = '\0';
	if (per == 2)
		fprintf(out, "tid %u (pid %u, %s)", e->key.pid, e->key.tgid, comm);
	else if (per == 1)
		fprintf(out, "pid %u (%s)", e->key.tgid, comm);
	else
		fprintf(out, "all tasks");
	fprintf(out, ": %llu waits, total %.3f ms, avg %.1f us, p50 < %.1f us, p99 < %.1f us, "
		     "max %.1f us\n",
		(unsigned long long)h->count, h->total_ns / 1e6,
		h->count ? h->total_ns / 1e3 / h->count : 0.0, runq_percentile(h, 50) / 1e3,
		runq_percentile(h, 99) / 1e3, h->max_ns / 1e3);
	for (int i = 0; i < HC_RUNQ_SLOTS; i++) {
		if (!h->slots[i])
			continue;
		lo = i < lo ? i : lo;
		hi = i;
		peak = h->slots[i] > peak ? h->slots[i] : peak;
	}
	fprintf(out, "  %24s : %-10s distribution\n", "nsecs", "count");
	for (int i = lo; i <= hi; i++) {
		int bar = peak ? (int)(h->slots[i] * 40 / peak) : 0;

		fprintf(out, "  %11llu -> %-10llu : %-10llu |%-40.*s|\n",
			i ? 1ull << i : 0ull, (2ull << i) - 1, (unsigned long long)h->slots[i],
			bar, "****************************************");
	}
	fputc('\n', out);
}

/* `hotcold runqlat`: histograms, largest total wait first. */
static int runq_report(struct collector *c, FILE *out)
{
	struct offcpu *oc = c->priv;
	int fd = bpf_map__fd(oc->skel->maps.runq_hist);
	struct runq_entry *v = NULL, *n;
	struct hc_offcpu_thread key, *prev = NULL;
	size_t nr = 0, cap = 0;

	if (!oc->runq)
		return 0;
	while (!bpf_map_get_next_key(fd, prev, &key)) {
		if (nr == cap) {
			cap = cap ? cap * 2 : 64;
			n = realloc(v, cap * sizeof(*v));
			if (!n) {
				free(v);
				return -ENOMEM;
			}
			v = n;
		}
		v[nr].key = key;
		if (!bpf_map_lookup_elem(fd, &key, &v[nr].h))
			nr++;
		prev = &v[nr ? nr - 1 : 0].key;
	}
	qsort(v, nr, sizeof(*v), cmp_total);
	for (size_t i = 0; i < nr; i++)
		print_hist(out, &v[i], oc->runq_per);
	free(v);
	return ferror(out) ? -EIO : 0;
}

static void offcpu_close(struct collector *c)
{
	struct offcpu *oc = c->priv;

	if (!oc)
		return;
	sched_bpf__destroy(oc->skel);
	map_drain__release(&oc->short_drain);
	free(oc);
	c->priv = NULL;
}

int sched_runq_totals(const struct collector *c, uint64_t *waits, uint64_t *ns)
{
	const struct offcpu *oc = c->priv;
	struct hc_offcpu_thread key, next, *prev = NULL;
	struct hc_runq_hist h;
	int fd;

	if (c->ops != &sched_ops || !oc->runq)
		return -EINVAL;
	fd = bpf_map__fd(oc->skel->maps.runq_hist);
	*waits = *ns = 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		if (!bpf_map_lookup_elem(fd, &next, &h)) {
			*waits += h.count;
			*ns += h.total_ns;
		}
		key = next;
		prev = &key;
	}
	return 0;
}

const struct collector_ops sched_ops = {
	.name = "sched",
	.report = runq_report,
	.open = offcpu_open,
	.start = offcpu_start,
	.stop = offcpu_stop,
	.cut = offcpu_cut,
	.drain = offcpu_drain,
	.stats = offcpu_stats,
	.describe = offcpu_describe,
	.close = offcpu_close,
};
