// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `hotcold record`: options -> record_opts -> record/session. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/parse.h"
#include "cli/run.h"
#include "pmu/sample_open.h"
#include "record/opts.h"
#include "record/session.h"
#include "util/compiler.h"
#include "util/log.h"
#include "util/suggest.h"

enum {
	OPT_USER_ONLY = 256,
	OPT_KERNEL_ONLY,
	OPT_IDLE,
	OPT_PER_THREAD,
	OPT_PER_PID,
	OPT_LABEL,
	OPT_NO_DEMANGLE,
	OPT_RING_MB,
	OPT_MAX_STACKS,
	OPT_UNWIND,
	OPT_UNWIND_ROWS,
	OPT_OFFCPU,
	OPT_ONCPU,
	OPT_MIN_BLOCK,
	OPT_MAX_BLOCK,
	OPT_STATE,
	OPT_KTHREADS,
	OPT_RUNQ,
	OPT_WAKERS,
	OPT_LOCKS,
	OPT_COUNTERS,
	OPT_FORMAT,
	OPT_NO_DITHER,
};

struct opt_doc {
	struct option opt;
	int short_name;
	const char *arg;
	const char *help;
};

static const struct opt_doc docs[] = {
	{ { "all-cpus", no_argument, NULL, 'a' }, 'a', NULL,
	  "profile the whole system (default without -p, -t or a command)" },
	{ { "pid", required_argument, NULL, 'p' }, 'p', "PID[,PID...]",
	  "profile these processes (all their threads); stops when all exit" },
	{ { "tid", required_argument, NULL, 't' }, 't', "TID[,TID...]", "profile these threads" },
	{ { "cgroup", required_argument, NULL, CLI_OPT_CGROUP }, 0, "PATH",
	  "processes in this cgroup v2 or below (path absolute or under the mount)" },
	{ { "comm", required_argument, NULL, CLI_OPT_COMM }, 0, "NAME",
	  "processes named NAME, or NAME* for a prefix (with --cgroup: both must match)" },
	{ { "off-cpu", no_argument, NULL, OPT_OFFCPU }, 0, NULL,
	  "record off-CPU time (blocked) by stack and reason; alone unless --on-cpu" },
	{ { "on-cpu", no_argument, NULL, OPT_ONCPU }, 0, NULL,
	  "with --off-cpu: both (a hot/cold profile; folded: every count in nanoseconds)" },
	{ { "min-block", required_argument, NULL, OPT_MIN_BLOCK }, 0, "US",
	  "off-CPU blocks shorter than US carry no stack, only per-thread time (default 50)" },
	{ { "max-block", required_argument, NULL, OPT_MAX_BLOCK }, 0, "US",
	  "ignore off-CPU blocks longer than US" },
	{ { "state", required_argument, NULL, OPT_STATE }, 0, "S,D,other",
	  "off-CPU task states to record (default S,D)" },
	{ { "kthreads", no_argument, NULL, OPT_KTHREADS }, 0, NULL,
	  "off-CPU: include kernel threads" },
	{ { "wakers", no_argument, NULL, OPT_WAKERS }, 0, NULL,
	  "off-CPU: add who woke each long block (frames after '--', suffix _[w])" },
	{ { "locks", no_argument, NULL, OPT_LOCKS }, 0, NULL,
	  "record lock waits (futex + kernel locks) by stack, '[lock NAME]' frames, nanoseconds" },
	{ { "counters", no_argument, NULL, OPT_COUNTERS }, 0, NULL,
	  "add a counter snapshot (IPC, ... or cpu-clock without a PMU) to the summary" },
	{ { "runq", no_argument, NULL, OPT_RUNQ }, 0, NULL,
	  "record run-queue waits after preemption by stack ([runq], nanoseconds)" },
	{ { "freq", required_argument, NULL, 'F' }, 'F', "HZ",
	  "samples per second per CPU (default 99; odd avoids lockstep)" },
	{ { "no-dither", no_argument, NULL, OPT_NO_DITHER }, 0, NULL,
	  "sample at a fixed period (can phase-lock with periodic work; for comparisons)" },
	{ { "event", required_argument, NULL, 'e' }, 'e', "EVENT",
	  "sampling event (default: cycles, else cpu-clock): cpu-clock, task-clock, page-faults, "
	  "minor-faults, major-faults, context-switches, cpu-migrations, cycles, instructions, "
	  "branches, branch-misses, cache-references, cache-misses, ... or raw rNNNN (hex)" },
	{ { "count", required_argument, NULL, 'c' }, 'c', "PERIOD",
	  "with -e: one sample every PERIOD events (default: 1 for software events, 100003 "
	  "for hardware ones; clocks: -F)" },
	{ { "duration", required_argument, NULL, 'd' }, 'd', "DUR",
	  "stop after DUR (seconds, or with unit ms/s/m/h); default: Ctrl-C" },
	{ { "output", required_argument, NULL, 'o' }, 'o', "FILE",
	  "output file (default hotcold.folded; - for stdout); .svg and .pb.gz pick the format" },
	{ { "format", required_argument, NULL, OPT_FORMAT }, 0, "FMT",
	  "folded | pprof | svg (default: by the output's extension, else folded)" },
	{ { "user-only", no_argument, NULL, OPT_USER_ONLY }, 0, NULL, "user stacks only" },
	{ { "kernel-only", no_argument, NULL, OPT_KERNEL_ONLY }, 0, NULL, "kernel stacks only" },
	{ { "idle", no_argument, NULL, OPT_IDLE }, 0, NULL,
	  "include the idle task (swapper), system-wide only" },
	{ { "per-thread", no_argument, NULL, OPT_PER_THREAD }, 0, NULL,
	  "root frame is thread-name-TID instead of the process name" },
	{ { "per-pid", no_argument, NULL, OPT_PER_PID }, 0, NULL,
	  "root frame is process-name-PID" },
	{ { "label", required_argument, NULL, OPT_LABEL }, 0, "WHAT",
	  "root frame names a process by: comm (default) | cmdline (its command line or "
	  "process title, e.g. \"postgres: walwriter\")" },
	{ { "unwind", required_argument, NULL, OPT_UNWIND }, 0, "MODE",
	  "user stacks: auto (CFI tables where built, else frame pointers), fp, cfi" },
	{ { "unwind-rows", required_argument, NULL, OPT_UNWIND_ROWS }, 0, "N",
	  "CFI rows kept in kernel memory, about 12 bytes each (default 4194304)" },
	{ { "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE }, 0, NULL,
	  "keep C++/Rust symbols mangled" },
	{ { "ring-mb", required_argument, NULL, OPT_RING_MB }, 0, "MB",
	  "event ring size, a power of two (default: 256 KiB per CPU, at least 1)" },
	{ { "max-stacks", required_argument, NULL, OPT_MAX_STACKS }, 0, "N",
	  "distinct stacks kept in memory (default 1048576); the heaviest are kept, the rest "
	  "merged into [other stacks]" },
	{ { "verbose", no_argument, NULL, 'v' }, 'v', NULL,
	  "every counter (the full table), losses while recording; -vv: libbpf's log" },
	{ { "quiet", no_argument, NULL, 'q' }, 'q', NULL, "only warnings and errors, no summary" },
	{ { "help", no_argument, NULL, 'h' }, 'h', NULL, "show this help" },
};

static void record_usage(FILE *f)
{
	char left[64];

	fprintf(f, "usage: hotcold record [options] [-- COMMAND [ARGS...]]\n\n"
		   "Sample on-CPU stacks (kernel and user) and/or measure off-CPU time by stack\n"
		   "with BPF, and write folded stacks (a '# hotcold folded' header per kind;\n"
		   "on-CPU: samples; off-CPU, run queue, locks, or hot/cold: nanoseconds),\n"
		   "pprof (-o x.pb.gz) or an SVG flame graph (-o x.svg).\n\n");
	for (size_t i = 0; i < ARRAY_SIZE(docs); i++) {
		const struct opt_doc *d = &docs[i];

		if (d->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", d->short_name, d->opt.name,
				 d->arg ? " " : "", d->arg ? d->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", d->opt.name,
				 d->arg ? " " : "", d->arg ? d->arg : "");
		fprintf(f, "  %-28s %s\n", left, d->help);
	}
	fprintf(f, "\nWith a COMMAND, it and its children are profiled until it exits, and\n"
		   "hotcold exits with its status. SIGINT/SIGTERM to hotcold stop recording,\n"
		   "end COMMAND (SIGTERM, SIGKILL 2 s later), write the profile and exit with\n"
		   "COMMAND's status (143 after SIGTERM, 137 if killed). Exit status otherwise:\n"
		   "0 ok, 1 runtime error, 2 usage error (bad option or value, a -p/-t target\n"
		   "that does not exist). -q: errors only; -v: every counter; -vv: libbpf's log.\n");
}

static int bad_value(const char *opt, const char *val, int err)
{
	pr_warn("record: invalid value '%s' for %s: %s\n", val, opt,
		parse_strerror(err));
	return EXIT_USAGE;
}

/* "S,D,other" -> state bits (1 S, 2 D, 4 other). */
static int parse_states(const char *arg, unsigned int *out)
{
	char *dup = strdup(arg), *tok, *save = NULL;
	unsigned int bits = 0;
	int err = 0;

	if (!dup)
		return -ENOMEM;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "S"))
			bits |= 0x1;
		else if (!strcmp(tok, "D"))
			bits |= 0x2;
		else if (!strcmp(tok, "other"))
			bits |= 0x4;
		else
			err = -EINVAL;
	}
	free(dup);
	if (!err && !bits)
		err = -EINVAL;
	if (!err)
		*out = bits;
	return err;
}

static int parse_args(int argc, char **argv, struct record_opts *o)
{
	struct option longopts[ARRAY_SIZE(docs) + 1];
	bool oncpu_asked = false;
	uint64_t v;
	int c, err, ret;

	for (size_t i = 0; i < ARRAY_SIZE(docs); i++)
		longopts[i] = docs[i].opt;
	memset(&longopts[ARRAY_SIZE(docs)], 0, sizeof(longopts[0]));
	opterr = 0;
	/* '+': stop at the first non-option, which starts the command */
	while ((c = getopt_long(argc, argv, "+:ap:t:F:e:c:d:o:vqh", longopts, NULL)) != -1) {
		ret = cli_target_opt(c, optarg, o, "record");
		if (ret == EXIT_USAGE)
			return ret;
		if (ret == CLI_OPT_DONE)
			continue;
		switch (c) {
		case 'F':
			err = parse_u64(optarg, 1, 100000, &o->freq_hz);
			if (err)
				return bad_value("-F", optarg, err);
			break;
		case 'e':
			/* cycles/cpu-clock keep the frequency path with its fallback */
			o->sample_ev_set = pmu_event_parse(optarg, &o->event) != 0;
			if (pmu_sample_event_parse(optarg, &o->sample_ev)) {
				pr_warn("record: unknown event '%s' (see --help for the names; raw "
					"PMU events as rNNNN)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'c':
			err = parse_u64(optarg, 1, UINT64_C(1) << 62, &o->sample_period);
			if (err)
				return bad_value("-c", optarg, err);
			break;
		case OPT_USER_ONLY:
			o->kernel_stacks = false;
			break;
		case OPT_KERNEL_ONLY:
			o->user_stacks = false;
			break;
		case OPT_NO_DITHER:
			o->no_dither = true;
			break;
		case OPT_IDLE:
			o->idle = true;
			break;
		case OPT_PER_THREAD:
			o->root = ROOT_THREAD;
			break;
		case OPT_PER_PID:
			o->root = ROOT_PID;
			break;
		case OPT_LABEL:
			if (record_opts_parse_label(optarg, &o->label_cmdline))
				return bad_value("--label", optarg, -EINVAL);
			break;
		case OPT_UNWIND:
			if (!strcmp(optarg, "auto"))
				o->unwind = UNWIND_AUTO;
			else if (!strcmp(optarg, "fp"))
				o->unwind = UNWIND_FP;
			else if (!strcmp(optarg, "cfi"))
				o->unwind = UNWIND_CFI;
			else
				return bad_value("--unwind", optarg, -EINVAL);
			break;
		case OPT_UNWIND_ROWS:
			err = parse_u64(optarg, 1024, 1ull << 30, &v);
			if (err)
				return bad_value("--unwind-rows", optarg, err);
			o->unwind_max_rows = v;
			break;
		case OPT_OFFCPU:
			o->offcpu = true;
			break;
		case OPT_ONCPU:
			oncpu_asked = true;
			break;
		case OPT_MIN_BLOCK:
		case OPT_MAX_BLOCK:
			err = parse_u64(optarg, 0, UINT64_MAX / 1000, &v);
			if (err)
				return bad_value(c == OPT_MIN_BLOCK ? "--min-block" : "--max-block",
						 optarg, err);
			*(c == OPT_MIN_BLOCK ? &o->min_block_ns : &o->max_block_ns) = v * 1000;
			break;
		case OPT_STATE:
			err = parse_states(optarg, &o->offcpu_states);
			if (err)
				return bad_value("--state", optarg, err);
			break;
		case OPT_KTHREADS:
			o->kthreads = true;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "folded"))
				o->format = FORMAT_FOLDED;
			else if (!strcmp(optarg, "pprof"))
				o->format = FORMAT_PPROF;
			else if (!strcmp(optarg, "svg"))
				o->format = FORMAT_SVG;
			else
				return bad_value("--format", optarg, -EINVAL);
			break;
		case OPT_LOCKS:
			o->locks = true;
			break;
		case OPT_WAKERS:
			o->wakers = true;
			break;
		case OPT_COUNTERS:
			o->counters = true;
			break;
		case OPT_RUNQ:
			o->runq = true;
			o->min_runq_ns = 0;	/* every preemption wait carries its stack */
			break;
		case OPT_NO_DEMANGLE:
			o->no_demangle = true;
			break;
		case OPT_RING_MB:
			err = parse_u64(optarg, 1, 1024, &v);
			if (err)
				return bad_value("--ring-mb", optarg, err);
			if (v & (v - 1))
				return bad_value("--ring-mb", optarg, -EINVAL);
			o->ring_bytes = (size_t)v << 20;
			break;
		case OPT_MAX_STACKS:
			err = parse_u64(optarg, 1, 1ull << 28, &v);
			if (err)
				return bad_value("--max-stacks", optarg, err);
			o->max_stacks = v;
			break;
		case 'h':
			record_usage(stdout);
			return -1;
		case ':':
			pr_warn("record: option '%s' needs a value\n", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			suggest__unknown_option("record", argv[optind - 1], longopts);
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		o->cmd_argv = &argv[optind];
	if (o->sample_period && !o->sample_ev_set) {
		if (o->event == PMU_EV_AUTO) {
			pr_warn("record: -c PERIOD needs -e EVENT (what to count)\n");
			return EXIT_USAGE;
		}
		o->sample_ev_set = true;	/* -e cycles/cpu-clock -c N: period sampling */
	}
	if (o->sample_ev_set && !o->sample_period)
		o->sample_period = pmu_sample_default_period(&o->sample_ev);
	/* --off-cpu / --runq alone record only that; add --on-cpu for both */
	o->oncpu = !(o->offcpu || o->runq || o->locks) || oncpu_asked;
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;

	record_opts_init(&o);
	return cli_record_main(argc, argv, &o, parse_args, "record");
}
