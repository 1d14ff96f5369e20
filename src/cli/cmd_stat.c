// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `hotcold stat`: options -> stat_opts -> cli/stat_run. Counter snapshots of a
 * command, processes or the whole system, what kind of slow they say, and
 * optionally per process from BPF.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/counters.h"
#include "cli/cmd.h"
#include "cli/run.h"
#include "cli/stat_run.h"
#include "output/outfile.h"
#include "util/caps.h"
#include "util/compiler.h"
#include "util/parse.h"
#include "util/log.h"
#include "util/opt.h"

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

static const struct opt_spec stat_opts_tab[] = {
	CLI_OPT_PID("count these processes (their threads and the ones they start)"),
	CLI_OPT_ALL("whole system, with a process table (default without -p or COMMAND)"),
	CLI_OPT_DURATION("stop after DUR (s, or ms/s/m/h; default: Ctrl-C, targets' exit)"),
	{ .name = "interval", 'I', 'I', OPTV_U64, "MS",
	  "print a snapshot every MS milliseconds, no total", 10, 3600000 },
	{ .name = "per-process", 0, OPT_PER_PROCESS, OPTV_FLAG, NULL,
	  "a table of the targets' processes, summed in BPF at sched_switch" },
	{ .name = "top", 0, OPT_TOP, OPTV_U64, "N", "rows of the process table (default 20, 0 = all)",
	  0, 1000000 },
	{ .name = "json", 0, OPT_JSON, OPTV_FLAG, NULL, "one JSON object per snapshot" },
	{ .name = "csv", 0, OPT_CSV, OPTV_FLAG, NULL, "CSV rows" },
	{ .name = "mispredict-penalty", 0, OPT_PENALTY, OPTV_DOUBLE, "CYC",
	  "cost model: cycles lost per branch mispredict (default 20)", 0, 10000 },
	{ .name = "dram-latency", 0, OPT_DRAM, OPTV_DOUBLE, "CYC",
	  "cost model: cycles per LLC miss served from DRAM (default 300)", 0, 100000 },
	{ .name = "mlp", 0, OPT_MLP, OPTV_DOUBLE, "N",
	  "cost model: LLC misses in flight at once (default 5)", 1, 1000 },
	{ .name = "event", 'e', 'e', OPTV_STR, "EV[,EV...]",
	  "also count these (repeatable, up to 16): software or generic names, "
	  "L1-dcache-loads-style cache names, the CPU PMU's sysfs events, raw rNNNN" },
	{ .name = "mode", 0, OPT_MODE, OPTV_STR, "MODE",
	  "drill-down ratios with healthy/investigate bands: cache (and TLB) or branches" },
	{ .name = "repeat", 'r', 'r', OPTV_U64, "N",
	  "run COMMAND N times: mean, stddev, min and max per counter", 2, 1000 },
	{ .name = "compare", 0, OPT_COMPARE, OPTV_FLAG, NULL,
	  "stat --compare A.json B.json: deltas of two --json outputs, cycles -> IPC -> class" },
	CLI_OPT_OUTPUT("write to FILE (default: stdout)"),
	OPT_SPEC_VERBOSE("more diagnostics"),
	OPT_SPEC_QUIET("only warnings and errors"),
	OPT_SPEC_HELP,
};

const struct opt_cmd stat_cmd = {
	.name = "stat",
	.synopsis = "[options] [-- COMMAND [ARGS...]]",
	.about = "Count cycles, instructions, branches, branch-misses, cache and LLC misses and\n"
		 "the software events (task-clock, context switches, migrations, page faults,\n"
		 "cpu-clock); derive IPC, branch-miss %, LLC MPKI, the stall cost model and the\n"
		 "class Memory / Branch mispredict / Compute, and top-down level 1 where the CPU\n"
		 "has it. Counts are scaled by time_enabled / time_running; each line shows the\n"
		 "running fraction. Without a hardware PMU only software events are shown.\n",
	.footer = "Exit status: 0 ok, 1 runtime error, 2 usage error (bad option or value, a\n"
		  "-p target that does not exist); with COMMAND, its status (127: not executed).\n"
		  "With -r, the first run that fails stops the series with its status. --compare:\n"
		  "2 for a file that is not a stat --json output.\n"
		  "Without privileges (kernel.perf_event_paranoid <= 2, as perf stat): -p PID and\n"
		  "-- COMMAND count your own processes, user space only; -a and --per-process\n"
		  "need root, or CAP_BPF + CAP_PERFMON.\n",
	.opts = stat_opts_tab,
	.nr_opts = ARRAY_SIZE(stat_opts_tab),
	.stop_at_operand = true,
};

static int bad_value(const char *opt, const char *val, int err)
{
	pr_warn("stat: invalid value '%s' for %s: %s\n", val, opt, parse_strerror(err));
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

static int on_opt(void *ctx, const struct opt_spec *s, const struct opt_val *v)
{
	struct stat_opts *o = ctx;
	int err;

	switch (s->id) {
	case 'p':
		free(o->pids);
		o->pids = NULL;
		err = parse_id_list(v->str, 4194304, 4096, &o->pids, &o->nr_pids);
		return err ? opt__bad_value(&stat_cmd, s, v->str, err) : 0;
	case 'a':
		o->system_wide = true;
		break;
	case 'd':
		o->duration_ns = v->u;
		break;
	case 'I':
		o->interval_ns = v->u * 1000000ull;
		break;
	case OPT_TOP:
		o->top = v->u;
		break;
	case OPT_PENALTY:
		o->model.mispredict_penalty = v->d;
		break;
	case OPT_DRAM:
		o->model.dram_latency = v->d;
		break;
	case OPT_MLP:
		o->model.mlp = v->d;
		break;
	case 'e':
		return add_events(v->str, o);
	case OPT_MODE:
		if (drill_mode_parse(v->str, &o->drill_mode)) {
			pr_warn("stat: unknown --mode '%s' (cache, branches)\n", v->str);
			return EXIT_USAGE;
		}
		o->drill = true;
		break;
	case 'r':
		o->runs = (unsigned int)v->u;
		break;
	case 'o':
		o->output = v->str;
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
	}
	return 0;
}

/* 0 (*@first: the first operand), -1 after --help, or an exit status. */
static int parse_args(int argc, char **argv, struct stat_opts *o, int *first)
{
	int at, ret = opt__parse(&stat_cmd, argc, argv, on_opt, o, &at);

	if (ret)
		return ret;
	*first = at;
	if (o->compare)
		return at + 2 == argc ? 0 : (pr_warn("stat: --compare wants two files, "
							  "A.json B.json\n"), EXIT_USAGE);
	if (at < argc)
		o->cmd_argv = &argv[at];
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

/*
 * What this caller may count. The process table (-a, --per-process) is BPF:
 * root, or CAP_BPF + CAP_PERFMON. Counting processes (-p, -- CMD) is plain
 * perf events, as perf stat: without CAP_PERFMON, kernel.perf_event_paranoid
 * 2 (the kernel's default) allows the caller's own processes, user space
 * only; 3 and above (a distribution patch) nothing. 0 or EXIT_RUNTIME.
 */
static int stat_privileges(struct stat_opts *o)
{
	uint64_t eff;
	int paranoid;

	if (o->system_wide || o->per_process) {
		if (!cli_need_bpf())
			return 0;
		pr_warn("stat: without privileges, count your own processes instead: hotcold stat "
			"-- COMMAND, or -p PID (user space only)\n");
		return EXIT_RUNTIME;
	}
	if (caps__effective(&eff))
		return 0;	/* cannot tell: the kernel's error speaks */
	paranoid = caps__perf_paranoid();
	if (caps__mask_can_count_kernel(eff, paranoid))
		return 0;
	if (paranoid >= 3) {
		pr_warn("stat: kernel.perf_event_paranoid is %d: counting needs root or CAP_PERFMON "
			"(or, by root, sysctl kernel.perf_event_paranoid=2: your own processes, user "
			"space only)\n", paranoid);
		return EXIT_RUNTIME;
	}
	/* the kernel's rule is ptrace read access: another user's process says EACCES late */
	for (size_t i = 0; i < o->nr_pids; i++) {
		char path[32];
		struct stat sb;

		snprintf(path, sizeof(path), "/proc/%u", o->pids[i]);
		if (!stat(path, &sb) && sb.st_uid != geteuid()) {
			pr_warn("stat: pid %u is not your process: counting it needs root or "
				"CAP_PERFMON\n", o->pids[i]);
			return EXIT_RUNTIME;
		}
	}
	o->user_only = true;
	pr_info("stat: unprivileged (kernel.perf_event_paranoid=%d): your own processes, user "
		"space only (context switches and migrations happen in the kernel: 0)\n", paranoid);
	return 0;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = { .top = 20, .output = "-" };
	int ret, err, cmd_status, first;

	counters_model_default(&o.model);
	log_hook_libbpf();
	ret = parse_args(argc, argv, &o, &first);
	if (ret) {
		free(o.pids);
		return ret < 0 ? EXIT_OK : ret;
	}
	if (o.compare) {
		ret = stat_compare(&o, argv[first], argv[first + 1]);
		free(o.pids);
		return ret;
	}
	if (stat_privileges(&o)) {
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
