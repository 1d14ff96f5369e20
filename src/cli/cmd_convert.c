// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `hotcold convert IN -o OUT`: folded -> pprof (gzip'd profile.proto) or folded. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/input.h"
#include "output/folded.h"
#include "output/outfile.h"
#include "output/pprof.h"
#include "util/compiler.h"
#include "util/log.h"

/* 99 Hz, the record default: the period of one on-CPU sample */
#define CONVERT_DEFAULT_PERIOD_NS (1000000000ull / 99)

enum {
	OPT_FORMAT = 256,
	OPT_PERIOD,
};

enum convert_format {
	FORMAT_AUTO,
	FORMAT_PPROF,
	FORMAT_FOLDED,
};

static const struct opt_spec convert_opts[] = {
	{ .name = "output", 'o', 'o', OPTV_PATH, "FILE", "output file (- for stdout)" },
	{ .name = "format", 0, OPT_FORMAT, OPTV_CHOICE, "FMT",
	  "default: by extension, .pb.gz/.pprof/.pb -> pprof, .folded -> folded",
	  .choices = "pprof|folded" },
	{ .name = "period-ns", 0, OPT_PERIOD, OPTV_U64, "NS",
	  "CPU time of one on-CPU sample (default: the file's header, else 10101010 = 99 Hz)",
	  1, 3600ull * 1000000000ull },
	CLI_OPT_KIND_SPEC("for files without a hotcold header: oncpu (samples, default), "
			  "offcpu, runq, lock (ns)"),
	OPT_SPEC_VERBOSE("list malformed input lines"),
	OPT_SPEC_QUIET("only errors"),
	OPT_SPEC_HELP,
};

const struct opt_cmd convert_cmd = {
	.name = "convert",
	.synopsis = "[options] IN -o OUT",
	.about = "Convert a folded profile (IN, or - for stdin) to pprof, the gzip-compressed\n"
		 "profile.proto that `go tool pprof` reads, or to normalized folded text.\n",
	.footer = "Exit status: 0 ok; 1 IN cannot be read or OUT cannot be written; 2 usage\n"
		  "error, including an input without one valid folded line.\n",
	.opts = convert_opts,
	.nr_opts = ARRAY_SIZE(convert_opts),
	.operands = 1,
	.operands_help = "one input IN (- for stdin)",
};

struct convert_args {
	const char *input, *output;
	enum convert_format format;
	uint64_t period_ns;	/* 0: from the file's header, else the default */
	int kind;		/* CLI_KIND_UNSET or --kind */
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static enum convert_format format_of(const char *path)
{
	if (ends_with(path, ".pb.gz") || ends_with(path, ".pprof") || ends_with(path, ".pb"))
		return FORMAT_PPROF;
	if (ends_with(path, ".folded"))
		return FORMAT_FOLDED;
	return FORMAT_AUTO;
}

static int on_opt(void *ctx, const struct opt_spec *s, const struct opt_val *v)
{
	struct convert_args *a = ctx;

	switch (s->id) {
	case 'o':
		a->output = v->str;
		break;
	case OPT_FORMAT:
		a->format = v->choice == 0 ? FORMAT_PPROF : FORMAT_FOLDED;
		break;
	case OPT_PERIOD:
		a->period_ns = v->u;
		break;
	case CLI_OPT_KIND:
		return cli_parse_kind("convert", v->str, &a->kind) ? EXIT_USAGE : 0;
	default:
		cli_log_opt(s->id);
	}
	return 0;
}

/* -1 to go on, else an exit status (EXIT_OK after --help). */
static int parse_args(int argc, char **argv, struct convert_args *a)
{
	int first, ret = cli_parse_opts(&convert_cmd, argc, argv, on_opt, a, &first);

	if (ret >= 0)
		return ret;
	if (!a->output) {
		pr_warn("convert: needs -o OUT: usage: hotcold convert %s\n", convert_cmd.synopsis);
		return EXIT_USAGE;
	}
	a->input = argv[first];
	if (a->format == FORMAT_AUTO)
		a->format = format_of(a->output);
	if (a->format == FORMAT_AUTO) {
		pr_warn("convert: cannot tell the format of '%s' from its name: use --format\n",
			a->output);
		return EXIT_USAGE;
	}
	return -1;
}

static int write_out(const struct convert_args *a, const struct profile *p)
{
	struct outfile of;
	int err;

	err = outfile_open(&of, a->output, 0644);
	if (err) {
		pr_warn("convert: cannot create '%s': %s\n", a->output, strerror(-err));
		return EXIT_RUNTIME;
	}
	err = a->format == FORMAT_PPROF ? pprof_write(p, of.f) : profile__write_folded(p, of.f);
	if (err) {
		outfile_discard(&of);
		if (err == -EOVERFLOW)
			pr_warn("convert: '%s': counts too large for pprof's int64 values "
				"(try a smaller --period-ns)\n", a->input);
		else
			pr_warn("convert: cannot write '%s': %s\n", a->output, strerror(-err));
		return EXIT_RUNTIME;
	}
	err = outfile_commit(&of);
	if (err) {
		pr_warn("convert: cannot write '%s': %s\n", a->output, strerror(-err));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

/* The CPU time of a sample: the file's, --period-ns (which must agree), or 99 Hz. */
static int convert_period(const struct convert_args *a, struct profile *p)
{
	uint64_t have = profile__period_ns(p);

	if (have && a->period_ns && have != a->period_ns) {
		pr_warn("convert: '%s' was sampled every %" PRIu64 " ns (its header); --period-ns "
			"%" PRIu64 " contradicts it\n", a->input, have, a->period_ns);
		return EXIT_USAGE;
	}
	/* pprof needs a period for cpu/nanoseconds; folded keeps "unknown" unless told */
	if (!have && (a->period_ns || a->format == FORMAT_PPROF))
		profile__set_period_ns(p, a->period_ns ? a->period_ns : CONVERT_DEFAULT_PERIOD_NS);
	return EXIT_OK;
}

int cmd_convert(int argc, char **argv)
{
	struct convert_args a = { .kind = CLI_KIND_UNSET };
	struct profile *p = NULL;
	int ret;

	ret = parse_args(argc, argv, &a);
	if (ret >= 0)
		return ret;
	ret = cli_load_folded("convert", a.input, &a.kind, &p, NULL);
	if (ret != EXIT_OK)
		return ret;
	ret = convert_period(&a, p);
	if (ret == EXIT_OK)
		ret = write_out(&a, p);
	profile__free(p);
	return ret;
}
