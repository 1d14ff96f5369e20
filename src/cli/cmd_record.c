// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `hotcold record`: options -> record_opts -> record/session. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/run.h"
#include "pmu/sample_open.h"
#include "collect/opts.h"
#include "record/session.h"
#include "util/compiler.h"
#include "util/log.h"
#include "util/opt.h"

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
	OPT_UNWIND_ROWS,
	OPT_OFFCPU,
	OPT_ONCPU,
	OPT_MIN_BLOCK,
	OPT_BLOCK_QUANTUM,
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

#define US 1000ull

static const struct opt_spec record_opts_tab[] = {
	CLI_OPT_ALL("profile the whole system (default without -p, -t or a command)"),
	CLI_OPT_PID("profile these processes (all their threads); stops when all exit"),
	CLI_OPT_TID("profile these threads"),
	CLI_OPT_CGROUP_SPEC("processes in this cgroup v2 or below (path absolute or under the "
			    "mount)"),
	CLI_OPT_COMM_SPEC("processes named NAME, or NAME* for a prefix (with --cgroup: both "
			  "must match)"),
	{ .name = "off-cpu", 0, OPT_OFFCPU, OPTV_FLAG, NULL,
	  "record off-CPU time (blocked) by stack and reason; alone unless --on-cpu" },
	{ .name = "on-cpu", 0, OPT_ONCPU, OPTV_FLAG, NULL,
	  "with --off-cpu: both (a hot/cold profile; folded: every count in nanoseconds)" },
	{ .name = "min-block", 0, OPT_MIN_BLOCK, OPTV_DUR, "DUR",
	  "off-CPU blocks shorter than DUR (no unit: microseconds) carry no stack, only "
	  "per-thread time (default 50us)", .max = UINT64_MAX, .unit = US },
	{ .name = "block-quantum", 0, OPT_BLOCK_QUANTUM, OPTV_DUR, "DUR",
	  "of those shorter blocks, one carries its stack per DUR of a thread's time in them "
	  "(sampling proportional to time; no unit: microseconds; default 1ms)",
	  .min = 10000, .max = 1000000000, .unit = US },
	{ .name = "max-block", 0, OPT_MAX_BLOCK, OPTV_DUR, "DUR",
	  "ignore off-CPU blocks longer than DUR (no unit: microseconds)",
	  .max = UINT64_MAX, .unit = US },
	{ .name = "state", 0, OPT_STATE, OPTV_STR, "S,D,other",
	  "off-CPU task states to record (default S,D)" },
	{ .name = "kthreads", 0, OPT_KTHREADS, OPTV_FLAG, NULL, "off-CPU: include kernel threads" },
	{ .name = "wakers", 0, OPT_WAKERS, OPTV_FLAG, NULL,
	  "off-CPU: add who woke each long block (frames after '--', suffix _[w])" },
	{ .name = "locks", 0, OPT_LOCKS, OPTV_FLAG, NULL,
	  "record lock waits (futex + kernel locks) by stack, '[lock NAME]' frames, "
	  "nanoseconds" },
	{ .name = "counters", 0, OPT_COUNTERS, OPTV_FLAG, NULL,
	  "add a counter snapshot (IPC, ... or cpu-clock without a PMU) to the summary" },
	{ .name = "runq", 0, OPT_RUNQ, OPTV_FLAG, NULL,
	  "record run-queue waits after preemption by stack ([runq], nanoseconds)" },
	{ .name = "freq", 'F', 'F', OPTV_U64, "HZ",
	  "samples per second per CPU (default 99; odd avoids lockstep)", 1, 100000 },
	{ .name = "no-dither", 0, OPT_NO_DITHER, OPTV_FLAG, NULL,
	  "sample at a fixed period (can phase-lock with periodic work; for comparisons)" },
	{ .name = "event", 'e', 'e', OPTV_STR, "EVENT",
	  "sampling event (default: cycles, else cpu-clock): cpu-clock, task-clock, "
	  "page-faults, minor-faults, major-faults, context-switches, cpu-migrations, "
	  "cycles, instructions, branches, branch-misses, cache-references, cache-misses, "
	  "... or raw rNNNN (hex)" },
	{ .name = "branches", 'b', 'b', OPTV_FLAG, NULL,
	  "with each on-CPU sample its branch stack (Intel LBR, AMD Zen 4+, Arm BRBE; not "
	  "Arm SPE), to OUTPUT.branches: mispredicted branch sites for report --branches and "
	  "annotate; a hardware event (default -e cycles -c 10000019); exit 1 without one" },
	{ .name = "count", 'c', 'c', OPTV_U64, "PERIOD",
	  "with -e: one sample every PERIOD events (default: 1 for software events, 100003 "
	  "for hardware ones; clocks: -F)", 1, UINT64_C(1) << 62 },
	CLI_OPT_DURATION("stop after DUR (seconds, or with unit ms/s/m/h); default: Ctrl-C"),
	CLI_OPT_OUTPUT("output file (default hotcold.folded; - for stdout); .svg and .pb.gz "
		       "pick the format"),
	{ .name = "format", 0, OPT_FORMAT, OPTV_CHOICE, "FMT",
	  "output format (default: by the output's extension, else folded)",
	  .choices = "folded|pprof|svg" },
	{ .name = "user-only", 0, OPT_USER_ONLY, OPTV_FLAG, NULL, "user stacks only" },
	{ .name = "kernel-only", 0, OPT_KERNEL_ONLY, OPTV_FLAG, NULL, "kernel stacks only" },
	{ .name = "idle", 0, OPT_IDLE, OPTV_FLAG, NULL,
	  "include the idle task (swapper), system-wide only" },
	{ .name = "per-thread", 0, OPT_PER_THREAD, OPTV_FLAG, NULL,
	  "root frame is thread-name-TID instead of the process name" },
	{ .name = "per-pid", 0, OPT_PER_PID, OPTV_FLAG, NULL, "root frame is process-name-PID" },
	{ .name = "label", 0, OPT_LABEL, OPTV_CHOICE, "WHAT",
	  "root frame names a process by its comm (default) or cmdline (its command line or "
	  "process title, e.g. \"postgres: walwriter\")", .choices = "comm|cmdline" },
	CLI_OPT_UNWIND_SPEC,
	{ .name = "unwind-rows", 0, OPT_UNWIND_ROWS, OPTV_U64, "N",
	  "CFI rows kept in kernel memory, about 12 bytes each (default 4194304)",
	  1024, 1ull << 30 },
	{ .name = "no-demangle", 0, OPT_NO_DEMANGLE, OPTV_FLAG, NULL, "keep C++/Rust symbols mangled" },
	{ .name = "ring-mb", 0, OPT_RING_MB, OPTV_U64, "MB",
	  "event ring size, a power of two (default: 256 KiB per CPU, at least 1)", 1, 1024 },
	{ .name = "max-stacks", 0, OPT_MAX_STACKS, OPTV_U64, "N",
	  "distinct stacks kept in memory (default 1048576); the heaviest are kept, the rest "
	  "merged into [other stacks]", 1, 1ull << 28 },
	OPT_SPEC_VERBOSE("every counter (the full table), losses while recording; -vv: "
			 "libbpf's log"),
	OPT_SPEC_QUIET("only warnings and errors, no summary"),
	OPT_SPEC_HELP,
};

const struct opt_cmd record_cmd = {
	.name = "record",
	.synopsis = "[options] [-- COMMAND [ARGS...]]",
	.about = "Sample on-CPU stacks (kernel and user) and/or measure off-CPU time by stack\n"
		 "with BPF, and write folded stacks (a '# hotcold folded' header per kind;\n"
		 "on-CPU: samples; off-CPU, run queue, locks, or hot/cold: nanoseconds),\n"
		 "pprof (-o x.pb.gz) or an SVG flame graph (-o x.svg).\n",
	.footer = "With a COMMAND, it and its children are profiled until it exits, and\n"
		  "hotcold exits with its status. SIGINT/SIGTERM to hotcold stop recording,\n"
		  "end COMMAND (SIGTERM, SIGKILL 2 s later), write the profile and exit with\n"
		  "COMMAND's status (143 after SIGTERM, 137 if killed). Exit status otherwise:\n"
		  "0 ok, 1 runtime error, 2 usage error (bad option or value, a -p/-t target\n"
		  "that does not exist), 3 this kernel cannot run it (below Linux 5.17 with BTF,\n"
		  "ring buffer, task storage and bpf_loop, or a core program refused: the first\n"
		  "line says what). A part the kernel refuses (CFI walker, task work, wakers,\n"
		  "holders, branch records) is left out, said in one line, counted (-v).\n"
		  "-q: errors only; -v: every counter; -vv: libbpf's log.\n",
	.opts = record_opts_tab,
	.nr_opts = ARRAY_SIZE(record_opts_tab),
	.stop_at_operand = true,
};

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

struct record_ctx {
	struct record_opts *o;
	bool oncpu_asked;
};

static const enum out_format formats[] = { FORMAT_FOLDED, FORMAT_PPROF, FORMAT_SVG };

static int on_opt(void *ctx, const struct opt_spec *s, const struct opt_val *v)
{
	struct record_ctx *x = ctx;
	struct record_opts *o = x->o;
	int ret = cli_target_opt(&record_cmd, s, v, o);

	if (ret != CLI_OPT_OTHER)
		return ret;
	switch (s->id) {
	case 'F':
		o->freq_hz = v->u;
		break;
	case 'e':
		/* cycles/cpu-clock keep the frequency path with its fallback */
		o->sample_ev_set = pmu_event_parse(v->str, &o->event) != 0;
		if (pmu_sample_event_parse(v->str, &o->sample_ev)) {
			pr_warn("record: unknown event '%s' (see --help for the names; raw "
				"PMU events as rNNNN)\n", v->str);
			return EXIT_USAGE;
		}
		break;
	case 'c':
		o->sample_period = v->u;
		break;
	case 'b':
		o->branches = true;
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
		o->label_cmdline = v->choice == 1;
		break;
	case OPT_UNWIND_ROWS:
		o->unwind_max_rows = v->u;
		break;
	case OPT_OFFCPU:
		o->offcpu = true;
		break;
	case OPT_ONCPU:
		x->oncpu_asked = true;
		break;
	case OPT_MIN_BLOCK:
		o->min_block_ns = v->u;
		break;
	case OPT_BLOCK_QUANTUM:
		o->block_quantum_ns = v->u;
		break;
	case OPT_MAX_BLOCK:
		o->max_block_ns = v->u;
		break;
	case OPT_STATE:
		if (parse_states(v->str, &o->offcpu_states))
			return opt__bad_value(&record_cmd, s, v->str, -EINVAL);
		break;
	case OPT_KTHREADS:
		o->kthreads = true;
		break;
	case OPT_FORMAT:
		o->format = formats[v->choice];
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
		if (v->u & (v->u - 1))
			return opt__bad_value(&record_cmd, s, v->str, -EINVAL);
		o->ring_bytes = (size_t)v->u << 20;
		break;
	case OPT_MAX_STACKS:
		o->max_stacks = v->u;
		break;
	}
	return 0;
}

/*
 * -b: branch stacks come with samples of a hardware event only; cycles
 * unless -e names another. Checked here (exit 2); whether the PMU has a
 * branch stack is known when the events open (exit 1).
 */
static int branches_args(struct record_opts *o, bool oncpu_asked)
{
	if (o->event == PMU_EV_CPU_CLOCK || (o->sample_ev_set && !o->sample_ev.hardware)) {
		pr_warn("record: -b needs a hardware event (cycles, instructions, branch-misses, "
			"rNNNN); '%s' is a software event, without branch records\n",
			o->sample_ev.name);
		return EXIT_USAGE;
	}
	if ((o->offcpu || o->runq || o->locks) && !oncpu_asked) {
		pr_warn("record: -b takes branch stacks with on-CPU samples: add --on-cpu\n");
		return EXIT_USAGE;
	}
	if (!strcmp(o->output, "-")) {
		pr_warn("record: -b writes OUTPUT.branches next to the profile: give -o FILE, "
			"not stdout\n");
		return EXIT_USAGE;
	}
	if (!o->sample_ev_set && pmu_sample_event_parse("cycles", &o->sample_ev))
		return EXIT_FAILURE;
	o->sample_ev_set = true;
	if (!o->sample_period)
		o->sample_period = PMU_BRANCH_DEFAULT_PERIOD;
	return 0;
}

static int parse_args(int argc, char **argv, struct record_opts *o)
{
	struct record_ctx x = { .o = o };
	int first, ret;

	ret = opt__parse(&record_cmd, argc, argv, on_opt, &x, &first);
	if (ret)
		return ret;
	if (first < argc)
		o->cmd_argv = &argv[first];
	if (o->sample_period && !o->sample_ev_set) {
		if (o->event == PMU_EV_AUTO) {
			pr_warn("record: -c PERIOD needs -e EVENT (what to count)\n");
			return EXIT_USAGE;
		}
		o->sample_ev_set = true;	/* -e cycles/cpu-clock -c N: period sampling */
	}
	if (o->branches) {
		ret = branches_args(o, x.oncpu_asked);
		if (ret)
			return ret;
	}
	if (o->sample_ev_set && !o->sample_period)
		o->sample_period = pmu_sample_default_period(&o->sample_ev);
	/* --off-cpu / --runq alone record only that; add --on-cpu for both */
	o->oncpu = !(o->offcpu || o->runq || o->locks) || x.oncpu_asked;
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;

	record_opts_init(&o);
	return cli_record_main(argc, argv, &o, parse_args, "record");
}
