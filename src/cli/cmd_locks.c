// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `hotcold locks`: a table of the most contended locks with their top waiting stacks. */
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
#include "util/log.h"
#include "util/suggest.h"

enum { OPT_USER_ONLY = 256, OPT_KERNEL_ONLY, OPT_JSON, OPT_SORT, OPT_MIN_WAIT, OPT_BY, OPT_ALL_WAITS };

static const struct option longopts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "cgroup", required_argument, NULL, CLI_OPT_CGROUP },
	{ "comm", required_argument, NULL, CLI_OPT_COMM },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "duration", required_argument, NULL, 'd' },
	{ "output", required_argument, NULL, 'o' },
	{ "top", required_argument, NULL, 'n' },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "by", required_argument, NULL, OPT_BY },
	{ "all-waits", no_argument, NULL, OPT_ALL_WAITS },
	{ "user-only", no_argument, NULL, OPT_USER_ONLY },
	{ "kernel-only", no_argument, NULL, OPT_KERNEL_ONLY },
	{ "min-wait", required_argument, NULL, OPT_MIN_WAIT },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hotcold locks [options] [-- COMMAND [ARGS...]]\n\n"
		"Contended locks: user futex waits (pthread mutexes, condition variables, ...)\n"
		"timed from syscall entry to exit and named by their symbol when global, and\n"
		"kernel lock contention (lock:contention_begin/end) by type and address. Every\n"
		"wait is counted; waits >= --min-wait also keep the waiter's stack. Rows are\n"
		"lock sites (the first frame outside libc: queued locks whose waiters sleep\n"
		"on their own futexes are one row) or single locks; only contention (mutex,\n"
		"rwlock, semaphore, unknown futex, kernel) unless --all-waits.\n\n"
		"  -p, --pid PID[,PID...]   these processes (kernel locks: their waits only)\n"
		"  -t, --tid TID[,TID...]   these threads\n"
		"      --cgroup PATH        processes in this cgroup v2 or below\n"
		"      --comm NAME          processes named NAME (NAME*: a prefix)\n"
		"  -a, --all-cpus           every task (default)\n"
		"  -d, --duration DUR       stop after DUR (default: Ctrl-C, or COMMAND's exit)\n"
		"  -n, --top N              locks listed (default 20)\n"
		"      --sort total|max|count  order (default total)\n"
		"      --json               JSON array instead of the table\n"
		"      --by site|lock       rows by lock site (default) or by lock address\n"
		"      --all-waits          also condvar, join and barrier waits (class column)\n"
		"      --user-only, --kernel-only   one kind of lock\n"
		"      --min-wait US        waits that keep a stack (default 10)\n"
		"  -o, --output FILE        default: stdout\n"
		"  -v, --verbose, -q, --quiet, -h, --help  more diagnostics; only warnings and errors; this help\n\n"
		"Exit status: 0 ok, 1 runtime error, 2 usage error; with COMMAND, its status.\n");
}

static int bad(const char *opt, const char *val)
{
	pr_warn("locks: invalid value '%s' for %s\n", val, opt);
	return EXIT_USAGE;
}

static int parse(int argc, char **argv, struct record_opts *o)
{
	uint64_t v;
	int c, ret;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:t:ad:o:n:vqh", longopts, NULL)) != -1) {
		ret = cli_target_opt(c, optarg, o, "locks");
		if (ret == EXIT_USAGE)
			return ret;
		if (ret == CLI_OPT_DONE)
			continue;
		switch (c) {
		case 'n':
			if (parse_u64(optarg, 1, 100000, &v))
				return bad("-n", optarg);
			o->locks_top = v;
			break;
		case OPT_SORT:
			if (!strcmp(optarg, "total"))
				o->locks_sort = 0;
			else if (!strcmp(optarg, "max"))
				o->locks_sort = 1;
			else if (!strcmp(optarg, "count"))
				o->locks_sort = 2;
			else
				return bad("--sort", optarg);
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_BY:
			if (!strcmp(optarg, "site"))
				o->locks_by_lock = false;
			else if (!strcmp(optarg, "lock"))
				o->locks_by_lock = true;
			else
				return bad("--by", optarg);
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
			if (parse_u64(optarg, 0, UINT64_MAX / 1000, &v))
				return bad("--min-wait", optarg);
			o->min_lock_wait_ns = v * 1000;
			break;
		case 'h':
			usage(stdout);
			return -1;
		case ':':
			pr_warn("locks: option '%s' needs a value\n", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			suggest__unknown_option("locks", argv[optind - 1], longopts);
			return EXIT_USAGE;
		}
	}
	if (!o->locks_user && !o->locks_kernel) {
		pr_warn("locks: --user-only and --kernel-only exclude each other\n");
		return EXIT_USAGE;
	}
	if (optind < argc)
		o->cmd_argv = &argv[optind];
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
