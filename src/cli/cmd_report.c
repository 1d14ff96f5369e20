// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `hotcold report`: folded profile -> analysis/report -> table or JSON on stdout. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/filter.h"
#include "analysis/report.h"
#include "cli/branches_input.h"
#include "cli/cmd.h"
#include "cli/input.h"
#include "util/compiler.h"
#include "util/log.h"

enum {
	OPT_GREP = 256,
	OPT_EXCLUDE,
	OPT_JSON,
	OPT_BRANCHES,
};

static const struct opt_spec report_opts[] = {
	{ .name = "top", 'n', 'n', OPTV_U64, "N", "rows per table (default 10; 0 = all)", 0, 1000000 },
	{ .name = "grep", 0, OPT_GREP, OPTV_STR, "REGEX",
	  "keep only stacks whose folded text matches (POSIX extended)" },
	{ .name = "exclude", 0, OPT_EXCLUDE, OPTV_STR, "REGEX",
	  "drop stacks whose folded text matches (after --grep)" },
	CLI_OPT_KIND_SPEC("kind to report: from the file's header (its first kind); for other "
			  "files oncpu (default, samples), offcpu, runq, lock (ns)"),
	{ .name = "json", 0, OPT_JSON, OPTV_FLAG, NULL, "one JSON object instead of tables" },
	{ .name = "branches", 0, OPT_BRANCHES, OPTV_FLAG, NULL,
	  "the mispredicted branch sites (source -> target, miss %) from FILE.branches, "
	  "written by record -b" },
	OPT_SPEC_VERBOSE("list malformed input lines"),
	OPT_SPEC_QUIET("only errors"),
	OPT_SPEC_HELP,
};

const struct opt_cmd report_cmd = {
	.name = "report",
	.synopsis = "[options] FILE",
	.about = "Summarize a folded profile (FILE, or - for stdin): top frames by self and\n"
		 "inclusive weight, the hottest frame, per-process totals, and notes when the\n"
		 "profile is flat or dominated by idle-looking frames. --branches: the\n"
		 "mispredicted branch sites recorded with record -b (FILE.branches).\n",
	.footer = "Exit status: 0 ok; 1 the input cannot be opened or read, or stdout\n"
		  "cannot be written; 2 usage error: a bad option or value, or an input\n"
		  "without one valid folded line (empty, binary, compressed); with\n"
		  "--branches, a profile without FILE.branches or a malformed one.\n",
	.opts = report_opts,
	.nr_opts = ARRAY_SIZE(report_opts),
	.operands = 1,
	.operands_help = "one input FILE (- for stdin)",
};

struct report_args {
	const char *input;
	const char *grep, *exclude;
	int kind;		/* CLI_KIND_UNSET, --kind, then the kind shown */
	uint64_t top_n;
	bool json;
	bool branches;
};

static int on_opt(void *ctx, const struct opt_spec *s, const struct opt_val *v)
{
	struct report_args *a = ctx;

	switch (s->id) {
	case 'n':
		a->top_n = v->u;
		break;
	case OPT_GREP:
		a->grep = v->str;
		break;
	case OPT_EXCLUDE:
		a->exclude = v->str;
		break;
	case CLI_OPT_KIND:
		return cli_parse_kind("report", v->str, &a->kind) ? EXIT_USAGE : 0;
	case OPT_JSON:
		a->json = true;
		break;
	case OPT_BRANCHES:
		a->branches = true;
		break;
	default:
		cli_log_opt(s->id);
	}
	return 0;
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

/* report --branches: the branch sites instead of the stacks. An exit status. */
static int run_branches(const struct report_args *a)
{
	struct branch_table t;
	int ret, err;

	if (a->grep || a->exclude || a->kind != CLI_KIND_UNSET) {
		pr_warn("report: --branches takes no --grep, --exclude or --kind\n");
		return EXIT_USAGE;
	}
	ret = cli_load_branches("report", a->input, false, &t);
	if (ret != EXIT_OK)
		return ret;
	branch_table_sort(&t);
	err = a->json ? branches_write_json(stdout, &t, a->top_n)
		      : branches_write_report(stdout, &t, a->top_n);
	if (!err && (fflush(stdout) == EOF || ferror(stdout)))
		err = -EIO;
	if (err)
		pr_warn("report: cannot write the report: %s\n", strerror(-err));
	branch_table_release(&t);
	return err ? EXIT_RUNTIME : EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { .kind = CLI_KIND_UNSET, .top_n = 10 };
	struct folded_read_stats st;
	struct profile *p = NULL;
	int ret, first;

	ret = cli_parse_opts(&report_cmd, argc, argv, on_opt, &a, &first);
	if (ret >= 0)
		return ret;
	a.input = argv[first];
	if (a.branches)
		return run_branches(&a);
	ret = cli_load_folded("report", a.input, &a.kind, &p, &st);
	if (ret == EXIT_OK)
		cli_note_other_kinds("report", p, a.kind);
	if (ret == EXIT_OK)
		ret = run(&a, p, &st);
	profile__free(p);
	return ret;
}
