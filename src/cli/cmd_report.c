// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `hotcold report`: folded profile -> analysis/report -> table or JSON on stdout. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/filter.h"
#include "analysis/report.h"
#include "cli/cmd.h"
#include "cli/input.h"
#include "cli/parse.h"
#include "util/compiler.h"
#include "util/log.h"
#include "util/suggest.h"

enum {
	OPT_GREP = 256,
	OPT_EXCLUDE,
	OPT_JSON,
	OPT_KIND,
};

static const struct cli_opt opts[] = {
	{ { "top", required_argument, NULL, 'n' }, 'n', "N",
	  "rows per table (default 10; 0 = all)" },
	{ { "grep", required_argument, NULL, OPT_GREP }, 0, "REGEX",
	  "keep only stacks whose folded text matches (POSIX extended)" },
	{ { "exclude", required_argument, NULL, OPT_EXCLUDE }, 0, "REGEX",
	  "drop stacks whose folded text matches (after --grep)" },
	{ { "kind", required_argument, NULL, OPT_KIND }, 0, "KIND",
	  "kind to report: from the file's header (its first kind); for other files "
	  "oncpu (default, samples), offcpu, runq, lock (ns)" },
	{ { "json", no_argument, NULL, OPT_JSON }, 0, NULL, "one JSON object instead of tables" },
	{ { "verbose", no_argument, NULL, 'v' }, 'v', NULL, "list malformed input lines" },
	{ { "quiet", no_argument, NULL, 'q' }, 'q', NULL, "only errors" },
	{ { "help", no_argument, NULL, 'h' }, 'h', NULL, "show this help" },
};

struct report_args {
	const char *input;
	const char *grep, *exclude;
	int kind;		/* CLI_KIND_UNSET, --kind, then the kind shown */
	uint64_t top_n;
	bool json;
};

static void report_usage(FILE *f)
{
	fprintf(f, "usage: hotcold report [options] FILE\n\n"
		   "Summarize a folded profile (FILE, or - for stdin): top frames by self and\n"
		   "inclusive weight, the hottest frame, per-process totals, and notes when the\n"
		   "profile is flat or dominated by idle-looking frames.\n\n");
	cli_print_options(f, opts, ARRAY_SIZE(opts));
	fprintf(f, "\nExit status: 0 ok; 1 the input cannot be opened or read, or stdout\n"
		   "cannot be written; 2 usage error: a bad option or value, or an input\n"
		   "without one valid folded line (empty, binary, compressed).\n");
}

/* 0 to go on, else an exit status (EXIT_OK after --help). */
static int parse_args(int argc, char **argv, struct report_args *a)
{
	struct option longopts[ARRAY_SIZE(opts) + 1];
	int c;

	cli_longopts(opts, ARRAY_SIZE(opts), longopts);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:vqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (parse_u64(optarg, 0, 1000000, &a->top_n)) {
				pr_warn("report: invalid value '%s' for -n\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_GREP:
			a->grep = optarg;
			break;
		case OPT_EXCLUDE:
			a->exclude = optarg;
			break;
		case OPT_KIND:
			if (cli_parse_kind("report", optarg, &a->kind))
				return EXIT_USAGE;
			break;
		case OPT_JSON:
			a->json = true;
			break;
		case 'v':
			log_set_level(LOG_DEBUG);
			break;
		case 'q':
			log_set_level(LOG_WARN);
			break;
		case 'h':
			report_usage(stdout);
			return EXIT_OK;
		case ':':
			pr_warn("report: option '%s' needs a value\n", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			suggest__unknown_option("report", argv[optind - 1], longopts);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		pr_warn("report: %s\n", optind < argc ? "exactly one input file"
							: "missing input FILE (- for stdin)");
		report_usage(stderr);
		return EXIT_USAGE;
	}
	a->input = argv[optind];
	return -1;
}

/* Apply the filters (if any), then write the report. An exit status. */
static int run(const struct report_args *a, struct profile *p,
	       const struct folded_read_stats *st)
{
	struct report_opts o = { .kind = a->kind, .top_n = a->top_n, .source = a->input,
				 .input = st };
	struct stack_filter filt;
	struct profile *shown = p;
	struct report *r = NULL;
	int err;

	if (stack_filter__init(&filt, a->grep, a->exclude))
		return EXIT_USAGE;
	if (stack_filter__active(&filt)) {
		err = stack_filter__apply(&filt, p, &shown);
		if (err)
			goto fail;
		o.unfiltered_total = profile__total(p, a->kind);
	}
	err = report__new(shown, &o, &r);
	if (!err)
		err = a->json ? report__write_json(r, stdout) : report__write_text(r, stdout);
	if (!err && (fflush(stdout) == EOF || ferror(stdout)))
		err = -EIO;
fail:
	if (err)
		pr_warn("report: cannot write the report: %s\n", strerror(-err));
	report__free(r);
	if (shown != p)
		profile__free(shown);
	stack_filter__release(&filt);
	return err ? EXIT_RUNTIME : EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { .kind = CLI_KIND_UNSET, .top_n = 10 };
	struct folded_read_stats st;
	struct profile *p = NULL;
	int ret;

	optind = 1;
	ret = parse_args(argc, argv, &a);
	if (ret >= 0)
		return ret;
	ret = cli_load_folded("report", a.input, &a.kind, &p, &st);
	if (ret == EXIT_OK)
		cli_note_other_kinds("report", p, a.kind);
	if (ret == EXIT_OK)
		ret = run(&a, p, &st);
	profile__free(p);
	return ret;
}
