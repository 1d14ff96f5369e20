// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `hotcold runqlat`: run-queue latency histograms, bcc runqlat's habits (-P, -L). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/run.h"
#include "collect/opts.h"
#include "record/session.h"
#include "util/compiler.h"
#include "util/log.h"

static const struct opt_spec runqlat_opts[] = {
	CLI_OPT_PID("these processes (default: every task)"),
	CLI_OPT_TID("these threads"),
	CLI_OPT_CGROUP_SPEC("processes in this cgroup v2 or below"),
	CLI_OPT_COMM_SPEC("processes named NAME (NAME*: a prefix)"),
	CLI_OPT_ALL("every task (default)"),
	CLI_OPT_DURATION("stop after DUR (default: Ctrl-C, or COMMAND's exit)"),
	{ .name = "per-process", 'P', 'P', OPTV_FLAG, NULL, "one histogram per process" },
	{ .name = "per-thread", 'L', 'L', OPTV_FLAG, NULL, "one histogram per thread" },
	{ .name = "kthreads", 'k', 'k', OPTV_FLAG, NULL, "include kernel threads" },
	CLI_OPT_UNWIND_SPEC,
	CLI_OPT_OUTPUT("default: stdout"),
	OPT_SPEC_VERBOSE("more diagnostics"),
	OPT_SPEC_QUIET("only warnings and errors"),
	OPT_SPEC_HELP,
};

const struct opt_cmd runqlat_cmd = {
	.name = "runqlat",
	.synopsis = "[options] [-- COMMAND [ARGS...]]",
	.about = "Time from wakeup or preemption to running, as log2 histograms with p50, p99\n"
		 "and max, largest total wait first.\n",
	.footer = "Exit status: 0 ok, 1 runtime error, 2 usage error, 3 this kernel cannot run\n"
		  "it (the first line says what); with COMMAND, its status.\n",
	.opts = runqlat_opts,
	.nr_opts = ARRAY_SIZE(runqlat_opts),
	.stop_at_operand = true,
};

static int on_opt(void *ctx, const struct opt_spec *s, const struct opt_val *v)
{
	struct record_opts *o = ctx;
	int ret = cli_target_opt(&runqlat_cmd, s, v, o);

	if (ret != CLI_OPT_OTHER)
		return ret;
	switch (s->id) {
	case 'P':
		o->runq_per = 1;
		break;
	case 'L':
		o->runq_per = 2;
		break;
	case 'k':
		o->kthreads = true;
		break;
	}
	return 0;
}

static int parse(int argc, char **argv, struct record_opts *o)
{
	int first, ret = opt__parse(&runqlat_cmd, argc, argv, on_opt, o, &first);

	if (!ret && first < argc)
		o->cmd_argv = &argv[first];
	return ret;
}

int cmd_runqlat(int argc, char **argv)
{
	struct record_opts o;

	record_opts_init(&o);
	o.oncpu = false;
	o.runq = true;
	o.runq_report = true;
	o.runq_per = 0;
	o.output = "-";
	return cli_record_main(argc, argv, &o, parse, "runqlat");
}
