// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `hotcold flamegraph`: folded stacks -> analysis/profile -> output/svg. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/profile.h"
#include "cli/cmd.h"
#include "cli/input.h"
#include "cli/parse.h"
#include "output/outfile.h"
#include "output/svg.h"
#include "util/compiler.h"
#include "util/log.h"
#include "util/suggest.h"

enum {
	OPT_TITLE = 256,
	OPT_SUBTITLE,
	OPT_INVERTED,
	OPT_REVERSE,
	OPT_MIN_WIDTH,
	OPT_KIND,
	OPT_PALETTE,
	OPT_UNIT,
};

static const struct cli_opt opts[] = {
	{ { "output", required_argument, NULL, 'o' }, 'o', "FILE",
	  "SVG output file (default flamegraph.svg; - for stdout)" },
	{ { "title", required_argument, NULL, OPT_TITLE }, 0, "TEXT",
	  "title (default after the kind: \"Off-CPU Flame Graph\")" },
	{ { "subtitle", required_argument, NULL, OPT_SUBTITLE }, 0, "TEXT",
	  "subtitle (default: the total drawn; \"\" for none)" },
	{ { "inverted", no_argument, NULL, OPT_INVERTED }, 0, NULL,
	  "icicle graph: root at the top, stacks grow down" },
	{ { "reverse", no_argument, NULL, OPT_REVERSE }, 0, NULL,
	  "merge stacks from the leaf (who calls hot functions)" },
	{ { "width", required_argument, NULL, 'w' }, 'w', "PX",
	  "image width, 200..100000 (default 1200)" },
	{ { "min-width", required_argument, NULL, OPT_MIN_WIDTH }, 0, "PX",
	  "omit narrower frames (default 0.1; weight kept in parent)" },
	{ { "kind", required_argument, NULL, OPT_KIND }, 0, "KIND",
	  "for files without a hotcold header: oncpu samples (default), offcpu, runq, lock ns" },
	{ { "freq", required_argument, NULL, 'F' }, 'F', "HZ",
	  "sampling rate of on-CPU input; tooltips show CPU time" },
	{ { "palette", required_argument, NULL, OPT_PALETTE }, 0, "NAME",
	  "auto (by kind), hot or cold" },
	{ { "unit", required_argument, NULL, OPT_UNIT }, 0, "NAME",
	  "unit shown for counts instead of samples/time" },
	{ { "verbose", no_argument, NULL, 'v' }, 'v', NULL,
	  "more diagnostics (each malformed input line)" },
	{ { "quiet", no_argument, NULL, 'q' }, 'q', NULL, "only warnings and errors" },
	{ { "help", no_argument, NULL, 'h' }, 'h', NULL, "show this help" },
};

struct fg_opts {
	const char *in;
	const char *out;
	int kind;		/* CLI_KIND_UNSET or --kind */
	uint64_t freq_hz;
	struct svg_opts svg;
};

static void fg_usage(FILE *f)
{
	fprintf(f, "usage: hotcold flamegraph [options] IN\n\n"
		   "Render folded stacks (IN, or - for stdin) as an interactive SVG flame graph:\n"
		   "frame width = inclusive weight, siblings in alphabetical order. In a browser,\n"
		   "click a frame to zoom (click the root or Reset Zoom to go back), Search (or\n"
		   "Ctrl-F) takes a regular expression and shows the share it matches; the URL\n"
		   "query ?s=REGEX searches on load.\n\n");
	cli_print_options(f, opts, ARRAY_SIZE(opts));
	fprintf(f, "\nColours: on-CPU frames warm, off-CPU/run-queue/lock frames cool; kernel\n"
		   "frames (_[k]) khaki (on-CPU) or aqua (waits), JIT (_[j]) green, waker (_[w])\n"
		   "purple, unnamed frames grey.\n"
		   "Exit status: 0 ok; 1 IN cannot be opened or read, or the output cannot be\n"
		   "written; 2 usage error: a bad option or value, or an IN without one valid\n"
		   "folded line (empty, binary, compressed).\n");
}

static int bad_value(const char *opt, const char *val, int err)
{
	pr_warn("flamegraph: invalid value '%s' for %s: %s\n", val, opt, parse_strerror(err));
	return EXIT_USAGE;
}

static int pick(const char *val, const char *const names[], size_t nr, int *out)
{
	for (size_t i = 0; i < nr; i++) {
		if (!strcmp(val, names[i])) {
			*out = (int)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* Options with a value that is not a plain string. 0 or an exit status. */
static int parse_value(int c, const char *val, struct fg_opts *o)
{
	static const char *const palettes[] = { "auto", "hot", "cold" };
	uint64_t v;
	int i, err;

	switch (c) {
	case 'w':
		err = parse_u64(val, 200, 100000, &v);
		if (err)
			return bad_value("--width", val, err);
		o->svg.width = (unsigned int)v;
		return 0;
	case OPT_MIN_WIDTH:
		err = parse_double(val, 0, 10000, &o->svg.min_width_px);
		if (err)
			return bad_value("--min-width", val, err);
		return 0;
	case 'F':
		err = parse_u64(val, 1, 1000000000, &o->freq_hz);
		if (err)
			return bad_value("-F", val, err);
		return 0;
	case OPT_KIND:
		return cli_parse_kind("flamegraph", val, &o->kind) ? EXIT_USAGE : 0;
	case OPT_PALETTE:
		if (pick(val, palettes, ARRAY_SIZE(palettes), &i))
			return bad_value("--palette", val, -EINVAL);
		o->svg.palette = (enum svg_palette)i;
		return 0;
	}
	return EXIT_USAGE;
}

/* 0, -1 after --help, or an exit status. */
static int parse_args(int argc, char **argv, struct fg_opts *o)
{
	struct option longopts[ARRAY_SIZE(opts) + 1];
	int c, ret;

	cli_longopts(opts, ARRAY_SIZE(opts), longopts);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:w:F:vqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				return bad_value("-o", optarg, -EINVAL);
			o->out = optarg;
			break;
		case OPT_TITLE:
			o->svg.title = optarg;
			break;
		case OPT_SUBTITLE:
			o->svg.subtitle = optarg;
			break;
		case OPT_INVERTED:
			o->svg.inverted = true;
			break;
		case OPT_REVERSE:
			o->svg.reverse = true;
			break;
		case OPT_UNIT:
			o->svg.unit = optarg;
			break;
		case 'v':
			log_set_level(LOG_DEBUG);
			break;
		case 'q':
			log_set_level(LOG_WARN);
			break;
		case 'h':
			fg_usage(stdout);
			return -1;
		case ':':
			pr_warn("flamegraph: option '%s' needs a value\n", argv[optind - 1]);
			return EXIT_USAGE;
		case '?':
			suggest__unknown_option("flamegraph", argv[optind - 1], longopts);
			return EXIT_USAGE;
		default:
			ret = parse_value(c, optarg, o);
			if (ret)
				return ret;
		}
	}
	if (argc - optind != 1) {
		pr_warn("flamegraph: %s; usage: hotcold flamegraph [options] IN (--help)\n",
			optind < argc ? "more than one input" : "no input file");
		return EXIT_USAGE;
	}
	o->in = argv[optind];
	return 0;
}

static int render(const struct fg_opts *o, const struct profile *p)
{
	struct svg_opts so = o->svg;
	char title[96], unit[96];
	struct outfile of;
	int err;

	/* an event profile (record -e page-faults): named after its event, not "on-CPU" */
	if (profile__event(p) && !so.title) {
		snprintf(title, sizeof(title), "%s %s", profile__event(p),
			 so.inverted ? "Icicle Graph" : "Flame Graph");
		so.title = title;
	}
	if (profile__event(p) && !so.unit) {
		snprintf(unit, sizeof(unit), "samples (one per %llu %s)",
			 (unsigned long long)profile__event_period(p), profile__event(p));
		so.unit = unit;
	}

	err = outfile_open(&of, o->out, 0644);
	if (err) {
		pr_warn("flamegraph: cannot create '%s': %s\n", o->out, strerror(-err));
		return EXIT_RUNTIME;
	}
	err = svg_write(p, &so, of.f);
	if (err) {
		outfile_discard(&of);
		pr_warn("flamegraph: cannot render '%s': %s\n", o->out, strerror(-err));
		return EXIT_RUNTIME;
	}
	err = outfile_commit(&of);
	if (err) {
		pr_warn("flamegraph: cannot write '%s': %s\n", o->out, strerror(-err));
		return EXIT_RUNTIME;
	}
	pr_debug("flamegraph: %zu stacks -> %s\n", profile__nr_stacks(p), o->out);
	return EXIT_OK;
}

/* -F and --unit against what a hotcold header says. An exit status. */
static int check_header(const struct fg_opts *o, struct profile *p,
			const struct folded_read_stats *st)
{
	uint64_t period = o->freq_hz ? (1000000000ull + o->freq_hz / 2) / o->freq_hz : 0;
	uint64_t have = profile__period_ns(p);

	if (st->header_kinds && o->svg.unit) {
		pr_warn("flamegraph: '%s' says its unit in its header; --unit %s contradicts it\n",
			o->in, o->svg.unit);
		return EXIT_USAGE;
	}
	if (period && have && period != have) {
		pr_warn("flamegraph: '%s' was sampled every %llu ns (its header); -F %llu "
			"contradicts it\n", o->in, (unsigned long long)have,
			(unsigned long long)o->freq_hz);
		return EXIT_USAGE;
	}
	if (period)
		profile__set_period_ns(p, period);
	return EXIT_OK;
}

int cmd_flamegraph(int argc, char **argv)
{
	struct fg_opts o = { .out = "flamegraph.svg", .kind = CLI_KIND_UNSET };
	struct folded_read_stats st;
	struct profile *p = NULL;
	int ret;

	svg_opts_init(&o.svg);
	optind = 1;
	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	/* --kind on a file of several kinds draws that kind alone */
	if (o.kind != CLI_KIND_UNSET)
		o.svg.kinds = SVG_KIND(o.kind);
	ret = cli_load_folded("flamegraph", o.in, &o.kind, &p, &st);
	if (!ret)
		ret = check_header(&o, p, &st);
	if (!ret)
		ret = render(&o, p);
	profile__free(p);
	return ret;
}
