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
#include "output/outfile.h"
#include "output/svg.h"
#include "util/compiler.h"
#include "util/log.h"

enum {
	OPT_TITLE = 256,
	OPT_SUBTITLE,
	OPT_INVERTED,
	OPT_REVERSE,
	OPT_MIN_WIDTH,
	OPT_PALETTE,
	OPT_UNIT,
};

static const struct opt_spec fg_opts_tab[] = {
	{ .name = "output", 'o', 'o', OPTV_PATH, "FILE",
	  "SVG output file (default flamegraph.svg; - for stdout)" },
	{ .name = "title", 0, OPT_TITLE, OPTV_STR, "TEXT",
	  "title (default after the kind: \"Off-CPU Flame Graph\")" },
	{ .name = "subtitle", 0, OPT_SUBTITLE, OPTV_STR, "TEXT",
	  "subtitle (default: the total drawn; \"\" for none)" },
	{ .name = "inverted", 0, OPT_INVERTED, OPTV_FLAG, NULL,
	  "icicle graph: root at the top, stacks grow down" },
	{ .name = "reverse", 0, OPT_REVERSE, OPTV_FLAG, NULL,
	  "merge stacks from the leaf (who calls hot functions)" },
	{ .name = "width", 'w', 'w', OPTV_U64, "PX", "image width (default 1200)", 200, 100000 },
	{ .name = "min-width", 0, OPT_MIN_WIDTH, OPTV_DOUBLE, "PX",
	  "omit narrower frames (default 0.1; weight kept in parent)", 0, 10000 },
	CLI_OPT_KIND_SPEC("for files without a hotcold header: oncpu samples (default), "
			  "offcpu, runq, lock ns"),
	{ .name = "freq", 'F', 'F', OPTV_U64, "HZ",
	  "sampling rate of on-CPU input; tooltips show CPU time", 1, 1000000000 },
	{ .name = "palette", 0, OPT_PALETTE, OPTV_CHOICE, "NAME", "auto (by kind), hot or cold",
	  .choices = "auto|hot|cold" },
	{ .name = "unit", 0, OPT_UNIT, OPTV_STR, "NAME", "unit shown for counts instead of samples/time" },
	OPT_SPEC_VERBOSE("more diagnostics (each malformed input line)"),
	OPT_SPEC_QUIET("only warnings and errors"),
	OPT_SPEC_HELP,
};

const struct opt_cmd flamegraph_cmd = {
	.name = "flamegraph",
	.synopsis = "[options] IN",
	.about = "Render folded stacks (IN, or - for stdin) as an interactive SVG flame graph:\n"
		 "frame width = inclusive weight, siblings in alphabetical order. In a browser,\n"
		 "click a frame to zoom (click the root or Reset Zoom to go back), Search (or\n"
		 "Ctrl-F) takes a regular expression and shows the share it matches; the URL\n"
		 "query ?s=REGEX searches on load.\n",
	.footer = "Colours: on-CPU frames warm, off-CPU/run-queue/lock frames cool; kernel\n"
		  "frames (_[k]) khaki (on-CPU) or aqua (waits), JIT (_[j]) green, waker (_[w])\n"
		  "purple, unnamed frames grey.\n"
		  "Exit status: 0 ok; 1 IN cannot be opened or read, or the output cannot be\n"
		  "written; 2 usage error: a bad option or value, or an IN without one valid\n"
		  "folded line (empty, binary, compressed).\n",
	.opts = fg_opts_tab,
	.nr_opts = ARRAY_SIZE(fg_opts_tab),
	.operands = 1,
	.operands_help = "one input IN (- for stdin)",
};

struct fg_opts {
	const char *in;
	const char *out;
	int kind;		/* CLI_KIND_UNSET or --kind */
	uint64_t freq_hz;
	struct svg_opts svg;
};

static int on_opt(void *ctx, const struct opt_spec *s, const struct opt_val *v)
{
	struct fg_opts *o = ctx;

	switch (s->id) {
	case 'o':
		o->out = v->str;
		break;
	case OPT_TITLE:
		o->svg.title = v->str;
		break;
	case OPT_SUBTITLE:
		o->svg.subtitle = v->str;
		break;
	case OPT_INVERTED:
		o->svg.inverted = true;
		break;
	case OPT_REVERSE:
		o->svg.reverse = true;
		break;
	case OPT_UNIT:
		o->svg.unit = v->str;
		break;
	case 'w':
		o->svg.width = (unsigned int)v->u;
		break;
	case OPT_MIN_WIDTH:
		o->svg.min_width_px = v->d;
		break;
	case 'F':
		o->freq_hz = v->u;
		break;
	case CLI_OPT_KIND:
		return cli_parse_kind("flamegraph", v->str, &o->kind) ? EXIT_USAGE : 0;
	case OPT_PALETTE:
		o->svg.palette = (enum svg_palette)v->choice;	/* auto, hot, cold */
		break;
	default:
		cli_log_opt(s->id);
	}
	return 0;
}

/* 0, -1 after --help, or an exit status. */
static int parse_args(int argc, char **argv, struct fg_opts *o)
{
	int first, ret = opt__parse(&flamegraph_cmd, argc, argv, on_opt, o, &first);

	if (ret)
		return ret;
	o->in = argv[first];
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
