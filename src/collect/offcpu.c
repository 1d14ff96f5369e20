// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Off-CPU collector: owns bpf/offcpu.bpf.c and drains its per-thread short-block sums. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "abi/offcpu.h"
#include "abi/unwind.h"
#include "collect/collector.h"
#include "collect/proc.h"
#include "offcpu.skel.h"
#include "util/log.h"

_Static_assert(sizeof(struct hc_offcpu_short) == 48, "hc_offcpu_short ABI changed");

struct offcpu {
	struct offcpu_bpf *skel;
	int nr_cpus;
	uint64_t min_block_ns;
	uint64_t short_drained;	/* short-block entries moved out */
};

static int reuse_shared_maps(struct offcpu_bpf *skel, const struct collector_env *env)
{
	int err;

	err = bpf_map__reuse_fd(skel->maps.proc_targets, env->targets_fd);
	if (!err)
		err = bpf_map__reuse_fd(skel->maps.proc_seen, env->seen_fd);
	if (!err)
		err = bpf_map__reuse_fd(skel->maps.proc_events, env->events_fd);
	if (!err && env->unwind_cfi)
		err = bpf_map__reuse_fd(skel->maps.unwind_procs, env->unwind_procs_fd);
	if (!err && env->unwind_cfi)
		err = bpf_map__reuse_fd(skel->maps.unwind_objs, env->unwind_objs_fd);
	return err;
}

static void configure(struct offcpu_bpf *skel, const struct record_opts *o,
		      const struct collector_env *env)
{
	skel->rodata->cfg_filter = env->filter;
	skel->rodata->cfg_kthreads = o->kthreads;
	skel->rodata->cfg_min_block_ns = o->min_block_ns;
	skel->rodata->cfg_max_block_ns = o->max_block_ns;
	skel->rodata->cfg_states = o->offcpu_states;
	skel->rodata->cfg_stacks = (o->kernel_stacks ? 0x1 : 0) | (o->user_stacks ? 0x2 : 0);
	skel->rodata->cfg_unwind = env->unwind_cfi ? HC_UNWIND_CFI : HC_UNWIND_FP;
}

static int offcpu_open(struct collector *c, const struct record_opts *o,
		       const struct collector_env *env)
{
	struct offcpu *oc;
	int err;

	oc = calloc(1, sizeof(*oc));
	if (!oc)
		return -ENOMEM;
	oc->nr_cpus = env->nr_cpus;
	oc->min_block_ns = o->min_block_ns;
	oc->skel = offcpu_bpf__open();
	if (!oc->skel) {
		err = -errno;
		pr_warn("offcpu: cannot open BPF skeleton: %s\n", strerror(-err));
		goto err_free;
	}
	configure(oc->skel, o, env);
	err = reuse_shared_maps(oc->skel, env);
	if (err) {
		pr_warn("offcpu: cannot share the proc maps: %s\n", strerror(-err));
		goto err_destroy;
	}
	err = offcpu_bpf__load(oc->skel);
	if (err) {
		pr_warn("offcpu: cannot load BPF programs (needs BTF, tp_btf and task storage): %s\n",
			strerror(-err));
		goto err_destroy;
	}
	c->priv = oc;
	return 0;

err_destroy:
	offcpu_bpf__destroy(oc->skel);
err_free:
	free(oc);
	return err;
}

static int offcpu_start(struct collector *c)
{
	struct offcpu *oc = c->priv;
	int err = offcpu_bpf__attach(oc->skel);

	if (err)
		pr_warn("offcpu: cannot attach to sched_switch/sys_exit: %s\n", strerror(-err));
	return err;
}

static int offcpu_stop(struct collector *c)
{
	struct offcpu *oc = c->priv;

	offcpu_bpf__detach(oc->skel);
	return 0;
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
	sv.count = v->count;
	sv.comm = comm;
	sv.pcomm = pcomm;
	return fn(&sv, arg);
}

/*
 * Move every thread's short-block sum out. lookup_and_delete is atomic per
 * entry: time a program adds after it lands in a fresh entry, next drain.
 */
static int offcpu_drain(struct collector *c, sample_fn fn, void *arg)
{
	struct offcpu *oc = c->priv;
	int fd = bpf_map__fd(oc->skel->maps.offcpu_short), err;
	struct hc_offcpu_thread key, next;
	struct hc_offcpu_short val;
	void *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_and_delete_elem(fd, &key, &val))
			continue;	/* deleted since get_next_key: nothing lost */
		/* restart from the beginning: deleting @key invalidates the cursor */
		prev = NULL;
		oc->short_drained++;
		err = emit_short(&key, &val, fn, arg);
		if (err)
			return err;
	}
	return 0;
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
	st->s[st->nr++] = (struct collector_stat){ "CFI walks ended early",
						   v[HC_STAT_UNWIND_NO_MAPPING] + v[HC_STAT_UNWIND_UNSUP] +
						   v[HC_STAT_UNWIND_READ_ERR] + v[HC_STAT_UNWIND_BAD_SP],
						   true };
}

static void offcpu_describe(const struct collector *c, char *buf, size_t len)
{
	const struct offcpu *oc = c->priv;

	snprintf(buf, len, "off-CPU (stacks for blocks >= %llu us)",
		 (unsigned long long)(oc->min_block_ns / 1000));
}

static void offcpu_close(struct collector *c)
{
	struct offcpu *oc = c->priv;

	if (!oc)
		return;
	offcpu_bpf__destroy(oc->skel);
	free(oc);
	c->priv = NULL;
}

const struct collector_ops offcpu_ops = {
	.name = "offcpu",
	.open = offcpu_open,
	.start = offcpu_start,
	.stop = offcpu_stop,
	.drain = offcpu_drain,
	.stats = offcpu_stats,
	.describe = offcpu_describe,
	.close = offcpu_close,
};
