// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* util/opt.c: one table drives parsing, value checks with ranges, --help, man and completion. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "util/compiler.h"
#include "util/opt.h"

enum { T_JSON = 256, T_FMT, T_DUR, T_RATIO, T_TITLE, T_DIR };

static const struct opt_spec spec[] = {
	{ .name = "freq", 'F', 'F', OPTV_U64, "HZ", "samples per second", 1, 100000 },
	{ .name = "json", 0, T_JSON, OPTV_FLAG, NULL, "JSON out" },
	{ .name = "format", 0, T_FMT, OPTV_CHOICE, "FMT", "output format",
	  .choices = "folded|pprof|svg" },
	{ .name = "duration", 'd', 'd', OPTV_DUR, "DUR", "stop after DUR",
	  .min = 1000000, .max = 3600ull * 1000000000, .unit = 1000000000 },
	{ .name = "ratio", 0, T_RATIO, OPTV_DOUBLE, "R", "a ratio", 1, 1000 },
	{ .name = "title", 0, T_TITLE, OPTV_STR, "TEXT", "title (\"\" for none)" },
	{ .name = "output", 'o', 'o', OPTV_PATH, "FILE", "output file" },
	{ .name = "dir", 0, T_DIR, OPTV_PATH, "DIR", ".leading dot and a \\ backslash" },
	OPT_SPEC_VERBOSE("more"),
	OPT_SPEC_HELP,
};

static const struct opt_cmd cmd = {
	.name = "t", .synopsis = "[options] FILE", .about = "About.\n", .footer = "Exit.\n",
	.opts = spec, .nr_opts = ARRAY_SIZE(spec),
};

/* What the handler saw, in order. */
static struct {
	int ids[16];
	struct opt_val v[16];
	int n;
	int refuse_id;	/* the handler refuses this id with 2 */
} seen;

static int handler(void *ctx, const struct opt_spec *o, const struct opt_val *v)
{
	(void)ctx;
	if (o->id == seen.refuse_id)
		return 2;
	if (seen.n < 16) {
		seen.ids[seen.n] = o->id;
		seen.v[seen.n++] = *v;
	}
	return 0;
}

static char err_text[4096];

/* Parse a NULL-terminated word list with stderr captured into err_text. */
static int run_cmd(const struct opt_cmd *c, int *first, char **words)
{
	char *argv[32];
	int argc = 0, ret, saved = dup(2), saved_out = dup(1), null = open("/dev/null", O_WRONLY);
	FILE *tmp = tmpfile();
	size_t n;

	for (; words[argc]; argc++)
		argv[argc] = words[argc];
	argv[argc] = NULL;
	memset(&seen.ids, 0, sizeof(seen.ids));
	seen.n = 0;
	fflush(stderr);
	fflush(stdout);
	dup2(fileno(tmp), 2);
	dup2(null, 1);	/* --help's text is checked through opt__usage below */
	ret = opt__parse(c, argc, argv, handler, NULL, first);
	fflush(stderr);
	fflush(stdout);
	dup2(saved, 2);
	dup2(saved_out, 1);
	close(saved);
	close(saved_out);
	close(null);
	rewind(tmp);
	n = fread(err_text, 1, sizeof(err_text) - 1, tmp);
	err_text[n] = '\0';
	fclose(tmp);
	return ret;
}

#define RUN(first, ...) run_cmd(&cmd, first, (char *[]){ "t", __VA_ARGS__, NULL })

static void values_are_checked_and_converted(void **state)
{
	int first = -1;

	(void)state;
	seen.refuse_id = 0;
	assert_int_equal(RUN(&first, "-F", "99", "--json", "--format=svg", "-d", "1.5",
			     "--ratio", "2.5", "--title", "", "-o", "x", "FILE"), 0);
	assert_int_equal(seen.n, 7);
	assert_int_equal(seen.ids[0], 'F');
	assert_true(seen.v[0].u == 99);
	assert_int_equal(seen.ids[1], T_JSON);
	assert_null(seen.v[1].str);
	assert_int_equal(seen.v[2].choice, 2);
	assert_true(seen.v[3].u == 1500000000ull);	/* no unit: seconds */
	assert_true(seen.v[4].d == 2.5);
	assert_string_equal(seen.v[5].str, "");	/* text may be empty */
	assert_string_equal(seen.v[6].str, "x");
	assert_string_equal(err_text, "");
	assert_int_equal(first, 13);	/* FILE */
}

static void range_errors_name_the_option_and_range(void **state)
{
	int first;

	(void)state;
	assert_int_equal(RUN(&first, "-F", "0"), 2);
	assert_non_null(strstr(err_text, "t: invalid value '0' for -F: out of range (1 to 100000)"));
	assert_int_equal(seen.n, 0);	/* the handler never saw it */
	assert_int_equal(RUN(&first, "--freq", "10x"), 2);
	assert_non_null(strstr(err_text, "for -F: not a valid value"));
	assert_int_equal(RUN(&first, "-d", "0.1ms"), 2);
	assert_non_null(strstr(err_text, "for -d: out of range (1ms to 1h)"));
	assert_int_equal(RUN(&first, "--ratio", "0.5"), 2);
	assert_non_null(strstr(err_text, "for --ratio: out of range (1 to 1000)"));
	assert_int_equal(RUN(&first, "--format", "png"), 2);
	assert_non_null(strstr(err_text, "for --format: one of folded|pprof|svg"));
	assert_int_equal(RUN(&first, "--format", "svgx"), 2);	/* whole words only */
	assert_int_equal(RUN(&first, "-o", ""), 2);	/* a path is never empty */
	assert_non_null(strstr(err_text, "invalid value '' for -o"));
}

static void unknown_and_missing(void **state)
{
	int first;

	(void)state;
	assert_int_equal(RUN(&first, "--frq", "9"), 2);
	assert_non_null(strstr(err_text, "t: unknown option '--frq'; did you mean '--freq'?"));
	assert_int_equal(RUN(&first, "--zzzzzzzz"), 2);
	assert_null(strstr(err_text, "did you mean"));
	/* a short option in a cluster: the letter, not the cluster */
	assert_int_equal(RUN(&first, "-vx"), 2);
	assert_non_null(strstr(err_text, "unknown option '-x'"));
	assert_int_equal(RUN(&first, "-F"), 2);
	assert_non_null(strstr(err_text, "option '-F' needs a value"));
	assert_int_equal(RUN(&first, "--freq"), 2);
	assert_non_null(strstr(err_text, "option '--freq' needs a value"));	/* as typed */
	/* a flag given a value */
	assert_int_equal(RUN(&first, "--json=1"), 2);
}

static void operands_and_modes(void **state)
{
	struct opt_cmd plus = cmd;
	int first;

	(void)state;
	/* permuting (the default): options after the operand are options */
	assert_int_equal(RUN(&first, "FILE", "--json"), 0);
	assert_int_equal(seen.n, 1);
	/* stop_at_operand: what follows the first operand belongs to a COMMAND */
	plus.stop_at_operand = true;
	assert_int_equal(run_cmd(&plus, &first, (char *[]){ "t", "-v", "sleep", "--json", NULL }), 0);
	assert_int_equal(seen.n, 1);
	assert_int_equal(first, 2);
	/* parsed again from scratch (the agent parses twice; SIGHUP again) */
	assert_int_equal(run_cmd(&plus, &first, (char *[]){ "t", "-v", "-F", "5", NULL }), 0);
	assert_int_equal(seen.n, 2);
	assert_int_equal(first, 4);
	/* a unique prefix of a long option, as getopt_long allows */
	assert_int_equal(RUN(&first, "--fre", "7"), 0);
	assert_true(seen.v[0].u == 7);
}

static void operand_count(void **state)
{
	struct opt_cmd two = cmd;
	int first;

	(void)state;
	two.operands = 2;
	two.operands_help = "A and B";
	assert_int_equal(run_cmd(&two, &first, (char *[]){ "t", "a", "-v", "b", NULL }), 0);
	assert_int_equal(first, 2);	/* permuted: -v first, then a b */
	assert_int_equal(run_cmd(&two, &first, (char *[]){ "t", "a", NULL }), 2);
	assert_non_null(strstr(err_text, "t: wants A and B, got 1 operand\n"));
	assert_non_null(strstr(err_text, "usage: hotcold t [options] FILE"));
	assert_int_equal(run_cmd(&two, &first, (char *[]){ "t", "a", "b", "c", NULL }), 2);
	assert_non_null(strstr(err_text, "got 3 operands"));
}

static void handler_refusal_and_help(void **state)
{
	int first;

	(void)state;
	seen.refuse_id = T_JSON;
	assert_int_equal(RUN(&first, "-v", "--json", "-F", "5"), 2);
	assert_int_equal(seen.n, 1);	/* -v, then stopped at --json */
	seen.refuse_id = 0;
	/* --help: shown on stdout, parsing ends, nothing after it handled */
	assert_int_equal(RUN(&first, "-h", "-F", "5"), OPT_HELP_SHOWN);
	assert_int_equal(seen.n, 0);
}

static char *render(void (*fn)(const struct opt_cmd *, FILE *))
{
	static char buf[8192];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	fn(&cmd, f);
	fclose(f);
	return buf;
}

static void help_lists_every_option_with_its_range(void **state)
{
	char *h = render(opt__usage), *line, *save = NULL;

	(void)state;
	assert_non_null(strstr(h, "usage: hotcold t [options] FILE\n\nAbout.\n"));
	assert_non_null(strstr(h, "  -F, --freq HZ"));
	assert_non_null(strstr(h, "samples per second [1 to 100000]"));
	assert_non_null(strstr(h, "stop after DUR [1ms to 1h]"));
	assert_non_null(strstr(h, "output format [folded|pprof|svg]"));
	assert_non_null(strstr(h, "      --json"));
	assert_non_null(strstr(h, "\nExit.\n"));
	for (size_t i = 0; i < ARRAY_SIZE(spec); i++)
		assert_non_null(strstr(h, spec[i].name));
	for (line = strtok_r(h, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		assert_true(strlen(line) <= 79);
}

static void man_and_completion(void **state)
{
	char *m = render(opt__man), *c;

	(void)state;
	assert_non_null(strstr(m, ".TP\n\\fB\\-F,\\fR \\fB\\-\\-freq\\fR \\fIHZ\\fR\n"
				  "samples per second [1 to 100000]\n"));
	/* a help text starting with '.' would be a roff request; a backslash an escape */
	assert_non_null(strstr(m, "\n\\&.leading dot and a \\e backslash [\n") ||
			strstr(m, "\n\\&.leading dot and a \\e backslash\n"));
	c = render(opt__complete);
	assert_non_null(strstr(c, "opts -F --freq --json --format -d --duration"));
	assert_non_null(strstr(c, "\npaths -o --output --dir\n"));
	assert_non_null(strstr(c, "\nchoices --format=folded|pprof|svg\n"));
}

static void broken_tables_are_refused(void **state)
{
	struct opt_spec bad[2] = { spec[0], spec[1] };
	struct opt_cmd c = { .name = "b", .opts = bad, .nr_opts = 2 };
	char why[128];

	(void)state;
	assert_int_equal(opt__validate(&cmd, why, sizeof(why)), 0);
	bad[1].name = "freq";
	assert_int_equal(opt__validate(&c, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "repeated name"));
	bad[1] = spec[1];
	bad[1].arg = "X";	/* a flag with a value name */
	assert_int_equal(opt__validate(&c, why, sizeof(why)), -EINVAL);
	bad[1] = spec[1];
	bad[0].min = 10;
	bad[0].max = 1;
	assert_int_equal(opt__validate(&c, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "--freq: min > max"));
	bad[0] = spec[0];
	bad[0].short_name = 'G';	/* getopt returns 'G', the handler switches on 'F' */
	assert_int_equal(opt__validate(&c, why, sizeof(why)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(values_are_checked_and_converted),
		cmocka_unit_test(range_errors_name_the_option_and_range),
		cmocka_unit_test(unknown_and_missing),
		cmocka_unit_test(operands_and_modes),
		cmocka_unit_test(operand_count),
		cmocka_unit_test(handler_refusal_and_help),
		cmocka_unit_test(help_lists_every_option_with_its_range),
		cmocka_unit_test(man_and_completion),
		cmocka_unit_test(broken_tables_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
