// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The option table's parser (over getopt_long), --help, man and completion output. */
#include "util/opt.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/parse.h"
#include "util/suggest.h"

#define EXIT_USAGE_	2	/* cli/cmd.h's EXIT_USAGE; util/ may not include cli/ */
#define MAX_OPTS	64
#define HELP_WIDTH	79
/* bounds this large are limits of the type, not advice: --help shows only the minimum */
#define HUGE_BOUND	(UINT64_C(1) << 40)
#define HUGE_BOUND_NS	(UINT64_C(1) << 62)	/* 146 years */

const char *opt__display(const struct opt_spec *o, char *buf, size_t len)
{
	if (o->short_name)
		snprintf(buf, len, "-%c", o->short_name);
	else
		snprintf(buf, len, "--%s", o->name);
	return buf;
}

int opt__bad_value(const struct opt_cmd *c, const struct opt_spec *o, const char *val, int err)
{
	char name[72];

	pr_warn("%s: invalid value '%s' for %s: %s\n", c->name, val,
		opt__display(o, name, sizeof(name)), parse_strerror(err));
	return EXIT_USAGE_;
}

void opt__range(const struct opt_spec *o, char *buf, size_t len)
{
	char lo[32], hi[32];

	*buf = '\0';
	switch (o->type) {
	case OPTV_U64:
	case OPTV_DOUBLE:
		snprintf(lo, sizeof(lo), "%" PRIu64, o->min);
		snprintf(hi, sizeof(hi), "%" PRIu64, o->max);
		break;
	case OPTV_DUR:
		parse_fmt_ns(lo, sizeof(lo), o->min);
		parse_fmt_ns(hi, sizeof(hi), o->max);
		break;
	case OPTV_CHOICE:
		snprintf(buf, len, "%s", o->choices);
		return;
	default:
		return;
	}
	if (o->max >= (o->type == OPTV_DUR ? HUGE_BOUND_NS : HUGE_BOUND))
		snprintf(buf, len, o->min ? ">= %s" : "", lo);	/* no bound worth telling */
	else
		snprintf(buf, len, "%s to %s", lo, hi);
}

/* @name (a "|"-separated list) holds @s as a whole word: its index, else -1. */
static int choice_index(const char *choices, const char *s)
{
	size_t n = strlen(s);
	int i = 0;

	for (const char *p = choices; *p; i++) {
		size_t w = strcspn(p, "|");

		if (w == n && !strncmp(p, s, n))
			return i;
		p += w;
		if (*p)
			p++;
	}
	return -1;
}

/* Check @arg by @o's type into @v: 0 or an exit status after the message. */
static int check_value(const struct opt_cmd *c, const struct opt_spec *o, const char *arg,
		       struct opt_val *v)
{
	char name[72];
	int err = 0;

	memset(v, 0, sizeof(*v));
	v->str = arg;
	switch (o->type) {
	case OPTV_FLAG:
	case OPTV_HELP:
		return 0;
	case OPTV_STR:
		return 0;
	case OPTV_PATH:
		err = *arg ? 0 : -EINVAL;
		break;
	case OPTV_U64:
		err = parse_u64(arg, o->min, o->max, &v->u);
		break;
	case OPTV_DOUBLE:
		err = parse_double(arg, (double)o->min, (double)o->max, &v->d);
		break;
	case OPTV_DUR:
		err = parse_duration_ns(arg, o->unit ? o->unit : 1000000000ull, o->min, o->max,
					&v->u);
		break;
	case OPTV_CHOICE:
		v->choice = choice_index(o->choices, arg);
		if (v->choice >= 0)
			return 0;
		pr_warn("%s: invalid value '%s' for %s: one of %s\n", c->name, arg,
			opt__display(o, name, sizeof(name)), o->choices);
		return EXIT_USAGE_;
	}
	return err ? opt__bad_value(c, o, arg, err) : 0;
}

static const struct opt_spec *find_id(const struct opt_cmd *c, int id)
{
	for (size_t i = 0; i < c->nr_opts; i++)
		if (c->opts[i].id == id)
			return &c->opts[i];
	return NULL;
}

/* getopt_long's inputs from the table; -E2BIG for a table larger than MAX_OPTS. */
static int build_getopt(const struct opt_cmd *c, char *shorts, size_t len, struct option *longs)
{
	size_t n = 0, i;

	if (c->nr_opts >= MAX_OPTS || len < 3 + 2 * c->nr_opts)
		return -E2BIG;
	if (c->stop_at_operand)
		shorts[n++] = '+';
	shorts[n++] = ':';	/* a missing value is ':', not '?' */
	for (i = 0; i < c->nr_opts; i++) {
		const struct opt_spec *o = &c->opts[i];
		bool val = o->type != OPTV_FLAG && o->type != OPTV_HELP;

		longs[i] = (struct option){ o->name, val ? required_argument : no_argument, NULL,
					    o->id };
		if (o->short_name) {
			shorts[n++] = (char)o->short_name;
			if (val)
				shorts[n++] = ':';
		}
	}
	shorts[n] = '\0';
	memset(&longs[i], 0, sizeof(longs[i]));
	return 0;
}

/* getopt_long returned '?' or ':' for the argument at optind - 1. */
static int refuse(const struct opt_cmd *c, int ch, char **argv, const struct option *longs)
{
	const char *arg = argv[optind - 1];
	char shortopt[3] = { '-', (char)optopt, '\0' };

	/* a short option inside a cluster ("-vx"): the letter; a long one as typed */
	if (strncmp(arg, "--", 2) && optopt > 0 && optopt < 256)
		arg = shortopt;
	if (ch == ':') {
		pr_warn("%s: option '%s' needs a value\n", c->name, arg);
		return EXIT_USAGE_;
	}
	suggest__unknown_option(c->name, arg, longs);
	return EXIT_USAGE_;
}

int opt__parse(const struct opt_cmd *c, int argc, char **argv, opt_handler h, void *ctx,
	       int *operand)
{
	struct option longs[MAX_OPTS + 1];
	char shorts[3 + 2 * MAX_OPTS];
	int ch, ret;

	if (build_getopt(c, shorts, sizeof(shorts), longs)) {
		pr_warn("%s: option table too large\n", c->name);
		return EXIT_USAGE_;
	}
	optind = 0;	/* glibc: a full re-initialization, also of the '+' mode */
	opterr = 0;
	while ((ch = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct opt_spec *o = ch == '?' || ch == ':' ? NULL : find_id(c, ch);
		struct opt_val v;

		if (!o)
			return refuse(c, ch, argv, longs);
		if (o->type == OPTV_HELP) {
			opt__usage(c, stdout);
			return OPT_HELP_SHOWN;
		}
		ret = check_value(c, o, optarg, &v);
		if (!ret)
			ret = h(ctx, o, &v);
		if (ret)
			return ret;
	}
	*operand = optind;
	if (c->operands && argc - optind != c->operands) {
		pr_warn("%s: wants %s, got %d operand%s\n", c->name, c->operands_help,
			argc - optind, argc - optind == 1 ? "" : "s");
		pr_warn("usage: hotcold %s %s ('hotcold %s --help' lists the options)\n", c->name,
			c->synopsis, c->name);
		return EXIT_USAGE_;
	}
	return 0;
}

/* "-n, --top N" or "    --grep REGEX". */
static void left_column(const struct opt_spec *o, char *buf, size_t len)
{
	snprintf(buf, len, "%c%c%s--%s%s%s", o->short_name ? '-' : ' ',
		 o->short_name ? o->short_name : ' ', o->short_name ? ", " : "  ", o->name,
		 o->arg ? " " : "", o->arg ? o->arg : "");
}

/* The help text with its range or choices, e.g. "rows per table [0 to 1000000]". */
static void help_text(const struct opt_spec *o, char *buf, size_t len)
{
	char range[128];

	opt__range(o, range, sizeof(range));
	if (*range)
		snprintf(buf, len, "%s [%s]", o->help, range);
	else
		snprintf(buf, len, "%s", o->help);
}

/* @text from column @col, wrapped at HELP_WIDTH, continuation lines indented to @col. */
static void print_wrapped(FILE *f, const char *text, size_t col)
{
	size_t at = col;

	while (*text) {
		size_t w = strcspn(text, " ");

		if (at > col && at + 1 + w > HELP_WIDTH) {
			fprintf(f, "\n%*s", (int)col, "");
			at = col;
		} else if (at > col) {
			fputc(' ', f);
			at++;
		}
		fwrite(text, 1, w, f);
		at += w;
		text += w;
		while (*text == ' ')
			text++;
	}
	fputc('\n', f);
}

void opt__usage(const struct opt_cmd *c, FILE *f)
{
	char left[96], help[1024];
	size_t width = 0, i;

	fprintf(f, "usage: hotcold %s %s\n\n%s\n", c->name, c->synopsis, c->about);
	for (i = 0; i < c->nr_opts; i++) {
		left_column(&c->opts[i], left, sizeof(left));
		if (strlen(left) > width)
			width = strlen(left);
	}
	if (width > 30)
		width = 30;
	for (i = 0; i < c->nr_opts; i++) {
		left_column(&c->opts[i], left, sizeof(left));
		help_text(&c->opts[i], help, sizeof(help));
		fprintf(f, "  %-*s  ", (int)width, left);
		if (strlen(left) > width)
			fprintf(f, "\n  %-*s  ", (int)width, "");
		print_wrapped(f, help, width + 4);
	}
	if (c->footer)
		fprintf(f, "\n%s", c->footer);
}

/* roff-escaped @s: '-' and '\' escaped, a leading '.' or '\'' defused. */
static void roff(FILE *f, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", f);
	for (; *s; s++) {
		if (*s == '-')
			fputs("\\-", f);
		else if (*s == '\\')
			fputs("\\e", f);
		else
			fputc(*s, f);
	}
}

void opt__man(const struct opt_cmd *c, FILE *f)
{
	char help[1024];

	for (size_t i = 0; i < c->nr_opts; i++) {
		const struct opt_spec *o = &c->opts[i];

		fputs(".TP\n", f);
		if (o->short_name)
			fprintf(f, "\\fB\\-%c,\\fR ", o->short_name);
		fputs("\\fB\\-\\-", f);
		roff(f, o->name);
		fputs("\\fR", f);
		if (o->arg) {
			fputs(" \\fI", f);
			roff(f, o->arg);
			fputs("\\fR", f);
		}
		fputc('\n', f);
		help_text(o, help, sizeof(help));
		roff(f, help);
		fputc('\n', f);
	}
}

int opt__validate(const struct opt_cmd *c, char *why, size_t len)
{
	if (c->nr_opts >= MAX_OPTS) {
		snprintf(why, len, "%zu options, at most %d", c->nr_opts, MAX_OPTS - 1);
		return -EINVAL;
	}
	for (size_t i = 0; i < c->nr_opts; i++) {
		const struct opt_spec *o = &c->opts[i];
		bool val = o->type != OPTV_FLAG && o->type != OPTV_HELP;
		const char *fault = NULL;

		if (!o->name || !*o->name || !o->help)
			fault = "no name or help";
		else if (!val != !o->arg)
			fault = val ? "a value without a name for it" : "a flag with a value name";
		else if ((o->type == OPTV_U64 || o->type == OPTV_DOUBLE || o->type == OPTV_DUR) &&
			 o->min > o->max)
			fault = "min > max";
		else if (o->type == OPTV_CHOICE && (!o->choices || !*o->choices))
			fault = "a choice without choices";
		else if (o->id == '?' || o->id == ':' || o->id <= 0)
			fault = "an id getopt_long cannot return";
		else if (o->short_name && o->short_name != o->id)
			fault = "a short name that is not its id";
		for (size_t j = 0; !fault && j < i; j++) {
			if (!strcmp(c->opts[j].name, o->name))
				fault = "a repeated name";
			else if (c->opts[j].id == o->id)
				fault = "a repeated id";
		}
		if (fault) {
			snprintf(why, len, "--%s: %s", o->name ? o->name : "?", fault);
			return -EINVAL;
		}
	}
	return 0;
}

void opt__complete(const struct opt_cmd *c, FILE *f)
{
	size_t i;

	fputs("opts", f);
	for (i = 0; i < c->nr_opts; i++) {
		if (c->opts[i].short_name)
			fprintf(f, " -%c", c->opts[i].short_name);
		fprintf(f, " --%s", c->opts[i].name);
	}
	fputs("\npaths", f);
	for (i = 0; i < c->nr_opts; i++) {
		if (c->opts[i].type != OPTV_PATH)
			continue;
		if (c->opts[i].short_name)
			fprintf(f, " -%c", c->opts[i].short_name);
		fprintf(f, " --%s", c->opts[i].name);
	}
	fputs("\nchoices", f);
	for (i = 0; i < c->nr_opts; i++) {
		if (c->opts[i].type != OPTV_CHOICE)
			continue;
		if (c->opts[i].short_name)
			fprintf(f, " -%c=%s", c->opts[i].short_name, c->opts[i].choices);
		fprintf(f, " --%s=%s", c->opts[i].name, c->opts[i].choices);
	}
	fputc('\n', f);
}
