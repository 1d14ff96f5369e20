// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `hotcold runqlat`: run-queue latency histograms, bcc runqlat's habits (-P, -L). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/parse.h"
#include "cli/run.h"
#include "record/opts.h"
#include "record/session.h"
#include "util/compiler.h"
#include "util/log.h"
#include "util/suggest.h"

static const struct option longopts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "cgroup", required_argument, NULL, CLI_OPT_CGROUP },
	{ "comm", required_argument, NULL, CLI_OPT_COMM },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "duration", required_argument, NULL, 'd' },
	{ "per-process", no_argument, NULL, 'P' },
	{ "per-thread", no_argument, NULL, 'L' },
	{ "output", required_argument, NULL, 'o' },
	{ "kthreads", no_argument, NULL, 'k' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hotcold runqlat [options] [-- COMMAND [ARGS...]]\n\n"
		"Time from wakeup or preemption to running, as log2 histograms with p50, p99\n"
		"and max, largest total wait first.\n\n"
		"  -p, --pid PID[,PID...]   these processes (default: every task)\n"
		"  -t, --tid TID[,TID...]   these threads\n"
		"      --cgroup PATH        processes in this cgroup v2 or below\n"
		"      --comm NAME          processes named NAME (NAME*: a prefix)\n"
		"  -a, --all-cpus           every task (default)\n"
		"  -d, --duration DUR       stop after DUR (default: Ctrl-C, or COMMAND's exit)\n"
		"  -P, --per-process        one histogram per process\n"
		"  -L, --per-thread         one histogram per thread\n"
		"  -k, --kthreads           include kernel threads\n"
		"  -o, --output FILE        default: stdout\n"
		"  -v, --verbose, -q, --quiet, -h, --help  more diagnostics; only warnings and errors; this help\n\n"
		"Exit status: 0 ok, 1 runtime error, 2 usage error; with COMMAND, its status.\n");
}

static int parse(int argc, char **argv, struct record_opts *o)
{
	int c, ret;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:t:ad:PLo:kvqh", longopts, NULL)) != -1) {
		ret = cli_target_opt(c, optarg, o, "runqlat");
		if (ret == EXIT_USAGE)
			return ret;
		if (ret == CLI_OPT_DONE)
			continue;
		switch (c) {
		case 'P':
			o->runq_per = 1;
			break;
		case 'L':
			o->runq_per = 2;
			break;
		case 'k':
			o->kthreads = true;
			break;
		case 'h':
			usage(stdout);
			return -1;
		case ':':
			pr_warn("runqlat: option '%s' needs a value\n", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			suggest__unknown_option("runqlat", argv[optind - 1], longopts);
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		o->cmd_argv = &argv[optind];
	return 0;
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
