// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `hotcold stat`: options -> stat_opts -> cli/stat_run. Counter snapshots of a
 * command, processes or the whole system, what kind of slow they say, and
 * optionally per process from BPF.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/counters.h"
#include "cli/cmd.h"
#include "cli/parse.h"
#include "cli/run.h"
#include "cli/stat_run.h"
#include "output/outfile.h"
#include "util/compiler.h"
#include "util/log.h"
#include "util/suggest.h"

enum {
	OPT_JSON = 256,
	OPT_CSV,
	OPT_PER_PROCESS,
	OPT_TOP,
	OPT_PENALTY,
	OPT_DRAM,
	OPT_MLP,
	OPT_COMPARE,
	OPT_MODE,
};

struct opt_doc {
	struct option opt;
	int short_name;
	const char *arg;
	const char *help;
};

static const struct opt_doc docs[] = {
	{ { "pid", required_argument, NULL, 'p' }, 'p', "PID[,PID...]",
	  "count these processes (their threads and the ones they start)" },
	{ { "all-cpus", no_argument, NULL, 'a' }, 'a', NULL,
	  "whole system, with a process table (default without -p or COMMAND)" },
	{ { "duration", required_argument, NULL, 'd' }, 'd', "DUR",
	  "stop after DUR (s, or ms/s/m/h; default: Ctrl-C, targets' exit)" },
	{ { "interval", required_argument, NULL, 'I' }, 'I', "MS",
	  "print a snapshot every MS milliseconds (>= 10), no total" },
	{ { "per-process", no_argument, NULL, OPT_PER_PROCESS }, 0, NULL,
	  "a table of the targets' processes, summed in BPF at sched_switch" },
	{ { "top", required_argument, NULL, OPT_TOP }, 0, "N",
	  "rows of the process table (default 20, 0 = all)" },
	{ { "json", no_argument, NULL, OPT_JSON }, 0, NULL, "one JSON object per snapshot" },
	{ { "csv", no_argument, NULL, OPT_CSV }, 0, NULL, "CSV rows" },
	{ { "mispredict-penalty", required_argument, NULL, OPT_PENALTY }, 0, "CYC",
	  "cost model: cycles lost per branch mispredict (default 20)" },
	{ { "dram-latency", required_argument, NULL, OPT_DRAM }, 0, "CYC",
	  "cost model: cycles per LLC miss served from DRAM (default 300)" },
	{ { "mlp", required_argument, NULL, OPT_MLP }, 0, "N",
	  "cost model: LLC misses in flight at once, >= 1 (default 5)" },
	{ { "event", required_argument, NULL, 'e' }, 'e', "EV[,EV...]",
	  "also count these (repeatable, up to 16): software or generic names, "
	  "L1-dcache-loads-style cache names, the CPU PMU's sysfs events, raw rNNNN" },
	{ { "mode", required_argument, NULL, OPT_MODE }, 0, "MODE",
	  "drill-down ratios with healthy/investigate bands: cache (and TLB) or branches" },
	{ { "repeat", required_argument, NULL, 'r' }, 'r', "N",
	  "run COMMAND N times (2..1000): mean, stddev, min and max per counter" },
	{ { "compare", no_argument, NULL, OPT_COMPARE }, 0, NULL,
	  "stat --compare A.json B.json: deltas of two --json outputs, cycles -> IPC -> class" },
	{ { "output", required_argument, NULL, 'o' }, 'o', "FILE",
	  "write to FILE (default: stdout)" },
	{ { "verbose", no_argument, NULL, 'v' }, 'v', NULL, "more diagnostics" },
	{ { "quiet", no_argument, NULL, 'q' }, 'q', NULL, "only warnings and errors" },
	{ { "help", no_argument, NULL, 'h' }, 'h', NULL, "show this help" },
};

static void stat_usage(FILE *f)
{
	char left[64];

	fprintf(f,
		"usage: hotcold stat [options] [-- COMMAND [ARGS...]]\n\n"
		"Count cycles, instructions, branches, branch-misses, cache and LLC misses and\n"
		"the software events (task-clock, context switches, migrations, page faults,\n"
		"cpu-clock); derive IPC, branch-miss %%, LLC MPKI, the stall cost model and the\n"
		"class Memory / Branch mispredict / Compute, and top-down level 1 where the CPU\n"
		"has it. Counts are scaled by time_enabled / time_running; each line shows the\n"
		"running fraction. Without a hardware PMU only software events are shown.\n\n");
	for (size_t i = 0; i < ARRAY_SIZE(docs); i++) {
		const struct opt_doc *d = &docs[i];

		if (d->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", d->short_name, d->opt.name,
				 d->arg ? " " : "", d->arg ? d->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", d->opt.name, d->arg ? " " : "",
				 d->arg ? d->arg : "");
		fprintf(f, "  %-30s %s\n", left, d->help);
	}
	fprintf(f,
		"\nExit status: 0 ok, 1 runtime error, 2 usage error (bad option or value, a\n"
		"-p target that does not exist); with COMMAND, its status (127: not executed).\n"
		"With -r, the first run that fails stops the series with its status. --compare:\n"
		"2 for a file that is not a stat --json output.\n");
}

static int bad_value(const char *opt, const char *val, int err)
{
	pr_warn("stat: invalid value '%s' for %s: %s\n", val, opt,
		parse_strerror(err));
	return EXIT_USAGE;
}

/* -e a,b,c: resolved now, so an unknown name is a usage error before anything runs. */
static int add_events(const char *arg, struct stat_opts *o)
{
	const char *p = arg;

	while (*p) {
		size_t n = strcspn(p, ",");
		char name[64];
		enum pmu_generic g;
		int err;

		if (!n || n >= sizeof(name))
			return bad_value("-e", arg, -EINVAL);
		memcpy(name, p, n);
		name[n] = 0;
		p += n + (p[n] == ',');
		if (!pmu_generic_find(name, &g))
			continue;	/* counted anyway */
		if (o->nr_extra == STAT_MAX_EXTRA) {
			pr_warn("stat: at most %d events with -e\n", STAT_MAX_EXTRA);
			return EXIT_USAGE;
		}
		err = pmu_event_resolve(PMU_SYSFS_ROOT, name, &o->extra[o->nr_extra]);
		if (err) {
			pr_warn("stat: unknown event '%s'%s\n", name, err == -ENOENT ?
				" (not a software or generic name, and no PMU here names it)" : "");
			return EXIT_USAGE;
		}
		o->nr_extra++;
	}
	return 0;
}

static int parse_one(int c, const char *arg, struct stat_opts *o)
{
	uint64_t v;
	int err = 0;

	switch (c) {
	case 'p':
		free(o->pids);
		o->pids = NULL;
		err = parse_id_list(arg, 4194304, 4096, &o->pids, &o->nr_pids);
		return err ? bad_value("-p", arg, err) : 0;
	case 'd':
		err = parse_duration_ns(arg, 1000000000ull, 1000000ull,
					366ull * 86400 * 1000000000ull, &o->duration_ns);
		return err ? bad_value("-d", arg, err) : 0;
	case 'I':
		err = parse_u64(arg, 10, 3600000, &v);
		o->interval_ns = v * 1000000ull;
		return err ? bad_value("-I", arg, err) : 0;
	case OPT_TOP:
		err = parse_u64(arg, 0, 1000000, &o->top);
		return err ? bad_value("--top", arg, err) : 0;
	case OPT_PENALTY:
		err = parse_double(arg, 0, 10000, &o->model.mispredict_penalty);
		return err ? bad_value("--mispredict-penalty", arg, err) : 0;
	case OPT_DRAM:
		err = parse_double(arg, 0, 100000, &o->model.dram_latency);
		return err ? bad_value("--dram-latency", arg, err) : 0;
	case OPT_MLP:
		err = parse_double(arg, 1, 1000, &o->model.mlp);
		return err ? bad_value("--mlp", arg, err) : 0;
	case 'e':
		return add_events(arg, o);
	case OPT_MODE:
		if (drill_mode_parse(arg, &o->drill_mode)) {
			pr_warn("stat: unknown --mode '%s' (cache, branches)\n", arg);
			return EXIT_USAGE;
		}
		o->drill = true;
		return 0;
	case 'r':
		err = parse_u64(arg, 2, 1000, &v);
		o->runs = (unsigned int)v;
		return err ? bad_value("-r", arg, err) : 0;
	case 'o':
		if (!*arg)
			return bad_value("-o", arg, -EINVAL);
		o->output = arg;
		return 0;
	}
	return EXIT_USAGE;
}

static int parse_args(int argc, char **argv, struct stat_opts *o)
{
	struct option longopts[ARRAY_SIZE(docs) + 1];
	int c, ret;

	for (size_t i = 0; i < ARRAY_SIZE(docs); i++)
		longopts[i] = docs[i].opt;
	memset(&longopts[ARRAY_SIZE(docs)], 0, sizeof(longopts[0]));
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:ad:I:r:e:o:vqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			o->system_wide = true;
			break;
		case OPT_JSON:
			o->fmt = FMT_JSON;
			break;
		case OPT_CSV:
			o->fmt = FMT_CSV;
			break;
		case OPT_PER_PROCESS:
			o->per_process = true;
			break;
		case OPT_COMPARE:
			o->compare = true;
			break;
		case 'v':
			log_more_verbose();
			break;
		case 'q':
			log_set_level(LOG_WARN);
			break;
		case 'h':
			stat_usage(stdout);
			return -1;
		case ':':
			pr_warn("stat: option '%s' needs a value\n", argv[optind - 1]);
			return EXIT_USAGE;
		case '?':
			suggest__unknown_option("stat", argv[optind - 1], longopts);
			return EXIT_USAGE;
		default:
			ret = parse_one(c, optarg, o);
			if (ret)
				return ret;
		}
	}
	if (o->compare)
		return optind + 2 == argc ? 0 : (pr_warn("stat: --compare wants two files, "
							  "A.json B.json\n"), EXIT_USAGE);
	if (optind < argc)
		o->cmd_argv = &argv[optind];
	if (o->runs && (!o->cmd_argv || o->interval_ns || o->per_process || o->fmt == FMT_CSV)) {
		pr_warn("stat: -r repeats a COMMAND; not with -I, --per-process or --csv\n");
		return EXIT_USAGE;
	}
	if (o->system_wide && (o->nr_pids || o->cmd_argv)) {
		pr_warn("stat: -a cannot be combined with -p or a command\n");
		return EXIT_USAGE;
	}
	if (o->cmd_argv && o->nr_pids) {
		pr_warn("stat: a command cannot be combined with -p\n");
		return EXIT_USAGE;
	}
	if (!o->nr_pids && !o->cmd_argv)
		o->system_wide = true;
	return 0;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = { .top = 20, .output = "-" };
	int ret, err, cmd_status;

	counters_model_default(&o.model);
	log_hook_libbpf();
	optind = 1;
	ret = parse_args(argc, argv, &o);
	if (ret) {
		free(o.pids);
		return ret < 0 ? EXIT_OK : ret;
	}
	if (o.compare) {
		ret = stat_compare(&o, argv[optind], argv[optind + 1]);
		free(o.pids);
		return ret;
	}
	if (cli_need_bpf()) {
		free(o.pids);
		return EXIT_RUNTIME;
	}
	/* a bad -o fails now, not after the whole count */
	err = outfile_check(o.output);
	if (err) {
		pr_warn("stat: cannot write '%s': %s\n", o.output, strerror(-err));
		free(o.pids);
		return err == -EISDIR ? EXIT_USAGE : EXIT_RUNTIME;
	}
	err = o.runs ? stat_repeat(&o, &cmd_status) : stat_run(&o, &cmd_status);
	free(o.pids);
	return cli_exit_status(err, cmd_status, "stat");
}
