// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `hotcold diff A B`: two folded profiles -> analysis/diff -> table, differential folded. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diff.h"
#include "cli/cmd.h"
#include "cli/input.h"
#include "output/outfile.h"
#include "output/svg.h"
#include "util/compiler.h"
#include "util/log.h"

#define OPT_RAW 256

static const struct opt_spec diff_opts[] = {
	{ .name = "output", 'o', 'o', OPTV_PATH, "FILE",
	  "also write the differential: *.folded (difffolded.pl format; - for stdout)" },
	{ .name = "top", 'n', 'n', OPTV_U64, "N", "rows in the table (default 20; 0 = all)", 0, 1000000 },
	{ .name = "raw", 0, OPT_RAW, OPTV_FLAG, NULL,
	  "-o: keep A's counts as recorded (default: scaled to B's total, difffolded.pl -n)" },
	CLI_OPT_KIND_SPEC("what the counts measure: oncpu (default), offcpu, runq, lock"),
	OPT_SPEC_VERBOSE("list malformed input lines"),
	OPT_SPEC_QUIET("only errors"),
	OPT_SPEC_HELP,
};

const struct opt_cmd diff_cmd = {
	.name = "diff",
	.synopsis = "[options] A B",
	.about = "Compare two folded profiles (A before, B after; - for stdin in one of them).\n"
		 "Each frame's self time is taken as a share of its profile's total, and the\n"
		 "biggest changes in percentage points are listed on stdout.\n",
	.footer = "The -o file has one line per stack, 'frames countA countB', as FlameGraph's\n"
		  "difffolded.pl writes: flamegraph.pl colours it red (grew) and blue (shrank).\n"
		  "Exit status: 0 ok; 1 an input cannot be read or the output cannot be\n"
		  "written; 2 usage error, including an input without one valid folded line.\n",
	.opts = diff_opts,
	.nr_opts = ARRAY_SIZE(diff_opts),
	.operands = 2,
	.operands_help = "two inputs A and B (at most one of them -)",
};

struct diff_args {
	const char *a, *b, *output;
	uint64_t top_n;
	bool raw;
	int kind;		/* CLI_KIND_UNSET, --kind, then both files' kind */
};

static int on_opt(void *ctx, const struct opt_spec *s, const struct opt_val *v)
{
	struct diff_args *a = ctx;

	switch (s->id) {
	case 'o':
		a->output = v->str;
		break;
	case 'n':
		a->top_n = v->u;
		break;
	case OPT_RAW:
		a->raw = true;
		break;
	case CLI_OPT_KIND:
		return cli_parse_kind("diff", v->str, &a->kind) ? EXIT_USAGE : 0;
	default:
		cli_log_opt(s->id);
	}
	return 0;
}

/* -1 to go on, else an exit status (EXIT_OK after --help). */
static int parse_args(int argc, char **argv, struct diff_args *a)
{
	int first, ret = cli_parse_opts(&diff_cmd, argc, argv, on_opt, a, &first);

	if (ret >= 0)
		return ret;
	if (!strcmp(argv[first], "-") && !strcmp(argv[first + 1], "-")) {
		pr_warn("diff: stdin (-) can be one input, not both\n");
		return EXIT_USAGE;
	}
	a->a = argv[first];
	a->b = argv[first + 1];
	return -1;
}

/* The differential file, by extension; the SVG renderer plugs in here. An exit status. */
static int write_output(const struct diff_args *a, const struct diff *d)
{
	size_t n = strlen(a->output);
	bool svg = n >= 4 && !strcmp(a->output + n - 4, ".svg");
	struct svg_opts so;
	struct outfile of;
	int err;

	if (strcmp(a->output, "-") && !svg && (n < 7 || strcmp(a->output + n - 7, ".folded"))) {
		pr_warn("diff: cannot tell the format of '%s': use a .folded or .svg name (or -)\n",
			a->output);
		return EXIT_USAGE;
	}
	err = outfile_open(&of, a->output, 0644);
	if (!err && svg) {
		/* a differential flame graph: sized by B, red = grew, blue = shrank */
		svg_opts_init(&so);
		err = svg_write_diff_of(d, a->kind, &so, of.f);
		if (err)
			outfile_discard(&of);
		else
			err = outfile_commit(&of);
	} else if (!err) {
		err = diff__write_folded(d, of.f, !a->raw);
		if (err)
			outfile_discard(&of);
		else
			err = outfile_commit(&of);
	}
	if (err) {
		pr_warn("diff: cannot write '%s': %s\n", a->output, strerror(-err));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

static int run(const struct diff_args *a, const struct profile *pa, const struct profile *pb)
{
	struct diff *d = NULL;
	int err, ret = EXIT_OK;

	err = diff__new(pa, pb, a->kind, &d);
	if (err) {
		pr_warn("diff: %s\n", strerror(-err));
		return EXIT_RUNTIME;
	}
	/* with -o -, stdout holds the differential alone: the table would corrupt it */
	if (!a->output || strcmp(a->output, "-")) {
		err = diff__write_text(d, stdout, a->top_n, a->a, a->b);
		if (!err && (fflush(stdout) == EOF || ferror(stdout)))
			err = -EIO;
		if (err) {
			pr_warn("diff: cannot write the table: %s\n", strerror(-err));
			ret = EXIT_RUNTIME;
		}
	}
	if (ret == EXIT_OK && a->output)
		ret = write_output(a, d);
	diff__free(d);
	return ret;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_args a = { .top_n = 20, .kind = CLI_KIND_UNSET };
	struct profile *pa = NULL, *pb = NULL;
	int ret;

	ret = parse_args(argc, argv, &a);
	if (ret >= 0)
		return ret;
	ret = cli_load_folded("diff", a.a, &a.kind, &pa, NULL);
	if (ret == EXIT_OK)
		ret = cli_load_folded("diff", a.b, &a.kind, &pb, NULL);
	if (ret == EXIT_OK)
		ret = run(&a, pa, pb);
	profile__free(pa);
	profile__free(pb);
	return ret;
}
