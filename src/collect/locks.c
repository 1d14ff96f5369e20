// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Lock-contention collector: owns bpf/locks.bpf.c. Its drain names locks
 * seen in the per-lock map while their processes still live; long waits
 * arrive through the ring as HC_KIND_LOCK records.
 */
#include "collect/locks.h"
#include "collect/parts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "abi/locks.h"
#include "abi/unwind.h"
#include "collect/kfuncs.h"
#include "collect/locknames.h"
#include "collect/proc.h"
#include "collect/python.h"
#include "locks.skel.h"
#include "util/budget.h"
#include "util/log.h"

_Static_assert(sizeof(struct hc_lock_key) == 16, "hc_lock_key ABI changed");
_Static_assert(sizeof(struct hc_lock_val) == 40, "hc_lock_val ABI changed");

struct locks {
	struct locks_bpf *skel;
	struct locknames *names;
	int nr_cpus;
	uint64_t min_wait_ns;
	struct hc_lock_key walk_key;	/* the last lock a budgeted drain named */
	bool walk_more;			/* its walk goes on after walk_key */
	unsigned int refused;		/* parts the kernel refused (collect/parts.h) */
	/* for a load: the options and the shared maps */
	const struct record_opts *o;
	const struct collector_env *env;
};

/* parts_load_fn: the skeleton with @parts, a previous one destroyed first */
static int locks_try_load(void *ctx, unsigned int parts)
{
	struct locks *lk = ctx;
	const struct record_opts *o = lk->o;
	const struct collector_env *env = lk->env;
	int err;

	locks_bpf__destroy(lk->skel);
	lk->skel = locks_bpf__open();
	if (!lk->skel) {
		err = -errno;
		pr_warn("locks: cannot open BPF skeleton: %s\n", strerror(-err));
		return err;
	}
	lk->skel->rodata->cfg_filter = env->filter;
	lk->skel->rodata->cfg_min_wait_ns = o->min_lock_wait_ns;
	lk->skel->rodata->cfg_stacks = (o->kernel_stacks ? 0x1 : 0) | (o->user_stacks ? 0x2 : 0);
	lk->skel->rodata->cfg_unwind = parts & PART_BIT(HC_PART_CFI) ? HC_UNWIND_CFI :
								       HC_UNWIND_FP;
	lk->skel->rodata->cfg_refuse = parts_test_refuse();
	lk->skel->rodata->cfg_holders = parts & PART_BIT(HC_PART_HOLDERS);
	bpf_program__set_autoload(lk->skel->progs.locks_sys_enter, o->locks_user);
	bpf_program__set_autoload(lk->skel->progs.locks_sys_exit, o->locks_user);
	bpf_program__set_autoload(lk->skel->progs.locks_contention_begin, o->locks_kernel);
	bpf_program__set_autoload(lk->skel->progs.locks_contention_end, o->locks_kernel);
	err = collector_share_maps(env, lk->skel->obj, "locks");
	if (!err)
		err = locks_bpf__load(lk->skel);
	if (err) {
		locks_bpf__destroy(lk->skel);
		lk->skel = NULL;
	}
	return err;
}

static int locks_open(struct collector *c, const struct record_opts *o,
		      const struct collector_env *env)
{
	struct locks *lk;
	unsigned int parts = 0;
	int err;

	lk = calloc(1, sizeof(*lk));
	if (!lk)
		return -ENOMEM;
	lk->names = env->locknames;
	lk->nr_cpus = env->nr_cpus;
	lk->min_wait_ns = o->min_lock_wait_ns;
	lk->o = o;
	lk->env = env;
	if (env->unwind_cfi)
		parts |= PART_BIT(HC_PART_CFI);
	/* the lock table shows who released; folded output (record --locks) has no place */
	if (o->locks_report && o->user_stacks)
		parts |= PART_BIT(HC_PART_HOLDERS);
	if ((parts & PART_BIT(HC_PART_HOLDERS)) && o->locks_kernel && o->kernel_stacks)
		kfunc_check("locks", "bpf_task_from_pid", "6.2+", "kernel lock owners' stacks");
	err = parts_load("locks", "tp_btf sys_enter/exit and lock:contention_begin/end "
			 "(README, Kernels)", locks_try_load, lk, &parts, &lk->refused);
	if (err) {
		free(lk);
		return err;
	}
	c->parts_refused = lk->refused;
	c->walks_cfi = parts & PART_BIT(HC_PART_CFI);
	c->priv = lk;
	return 0;
}

static int locks_start(struct collector *c)
{
	struct locks *lk = c->priv;
	int err = locks_bpf__attach(lk->skel);

	if (err)
		pr_warn("locks: cannot attach: %s\n", strerror(-err));
	return err;
}

static int locks_stop(struct collector *c)
{
	struct locks *lk = c->priv;

	locks_bpf__detach(lk->skel);
	return 0;
}

/*
 * Name locks while their processes live: registering them resolves the
 * symbol now. Within the turn's budget (c->budget): the walk goes on after
 * the last lock named (from the first if that one is gone: naming twice
 * is harmless); without one, a whole walk.
 */
static int locks_drain(struct collector *c, sample_fn fn, void *arg)
{
	struct locks *lk = c->priv;
	int fd = bpf_map__fd(lk->skel->maps.locks_agg);
	struct hc_lock_key key;

	if (!c->budget)
		lk->walk_more = false;
	while (!bpf_map_get_next_key(fd, lk->walk_more ? &lk->walk_key : NULL, &key)) {
		if (c->budget && !budget_take(c->budget)) {
			c->drain_more = true;
			return 0;
		}
		locknames__id(lk->names, key.tgid, key.type, key.addr);
		lk->walk_key = key;
		lk->walk_more = true;
	}
	lk->walk_more = false;
	return 0;
}

int locks_collector_rows(struct collector *c, struct lock_row **rows, size_t *nr)
{
	struct locks *lk = c->priv;
	int fd = bpf_map__fd(lk->skel->maps.locks_agg);
	struct hc_lock_key key, *prev = NULL;
	struct lock_row *v = NULL, *n;
	struct hc_lock_val val, *cpu;
	int ncpu = libbpf_num_possible_cpus(), i;
	size_t cap = 0;

	*nr = 0;
	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	/* locks_agg is per CPU: one value per possible CPU, summed here */
	cpu = calloc(ncpu, sizeof(*cpu));
	if (!cpu)
		return -ENOMEM;
	while (!bpf_map_get_next_key(fd, prev, &key)) {
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, cpu))
			continue;
		memset(&val, 0, sizeof(val));
		for (i = 0; i < ncpu; i++) {
			val.count += cpu[i].count;
			val.total_ns += cpu[i].total_ns;
			if (cpu[i].max_ns > val.max_ns)
				val.max_ns = cpu[i].max_ns;
			/* the CPU that created the key has the first waiter's name */
			if (!val.comm[0])
				memcpy(val.comm, cpu[i].comm, sizeof(val.comm));
		}
		if (*nr == cap) {
			n = realloc(v, (cap = cap ? cap * 2 : 64) * sizeof(*n));
			if (!n) {
				free(v);
				free(cpu);
				return -ENOMEM;
			}
			v = n;
		}
		n = &v[(*nr)++];
		n->id = locknames__id(lk->names, key.tgid, key.type, key.addr);
		n->count = val.count;
		n->total_ns = val.total_ns;
		n->max_ns = val.max_ns;
		memcpy(n->comm, val.comm, 16);
		n->comm[16] = '\0';
	}
	free(cpu);
	*rows = v;
	return 0;
}

static void locks_stats(const struct collector *c, struct collector_stats *st)
{
	const struct locks *lk = c->priv;
	uint64_t v[HC_STAT_NR];

	st->nr = 0;
	if (percpu_stats_read(bpf_map__fd(lk->skel->maps.locks_stats), lk->nr_cpus, v,
			      HC_STAT_NR))
		return;
	st->s[st->nr++] = (struct collector_stat){ "waits with stacks", v[HC_STAT_SAMPLES], false };
	st->s[st->nr++] = (struct collector_stat){ "lost (ring full)", v[HC_STAT_RB_FULL], true };
	st->s[st->nr++] = (struct collector_stat){ "waits lost (lock map full)",
						   v[HC_STAT_LOCK_AGG_FULL], true };
	st->s[st->nr++] = (struct collector_stat){ "kernel contentions unmatched or nested too deep",
						   v[HC_STAT_LOCK_NEST_LOST], true };
	st->s[st->nr++] = (struct collector_stat){ "kernel mutex/rwsem waits with no owner recorded",
						   v[HC_STAT_LOCK_OWNER_UNKNOWN], false };
	st->s[st->nr++] = (struct collector_stat){ "untimed (no task storage)",
						   v[HC_STAT_TASK_STORAGE_ERR], true };
	parts_stats_add(st, lk->refused);
}

static void locks_describe(const struct collector *c, char *buf, size_t len)
{
	const struct locks *lk = c->priv;

	snprintf(buf, len, "lock waits (stacks for waits >= %llu us)",
		 (unsigned long long)(lk->min_wait_ns / 1000));
}

static void locks_close(struct collector *c)
{
	struct locks *lk = c->priv;

	if (!lk)
		return;
	locks_bpf__destroy(lk->skel);
	free(lk);
	c->priv = NULL;
}

const struct collector_ops locks_ops = {
	.name = "locks",
	.open = locks_open,
	.start = locks_start,
	.stop = locks_stop,
	.drain = locks_drain,
	.stats = locks_stats,
	.describe = locks_describe,
	.close = locks_close,
};
