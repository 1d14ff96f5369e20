// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Owns proc.bpf.c: target filter, child following, the shared event ring and its decoding. */
#include "collect/proc.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "abi/common.h"
#include "collect/branches.h"
#include "collect/kfuncs.h"
#include "proc.skel.h"
#include "collect/opts.h"
#include "collect/hotspot_walk.h"
#include "collect/v8_walk.h"
#include "collect/python.h"
#include "collect/target_rules.h"
#include "sym/procmaps.h"
#include "util/clock.h"
#include "util/log.h"

_Static_assert(sizeof(struct hc_stack_rec) == 96 + 2 * HC_MAX_STACK_DEPTH * 8,
	       "hc_stack_rec ABI changed");
_Static_assert(sizeof(struct hc_vma) == 40, "hc_vma ABI changed");
_Static_assert(sizeof(struct hc_maps_rec) == 24 + HC_MAX_EXIT_VMAS * 40, "hc_maps_rec ABI changed");
_Static_assert(sizeof(struct hc_proc_rec) == 32, "hc_proc_rec ABI changed");

/* Bytes of a stack record up to its last used ip. */
#define STACK_REC_SIZE(nr_ips) (offsetof(struct hc_stack_rec, ips) + (size_t)(nr_ips) * 8)

struct proc_tracker {
	struct proc_bpf *skel;
	struct ring_buffer *rb;
	const struct proc_handlers *h;	/* valid during poll/consume */
	size_t taken;			/* records this call: the turn's budget */
	uint64_t deadline_ns;		/* CLOCK_MONOTONIC end of this call's budget, or 0 */
	bool cut;			/* the budget ended the call */
	struct procmap vmas[HC_MAX_EXIT_VMAS];	/* the HC_REC_MAPS being decoded */
	int nr_cpus;
	uint64_t bad_records;		/* malformed ring records (never expected) */
	struct target_rules rules;	/* --cgroup/--comm: scanned at start */
};

int percpu_stats_read(int map_fd, int nr_cpus, uint64_t *out, size_t nr)
{
	uint64_t *vals;
	__u32 zero = 0;
	int err = 0;

	vals = calloc((size_t)nr_cpus * nr, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	/* per-CPU values come back as nr_cpus consecutive copies of the value */
	if (bpf_map_lookup_elem(map_fd, &zero, vals)) {
		err = -errno;
		goto out;
	}
	memset(out, 0, nr * sizeof(*out));
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		for (size_t i = 0; i < nr; i++)
			out[i] += vals[(size_t)cpu * nr + i];
out:
	free(vals);
	return err;
}

int collector_reuse_maps(const struct collector_env *env, struct bpf_map *targets,
			 struct bpf_map *seen, struct bpf_map *events, struct bpf_map *unwind_procs,
			 struct bpf_map *unwind_objs)
{
	int err;

	err = bpf_map__reuse_fd(targets, env->targets_fd);
	if (!err)
		err = bpf_map__reuse_fd(seen, env->seen_fd);
	if (!err)
		err = bpf_map__reuse_fd(events, env->events_fd);
	if (!err && env->unwind_cfi)
		err = bpf_map__reuse_fd(unwind_procs, env->unwind_procs_fd);
	if (!err && env->unwind_cfi)
		err = bpf_map__reuse_fd(unwind_objs, env->unwind_objs_fd);
	return err;
}

int collector_share_maps(const struct collector_env *env, struct bpf_object *obj,
			 const char *who)
{
#define M(name) bpf_object__find_map_by_name(obj, name)
	int err = collector_reuse_maps(env, M("proc_targets"), M("proc_seen"), M("proc_events"),
				       M("unwind_procs"), M("unwind_objs"));

	if (!err)
		err = python_reuse_maps(env, M("python_procs"), M("python_stats"),
					M("python_nprocs"));
	if (!err)
		err = hotspot_walk_reuse_maps(env, M("hotspot_procs"), M("hotspot_nprocs"));
	if (!err)
		err = v8_walk_reuse_maps(env, M("v8_procs"), M("v8_nprocs"));
#undef M
	if (err)
		pr_warn("%s: cannot share the proc maps: %s\n", who, strerror(-err));
	return err;
}

/* The kernel's dev_t (MAJOR: bits 20+, MINOR: 0-19), as /proc/PID/maps prints it. */
static void decode_vma(const struct hc_vma *h, struct procmap *m)
{
	memset(m, 0, sizeof(*m));
	m->start = h->start;
	m->end = h->end;
	m->pgoff = h->pgoff;
	m->inode = h->ino;
	m->dev_major = h->dev >> 20;
	m->dev_minor = h->dev & 0xfffff;
	m->perms = PROCMAP_R | PROCMAP_X;
	m->kind = h->kind == HC_VMA_FILE ? PROCMAP_FILE :
		  h->kind == HC_VMA_VDSO ? PROCMAP_VDSO : PROCMAP_ANON;
	m->path = "";
}

static int decode_stack(struct proc_tracker *pt, const struct hc_stack_rec *r, size_t size)
{
	struct sample_view v;

	/* records are copied out at their used size: check before reading ips */
	if (size < STACK_REC_SIZE(0) || r->nr_kstack > HC_MAX_STACK_DEPTH ||
	    r->nr_ustack > HC_MAX_STACK_DEPTH ||
	    size < STACK_REC_SIZE(r->nr_kstack + r->nr_ustack)) {
		pt->bad_records++;
		return 0;
	}
	memset(&v, 0, sizeof(v));
	v.kind = r->kind == HC_KIND_ONCPU ? SAMPLE_ONCPU :
		 r->kind == HC_KIND_OFFCPU ? SAMPLE_OFFCPU :
		 r->kind == HC_KIND_RUNQ ? SAMPLE_RUNQ :
		 r->kind == HC_KIND_WAKER ? SAMPLE_WAKER :
		 r->kind == HC_KIND_LOCK ? SAMPLE_LOCK : 0;
	v.addr = r->addr;
	v.state = r->state;
	v.syscall = r->syscall;
	v.count = r->count;
	v.tgid = r->tgid;
	v.pid = r->pid;
	v.cpu = r->cpu;
	v.new_tgid = r->flags & HC_SF_NEW_TGID;
	v.kthread = r->flags & HC_SF_KTHREAD;
	v.ustack_truncated = r->flags & HC_SF_USTACK_TRUNC;
	v.unwind_cfi = r->flags & HC_SF_UNWIND_CFI;
	v.unwind_partial = r->flags & HC_SF_UNWIND_PARTIAL;
	v.unwind_unmapped = r->flags & HC_SF_UNWIND_UNMAPPED;
	v.unwind_pending = r->flags & HC_SF_UNWIND_PENDING;
	v.weight = r->weight;
	v.time_ns = r->time_ns;
	v.comm = r->comm;
	v.pcomm = r->pcomm;
	v.kips = (const uint64_t *)r->ips;	/* __u64 and uint64_t: same width */
	v.nr_kips = r->nr_kstack;
	v.uips = (const uint64_t *)&r->ips[r->nr_kstack];
	v.nr_uips = r->nr_ustack;
	if (!v.kind) {
		pt->bad_records++;
		return 0;
	}
	return pt->h->sample ? pt->h->sample(&v, pt->h->arg) : 0;
}

static int decode_maps(struct proc_tracker *pt, const struct hc_maps_rec *r, size_t size)
{
	if (size < offsetof(struct hc_maps_rec, vmas) || r->nr > HC_MAX_EXIT_VMAS ||
	    size < offsetof(struct hc_maps_rec, vmas) + r->nr * sizeof(r->vmas[0])) {
		pt->bad_records++;
		return 0;
	}
	for (size_t i = 0; i < r->nr; i++)
		decode_vma(&r->vmas[i], &pt->vmas[i]);
	return pt->h->maps ? pt->h->maps(r->tgid, pt->vmas, r->nr, pt->h->arg) : 0;
}

static int decode_branches(struct proc_tracker *pt, const void *data, size_t size)
{
	struct branch_sample b;

	if (branch_rec_decode(data, size, &b)) {
		pt->bad_records++;
		return 0;
	}
	return pt->h->branches ? pt->h->branches(&b, pt->h->arg) : 0;
}

static int dispatch(struct proc_tracker *pt, void *data, size_t size)
{
	const struct hc_rec_hdr *hdr = data;
	const struct hc_proc_rec *p = data;
	char comm[HC_COMM_LEN + 1];

	if (size < sizeof(*hdr)) {
		pt->bad_records++;
		return 0;
	}
	switch (hdr->type) {
	case HC_REC_STACK:
		return decode_stack(pt, data, size);
	case HC_REC_MAPS:
		return decode_maps(pt, data, size);
	case HC_REC_BRANCH:
		return decode_branches(pt, data, size);
	case HC_REC_EXEC:
	case HC_REC_EXIT:
	case HC_REC_SEEN:
		if (size < sizeof(*p)) {
			pt->bad_records++;
			return 0;
		}
		if (hdr->type == HC_REC_EXIT)
			return pt->h->exit ? pt->h->exit(p->tgid, pt->h->arg) : 0;
		memcpy(comm, p->comm, HC_COMM_LEN);
		comm[HC_COMM_LEN] = '\0';
		if (hdr->type == HC_REC_SEEN)
			return pt->h->seen ? pt->h->seen(p->tgid, comm, pt->h->arg) : 0;
		return pt->h->exec ? pt->h->exec(p->tgid, comm, pt->h->arg) : 0;
	default:
		pt->bad_records++;
		return 0;
	}
}

/* Private to proc.c: stops libbpf's consume loop (the record itself was taken). */
#define PROC_BUDGET_CUT (-ECANCELED)

static int on_record(void *ctx, void *data, size_t size)
{
	struct proc_tracker *pt = ctx;
	const struct proc_handlers *h = pt->h;
	int err = dispatch(pt, data, size);

	if (err)
		return err;
	pt->taken++;
	if ((h->max_records && pt->taken >= h->max_records) ||
	    (pt->deadline_ns && clock_mono_ns() >= pt->deadline_ns)) {
		pt->cut = true;
		return PROC_BUDGET_CUT;
	}
	return 0;
}

static int add_targets(struct proc_tracker *pt, const uint32_t *ids, size_t nr, __u32 bits)
{
	int fd = bpf_map__fd(pt->skel->maps.proc_targets);

	for (size_t i = 0; i < nr; i++) {
		__u32 key = ids[i], val = bits, cur;

		/* -p 5 -t 5 may name the same number twice: merge bits */
		if (!bpf_map_lookup_elem(fd, &key, &cur))
			val |= cur;
		if (bpf_map_update_elem(fd, &key, &val, BPF_ANY))
			return -errno;
	}
	return 0;
}

/* tp_btf needs kernel BTF; without it the raw_tp twins take over. */
static void choose_attach_flavour(struct proc_bpf *skel)
{
	bool btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;

	bpf_program__set_autoload(skel->progs.proc_fork, btf);
	bpf_program__set_autoload(skel->progs.proc_exec, btf);
	bpf_program__set_autoload(skel->progs.proc_exit, btf);
	bpf_program__set_autoload(skel->progs.proc_fork_raw, !btf);
	bpf_program__set_autoload(skel->progs.proc_exec_raw, !btf);
	bpf_program__set_autoload(skel->progs.proc_exit_raw, !btf);
}

/*
 * Default ring: 256 KiB per CPU, at least 1 MiB, a power of two. A 99 Hz
 * sample is ~0.3-1 KiB and the ring is drained every 100 ms, so this holds
 * seconds of samples; a bigger ring is only pages the loader keeps resident.
 */
static size_t ring_size(int nr_cpus)
{
	size_t want = (size_t)nr_cpus << 18, sz = 1u << 20;

	while (sz < want && sz < (1u << 30))
		sz <<= 1;
	return sz;
}

static int configure(struct proc_tracker *pt, const struct record_opts *o, uint32_t child_pid,
		     const struct collector_env *env)
{
	struct proc_bpf *skel = pt->skel;
	const struct target_rules *r = &o->rules;
	bool filter = o->nr_pids || o->nr_tids || child_pid || target_rules_any(r);
	int err;

	skel->rodata->cfg_filter = filter;
	skel->rodata->cfg_follow_children = child_pid != 0;
	skel->rodata->cfg_nr_cgroups = r->nr_cgroups;
	skel->rodata->cfg_nr_comms = r->nr_comms;
	for (uint32_t i = 0; i < HC_MAX_TARGET_RULES; i++) {
		skel->rodata->cfg_cgroup_ids[i] = r->cgroup_id[i];
		skel->rodata->cfg_cgroup_levels[i] = r->cgroup_level[i];
		memcpy((char *)skel->rodata->cfg_comms[i], r->comm[i], HC_COMM_LEN);
		skel->rodata->cfg_comm_len[i] = r->comm_len[i];
	}
	pt->rules = *r;
	skel->rodata->cfg_exec_wakeup = o->snapshot_at_exec;
	/* HOTCOLD_NO_EXIT_MAPS=1: the negative control of t_exit_maps */
	skel->rodata->cfg_exit_maps = !getenv("HOTCOLD_NO_EXIT_MAPS") &&
		kfunc_check("proc", "bpf_iter_task_vma_new", "6.7+",
			    "exit maps (symbols of processes that exit before their samples are read)");
	choose_attach_flavour(skel);
	/*
	 * At exec the old image's CFI mappings go (proc.bpf.c): the tables'
	 * map, opened before this (session.c); without CFI, a copy of one
	 * entry that nothing fills.
	 */
	skel->rodata->cfg_unwind_procs = env->unwind_cfi;
	err = env->unwind_cfi ? bpf_map__reuse_fd(skel->maps.unwind_procs, env->unwind_procs_fd) :
				bpf_map__set_max_entries(skel->maps.unwind_procs, 1);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.proc_targets, o->max_targets);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.proc_events,
					       o->ring_bytes ? o->ring_bytes : ring_size(pt->nr_cpus));
	return err;
}

int proc_tracker__open(struct proc_tracker **out, const struct record_opts *o,
		       uint32_t child_pid, struct collector_env *env)
{
	struct proc_tracker *pt;
	int err;

	pt = calloc(1, sizeof(*pt));
	if (!pt)
		return -ENOMEM;
	pt->nr_cpus = libbpf_num_possible_cpus();
	if (pt->nr_cpus <= 0) {
		err = pt->nr_cpus ? pt->nr_cpus : -ENODEV;
		goto err_free;
	}
	pt->skel = proc_bpf__open();
	if (!pt->skel) {
		err = -errno;
		pr_warn("proc: cannot open BPF skeleton: %s\n", strerror(-err));
		goto err_free;
	}
	err = configure(pt, o, child_pid, env);
	if (err)
		goto err_destroy;
	err = proc_bpf__load(pt->skel);
	if (err) {
		pr_warn("proc: cannot load BPF programs: %s\n", strerror(-err));
		goto err_destroy;
	}
	err = add_targets(pt, o->pids, o->nr_pids, HC_TARGET_TGID);
	if (!err)
		err = add_targets(pt, o->tids, o->nr_tids, HC_TARGET_TID);
	if (!err && child_pid)
		err = add_targets(pt, &child_pid, 1, HC_TARGET_TGID | HC_TARGET_EXEC);
	if (err) {
		pr_warn("proc: cannot fill the target filter: %s\n", strerror(-err));
		goto err_destroy;
	}
	pt->rb = ring_buffer__new(bpf_map__fd(pt->skel->maps.proc_events), on_record, pt, NULL);
	if (!pt->rb) {
		err = -errno;
		pr_warn("proc: cannot map the event ring: %s\n", strerror(-err));
		goto err_destroy;
	}
	env->targets_fd = bpf_map__fd(pt->skel->maps.proc_targets);
	env->seen_fd = bpf_map__fd(pt->skel->maps.proc_seen);
	env->events_fd = bpf_map__fd(pt->skel->maps.proc_events);
	env->filter = pt->skel->rodata->cfg_filter;
	env->nr_cpus = pt->nr_cpus;
	*out = pt;
	return 0;

err_destroy:
	proc_bpf__destroy(pt->skel);
err_free:
	free(pt);
	return err;
}

static int add_rule_target(uint32_t tgid, void *arg)
{
	struct proc_tracker *pt = arg;

	return add_targets(pt, &tgid, 1, HC_TARGET_TGID | HC_TARGET_RULE);
}

int proc_tracker__start(struct proc_tracker *pt)
{
	int err = proc_bpf__attach(pt->skel);

	if (err) {
		pr_warn("proc: cannot attach process tracepoints: %s\n", strerror(-err));
		return err;
	}
	/*
	 * Processes matching --cgroup/--comm now; after attach, so one that
	 * starts meanwhile is caught by the exec/fork programs if not here.
	 */
	if (target_rules_any(&pt->rules)) {
		err = target_rules_scan(&pt->rules, add_rule_target, pt);
		if (err)
			pr_warn("proc: cannot list the processes matching --cgroup/--comm: %s\n",
				strerror(-err));
	}
	return err;
}

/* The end of a poll or consume: 1 if the budget cut it, 0, or the handlers' -errno. */
static int call_end(struct proc_tracker *pt, int n)
{
	pt->h = NULL;
	if (pt->cut)
		return 1;
	return n < 0 ? n : 0;
}

int proc_tracker__consume(struct proc_tracker *pt, const struct proc_handlers *h)
{
	pt->h = h;
	pt->taken = 0;
	pt->cut = false;
	pt->deadline_ns = h->budget_ns ? clock_mono_ns() + h->budget_ns : 0;
	return call_end(pt, ring_buffer__consume(pt->rb));
}

int proc_tracker__wait(struct proc_tracker *pt, int timeout_ms)
{
	struct epoll_event ev;

	/*
	 * Samples are submitted without wakeup: wait on the ring's epoll fd
	 * only (ring_buffer__poll() would consume without the budget). A
	 * signal ends the wait (EINTR) and the ring is read anyway.
	 */
	if (timeout_ms && epoll_wait(ring_buffer__epoll_fd(pt->rb), &ev, 1, timeout_ms) < 0 &&
	    errno != EINTR)
		return -errno;
	return 0;
}

void proc_tracker__stats(const struct proc_tracker *pt, struct collector_stats *st)
{
	uint64_t v[HC_STAT_NR];

	st->nr = 0;
	if (percpu_stats_read(bpf_map__fd(pt->skel->maps.proc_stats), pt->nr_cpus, v, HC_STAT_NR))
		return;
	st->s[st->nr++] = (struct collector_stat){ "exec/exit events lost (ring full)",
						   v[HC_STAT_PROC_RB_FULL], true };
	st->s[st->nr++] = (struct collector_stat){ "children not followed (target map full)",
						   v[HC_STAT_TARGET_FULL], true };
	st->s[st->nr++] = (struct collector_stat){ "exit maps not read (ring full or lock busy)",
						   v[HC_STAT_MAPS_ERR], true };
	st->s[st->nr++] = (struct collector_stat){ "exit maps cut short (over 64 code mappings)",
						   v[HC_STAT_MAPS_PARTIAL], true };
	st->s[st->nr++] = (struct collector_stat){ "malformed ring records", pt->bad_records,
						   true };
	/* said once at the start (collect/kfuncs.c); counted so -v and /metrics show it too */
	st->s[st->nr++] = (struct collector_stat){ "parts left out: this kernel lacks their kfuncs",
						   kfunc_missing(), false };
}

void proc_tracker__close(struct proc_tracker *pt)
{
	if (!pt)
		return;
	ring_buffer__free(pt->rb);
	proc_bpf__destroy(pt->skel);
	free(pt);
}
