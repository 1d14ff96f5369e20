/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One declarative option table per command. From it come the parser
 * (getopt_long's optstring and long options, value checks with ranges,
 * "needs a value", nearest-option suggestions), --help, the man page's
 * OPTIONS section and the bash completion's lists, so none can drift.
 */
#ifndef HC_UTIL_OPT_H
#define HC_UTIL_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What an option's value is; the parser checks it before the handler runs. */
enum opt_type {
	OPTV_FLAG,	/* no value */
	OPTV_STR,	/* any text, also empty (the handler checks it) */
	OPTV_PATH,	/* a file or directory name (completion offers files) */
	OPTV_U64,	/* decimal integer in [min, max] */
	OPTV_DOUBLE,	/* decimal number in [min, max] */
	OPTV_DUR,	/* duration, unit ns/us/ms/s/m/h (none: .unit ns), [min, max] ns */
	OPTV_CHOICE,	/* one of .choices, "a|b|c"; the value is its index */
	OPTV_HELP,	/* prints --help to stdout; parsing ends with OPT_HELP_SHOWN */
};

struct opt_spec {
	const char *name;	/* long name, without "--" */
	int short_name;		/* 0: long only */
	int id;			/* what the handler switches on (unique in the table) */
	enum opt_type type;
	const char *arg;	/* value's name in --help ("N", "FILE"); NULL for a flag */
	const char *help;
	uint64_t min, max;	/* OPTV_U64, OPTV_DOUBLE, OPTV_DUR (ns) */
	uint64_t unit;		/* OPTV_DUR: ns per unit without a suffix */
	const char *choices;	/* OPTV_CHOICE */
};

/* The checked value given to the handler. */
struct opt_val {
	const char *str;	/* the text as given (NULL for a flag) */
	uint64_t u;		/* OPTV_U64; OPTV_DUR in ns */
	double d;		/* OPTV_DOUBLE */
	int choice;		/* OPTV_CHOICE: index in .choices */
};

struct opt_cmd {
	const char *name;	/* "report": the message prefix and `hotcold NAME` */
	const char *synopsis;	/* after "usage: hotcold NAME " */
	const char *about;	/* --help text before the options ("\n"-separated lines) */
	const char *footer;	/* --help text after them (exit statuses) */
	const struct opt_spec *opts;
	size_t nr_opts;
	bool stop_at_operand;	/* the first operand ends the options (a COMMAND follows) */
	int operands;		/* exactly this many operands, else a usage error; 0: any */
	const char *operands_help;	/* what they are, for that error: "two inputs A and B" */
};

/*
 * Called per option in command-line order with its checked value. Returns 0,
 * or an exit status (2) after printing why the value is refused.
 */
typedef int (*opt_handler)(void *ctx, const struct opt_spec *o, const struct opt_val *v);

#define OPT_HELP_SHOWN	(-1)

/* The entries every command has. */
#define OPT_SPEC_VERBOSE(help)	{ .name = "verbose", 'v', 'v', OPTV_FLAG, NULL, help }
#define OPT_SPEC_QUIET(help)	{ .name = "quiet", 'q', 'q', OPTV_FLAG, NULL, help }
#define OPT_SPEC_HELP		{ .name = "help", 'h', 'h', OPTV_HELP, NULL, "show this help" }

/*
 * Parse @argv (argv[0] is the command's name) by @c's table. Returns 0 with
 * *@operand the index of the first operand (argc when none), OPT_HELP_SHOWN
 * after --help, or 2 after a message (unknown option with a suggestion, a
 * missing or refused value with its range, a handler's refusal, not
 * c->operands operands).
 */
int opt__parse(const struct opt_cmd *c, int argc, char **argv, opt_handler h, void *ctx,
	       int *operand);

/* "invalid value 'X' for -F: out of range (1 to 100000)" for @err of util/parse.h; 2. */
int opt__bad_value(const struct opt_cmd *c, const struct opt_spec *o, const char *val,
		   int err);

/* The option as messages name it: "-F" if it has a short name, else "--freq". */
const char *opt__display(const struct opt_spec *o, char *buf, size_t len);

/* The whole --help: usage line, about, the option lines (with ranges), footer. */
void opt__usage(const struct opt_cmd *c, FILE *f);

/* The man page's OPTIONS entries (roff .TP paragraphs), same text as --help. */
void opt__man(const struct opt_cmd *c, FILE *f);

/*
 * For the bash completion: "opts WORD..." (every -x and --long), then
 * "paths WORD..." (the options whose value is a file or directory), then
 * "choices --opt=a|b ..." (the values of each choice option).
 */
void opt__complete(const struct opt_cmd *c, FILE *f);

/*
 * The table's own consistency: names, short names and ids unique, a value
 * name exactly for options with a value, bounds in order, choices given.
 * 0 or -EINVAL with the first fault in @why. The build checks every command's
 * table (`hotcold __options CMD complete` refuses a broken one).
 */
int opt__validate(const struct opt_cmd *c, char *why, size_t len);

/* A range's text as --help shows it, e.g. "1 to 100000", "1ms to 8784h"; "" if none. */
void opt__range(const struct opt_spec *o, char *buf, size_t len);

#endif /* HC_UTIL_OPT_H */
