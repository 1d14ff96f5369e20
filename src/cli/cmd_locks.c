// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `hotcold locks`: a table of the most contended locks with their top waiting stacks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/run.h"
#include "collect/opts.h"
#include "record/session.h"
#include "util/log.h"
#include "util/compiler.h"

enum { OPT_USER_ONLY = 256, OPT_KERNEL_ONLY, OPT_JSON, OPT_SORT, OPT_MIN_WAIT, OPT_BY, OPT_ALL_WAITS };

static const struct opt_spec locks_opts[] = {
	CLI_OPT_PID("these processes (kernel locks: their waits only)"),
	CLI_OPT_TID("these threads"),
	CLI_OPT_CGROUP_SPEC("processes in this cgroup v2 or below"),
	CLI_OPT_COMM_SPEC("processes named NAME (NAME*: a prefix)"),
	CLI_OPT_ALL("every task (default)"),
	CLI_OPT_DURATION("stop after DUR (default: Ctrl-C, or COMMAND's exit)"),
	{ .name = "top", 'n', 'n', OPTV_U64, "N", "locks listed (default 20)", 1, 100000 },
	{ .name = "sort", 0, OPT_SORT, OPTV_CHOICE, "KEY", "order (default total)",
	  .choices = "total|max|count" },
	{ .name = "json", 0, OPT_JSON, OPTV_FLAG, NULL, "JSON array instead of the table" },
	{ .name = "by", 0, OPT_BY, OPTV_CHOICE, "ROWS",
	  "rows by lock site (default) or by lock address", .choices = "site|lock" },
	{ .name = "all-waits", 0, OPT_ALL_WAITS, OPTV_FLAG, NULL,
	  "also condvar, join and barrier waits (class column)" },
	{ .name = "user-only", 0, OPT_USER_ONLY, OPTV_FLAG, NULL, "user futexes only" },
	{ .name = "kernel-only", 0, OPT_KERNEL_ONLY, OPTV_FLAG, NULL, "kernel locks only" },
	{ .name = "min-wait", 0, OPT_MIN_WAIT, OPTV_DUR, "DUR",
	  "waits that keep a stack (no unit: microseconds; default 10us)",
	  .max = UINT64_MAX, .unit = 1000 },
	CLI_OPT_UNWIND_SPEC,
	CLI_OPT_OUTPUT("default: stdout"),
	OPT_SPEC_VERBOSE("more diagnostics"),
	OPT_SPEC_QUIET("only warnings and errors"),
	OPT_SPEC_HELP,
};

const struct opt_cmd locks_cmd = {
	.name = "locks",
	.synopsis = "[options] [-- COMMAND [ARGS...]]",
	.about = "Contended locks: user futex waits (pthread mutexes, condition variables, ...)\n"
		 "timed from syscall entry to exit and named by their symbol when global, and\n"
		 "kernel lock contention (lock:contention_begin/end) by type and address. Every\n"
		 "wait is counted; waits >= --min-wait also keep the waiter's stack. Rows are\n"
		 "lock sites (the first frame outside libc: queued locks whose waiters sleep\n"
		 "on their own futexes are one row) or single locks; only contention (mutex,\n"
		 "rwlock, semaphore, unknown futex, kernel) unless --all-waits.\n",
	.footer = "Exit status: 0 ok, 1 runtime error, 2 usage error, 3 this kernel cannot run\n"
		  "it (the first line says what); with COMMAND, its status.\n",
	.opts = locks_opts,
	.nr_opts = ARRAY_SIZE(locks_opts),
	.stop_at_operand = true,
};

static int on_opt(void *ctx, const struct opt_spec *s, const struct opt_val *v)
{
	struct record_opts *o = ctx;
	int ret = cli_target_opt(&locks_cmd, s, v, o);

	if (ret != CLI_OPT_OTHER)
		return ret;
	switch (s->id) {
	case 'n':
		o->locks_top = v->u;
		break;
	case OPT_SORT:
		o->locks_sort = v->choice;	/* 0 total, 1 max, 2 count */
		break;
	case OPT_JSON:
		o->json = true;
		break;
	case OPT_BY:
		o->locks_by_lock = v->choice == 1;
		break;
	case OPT_ALL_WAITS:
		o->locks_all_waits = true;
		break;
	case OPT_USER_ONLY:
		o->locks_kernel = false;
		break;
	case OPT_KERNEL_ONLY:
		o->locks_user = false;
		break;
	case OPT_MIN_WAIT:
		o->min_lock_wait_ns = v->u;
		break;
	}
	return 0;
}

static int parse(int argc, char **argv, struct record_opts *o)
{
	int first, ret = opt__parse(&locks_cmd, argc, argv, on_opt, o, &first);

	if (ret)
		return ret;
	if (!o->locks_user && !o->locks_kernel) {
		pr_warn("locks: --user-only and --kernel-only exclude each other\n");
		return EXIT_USAGE;
	}
	if (first < argc)
		o->cmd_argv = &argv[first];
	return 0;
}

int cmd_locks(int argc, char **argv)
{
	struct record_opts o;

	record_opts_init(&o);
	o.oncpu = false;
	o.locks = true;
	o.locks_report = true;
	o.output = "-";
	return cli_record_main(argc, argv, &o, parse, "locks");
}
