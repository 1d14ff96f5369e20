// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* hotcold: argv -> subcommand. */
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "util/compiler.h"
#include "util/suggest.h"
#include "util/version.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const struct opt_cmd *opts;
	const char *help;
};

static const struct cmd cmds[] = {
	{ "record", cmd_record, &record_cmd,
	  "on-CPU samples, off-CPU time, run-queue waits by stack" },
	{ "locks", cmd_locks, &locks_cmd,
	  "the most contended locks: user futexes and kernel locks" },
	{ "runqlat", cmd_runqlat, &runqlat_cmd,
	  "run-queue (scheduler) latency histograms" },
	{ "stat", cmd_stat, &stat_cmd,
	  "counter snapshots: IPC, branch misses, LLC MPKI, what kind of slow" },
	{ "report", cmd_report, &report_cmd,
	  "top frames, hottest frame and per-process totals of a profile" },
	{ "flamegraph", cmd_flamegraph, &flamegraph_cmd,
	  "render a profile as an interactive SVG flame graph" },
	{ "annotate", cmd_annotate, &annotate_cmd,
	  "per source line and instruction: where in a function its samples fell" },
	{ "diff", cmd_diff, &diff_cmd,
	  "compare two profiles (table, differential flame graph)" },
	{ "convert", cmd_convert, &convert_cmd,
	  "convert a profile between folded and pprof" },
	{ "agent", cmd_agent, &agent_cmd,
	  "profile continuously into a history on disk, with a web view" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: hotcold [--version] [--help] <command> [<args>]\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\n'hotcold <command> --help' shows a command's options.\n"
		   "exit status: 0 ok, 1 runtime error, 2 usage error; with -- CMD, CMD's status\n");
}

/* The nearest command by edit distance, if close; not the whole usage. */
static int unknown_command(const char *name)
{
	const char *best = suggest__nearest(name, &cmds[0].name, ARRAY_SIZE(cmds), sizeof(cmds[0]));

	if (best)
		fprintf(stderr, "hotcold: unknown command '%s'; did you mean '%s'?\n", name, best);
	else
		fprintf(stderr, "hotcold: unknown command '%s'\n", name);
	fprintf(stderr, "'hotcold --help' lists the commands\n");
	return EXIT_USAGE;
}

/*
 * `hotcold __options CMD man|complete`: a command's option table as the
 * man page's OPTIONS entries or the completion's word lists (the build's
 * tools/gen-man.sh and gen-completion.sh read these; not for people).
 */
static int dump_options(int argc, char **argv)
{
	char why[128];

	for (size_t i = 0; argc == 4 && i < ARRAY_SIZE(cmds); i++) {
		if (strcmp(argv[2], cmds[i].name))
			continue;
		if (opt__validate(cmds[i].opts, why, sizeof(why))) {
			fprintf(stderr, "hotcold: %s's option table: %s\n", argv[2], why);
			return EXIT_RUNTIME;
		}
		if (!strcmp(argv[3], "man"))
			opt__man(cmds[i].opts, stdout);
		else if (!strcmp(argv[3], "complete"))
			opt__complete(cmds[i].opts, stdout);
		else
			break;
		return EXIT_OK;
	}
	fprintf(stderr, "usage: hotcold __options CMD man|complete\n");
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("hotcold %s\n", HOTCOLD_VERSION);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "__options"))
		return dump_options(argc, argv);
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	return unknown_command(argv[1]);
}
