// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Defaults and cross-option validation for record_opts. */
#include "collect/opts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

void record_opts_init(struct record_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->event = PMU_EV_AUTO;
	o->oncpu = true;
	o->min_block_ns = 50000;	/* every block of 50 us or more carries its stack */
	o->max_block_ns = UINT64_MAX;
	o->offcpu_states = 0x3;		/* S and D */
	o->runq_per = 1;
	o->locks_user = true;
	o->locks_kernel = true;
	o->min_lock_wait_ns = 10000;
	o->locks_top = 20;
	o->min_runq_ns = UINT64_MAX;
	o->freq_hz = 99;	/* odd, and dithered (bpf/oncpu.bpf.c): no lockstep with periodic work */
	o->user_stacks = true;
	o->kernel_stacks = true;
	o->drain_interval_ns = 1000000000ull;
	o->ring_bytes = 0;	/* 0: sized by the proc tracker from the CPU count */
	o->max_stacks = 1u << 20;
	o->max_targets = 8192;
	o->unwind = UNWIND_AUTO;
	o->unwind_max_rows = 4u << 20;
	o->output = "hotcold.folded";
	o->root = ROOT_PROCESS;
}

int record_opts_validate(const struct record_opts *o)
{
	bool targeted = o->nr_pids || o->nr_tids || o->cmd_argv || target_rules_any(&o->rules);

	if (!o->user_stacks && !o->kernel_stacks) {
		pr_warn("record: --user-only and --kernel-only exclude each other\n");
		return -EINVAL;
	}
	if (o->system_wide && targeted) {
		pr_warn("record: -a cannot be combined with -p, -t, --cgroup, --comm or a command\n");
		return -EINVAL;
	}
	if (o->cmd_argv && (o->nr_pids || o->nr_tids || target_rules_any(&o->rules))) {
		pr_warn("record: a command cannot be combined with -p, -t, --cgroup or --comm\n");
		return -EINVAL;
	}
	if (!o->oncpu && !o->offcpu && !o->runq && !o->locks) {
		pr_warn("record: nothing to record\n");
		return -EINVAL;
	}
	if (o->wakers && !o->offcpu) {
		pr_warn("record: --wakers needs --off-cpu\n");
		return -EINVAL;
	}
	if (o->min_block_ns > o->max_block_ns) {
		pr_warn("record: --min-block is above --max-block\n");
		return -EINVAL;
	}
	if (o->idle && targeted) {
		pr_warn("record: --idle only makes sense system-wide\n");
		return -EINVAL;
	}
#if !defined(__x86_64__)
	if (o->unwind == UNWIND_CFI) {
		pr_warn("record: --unwind=cfi is only implemented for x86-64\n");
		return -EINVAL;
	}
#endif
	if (o->unwind == UNWIND_CFI && !o->user_stacks) {
		pr_warn("record: --unwind=cfi needs user stacks\n");
		return -EINVAL;
	}
	if (o->ring_bytes && (o->ring_bytes & (o->ring_bytes - 1))) {
		pr_warn("record: ring size must be a power of two\n");
		return -EINVAL;
	}
	return 0;
}

int record_opts_parse_label(const char *s, bool *cmdline)
{
	if (!strcmp(s, "comm"))
		*cmdline = false;
	else if (!strcmp(s, "cmdline"))
		*cmdline = true;
	else
		return -EINVAL;
	return 0;
}

int record_opts_parse_unwind(const char *s, enum unwind_mode *mode)
{
	if (!strcmp(s, "auto"))
		*mode = UNWIND_AUTO;
	else if (!strcmp(s, "fp"))
		*mode = UNWIND_FP;
	else if (!strcmp(s, "cfi"))
		*mode = UNWIND_CFI;
	else
		return -EINVAL;
	return 0;
}

void record_opts_release(struct record_opts *o)
{
	free(o->pids);
	free(o->tids);
	o->pids = o->tids = NULL;
	o->nr_pids = o->nr_tids = 0;
}
